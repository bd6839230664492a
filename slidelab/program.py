"""The `orchestrate` program's first step: the plugins, before the command line is built from what they declare.

A plugin's parameters are options of solve, sweep and tune, so the installed
plugins, and a plugin file that `--algo path/to/file.py:name` names, are
registered before the commands are. A broken plugin stops here with one line,
exit 2.
"""

import sys

from puzzles.errors import PuzzleError


def run() -> None:
    """Register the plugins, then run the command line (`orchestrator.cli.run`)."""
    from puzzles.plugins import loaded_file_names
    from puzzles.registry import loaded

    try:
        loaded()
        loaded_file_names(sys.argv[1:])
    except PuzzleError as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        raise SystemExit(2) from None
    from orchestrator.cli import run as command_line

    command_line()
