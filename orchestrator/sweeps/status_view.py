"""Printing experiments: the live progress bar, status lines, how a run ended, and the tables of sweeps and jobs."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from orchestrator.text import counts_text, duration_text, plain_table, progress_bar
from puzzles.algorithms import find_algorithm, param_text
from puzzles.textio import plural
from workers.store.plugins import Unserved
from workers.store.progress import CANCELLED, COMPLETE, QUEUED, STOPPED, SweepStatus, SweepSummary
from workers.store.schema import canonical_params
from workers.store.states import JobState
from workers.store.sweeps import Cancelled

if TYPE_CHECKING:  # the planner loads the puzzles and NumPy, which printing a status needs not
    from orchestrator.sweeps.driver import ExperimentStatus
    from orchestrator.sweeps.plan import SweepPlan
    from orchestrator.sweeps.running import WarmUp
    from orchestrator.sweeps.split import BoundRound, SplitResult

SAMPLE_JOBS = 5
STARTING = "starting the job processes"
FIRST_JOBS = "the first jobs run"
BAR_WIDTH = 40
REFRESHES_PER_S = 4


@contextmanager
def live_bar(console: Console, name: str, total: int, *, here: bool = False) -> Iterator[Callable[..., None]]:
    """A progress bar for the sweep, yielding `update(status, warm_up=None)` to move it.

    One line has the sweep's name, the bar, the jobs done of all and a timer;
    the next says what goes on (the kernels warming up, the pace and ETA, what
    the sweep waits for), wrapped rather than cut at the terminal's width.
    `here`: the jobs run in this process's pool, whose warm-up `warm_up` is.
    """
    progress = progress_bar(console)
    task = progress.add_task(name, total=total)
    caption = Text(STARTING if here else "")
    try:
        with Live(Group(progress, caption), console=console, refresh_per_second=REFRESHES_PER_S):

            def update(status: SweepStatus, warm_up: "WarmUp | None" = None) -> None:
                progress.update(task, completed=status.finished, total=status.total)
                caption.plain = warm_up_text(warm_up) if warm_up else caption_text(status, here)

            yield update
    finally:
        if not console.is_terminal:  # rich leaves the caption's line open in a file or pipe: a later line would join it
            console.line()


def caption_text(status: SweepStatus, here: bool) -> str:
    """What a sweep does, under its bar: its `pace`, and the jobs that wait for a worker with their plugins; in this
    process's pool, the first jobs running until one is done."""
    if here and not status.jobs_per_s and not status.complete:
        return FIRST_JOBS
    return "; ".join(filter(None, (pace(status), *map(unserved_text, status.unserved))))


def warm_up_text(warm_up: "WarmUp") -> str:
    """`kernels 1 of 3 ready; compiling astar blockers-lb on rushhour (...)`: the local pool's warm-up, a kind of job
    (domain, algorithm, heuristic) at a time in each job process."""
    ready = f"kernels {warm_up.ready} of {len(warm_up.jobs)} ready"
    if not warm_up.under_way:
        return ready
    kinds = ", ".join(" ".join(filter(None, (job.algorithm, job.params.get("heuristic"), "on", job.domain)))
                      for job in warm_up.under_way)
    seconds = max(find_algorithm(job.algorithm).compile_s for job in warm_up.under_way)
    return f"{ready}; compiling {kinds} (the first run on a machine: about {seconds} s; later runs load them)"


def pace(status: SweepStatus) -> str:
    """What a sweep is doing: `12.3 jobs/s, ETA 0:01:05` while jobs finish, else what it waits for, or has stopped at."""
    if status.phase in (STOPPED, CANCELLED):
        return stopped_text(status)
    if status.phase == QUEUED:
        return f"queued: {plural(status.states.get(JobState.QUEUED, 0), 'job')} waiting for a worker (orchestrate worker)"
    if status.phase == COMPLETE:
        return ""
    if not status.jobs_per_s:
        return "waiting for the first results (a worker's first run compiles the kernels: about a minute)"
    eta = f", ETA {timedelta(seconds=round(status.eta_s))}" if status.eta_s else ""
    return rate_text(status.jobs_per_s) + eta


def rate_text(jobs_per_s: float) -> str:
    """`12.3 jobs/s`, or `4.5 jobs/min` below one a second."""
    return f"{jobs_per_s * 60:,.1f} jobs/min" if jobs_per_s < 1 else f"{jobs_per_s:,.1f} jobs/s"


def stopped_text(status: SweepStatus) -> str:
    """`stopped: 12 of 350 done; continue with: orchestrate resume NAME` (or `cancelled: ...`), with the jobs whose
    worker is gone."""
    gone = f" ({plural(status.lapsed, 'running job')} lost their worker: their lease lapsed)" if status.lapsed else ""
    again = f"orchestrate tune --name {status.name} and the study's other options" if status.study else \
        f"orchestrate resume {status.name}"
    return f"{status.phase}: {status.finished:,} of {status.total:,} done{gone}; continue with: {again}"


def cancel_text(name: str, cancelled: Cancelled, heartbeat_s: float) -> str:
    """What `orchestrate cancel` did at once: the waiting jobs cancelled, the running ones left to their workers to stop.

    A running job whose result comes before its worker stops it is done, not
    cancelled: how many end cancelled is known once the workers have stopped
    them (`ended_text`).
    """
    if not cancelled.waiting and not cancelled.running:
        return f"sweep {name}: no job to cancel (none is waiting or running)"
    parts = [f"{plural(cancelled.waiting, 'waiting job')} cancelled"] if cancelled.waiting else []
    if cancelled.running:
        parts.append(f"{plural(len(cancelled.running), 'running job')} stopped by their workers within {heartbeat_s:g} s"
                     " (one that finishes first keeps its result)")
    return f"sweep {name}: {'; '.join(parts)}; run them later with: orchestrate resume {name}"


def ended_text(name: str, cancelled: Cancelled, stopped: int) -> str:
    """The jobs that ended cancelled, once the workers have stopped `stopped` of the running ones."""
    finished = len(cancelled.running) - stopped
    first = f" ({finished:,} of the {len(cancelled.running):,} running finished first, with their result)" if finished else ""
    return f"sweep {name}: {plural(cancelled.waiting + stopped, 'job')} ended cancelled{first}"


def run_text(ended: "ExperimentStatus") -> str:
    """How a run ended: the jobs queued on a broker (and how to follow them when not waited for), else its status."""
    if ended.broker is None:
        return status_text(ended.status)
    queued = f"queued {plural(ended.queued, 'job')} in {plural(ended.messages, 'message')} on {ended.broker}"
    if not ended.waited:
        return f"{queued}\nfollow with: orchestrate status {ended.experiment.name} --watch"
    return f"{queued}\n{status_text(ended.status)}"


def bound_text(bound: "BoundRound") -> str:
    """One bound of a split search: `bound 45: 27 subtrees in sweep s12; expanded 1,234 (work 2,345) in 0.4 s`."""
    finer = f" ({bound.deeper:,} of depth {bound.depth} split further)" if bound.deeper else ""
    where = f"{bound.subtrees:,} subtrees{finer} in sweep {bound.experiment}" if bound.experiment else "searched here"
    return f"bound {bound.bound}: {where}; expanded {bound.expanded:,} (work {bound.work:,}) in {bound.seconds:.1f} s"


def split_text(found: "SplitResult") -> str:
    """A split search's answer, with one core's node counts and all the work."""
    return (f"{found.board}: solved in {found.moves} moves with {found.params['heuristic']}, split at depth {found.depth}"
            f" over {sum(r.subtrees for r in found.rounds):,} subtree jobs in {len(found.rounds)} bounds;"
            f" expanded {found.expanded:,}, generated {found.generated:,} (as one core); work {found.work:,};"
            f" {found.seconds:.1f} s")


def trial_text(trial: Any, outcome: str) -> str:
    """One trial (an `optuna.trial.FrozenTrial`), as told: `trial 3 complete: 12.3 (w_exit=3, ...)`."""
    params = ", ".join(param_text(name, value) for name, value in trial.params.items())
    values = ", ".join(f"{value:.4g}" for value in trial.values or [])
    shown = f": {values}" if values else ""
    if outcome == "pruned":
        shown = (f" after {plural(len(trial.intermediate_values), 'board')}"
                 f" ({plural(trial.user_attrs.get('cancelled_jobs', 0), 'job')} cancelled)")
    elif outcome == "fail":
        shown = f": {trial.user_attrs.get('failure', '')}"
    return f"trial {trial.number} {outcome}{shown} ({params})"


def status_text(status: SweepStatus, database: str | None = None) -> str:
    """The sweep's counts as labelled lines, with the database they were read from."""
    share = status.finished / status.total if status.total else 1.0
    filled = round(share * BAR_WIDTH)
    lines = [f"database: {database}"] if database else []
    lines += [
        f"sweep:    {status.name} ({status.phase})",
        f"progress: {'█' * filled}{'░' * (BAR_WIDTH - filled)} {share:.0%}",
        f"jobs:     {status.finished:,} of {status.total:,} done  " + counts_text(status.states),
        f"outcomes: {counts_text(status.outcomes) or '-'}",
    ]
    if status.phase != COMPLETE:
        lines.append(f"pace:     {pace(status)}")
    lines += [f"waiting:  {unserved_text(waiting)}" for waiting in status.unserved]
    if status.hosts:
        lines.append(f"hosts:    {counts_text(status.hosts)}")
    return "\n".join(lines)


def unserved_text(waiting: Unserved) -> str:
    """`12 jobs wait for a worker with greedy-search 0.2.0 (workers have greedy-search 0.1.0)`: jobs whose plugins no
    live worker has, and the other versions of those plugins that live workers have."""
    shown = {plugin_label(key) for key in waiting.plugins} & {plugin_label(key) for key in waiting.others}
    needed = " and ".join(plugin_label(key, sources=plugin_label(key) in shown) for key in waiting.plugins)
    others = ", ".join(plugin_label(key, sources=plugin_label(key) in shown) for key in waiting.others)
    verb = "waits" if waiting.jobs == 1 else "wait"
    return f"{plural(waiting.jobs, 'job')} {verb} for a worker with {needed}" + (f" (workers have {others})" if others else "")


def plugin_label(key: str, *, sources: bool = False) -> str:
    """`greedy-search 0.2.0` for the plugin key `greedy-search==0.2.0#3f2a9c1b07de`; with `sources`, `greedy-search
    0.2.0 (sources 3f2a9c1b07de)`, which tells apart two builds of one version."""
    distribution, _, rest = key.partition("==")
    version, _, digest = rest.partition("#")
    return f"{distribution} {version}" + (f" (sources {digest})" if sources else "")


def plan_text(plan: "SweepPlan") -> str:
    """The size of a planned grid and a few of its jobs (for --dry-run)."""
    names = {board.id: board.name or board.id[:12] for board in plan.boards}
    lines = [f"sweep {plan.name}: {plural(len(plan.jobs), 'job')} on {plural(len(plan.boards), 'board')}"]
    for job in plan.jobs[:SAMPLE_JOBS]:
        seed = f" seed={job.seed}" if job.seed is not None else ""
        lines.append(f"  {names[job.board_id]}  {job.algorithm} {canonical_params(job.params)}{seed} repeat={job.repeat}")
    if len(plan.jobs) > SAMPLE_JOBS:
        lines.append(f"  ... and {len(plan.jobs) - SAMPLE_JOBS:,} more")
    return "\n".join(lines)


def sweeps_table(sweeps: list[SweepSummary]) -> Table:
    """One row per sweep, newest first: its jobs, those done, and their outcomes."""
    table = plain_table()
    for column in ("sweep", "created", "jobs", "done", "outcomes"):
        table.add_column(column, justify="right" if column in ("jobs", "done") else "left")
    for sweep in sweeps:
        created = sweep.created_at.strftime("%Y-%m-%d %H:%M")
        table.add_row(sweep.name, created, f"{sweep.total:,}", f"{sweep.finished:,}", counts_text(sweep.outcomes) or "-")
    return table


def jobs_table(rows: list[dict]) -> Table:
    """One row per job: its outcome (or its state while not done), moves, time, host and any error."""
    table = plain_table()
    for column in ("id", "board", "algorithm", "seed", "status", "moves", "time", "host", "error / reason"):
        table.add_column(column, justify="right" if column in ("id", "seed", "moves", "time") else "left")
    for row in rows:
        elapsed = duration_text(row["elapsed_s"]) if row["elapsed_s"] is not None else None
        status = row["outcome"] if row["state"] == JobState.DONE else row["state"]
        values = (row["id"], row["board"], algorithm_text(row["algorithm"], row["params"]), row["seed"], status,
                  row["moves"], elapsed, row["host"], row["error"])
        table.add_row(*("" if value is None else str(value) for value in values))
    return table


def params_text(params: dict[str, Any]) -> str:
    """A job's parameters as `heuristic=blockers k=5 w_exit=3` (`-` for none)."""
    return " ".join(param_text(name, value) for name, value in params.items()) or "-"


def algorithm_text(algorithm: str, params: dict[str, Any]) -> str:
    """`beam heuristic=blockers-lb k=10`: the algorithm and every parameter of the job as it ran, defaults too."""
    return f"{algorithm} {params_text(params)}" if params else algorithm


