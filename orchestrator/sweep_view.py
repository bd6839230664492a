"""Printing sweeps: the live progress bar, status lines, and the tables of sweeps and jobs."""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from orchestrator.plan import SweepPlan
from orchestrator.progress import SweepStatus, SweepSummary
from puzzles.solver import algorithm_spec
from workers.store import FINAL

SAMPLE_JOBS = 5
BAR_WIDTH = 40


@contextmanager
def live_bar(console: Console, name: str, total: int) -> Iterator[callable]:
    """A progress bar for the sweep; yields `update(status)` to move it."""
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[pace]}"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task(name, total=total, pace="")

        def update(status: SweepStatus) -> None:
            progress.update(task, completed=status.finished, total=status.total, pace=pace(status))

        yield update


def pace(status: SweepStatus) -> str:
    """`12.3 jobs/s, ETA 0:01:05`, or nothing before the first result."""
    if not status.jobs_per_s:
        return ""
    eta = f", ETA {timedelta(seconds=round(status.eta_s))}" if status.eta_s else ""
    if status.jobs_per_s < 1:
        return f"{status.jobs_per_s * 60:,.1f} jobs/min{eta}"
    return f"{status.jobs_per_s:,.1f} jobs/s{eta}"


def status_text(status: SweepStatus) -> str:
    """The sweep's counts as labelled lines."""
    share = status.finished / status.total if status.total else 1.0
    filled = round(share * BAR_WIDTH)
    lines = [
        f"sweep:    {status.name}",
        f"progress: {'█' * filled}{'░' * (BAR_WIDTH - filled)} {share:.0%}",
        f"jobs:     {status.finished:,} of {status.total:,} finished  " + _counts(status.jobs),
        f"results:  {_counts(status.results) or '-'}",
    ]
    if status.jobs_per_s:
        lines.append(f"pace:     {pace(status)}")
    if status.hosts:
        lines.append(f"hosts:    {_counts(status.hosts)}")
    return "\n".join(lines)


def plan_text(plan: SweepPlan) -> str:
    """The size of a planned grid and a few of its jobs (for --dry-run)."""
    names = {board.id: board.name or board.id[:12] for board in plan.boards}
    lines = [f"sweep {plan.name}: {len(plan.jobs):,} jobs on {len(plan.boards)} boards"]
    for job in plan.jobs[:SAMPLE_JOBS]:
        seed = f" seed={job['seed']}" if job["seed"] is not None else ""
        lines.append(f"  {names[job['board_id']]}  {job['algorithm']} {job['params']}{seed} repeat={job['repeat']}")
    if len(plan.jobs) > SAMPLE_JOBS:
        lines.append(f"  ... and {len(plan.jobs) - SAMPLE_JOBS:,} more")
    return "\n".join(lines)


def sweeps_table(sweeps: list[SweepSummary]) -> Table:
    """One row per sweep, newest first."""
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("sweep", "created", "jobs", "finished", "failed"):
        table.add_column(column, justify="right" if column in ("jobs", "finished", "failed") else "left")
    for sweep in sweeps:
        created = sweep.created_at.strftime("%Y-%m-%d %H:%M")
        table.add_row(sweep.name, created, f"{sweep.total:,}", f"{sweep.finished:,}", f"{sweep.failed:,}")
    return table


def jobs_table(rows: list[dict]) -> Table:
    """One row per job: its result (or job status while unfinished), moves, time, host and any error."""
    table = Table(box=box.SIMPLE_HEAD)
    for column in ("id", "board", "algorithm", "seed", "status", "moves", "time", "host", "error / reason"):
        table.add_column(column, justify="right" if column in ("id", "seed", "moves", "time") else "left")
    for row in rows:
        elapsed = f"{row['elapsed_s']:.3f}s" if row["elapsed_s"] is not None else None
        status = row["result"] if row["status"] in FINAL else row["status"]
        values = (row["id"], row["board"], _algorithm_text(row["algorithm"], row["params"]), row["seed"], status,
                  row["moves"], elapsed, row["host"], row["error"])
        table.add_row(*("" if value is None else str(value) for value in values))
    return table


def _algorithm_text(algorithm: str, params: str) -> str:
    """`beam k=5 heuristic=blockers-lb`: the parameters that differ from the algorithm's defaults."""
    defaults = algorithm_spec(algorithm).params
    given = [f"{name}={value}" for name, value in json.loads(params).items() if value != defaults[name].default]
    return " ".join([algorithm, *given])


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items(), key=lambda item: -item[1]))
