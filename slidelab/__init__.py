"""slidelab from Python: run searches, sweeps and studies, follow them, and read their results.

    import slidelab
    report = slidelab.report("beam-k", by="algo,k")        # what `orchestrate report beam-k --by algo,k` prints
    report.table                                           # a DataFrame, a row per group; in a notebook, a table
    rows = slidelab.results("beam-k")                      # a row per job, as `orchestrate export`

Every command of `orchestrate` is a thin layer over one of these calls
(docs/python.md). Each takes `db`, a database URL (default: the environment's
SLIDELAB_DATABASE_URL, else sqlite:///slidelab.db), and raises
`slidelab.PuzzleError` for bad input, with a one-line message. A call's
module is loaded when the call is first named, so that `solve` loads no
database library and `report` no solver.
"""

import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from slidelab.experiments import cancel, resume, split, status, sweep, sweep_plan, tune
    from slidelab.listing import algorithms, heuristics
    from slidelab.reporting import compare, report, results, verify
    from slidelab.solving import solve

__version__ = metadata.version("slidelab")
_CALLS = {
    "slidelab.experiments": ("cancel", "resume", "split", "status", "sweep", "sweep_plan", "tune"),
    "slidelab.listing": ("algorithms", "heuristics"),
    "slidelab.reporting": ("compare", "report", "results", "verify"),
    "slidelab.solving": ("solve",),
}
_MODULE_OF = {name: module for module, names in _CALLS.items() for name in names}
__all__ = ["PuzzleError", "__version__", "algorithms", "cancel", "compare", "heuristics", "report", "results", "resume",
           "solve", "split", "status", "sweep", "sweep_plan", "tune", "verify"]


def __getattr__(name: str) -> Any:
    """The call `name`, from the module that holds it (imported now, the first time)."""
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'slidelab' has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULE_OF[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_MODULE_OF])
