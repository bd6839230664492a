"""slidelab from Python: a sweep's results as a pandas DataFrame, for notebooks and scripts.

    import slidelab
    rows = slidelab.results("sqlite:///slidelab.db", "beam-k")                 # a row per job, as `orchestrate export`
    table = slidelab.results("sqlite:///slidelab.db", "beam-k", by="algo,k")   # a row per group, as `report --by algo,k`

The database is only read: nothing is created, migrated or written.
"""

from importlib import metadata

import pandas as pd

__version__ = metadata.version("slidelab")
__all__ = ["results", "__version__"]


def results(url: str, sweep: str, *, by: str | list[str] | None = None, baseline: str | None = None) -> pd.DataFrame:
    """The rows of sweep `sweep` in the results database at `url`, or with `by` their summary per group.

    Without `by`: one row per job, with the columns of `orchestrate export`
    (the job, each parameter as a column, its state and outcome, the result's
    counters and times, where it came from, the board's optimum and gap; the
    result columns are empty for a job not done yet). With `by` (column names,
    a list or a comma list such as ``"algo,k"``): the summary `orchestrate
    report --by` prints, over done jobs only, per board first where a group
    spans boards; `baseline` names an algorithm to give ratios to (see
    `orchestrator.reports.summary`). Raises `puzzles.errors.PuzzleError` for an unknown
    sweep or column, or a database that is not there.
    """
    from orchestrator.publish.outputs import column_names
    from orchestrator.reports.rows import load_rows
    from orchestrator.reports.summary import summarize
    from orchestrator.sweeps.lookups import find_sweep
    from workers.store import open_existing

    db = open_existing(url)
    rows = load_rows(db, find_sweep(db, sweep))
    if by is None:
        return rows
    groups = column_names(by, "by") if isinstance(by, str) else list(by)
    return summarize(rows, groups, baseline=baseline)
