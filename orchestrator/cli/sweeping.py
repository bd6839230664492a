"""Sweeps: `sweep`, `sweep show`, `resume`, `cancel`, `status`, `sweeps`, `sweeps delete`, `jobs`, `job` and `worker`."""

import contextlib
import dataclasses
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

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
    database,
    existing_database,
    fail,
    print_json,
    print_table,
    user_errors,
    with_parameters,
    write_file,
)
from orchestrator.sweeps.grid import SweepGrid, flag_name
from puzzles.algorithms import OFFERED
from puzzles.errors import PuzzleError
from puzzles.textio import plural
from workers.store.states import JobState, Outcome, parse_status

app = typer.Typer()
STATUS_WORDS = (*JobState, *Outcome)


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
    from orchestrator.sweeps import plan, spec_file, status_view
    from orchestrator.sweeps.limits import job_limits
    from orchestrator.sweeps.running import store_and_run
    from orchestrator.sweeps.sources import needs_database

    with user_errors():
        configured(db, broker)
        sources = (boards or []) + (more_boards or [])
        if from_spec is not None:
            grid_options = {"--algo": algo, "--boards": sources or None, "--goal": goal, "--repeat": repeat != 1 or None,
                            "--seeds": seeds, "--time-limit": time_limit, "--memory-limit": memory_limit,
                            "--max-nodes": max_nodes, **{flag_name(p): v for p, v in params.items()}}
            given = [option for option, value in grid_options.items() if value is not None]
            if given:
                raise PuzzleError(f"--from-spec gives the grid, boards and limits: drop {', '.join(given)}")
            sweep_plan = spec_file.plan_from_spec(spec_file.read_spec(from_spec), name, str(from_spec))
        else:
            if algo is None:
                raise PuzzleError("give --algo (or --from-spec FILE)")
            grid = SweepGrid.from_options(algo, params, seeds, repeat)
            catalogue = None
            if needs_database(sources):
                catalogue = existing_database(db) if dry_run else database(db, broker)
            limits = job_limits(time_limit, max_nodes, memory_limit)
            sweep_plan = plan.grid_plan(grid, sources, name, limits, catalogue, goal=goal, write=not dry_run)
        if dry_run:
            typer.echo(status_view.plan_text(sweep_plan))
            return
        results = database(db, broker)
    interruptible(lambda: store_and_run(results, sweep_plan, rerun=rerun, workers=workers, chunk=chunk, wait=wait,
                                         extend=extend), sweep_plan.name)


@app.command("sweep-show", hidden=True)
def sweep_show_command(
    sweep_name: SweepArgument,
    as_spec: Annotated[
        bool, typer.Option("--spec", help="Print the sweep's definition as JSON, for: orchestrate sweep --from-spec FILE.")
    ] = False,
    as_json: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Describe a sweep: its grid, limits, boards, jobs, and the code, software and hosts its results came from.

    Example: orchestrate sweep show beam-k --spec > beam-k.json
    """
    from orchestrator.sweeps import provenance_view, spec_file
    from orchestrator.sweeps.lookups import find_sweep
    from workers.store.progress import sweep_provenance, sweep_status

    with user_errors():
        results = existing_database(db)
        sweep = find_sweep(results, sweep_name)
        if as_spec:
            typer.echo(json.dumps(spec_file.export_spec(results, sweep), indent=1))
            return
        status, origins = sweep_status(results, sweep), sweep_provenance(results, sweep)
    if as_json:
        # scripts read the grid under "spec", the name of its column
        row = {"spec" if key == "grid" else key: value for key, value in dataclasses.asdict(sweep).items()}
        print_json({**row, "status": status.to_dict(), "origins": origins})
        return
    typer.echo(provenance_view.sweep_text(sweep, status, origins))


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
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Run (or queue again) every job of the sweep that has no result and that no live worker holds.

    For a sweep stopped by Ctrl-C or a crash, cancelled, or whose queue Redis lost. A job a worker is running keeps
    running there (its lease is renewed while the worker lives); --force runs it again anyway. A study continues
    with `orchestrate tune` under the same name, not with resume.

    Example: orchestrate resume beam-k
    """
    from orchestrator.reports.study import is_study
    from orchestrator.sweeps.lookups import find_sweep
    from orchestrator.sweeps.running import run_jobs
    from workers.store.jobs import held_leases
    from workers.store.sweeps import uncancel, unfinished_jobs

    with user_errors():
        results = database(db, broker)
        sweep = find_sweep(results, sweep_name)
        if is_study(sweep):
            raise PuzzleError(f"{sweep.name} is a study: continue it with orchestrate tune --name {sweep.name} and its"
                              " other options (resume would run the jobs its pruner cancelled, and tell Optuna nothing)")
        if uncancelled := uncancel(results, sweep.id):
            typer.echo(f"{plural(uncancelled, 'cancelled job')} run again")
        job_ids = unfinished_jobs(results, sweep.id, held_too=force)
        held = len(unfinished_jobs(results, sweep.id)) - len(job_ids)
        if held:
            typer.echo(f"{plural(held, 'job')} held by live workers: left to them (--force runs them again)")
        take_over = held_leases(results, job_ids) if force else None
    interruptible(lambda: run_jobs(results, sweep, job_ids, workers=workers, chunk=chunk, wait=wait,
                                   take_over=take_over), sweep.name)


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
    from orchestrator.sweeps.lookups import find_sweep
    from orchestrator.sweeps.running import watch
    from orchestrator.sweeps.status_view import cancel_text, ended_text
    from workers.settings import settings
    from workers.store.jobs import cancelled_among
    from workers.store.sweeps import cancel, stopping

    with user_errors():
        results = existing_database(db)
        sweep = find_sweep(results, sweep_name)
        cancelled = cancel(results, sweep.id)
        typer.echo(cancel_text(sweep.name, cancelled, settings().heartbeat_seconds))
        if wait:
            watch(lambda: not stopping(results, sweep.id))
            if cancelled.running:
                typer.echo(ended_text(sweep.name, cancelled, len(cancelled_among(results, cancelled.running))))


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
    from orchestrator.sweeps.lookups import find_sweep, newest_sweep
    from workers.store.progress import sweep_status

    with user_errors():
        results = existing_database(db, broker)
        sweep = find_sweep(results, sweep_name) if sweep_name else newest_sweep(results)
        if watch and not as_json:
            from orchestrator.sweeps.running import follow  # the runner loads the solver, which a plain status needs not

            follow(results, sweep)
        current = sweep_status(results, sweep)
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
    its running jobs go back to the queue.

    Example: orchestrate worker --broker redis://:secret@queue-host:6379/0 --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    with user_errors():
        current = configured(db, broker)
    if not current.broker_url:
        fail("a worker needs a broker: --broker or SLIDELAB_BROKER_URL", 2)
    from workers.celery_app import check_services, start_worker  # Celery only for the commands that use it

    with user_errors():
        check_services()
    start_worker(concurrency, hostname)


def interruptible(run, sweep_name: str, again: str | None = None) -> None:
    """`run()` with the command line's errors; Ctrl-C, or the terminal closing (SIGHUP), says how to go on (`again`,
    by default `orchestrate resume SWEEP`) and exits 130."""
    try:
        with _hangup_interrupts(), user_errors():
            run()
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


@app.command("split")
def split_command(
    board: Annotated[str, typer.Argument(help="An N-puzzle board: a file, FILE#ID for a row of a board list, or literal.")],
    depth: Annotated[int, typer.Option("--depth", min=1, max=30, help="Split the tree this many moves below the start.")] = 8,
    heuristic: Annotated[str, typer.Option("--heuristic", help="IDA*'s heuristic (an N-puzzle one).")] = "pdb-max",
    pdb: Annotated[str | None, typer.Option("--pdb", help="Pattern databases for pdb and pdb-max; default: the size's.")] = None,
    name: Annotated[str | None, typer.Option(help="Sweep names' stem (NAME-b<bound>); default: split-<board>-d<depth>.")] = None,
    split_above: Annotated[int | None, typer.Option(
        "--split-above", min=0, max=2**62,
        help="Search a bound here, whole, when it should expand fewer nodes than this (foreseen from the bounds"
             " before); default 50,000,000, seconds of one core; 0 splits every bound.")] = None,
    goal: GoalOption = None,
    workers: WorkersOption = CORES,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Solve one hard N-puzzle board with IDA* spread over the workers: per bound, a job per subtree at --depth.

    Each bound's subtrees run as the jobs of a sweep NAME-b<bound> (algorithm idastar-subtree, with the prefix,
    bound and split depth as parameters): by the workers when there is a broker, else here. The answer and
    the node counts are those of IDA* on one core; work adds the subtrees searched after the solution's.

    Example: orchestrate split data/boards/npuzzle/korf24.csv#1 --depth 10 --heuristic pdb-max --pdb 6-6-6-6
    """
    from orchestrator.sweeps.sources import load_boards
    from orchestrator.sweeps.split import split_search

    with user_errors():
        configured(db, broker)
        results = database(db, broker)
        instance = load_boards([board], goal=goal, db=results)[0]
        params = {"heuristic": heuristic, **({"pdb": pdb} if pdb else {})}
        stem = name or f"split-{instance.name}-d{depth}"

        def on_round(r) -> None:
            finer = f" ({r.deeper:,} of depth {depth} split further)" if r.deeper else ""
            where = f"{r.subtrees:,} subtrees{finer} in sweep {r.sweep}" if r.sweep else "searched here"
            typer.echo(f"bound {r.bound}: {where}; expanded {r.expanded:,} (work {r.work:,}) in {r.seconds:.1f} s")

        found = split_search(results, instance, stem, depth, params, workers=workers, chunk=chunk, on_round=on_round,
                             split_above=split_above)
    typer.echo(f"{found.board}: solved in {found.moves} moves with {heuristic}, split at depth {depth} over"
               f" {sum(r.subtrees for r in found.rounds):,} subtree jobs in {len(found.rounds)} bounds;"
               f" expanded {found.expanded:,}, generated {found.generated:,} (as one core); work {found.work:,};"
               f" {found.seconds:.1f} s")
