"""Sweeps: `sweep`, `sweep show`, `resume`, `cancel`, `status`, `sweeps`, `sweeps delete`, `jobs`, `job` and `worker`."""

import contextlib
import dataclasses
import json
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from orchestrator.cli.options import (
    CORES,
    BrokerOption,
    ChunkOption,
    DbOption,
    GoalOption,
    JsonOption,
    MaxNodesOption,
    MemoryLimitOption,
    SweepArgument,
    TimeLimitOption,
    WaitOption,
    WorkersOption,
    configured,
    existing_database,
    fail,
    print_json,
    print_table,
    user_errors,
    with_parameters,
    write_file,
)
from orchestrator.sweeps.grid import flag_name
from puzzles.algorithms import OFFERED
from puzzles.errors import PuzzleError
from puzzles.textio import plural
from workers.store.states import JobState, Outcome, parse_status

app = typer.Typer()
STATUS_WORDS = (*JobState, *Outcome)
T = TypeVar("T")
PluginChangedOption = Annotated[
    str | None,
    typer.Option("--plugin-changed", metavar="rerun|keep",
                 help="Done jobs that another version of their plugin made (a plugin changed since they ran): run them"
                 " again (rerun) or keep their results (keep). Without it, such jobs stop the sweep, named."),
]


@app.command("sweep")
@with_parameters(grid=True)
def sweep_command(
    more_boards: Annotated[
        list[str] | None, typer.Argument(metavar="BOARDS", help="More boards, after those of --boards.", show_default=False)
    ] = None,
    algo: Annotated[
        str | None, typer.Option("--algo", help="Algorithms, comma separated: " + ", ".join(OFFERED) + ".")
    ] = None,
    params: dict[str, Any] | None = None,
    boards: Annotated[
        list[str] | None,
        typer.Option(
            "--boards",
            help="Board files, N-puzzle board lists (CSV with a tiles column; FILE#ID for one row), directories, globs,"
            " literal boards or board sets (set:NAME); more may follow.",
        ),
    ] = None,
    goal: GoalOption = None,
    repeat: Annotated[int, typer.Option(min=1, max=1_000_000, help="Runs per grid point (seeds derived from the job for random ones).")] = 1,
    seeds: Annotated[str | None, typer.Option(help="Seeds of the randomized algorithms, e.g. 1..10.")] = None,
    from_spec: Annotated[
        Path | None,
        typer.Option("--from-spec", help="Run the sweep a spec file defines (from: orchestrate sweep show NAME --spec)."),
    ] = None,
    name: Annotated[str | None, typer.Option(help="Sweep name; default: derived from the grid, or the spec's.")] = None,
    time_limit: TimeLimitOption = None,
    memory_limit: MemoryLimitOption = None,
    max_nodes: MaxNodesOption = None,
    wait: WaitOption = False,
    rerun: Annotated[bool, typer.Option("--rerun", help="Run done jobs of the grid again.")] = False,
    extend: Annotated[
        bool, typer.Option("--extend", help="Add this grid's jobs to the sweep of that --name even if its grid differs.")
    ] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the grid size and a sample of jobs; write nothing.")] = False,
    plugin_changed: PluginChangedOption = None,
    workers: WorkersOption = CORES,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Run every algorithm with every combination of parameter values on every board.

    Parameters are given as --NAME VALUES, with VALUES a comma list of numbers, words and ranges (1..50,
    1..50:5); each algorithm gets only the parameters it takes. Without a broker the jobs run here, in a pool
    of processes; with one, they are queued for `orchestrate worker` processes. Running the same sweep again
    adds only the jobs it lacks; a name names one grid, so another grid under it is refused unless --extend
    adds its jobs to that sweep. `--from-spec FILE` runs a sweep exported by `orchestrate sweep show NAME
    --spec` again: under its own name it fills the gaps, under --name a new one. `orchestrate sweep show
    SWEEP` describes a sweep.

    Example: orchestrate sweep --algo beam --k 1..50 --heuristic blockers --boards data/boards/rushhour/
    """
    from orchestrator.sweeps import status_view
    from slidelab import experiments

    with user_errors():
        configured(db, broker)
        if from_spec is not None:
            _check_no_grid_options({"--algo": algo, "--boards": boards or more_boards, "--goal": goal,
                                    "--repeat": repeat != 1 or None, "--seeds": seeds, "--time-limit": time_limit,
                                    "--memory-limit": memory_limit, "--max-nodes": max_nodes,
                                    **{flag_name(p): v for p, v in (params or {}).items()}})
        plan = experiments.sweep_plan(algo, params, (boards or []) + (more_boards or []), name=name, goal=goal,
                                      repeat=repeat, seeds=seeds, time_limit=time_limit, max_nodes=max_nodes,
                                      memory_limit=memory_limit, from_spec=from_spec, db=db, write=not dry_run)
        if dry_run:
            typer.echo(status_view.plan_text(plan))
            return
    progress = LiveProgress(wait)
    ended = interruptible(lambda: experiments.sweep(
        plan, workers=workers, chunk=chunk, wait=wait, rerun=rerun, extend=extend, plugin_changed=plugin_changed, db=db,
        broker=broker,
        on_stored=lambda s: typer.echo(f"sweep {s.name}: {plural(s.jobs, 'job')}, {s.added:,} new"),
        on_progress=progress, on_note=progress.note), plan.name, shown=progress)
    typer.echo(status_view.run_text(ended))


def _check_no_grid_options(given: dict[str, Any]) -> None:
    """PuzzleError naming the grid, board and limit options given beside --from-spec (the spec gives them all)."""
    named = [option for option, value in given.items() if value is not None]
    if named:
        raise PuzzleError(f"--from-spec gives the grid, boards and limits: drop {', '.join(named)}")


class LiveProgress:
    """The live progress bar of an experiment on stderr, started at its first update (the lines printed before it stay
    on stdout) and closed on exit; none when its jobs are only queued (`wait` false with a broker)."""

    def __init__(self, wait: bool = True) -> None:
        from workers.settings import settings

        self.broker = bool(settings().broker_url)
        self.shown = wait or not self.broker
        self._stack = contextlib.ExitStack()
        self._update: Any = None
        self._console: Any = None

    def __call__(self, status: Any, warm_up: Any = None) -> None:
        """Move the bar to the experiment's `status` (and a local pool's warm-up)."""
        from rich.console import Console

        from orchestrator.sweeps import status_view

        if not self.shown:
            return
        if self._update is None:
            self._console = Console(stderr=True)
            self._update = self._stack.enter_context(
                status_view.live_bar(self._console, status.name, status.total, here=not self.broker))
        self._update(status, warm_up)

    def note(self, line: str) -> None:
        """A line about the run (the database stopped answering), on stderr."""
        typer.echo(line, err=True)

    def __enter__(self) -> "LiveProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()


@app.command("sweep-show", hidden=True)
def sweep_show_command(
    sweep_name: SweepArgument,
    as_spec: Annotated[
        bool, typer.Option("--spec", help="Print the sweep's definition as JSON, for: orchestrate sweep --from-spec FILE.")
    ] = False,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Describe a sweep: its grid, limits, boards, jobs, the code, software and hosts its results came from, and the
    plugins (package, version, source hash) its jobs run.

    Example: orchestrate sweep show beam-k --spec > beam-k.json
    """
    from orchestrator.sweeps import provenance_view, spec_file
    from orchestrator.sweeps.lookups import find_sweep
    from workers.store.progress import sweep_provenance, sweep_status
    from workers.store.sweeps import plugin_jobs

    with user_errors():
        results = existing_database(db)
        sweep = find_sweep(results, sweep_name)
        if as_spec:
            typer.echo(json.dumps(spec_file.export_spec(results, sweep), indent=1))
            return
        status, origins = sweep_status(results, sweep), sweep_provenance(results, sweep)
        plugins = plugin_jobs(results, sweep.id)
    if as_json:
        print_json({**dataclasses.asdict(sweep), "status": status.to_dict(), "origins": origins,
                    "plugins": [dataclasses.asdict(group) for group in plugins]})
        return
    typer.echo(provenance_view.sweep_text(sweep, status, origins, plugins))


@app.command("resume")
def resume_command(
    sweep_name: SweepArgument,
    wait: WaitOption = False,
    workers: WorkersOption = CORES,
    chunk: ChunkOption = None,
    force: Annotated[
        bool, typer.Option("--force", help="Also run again the jobs live workers hold (they may run twice; the first"
                           " result is kept).")
    ] = False,
    plugin_changed: PluginChangedOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Go on with an experiment of any kind: a sweep runs (or queues again) its jobs that have no result and that no
    live worker holds, a study goes on to its trial count, a split search from its bounds (jobs done are kept).

    For an experiment stopped by Ctrl-C or a crash, cancelled, or whose queue Redis lost. A job a worker is running
    keeps running there (its lease is renewed while the worker lives); --force runs it again anyway.

    Example: orchestrate resume beam-k
    """
    from orchestrator.sweeps import status_view
    from slidelab import experiments

    with user_errors():
        configured(db, broker)
    progress = LiveProgress(wait)
    resumed = interruptible(lambda: experiments.resume(
        sweep_name, workers=workers, chunk=chunk, force=force, wait=wait, plugin_changed=plugin_changed, db=db,
        broker=broker,
        on_round=lambda r: typer.echo(status_view.bound_text(r)), on_told=_told, on_progress=progress), sweep_name,
        shown=progress)
    typer.echo(resumed_text(resumed))


def resumed_text(resumed: Any) -> str:
    """What a resume did (`slidelab.experiments.Resumed`): the jobs it ran again or left held, then how it ended."""
    from orchestrator.sweeps import status_view

    lines = [f"{plural(resumed.uncancelled, 'cancelled job')} run again"] if resumed.uncancelled else []
    if resumed.held:
        lines.append(f"{plural(resumed.held, 'job')} held by live workers: left to them (--force runs them again)")
    if resumed.split is not None and resumed.split.moves is not None:
        lines.append(status_view.split_text(resumed.split))
    return "\n".join([*lines, status_view.run_text(resumed.ended)])


def _told(trial: Any, outcome: str) -> None:
    from orchestrator.sweeps import status_view

    typer.echo(status_view.trial_text(trial, outcome))


@app.command("cancel")
def cancel_command(
    sweep_name: SweepArgument,
    wait: Annotated[bool, typer.Option("--wait", help="Return once the workers have stopped the running jobs, saying how"
                                       " many jobs ended cancelled.")] = False,
    db: DbOption = None,
) -> None:
    """Cancel a sweep: its waiting jobs never start, its running ones are stopped by their workers within a heartbeat.

    A running job whose result comes first is done, not cancelled: --wait counts the jobs that ended cancelled.

    The jobs keep no result (their state is cancelled, not an outcome), so reports leave them out;
    `orchestrate resume SWEEP` runs them later. Results stored before stay.

    Example: orchestrate cancel beam-k --wait
    """
    from orchestrator.sweeps.status_view import cancel_text, ended_text
    from slidelab import experiments
    from workers.settings import settings

    with user_errors():
        done = experiments.cancel(sweep_name, db=db, wait=wait, on_cancelled=lambda c: typer.echo(
            cancel_text(c.experiment.name, c.cancelled, settings().heartbeat_seconds)))
    if done.ended_cancelled is not None and done.cancelled.running:
        typer.echo(ended_text(done.experiment.name, done.cancelled, done.ended_cancelled))


@app.command("sweeps-delete", hidden=True)
def sweeps_delete_command(
    sweep_name: SweepArgument,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask.")] = False,
    db: DbOption = None,
) -> None:
    """Delete a sweep with its jobs and their results; its boards, and every other sweep, stay. Asks unless --yes.

    Refused while jobs of it run: cancel it first (orchestrate cancel SWEEP --wait).

    Example: orchestrate sweeps delete beam-k --yes
    """
    from orchestrator.sweeps.lookups import find_sweep
    from workers.store.progress import sweep_status
    from workers.store.sweeps import delete_sweep

    with user_errors():
        results = existing_database(db)
        sweep = find_sweep(results, sweep_name)
        current = sweep_status(results, sweep)
        if not yes and not _confirmed(f"delete sweep {sweep.name}: {plural(current.total, 'job')},"
                                      f" {plural(sum(current.outcomes.values()), 'result')}?"):
            fail("nothing deleted (--yes deletes without asking)", 1)
        removed_jobs, removed_results = delete_sweep(results, sweep)
    typer.echo(f"deleted sweep {sweep.name}: {plural(removed_jobs, 'job')}, {plural(removed_results, 'result')}"
               " (its boards stay)")


@app.command("status")
def status_command(
    sweep_name: Annotated[str | None, typer.Argument(metavar="[SWEEP]", help="The sweep; default: the newest.")] = None,
    watch: Annotated[
        bool,
        typer.Option("--watch", help="Follow the progress until every job is done, re-queueing the jobs of lost workers."),
    ] = False,
    as_json: JsonOption = False,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Jobs per lifecycle state and outcome, progress, throughput, ETA and jobs per worker host.

    Example: orchestrate status beam-k --watch
    """
    from orchestrator.sweeps import status_view
    from slidelab import experiments

    with user_errors():
        results = existing_database(db, broker)
        with LiveProgress() if watch and not as_json else contextlib.nullcontext() as progress:
            current = experiments.status(sweep_name, watch=watch and not as_json, db=results, on_progress=progress,
                                         on_note=progress.note if progress else None)
    if as_json:
        print_json({**current.to_dict(), "database": results.shown_url})
    else:
        typer.echo(status_view.status_text(current, results.shown_url))


@app.command("sweeps")
def sweeps_command(as_json: JsonOption = False, db: DbOption = None) -> None:
    """List the sweeps of a database, newest first, with their jobs, those done and their outcomes.

    Example: orchestrate sweeps --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    from orchestrator.sweeps import status_view
    from workers.store.progress import list_sweeps

    with user_errors():
        results = existing_database(db)
        rows = list_sweeps(results)
    if as_json:
        print_json({"database": results.shown_url, "sweeps": rows})
        return
    typer.echo(f"database: {results.shown_url}")
    print_table(status_view.sweeps_table(rows))


@app.command("jobs")
def jobs_command(
    sweep_name: SweepArgument,
    status: Annotated[
        str | None,
        typer.Option(help=f"Only jobs in this lifecycle state or with this outcome: {', '.join(STATUS_WORDS)}."),
    ] = None,
    limit: Annotated[int, typer.Option(min=1, max=10**9, help="List at most this many jobs.")] = 50,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """List a sweep's jobs with their outcomes and errors.

    Example: orchestrate jobs beam-k --status failed
    """
    from orchestrator.sweeps import status_view
    from orchestrator.sweeps.lookups import find_sweep
    from workers.store.progress import list_jobs

    with user_errors():
        wanted = None if status is None else parse_status(status)
        if status is not None and wanted is None:
            raise PuzzleError(f"--status: {status!r} is neither a job state nor an outcome (choose from {', '.join(STATUS_WORDS)})")
        results = existing_database(db)
        rows = list_jobs(results, find_sweep(results, sweep_name), wanted, limit)
    if as_json:
        print_json({"sweep": sweep_name, "jobs": rows})
        return
    print_table(status_view.jobs_table(rows))


@app.command("job")
def job_command(
    job_id: Annotated[int, typer.Argument(metavar="JOB", min=1, max=2**62, help="The job's id (the first column of orchestrate jobs).")],
    as_json: JsonOption = False,
    svg: Annotated[
        Path | None, typer.Option("--svg", dir_okay=False, help="Also write the job's board to this SVG file, playing its solution.")
    ] = None,
    db: DbOption = None,
) -> None:
    """One job with its result and where the result came from: code version, commit, software, host, process, times.

    Example: orchestrate job 42 --svg job-42.svg
    """
    from orchestrator.boards import catalogue_view
    from orchestrator.sweeps import provenance_view
    from workers.store.progress import job_record

    with user_errors():
        results = existing_database(db)
        record = job_record(results, job_id)
        if svg is not None:
            write_file(svg, catalogue_view.job_picture(results, record))
    if as_json:
        print_json(record)
    else:
        typer.echo(provenance_view.job_text(record))


@app.command("worker")
def worker_command(
    concurrency: Annotated[int, typer.Option(min=1, max=1024, help="Jobs run at once; default: the number of cores.")] = CORES,
    hostname: Annotated[str | None, typer.Option(help="Worker name, e.g. w1@%h; default: celery@<host>.")] = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Start a Celery worker that runs queued jobs and stores their results.

    A worker on another machine needs only the two URLs; it checks both before it says ready, and exits with
    status 1 if either does not answer. It holds each job under a lease it renews every
    SLIDELAB_HEARTBEAT_SECONDS, and re-queues the jobs of lost workers. SIGTERM or Ctrl-C stops it at once:
    its running jobs go back to the queue. It runs the jobs of slidelab's own algorithms and of the plugins
    installed where it runs, in exactly those versions (its first line names them): a job of other plugins
    waits for a worker that has them, and orchestrate status says so.

    Example: orchestrate worker --broker redis://:secret@queue-host:6379/0 --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    with user_errors():
        current = configured(db, broker)
    if not current.broker_url:
        fail("a worker needs a broker: --broker or SLIDELAB_BROKER_URL", 2)
    from orchestrator.sweeps.status_view import plugin_label
    from puzzles.plugins import installed_keys
    from workers.celery_app import check_services, start_worker  # Celery only for the commands that use it

    with user_errors():
        check_services()
    typer.echo(f"plugins: {', '.join(map(plugin_label, installed_keys())) or 'none'} (this worker runs their jobs)")
    start_worker(concurrency, hostname)


def interruptible(run: Callable[[], T], sweep_name: str, again: str | None = None,
                  shown: contextlib.AbstractContextManager[Any] | None = None) -> T:
    """`run()`'s value, with the command line's errors; Ctrl-C, or the terminal closing (SIGHUP), says how to go on
    (`again`, by default `orchestrate resume SWEEP`) and exits 130. `shown`: a live bar, closed before any error
    is told, so that the error is the last line."""
    try:
        with _hangup_interrupts(), user_errors(), shown or contextlib.nullcontext():
            return run()
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # after a hang-up, no terminal may be left to tell
            typer.echo(f"stopped; continue with: {again or f'orchestrate resume {sweep_name}'}", err=True)
        raise typer.Exit(130) from None


def _confirmed(question: str) -> bool:
    """The user's yes to `question`; no when there is nobody to answer (stdin closed)."""
    try:
        return typer.confirm(question)
    except typer.Abort:
        return False


@contextlib.contextmanager
def _hangup_interrupts() -> Iterator[None]:
    """Inside, SIGHUP (the terminal closed, an ssh link dropped) acts as Ctrl-C; unless it is ignored (nohup)."""
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_DFL:
        yield
        return

    def hang_up(_signum, _frame) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGHUP, hang_up)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)
