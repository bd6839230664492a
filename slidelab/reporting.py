"""Reading results: a sweep's report, sweeps compared, and the rows behind them as DataFrames."""

from __future__ import annotations

from typing import TYPE_CHECKING

from slidelab.connection import DbArg, database

if TYPE_CHECKING:
    from collections.abc import Callable

    import pandas as pd

    from orchestrator.publish.document import Report
    from orchestrator.reports.study import StudyReport
    from orchestrator.reports.verify import Verification


def report(sweep: str, *, db: DbArg = None, by: str | list[str] | None = None,
           baseline: str | None = None) -> Report | StudyReport:
    """The report of `sweep`: its summary per group, as `orchestrate report` prints it; of a study, its best trials.

    `by`: the columns to group by (a list, or a comma list such as ``"algo,k"``;
    default: algorithm, params, board). `baseline`: an algorithm of the sweep,
    to give each group's moves, nodes and time as ratios to. The `Report` has
    the table (`.table`, a DataFrame), its notes (`.notes`), the job rows
    (`.rows`), and writes itself as Markdown, LaTeX, an HTML page or plots; a
    notebook shows it as a table. PuzzleError for an unknown sweep or column.
    """
    from orchestrator.publish.outputs import sweep_report
    from orchestrator.reports.study import is_study, study_report
    from orchestrator.sweeps.lookups import find_sweep

    results = database(db, existing=True)
    found = find_sweep(results, sweep)
    if is_study(found):
        return study_report(results, found)
    return sweep_report(results, sweep, by=_columns(by), baseline=baseline)


def compare(*sweeps: str, db: DbArg = None, by: str | list[str] | None = None) -> Report:
    """Two or more sweeps side by side, the first the reference, as `orchestrate compare` prints them.

    Per group each sweep's figures over the units every sweep solved, its
    ratio to the first and the q-value of the difference; a study takes part
    with its best trial. `by`: the columns to line the sweeps up on (default:
    those they share and vary in).
    """
    from orchestrator.publish.outputs import comparison_report

    return comparison_report(database(db, existing=True), list(sweeps), by=_columns(by))


def results(sweep: str, *, db: DbArg = None, by: str | list[str] | None = None,
            baseline: str | None = None) -> pd.DataFrame:
    """The rows of `sweep`, one per job, or with `by` their summary per group.

    Without `by`: the columns of `orchestrate export` (the job, each parameter
    as a column, its state and outcome, the result's counters and times,
    where it came from, the board's optimum and gap; the result columns are
    empty for a job not done yet). With `by`: the table of `report(...)`, every
    column with raw values, as `orchestrate report --format csv` writes it.
    """
    from orchestrator.publish.outputs import sweep_report, sweep_rows

    results = database(db, existing=True)
    if by is None:
        return sweep_rows(results, sweep)
    return sweep_report(results, sweep, by=_columns(by), baseline=baseline).table


def verify(sweep: str, *, sample: int | None = None, sample_seed: int = 0, workers: int = 1, db: DbArg = None,
           on_progress: Callable[[int, int], None] | None = None) -> Verification:
    """Run the sweep's done jobs again (`sample` of them drawn at random with `sample_seed`; default all), as workers
    run them, and compare each result with the one stored: outcome, moves, steps, node counts, solution.

    Writes nothing. `on_progress` gets (jobs run again so far, jobs to run).
    The `Verification` says whether everything matched (`ok`), what differed
    and which results came from another code version than this one.
    """
    from orchestrator.reports.verify import select_jobs
    from orchestrator.reports.verify import verify as run_again
    from orchestrator.sweeps.lookups import find_sweep

    results = database(db, existing=True)
    selection = select_jobs(results, find_sweep(results, sweep), sample=sample, sample_seed=sample_seed)
    return run_again(results, selection, workers=workers, progress=on_progress)


def _columns(by: str | list[str] | None) -> str | None:
    return ",".join(by) if isinstance(by, list) else by
