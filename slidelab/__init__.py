"""slidelab from Python: run searches, sweeps and studies, follow them, and read their results.

    import slidelab
    report = slidelab.report("beam-k", by="algo,k")        # what `orchestrate report beam-k --by algo,k` prints
    report.table                                           # a DataFrame, a row per group; in a notebook, a table
    rows = slidelab.results("beam-k")                      # a row per job, as `orchestrate export`

Every command of `orchestrate` is a thin layer over one of these calls
(docs/python.md). Each takes `db`, a database URL (default: the environment's
SLIDELAB_DATABASE_URL, else sqlite:///slidelab.db), and raises
`slidelab.PuzzleError` for bad input, with a one-line message.
"""

from importlib import metadata

from puzzles.errors import PuzzleError
from slidelab.experiments import cancel, resume, split, status, sweep, sweep_plan, tune
from slidelab.reporting import compare, report, results, verify
from slidelab.solving import solve

__version__ = metadata.version("slidelab")
__all__ = ["PuzzleError", "__version__", "cancel", "compare", "report", "results", "resume", "solve", "split", "status",
           "sweep", "sweep_plan", "tune", "verify"]
