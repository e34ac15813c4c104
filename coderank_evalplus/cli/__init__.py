"""The console script ``coderank-evalplus``: argparse front ends of the package, one module per sub-command.

``console`` builds the parser and dispatches; ``options`` holds the flags ``rerank`` and ``run`` share; ``run``
holds ``run`` (sample, then rerank) and ``likelihood``; ``leaderboard`` the suite command. Modules here may import
anything in the package; nothing in the package imports them (``integrations.evalplus`` adds its own parser to
``console``'s, not the other way round).
"""


def main(argv=None) -> int:
    """The console script (``coderank_evalplus.cli.console.main``), imported when called."""
    from coderank_evalplus.cli.console import main as console_main

    return console_main(argv)
