"""The evalplus and lm-eval releases this package works with, and the one-line message when an older one is found.

The floors are those of ``pyproject.toml`` and of the compatibility matrix (``tools/compat_matrix.py``,
docs/harnesses.md), and the reasons are these:

* evalplus 0.3.1: ``evalplus.evaluate`` is a Fire function that ``--rerank`` widens (0.2.x parses its own argparse
  flags); the judge follows 0.3.1's MBPP+ oracles (``MBPP_OUTPUT_SET_EQ_TASKS``, absent from 0.2.x) and its
  memory limit (``query_maximum_memory_bytes``), and reads the HumanEval+ v0.1.10 / MBPP+ v0.2.0 releases.
* lm-eval 0.4.9: the task options go through lm-eval's ``--metadata`` flag (added in 0.4.9) and the tasks
  execute generated code only under ``--confirm_run_unsafe_code`` (0.4.8's ``unsafe_code``).

Only the distribution metadata is read (``importlib.metadata``): nothing of evalplus or lm-eval is imported.
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import Optional

EVALPLUS_MIN = "0.3.1"
LM_EVAL_MIN = "0.4.9"
EVALPLUS_RANGE = f">={EVALPLUS_MIN},<0.4"
LM_EVAL_RANGE = f">={LM_EVAL_MIN},<0.5"
_WHY = {
    "evalplus": "evalplus.evaluate as a Fire function, the MBPP+ v0.2.0 oracles",
    "lm-eval": "lm-eval's --metadata and --confirm_run_unsafe_code flags",
}


def parse_version(text: str) -> tuple[int, ...]:
    """The leading release numbers of a version (``"0.4.9.2"`` → (0, 4, 9, 2), ``"0.3.1.dev2"`` → (0, 3, 1))."""
    m = re.match(r"\s*v?(\d+(?:\.\d+)*)", text)
    if m is None:
        raise ValueError(f"not a version: {text!r}")
    return tuple(int(x) for x in m.group(1).split("."))


def installed_version(dist: str) -> Optional[str]:
    """The installed version of distribution ``dist``, or None when it is not installed."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def too_old(dist: str, minimum: str, version: Optional[str] = None) -> Optional[str]:
    """The message when ``dist`` (installed, or ``version``) is older than ``minimum``; None when it is fine or
    not installed (or its version cannot be read)."""
    version = installed_version(dist) if version is None else version
    if version is None:
        return None
    try:
        if parse_version(version) >= parse_version(minimum):
            return None
    except ValueError:
        return None
    spec = EVALPLUS_RANGE if dist == "evalplus" else LM_EVAL_RANGE
    return (f"coderank_evalplus needs {dist} >= {minimum} ({_WHY.get(dist, 'its API')}); {dist} {version} is "
            f"installed: pip install '{dist}{spec}'")


def evalplus_too_old(version: Optional[str] = None) -> Optional[str]:
    return too_old("evalplus", EVALPLUS_MIN, version)


def lm_eval_too_old(version: Optional[str] = None) -> Optional[str]:
    return too_old("lm-eval", LM_EVAL_MIN, version)


