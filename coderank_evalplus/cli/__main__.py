"""``python -m coderank_evalplus.cli …`` runs the console script."""

import sys

from coderank_evalplus.cli.console import main

sys.exit(main())
