"""The `orchestrate` command line.

Each command parses its options, calls one plain function and prints. Only
here is a `PuzzleError` turned into `error: <message>` on stderr and exit
status 2; a search that ends unsolved is data, not an error, and exits 0.
"""

import hashlib
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from rich.console import Console
from rich.table import Table
from typer.core import TyperGroup
from kombu.exceptions import OperationalError as KombuOperationalError
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from orchestrator import boards_view, boardsets, optima, plan, provenance_view, show, sweep_spec, sweep_view
from orchestrator.execute import chunk_size, enqueue, run_local
from orchestrator.execute import watch as watch_until
from orchestrator.grid import parse_values
from orchestrator.progress import job_record, list_jobs, list_sweeps, sweep_provenance, sweep_status
from puzzles.domains import Instance, detect_domain
from puzzles import pdb as pattern_databases
from puzzles.errors import PuzzleError
from puzzles.npuzzle import goal_tiles
from puzzles.npuzzle_formats import load_npuzzle
from puzzles.npuzzle_problem import NPuzzleProblem
from puzzles.problem import Problem
from puzzles.result import Limits, SolveResult
from puzzles.rushhour import RushHourProblem
from puzzles.rushhour_formats import load_board
from puzzles.solver import ALGORITHMS, solve
from workers import migrate
from workers.db import Sweep, engine_for
from workers.settings import masked, override, settings

BOARDS_DIR = Path(__file__).resolve().parents[1] / "data" / "boards" / "rushhour"
DEMO_BOARDS = ("Rushhour6x6_1.csv", "Rushhour6x6_2.csv", "Rushhour6x6_3.csv", "Rushhour9x9_4.csv")
# (label, algorithm, params, seed) of each demo run.
DEMO_RUNS: tuple[tuple[str, str, dict[str, Any], int | None], ...] = (
    ("bfs", "bfs", {}, None),
    ("astar(lb)", "astar", {"heuristic": "blockers-lb"}, None),
    ("beam(k=50, lb)", "beam", {"k": 50, "heuristic": "blockers-lb"}, None),
    ("moves-freed", "moves-freed", {}, None),
    ("spr(5x10, seed=1)", "spr", {"batches": 5, "batch_size": 10}, 1),
)

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help=(
        "slidelab: run and compare sliding-puzzle search algorithms.\n\n"
        "Example: orchestrate solve data/boards/rushhour/Rushhour6x6_1.csv --algo bfs"
    ),
)


@contextmanager
def user_errors() -> Iterator[None]:
    """Turn bad input into `error: <message>` and exit status 2, an unreachable service into exit status 1."""
    try:
        yield
    except PuzzleError as err:
        _fail(str(err), 2)
    except ArgumentError:
        _fail("the database URL (--db or SLIDELAB_DATABASE_URL) does not parse", 2)
    except SQLAlchemyError as err:
        cause = getattr(err, "orig", None) or err
        _fail(f"{masked(settings().database_url)}: {str(cause).strip().splitlines()[0]}", 1)
    except KombuOperationalError as err:
        _fail(f"broker {masked(settings().broker_url)}: {err}", 1)


def _fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code) from None


def solve_board(
    board: str,
    algorithm: str,
    params: dict[str, Any],
    *,
    size: int | None = None,
    move_model: str = "slide",
    goal: str | None = None,
    limits: Limits = Limits(),
    seed: int | None = None,
) -> tuple[Problem, SolveResult]:
    """Load a board (file or literal string, Rush Hour or N-puzzle) and solve it; PuzzleError on bad input."""
    if detect_domain(board) == "npuzzle":
        problem: Problem = NPuzzleProblem(load_npuzzle(board, goal=goal))
    else:
        problem = RushHourProblem(load_board(board, size=size), move_model=move_model)
    return problem, solve(problem, algorithm, params, limits, seed=seed)


def run_demo(boards: list[str], limits: Limits) -> list[tuple[str, str, SolveResult]]:
    """Every demo algorithm on every board: (board name, algorithm label, result) rows."""
    rows = []
    for source in boards:
        problem = RushHourProblem(load_board(source))
        name = problem.board.name or Path(source).stem
        for label, algorithm, params, seed in DEMO_RUNS:
            rows.append((name, label, solve(problem, algorithm, params, limits, seed=seed)))
    return rows


@app.command("solve")
def solve_command(
    board: Annotated[
        str,
        typer.Argument(
            help="A board file (Rush Hour or N-puzzle; FILE#ID for a row of a board list) or a literal board,"
            " e.g. a Fogleman string or 412763580."
        ),
    ],
    algo: Annotated[
        str, typer.Option("--algo", help="Algorithm: " + "; ".join(f"{n} ({a.summary})" for n, a in ALGORITHMS.items()))
    ],
    heuristic: Annotated[
        str | None,
        typer.Option(
            help="Heuristic for beam/astar/idastar. Rush Hour: blockers, blockers-lb, moves-freed;"
            " N-puzzle: misplaced, manhattan, linear-conflict, pdb, pdb-max."
        ),
    ] = None,
    pdb: Annotated[
        str | None,
        typer.Option(help="N-puzzle pattern databases for pdb/pdb-max: group sizes (6-6-3) or tile groups (1 2 3/4 5 6 7 8)."),
    ] = None,
    k: Annotated[int | None, typer.Option("--k", help="Beam width (beam).")] = None,
    batches: Annotated[int | None, typer.Option(help="Number of batches of random runs (spr).")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Random runs per batch (spr).")] = None,
    max_steps: Annotated[int | None, typer.Option(help="Moves per random run (random, spr).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the random generator (random, spr).")] = None,
    move_model: Annotated[
        str, typer.Option(help="slide: a move slides a vehicle any distance; step: one cell per move.")
    ] = "slide",
    goal: Annotated[
        str | None,
        typer.Option(
            help="N-puzzle goal, for a board that gives none (JSON's goal key, a board list's goal column):"
            " blank-last (1 2 3/4 5 6/7 8 0, the default) or blank-first (Korf's)."
        ),
    ] = None,
    time_limit: Annotated[
        float | None, typer.Option(help="Stop after this many seconds (status limit).")
    ] = None,
    max_nodes: Annotated[
        int | None, typer.Option(help="Stop after expanding this many states (status limit).")
    ] = None,
    exhaustive: Annotated[
        bool, typer.Option("--exhaustive", help="bfs: search every reachable state, not just up to the goal.")
    ] = False,
    w_exit: Annotated[
        float | None, typer.Option(help="moves-freed: weight of the red car's distance to the exit.")
    ] = None,
    w_blockers: Annotated[
        float | None, typer.Option(help="moves-freed: weight of the vehicles blocking the red car.")
    ] = None,
    w_freed: Annotated[
        float | None, typer.Option(help="moves-freed: weight of the legal moves gained by a move.")
    ] = None,
    size: Annotated[
        int | None, typer.Option(help="Board size N, when the CSV file name does not give it.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result as one JSON object and nothing else.")
    ] = False,
    show_frames: Annotated[
        bool, typer.Option("--show", help="Print the board after every move of the solution.")
    ] = False,
) -> None:
    """Solve one Rush Hour board with one algorithm and print the result.

    A search that ends unsolved (status unsolvable, failed or limit) exits 0; bad input exits 2.

    Example: orchestrate solve data/boards/rushhour/Rushhour6x6_1.csv --algo astar --heuristic blockers-lb
    """
    if as_json and show_frames:
        typer.echo("error: --json and --show cannot be combined", err=True)
        raise typer.Exit(2)
    options = {
        "heuristic": heuristic,
        "pdb": pdb,
        "k": k,
        "batches": batches,
        "batch_size": batch_size,
        "max_steps": max_steps,
        "exhaustive": True if exhaustive else None,
        "w_exit": w_exit,
        "w_blockers": w_blockers,
        "w_freed": w_freed,
    }
    params = {name: value for name, value in options.items() if value is not None}
    limits = Limits(max_nodes=max_nodes, time_limit=time_limit)
    with user_errors():
        problem, result = solve_board(
            board, algo, params, size=size, move_model=move_model, goal=goal, limits=limits, seed=seed
        )
        if as_json:
            typer.echo(json.dumps({**result.to_dict(), "solution": problem.json_solution(result.solution)}))
            return
        if show_frames:
            if not isinstance(problem, RushHourProblem):
                raise PuzzleError("--show draws Rush Hour boards only")
            show.print_frames(problem, result, Console(highlight=False))
        typer.echo(show.summary(result))


@app.command("demo")
def demo_command(
    boards: Annotated[
        list[str] | None,
        typer.Argument(help="Boards to solve; default: the three 6x6 course boards and Rushhour9x9_4."),
    ] = None,
    time_limit: Annotated[float | None, typer.Option(help="Seconds allowed per run.")] = 60.0,
    max_nodes: Annotated[int | None, typer.Option(help="States allowed per run.")] = None,
) -> None:
    """Solve boards with bfs, astar, beam, moves-freed and spr, and print a comparison table.

    Example: orchestrate demo data/boards/rushhour/Rushhour6x6_1.csv --time-limit 10
    """
    sources = boards or [str(BOARDS_DIR / name) for name in DEMO_BOARDS]
    with user_errors():
        rows = run_demo(sources, Limits(max_nodes=max_nodes, time_limit=time_limit))
    Console().print(show.demo_table(rows))


db_app = typer.Typer(no_args_is_help=True, help="The results database.\n\nExample: orchestrate db upgrade")
app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade_command(
    db: Annotated[
        str | None, typer.Option(help="Database URL; default: SLIDELAB_DATABASE_URL, else sqlite:///slidelab.db.")
    ] = None,
) -> None:
    """Bring the results database to the newest schema (a new SQLite file is created).

    Example: orchestrate db upgrade --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    url = override(database_url=db).database_url
    with user_errors():
        migrate.upgrade(url)
    typer.echo(f"{masked(url)}: schema at the newest revision")


pdb_app = typer.Typer(
    no_args_is_help=True,
    help="N-puzzle pattern databases in the cache directory.\n\nExample: orchestrate pdb build 4x4 --pdb 6-6-3",
)
app.add_typer(pdb_app, name="pdb")


@app.callback()
def use_settings() -> None:
    """slidelab: run and compare sliding-puzzle search algorithms."""
    pattern_databases.use_directory(settings().cache_dir / "pdb")


@pdb_app.command("build")
def pdb_build_command(
    size: Annotated[str, typer.Argument(metavar="WxH", help="The board size, e.g. 4x4.")],
    partition: Annotated[
        str | None, typer.Option("--pdb", help="Group sizes (6-6-3) or tile groups (1 2 3/4 5 6 7 8); default: the size's own.")
    ] = None,
    goal: Annotated[str, typer.Option(help="blank-last or blank-first (Korf's).")] = "blank-last",
    force: Annotated[bool, typer.Option("--force", help="Build again even if a verified file exists.")] = False,
) -> None:
    """Build (or verify) the pattern databases of a partition, so that jobs only load them.

    Example: orchestrate pdb build 4x4 --pdb 6-6-3 --goal blank-first
    """
    with user_errors():
        width, height = _board_size(size)
        goal_tiles(width, height, goal)  # an unknown goal is refused before building
        groups = pattern_databases.parse_partition(partition or pattern_databases.default_partition(width, height), width, height)
        for group in groups:
            started = time.perf_counter()
            with sweep_view.build_bar(Console(stderr=True), f"tiles {' '.join(map(str, group))}") as progress:
                values = pattern_databases.table(width, height, goal, group, progress, rebuild=force)
            path = pattern_databases.path_for(width, height, goal, group)
            typer.echo(
                f"{path}: {len(values):,} entries, at most {int(values[values != pattern_databases.UNREACHED].max())}"
                f" moves, {path.stat().st_size / 2**20:,.1f} MiB, ready in {time.perf_counter() - started:.1f} s"
            )


@pdb_app.command("list")
def pdb_list_command() -> None:
    """The database files in the cache directory.

    Example: orchestrate pdb list
    """
    files = sorted(pattern_databases.directory().glob("*.pdb"))
    if not files:
        typer.echo(f"no pattern databases in {pattern_databases.directory()} (build one with: orchestrate pdb build 4x4)")
        return
    for path in files:
        typer.echo(f"{path.name}  {path.stat().st_size / 2**20:,.1f} MiB")


def _board_size(size: str) -> tuple[int, int]:
    """(width, height) of `WxH`; PuzzleError otherwise."""
    width, _, height = size.lower().partition("x")
    if not (width.isdigit() and height.isdigit()):
        raise PuzzleError(f"size {size!r} is not WxH (e.g. 3x3)")
    return int(width), int(height)


DbOption = Annotated[
    str | None, typer.Option("--db", help="Results database URL; default: SLIDELAB_DATABASE_URL, else sqlite:///slidelab.db.")
]
BrokerOption = Annotated[
    str | None, typer.Option("--broker", help="Celery broker URL (redis://...); default: SLIDELAB_BROKER_URL, else run locally.")
]
WorkersOption = Annotated[
    int, typer.Option("--workers", min=1, help="Local mode: job processes run at once; default: the number of cores.")
]
WaitOption = Annotated[bool, typer.Option("--wait", help="With a broker: follow the progress until every job is finished.")]
ChunkOption = Annotated[
    int | None, typer.Option("--chunk", min=1, help="Jobs per batch (per message); default: 1 for small sweeps, up to 100.")
]
SweepArgument = Annotated[str, typer.Argument(metavar="SWEEP", help="The sweep's name.")]
TimeLimitOption = Annotated[float | None, typer.Option(min=0, help="Seconds per job (status limit).")]
MemoryLimitOption = Annotated[
    str | None, typer.Option(help="Memory a job may use on top of its process's ~0.4 GB runtime, e.g. 2G.")
]
MaxNodesOption = Annotated[int | None, typer.Option(min=0, help="States a job may expand (status limit).")]
JOB_STATUSES = ("pending", "queued", "running", "done", "failed")
PARAMETERS = sorted({name for spec in ALGORITHMS.values() for name in spec.params})


class SweepGroup(TyperGroup):
    """`sweep` runs a sweep and `sweep show` describes one: arguments naming no subcommand are the sweep's own boards."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """Parse as a group, handing back to the sweep what a subcommand's name does not lead."""
        if args and args[0] in self.commands:
            ctx.allow_interspersed_args = False  # `sweep show NAME --help` is the subcommand's
        super().parse_args(ctx, args)
        if ctx._protected_args and ctx._protected_args[0] not in self.commands:
            ctx.args = [*ctx._protected_args, *ctx.args]
            ctx._protected_args = []
        return ctx.args


sweep_app = typer.Typer(
    cls=SweepGroup,
    invoke_without_command=True,
    subcommand_metavar="[BOARDS]... | show SWEEP [--spec]",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": True},
)
app.add_typer(sweep_app, name="sweep")
@sweep_app.callback(
    help=(
        "Run every algorithm with every combination of parameter values on every board.\n\n"
        "Parameters are given as --NAME VALUES, with VALUES a comma list of numbers, words and ranges "
        "(1..50, 1..50:5); parameters: " + ", ".join("--" + name.replace("_", "-") for name in PARAMETERS) + ". "
        "Each algorithm gets only the parameters it takes. Without a broker the jobs run here, in a pool of "
        "processes; with one, they are queued for `orchestrate worker` processes. Running the same sweep "
        "again adds only the jobs it lacks. `--from-spec FILE` runs a sweep exported by "
        "`orchestrate sweep show NAME --spec` again: under its own name it fills the gaps, under --name a new one.\n\n"
        "Example: orchestrate sweep --algo beam --k 1..50 --heuristic blockers --boards data/boards/rushhour/"
    ),
)
def sweep_command(
    ctx: typer.Context,
    algo: Annotated[
        str | None, typer.Option("--algo", help="Algorithms, comma separated: " + ", ".join(ALGORITHMS) + ".")
    ] = None,
    boards: Annotated[
        list[str] | None,
        typer.Option(
            "--boards",
            help="Board files, N-puzzle board lists (CSV with a tiles column; FILE#ID for one row), directories, globs,"
            " literal boards or board sets (set:NAME); more may follow.",
        ),
    ] = None,
    goal: Annotated[
        str | None,
        typer.Option(
            help="Goal of the N-puzzle boards that give none (JSON's goal key, a board list's goal column):"
            " blank-last (the default) or blank-first (Korf's). Rush Hour boards ignore it."
        ),
    ] = None,
    repeat: Annotated[int, typer.Option(help="Runs per grid point (seeds derived from the job for random ones).")] = 1,
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
    rerun: Annotated[bool, typer.Option("--rerun", help="Run finished jobs of the grid again.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the grid size and a sample of jobs; write nothing.")] = False,
    workers: WorkersOption = os.cpu_count() or 1,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    with user_errors():
        current = override(database_url=db, broker_url=broker)
        if from_spec is not None:
            grid_options = {"--algo": algo, "--boards": boards, "--goal": goal, "--repeat": repeat != 1 or None,
                            "--seeds": seeds, "--time-limit": time_limit, "--memory-limit": memory_limit,
                            "--max-nodes": max_nodes}
            given = [option for option, value in grid_options.items() if value is not None]
            if given or ctx.args:
                raise PuzzleError(f"--from-spec gives the grid, boards and limits: drop {', '.join(given + ctx.args[:1])}")
            spec = sweep_spec.read_spec(from_spec)
            sweep_plan = sweep_spec.plan_from_spec(spec, name, str(from_spec))
        else:
            sweep_plan = _grid_plan(ctx.args, algo, boards, goal, repeat, seeds, name, current.database_url,
                                    _limits(time_limit, max_nodes, memory_limit))
        if dry_run:
            typer.echo(sweep_view.plan_text(sweep_plan))
            return
        _store_and_run(_engine(current.database_url), sweep_plan, rerun, workers, chunk, wait)


def _grid_plan(
    args: list[str], algo: str | None, boards: list[str] | None, goal: str | None, repeat: int, seeds: str | None,
    name: str | None, url: str, limits: dict[str, Any],
) -> plan.SweepPlan:
    """The plan of a sweep given on the command line; PuzzleError on bad input."""
    if algo is None:
        raise PuzzleError("give --algo (or --from-spec FILE)")
    params, more_boards = _sweep_arguments(args)
    algorithms = [str(a) for a in parse_values(algo, "--algo")]
    seed_values = parse_values(seeds, "--seeds") if seeds else None
    if seed_values is not None and not all(isinstance(seed, int) for seed in seed_values):
        raise PuzzleError(f"--seeds: {seeds!r} are not whole numbers")
    instances = _boards((boards or []) + more_boards, goal, url)
    sweep_name = name or _default_name(algorithms, params, seed_values, repeat)
    return plan.plan_sweep(sweep_name, instances, algorithms, params, seeds=seed_values, repeat=repeat, limits=limits)


@sweep_app.command("show")
def sweep_show_command(
    sweep_name: SweepArgument,
    as_spec: Annotated[
        bool, typer.Option("--spec", help="Print the sweep's definition as JSON, for: orchestrate sweep --from-spec FILE.")
    ] = False,
    db: DbOption = None,
) -> None:
    """Describe a sweep: its grid, limits, boards, jobs, and the code, software and hosts its results came from.

    Example: orchestrate sweep show beam-k --spec > beam-k.json
    """
    with user_errors():
        engine = _engine(override(database_url=db).database_url)
        sweep = plan.find_sweep(engine, sweep_name)
        if as_spec:
            typer.echo(json.dumps(sweep_spec.export_spec(engine, sweep), indent=1))
            return
        typer.echo(provenance_view.sweep_text(sweep, sweep_status(engine, sweep), sweep_provenance(engine, sweep)))


@app.command("resume")
def resume_command(
    sweep_name: SweepArgument,
    wait: WaitOption = False,
    workers: WorkersOption = os.cpu_count() or 1,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Run (or queue again) every job of the sweep that has no final result.

    For a sweep stopped by Ctrl-C or a crash, or whose queue Redis lost.

    Example: orchestrate resume beam-k
    """
    with user_errors():
        current = override(database_url=db, broker_url=broker)
        engine = _engine(current.database_url)
        sweep = plan.find_sweep(engine, sweep_name)
        _run(engine, sweep, plan.unfinished_jobs(engine, sweep.id), workers, chunk, wait)


@app.command("status")
def status_command(
    sweep_name: Annotated[str | None, typer.Argument(metavar="[SWEEP]", help="The sweep; default: the newest.")] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Follow the progress until every job is finished.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """Counts per status, progress, throughput, ETA and jobs per worker host.

    Example: orchestrate status beam-k --watch
    """
    with user_errors():
        engine = _engine(override(database_url=db).database_url)
        sweep = plan.find_sweep(engine, sweep_name or _newest_sweep(engine))
        if watch and not as_json:
            _follow(engine, sweep)
        current = sweep_status(engine, sweep)
        typer.echo(json.dumps(current.to_dict()) if as_json else sweep_view.status_text(current))


@app.command("sweeps")
def sweeps_command(db: DbOption = None) -> None:
    """List the sweeps, newest first, with their job counts.

    Example: orchestrate sweeps --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    with user_errors():
        rows = list_sweeps(_engine(override(database_url=db).database_url))
    _print_table(sweep_view.sweeps_table(rows))


@app.command("jobs")
def jobs_command(
    sweep_name: SweepArgument,
    status: Annotated[
        str | None, typer.Option(help="Only jobs with this status: pending, queued, running, done, failed.")
    ] = None,
    limit: Annotated[int, typer.Option(min=1, help="List at most this many jobs.")] = 50,
    db: DbOption = None,
) -> None:
    """List a sweep's jobs with their results and errors.

    Example: orchestrate jobs beam-k --status failed
    """
    with user_errors():
        if status is not None and status not in JOB_STATUSES:
            raise PuzzleError(f"--status: unknown job status {status!r} (choose from {', '.join(JOB_STATUSES)})")
        engine = _engine(override(database_url=db).database_url)
        rows = list_jobs(engine, plan.find_sweep(engine, sweep_name), status, limit)
    _print_table(sweep_view.jobs_table(rows))


@app.command("job")
def job_command(
    job_id: Annotated[int, typer.Argument(metavar="JOB", help="The job's id (the first column of orchestrate jobs).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the job and its result as one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """One job with its result and where the result came from: code version, commit, software, host, process, times.

    Example: orchestrate job 42 --json
    """
    with user_errors():
        record = job_record(_engine(override(database_url=db).database_url), job_id)
    typer.echo(json.dumps(record, indent=1) if as_json else provenance_view.job_text(record))


@app.command("worker")
def worker_command(
    concurrency: Annotated[int, typer.Option(min=1, help="Jobs run at once; default: the number of cores.")] = os.cpu_count() or 1,
    hostname: Annotated[str | None, typer.Option(help="Worker name, e.g. w1@%h; default: celery@<host>.")] = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Start a Celery worker that runs queued jobs and stores their results.

    A worker on another machine needs only the two URLs.

    Example: orchestrate worker --broker redis://queue-host:6379/0 --db postgresql+psycopg://slidelab@db-host/slidelab
    """
    current = override(database_url=db, broker_url=broker)
    if not current.broker_url:
        _fail("a worker needs a broker: --broker or SLIDELAB_BROKER_URL", 2)
    from workers.celery_app import QUEUE, configured

    argv = ["worker", "--pool=threads", f"--concurrency={concurrency}", "--loglevel=INFO", f"--queues={QUEUE}",
            "--without-gossip", "--without-mingle"]
    configured().worker_main(argv + ([f"--hostname={hostname}"] if hostname else []))


def _limits(time_limit: float | None, max_nodes: int | None, memory_limit: str | None) -> dict[str, Any]:
    """The limits of every job of a sweep, as the sweep row keeps them."""
    return {
        "time_limit": time_limit,
        "max_nodes": max_nodes,
        "memory_limit": plan.parse_size(memory_limit) if memory_limit else None,
    }


def _boards(sources: list[str], goal: str | None, url: str) -> list[Instance]:
    """The boards of the sources; the database at `url` is opened only if one of them is a set (set:NAME)."""
    needs_database = any(boardsets.set_name(source) is not None for source in sources)
    return plan.load_boards(sources, goal=goal, engine=_engine(url) if needs_database else None)


def _store_and_run(
    engine: Engine, sweep_plan: plan.SweepPlan, rerun: bool, workers: int, chunk: int | None, wait: bool
) -> Sweep:
    """Store the plan, then run (or queue) its jobs that have no final result; the sweep."""
    sweep_id, added = plan.store_plan(engine, sweep_plan, rerun=rerun)
    typer.echo(f"sweep {sweep_plan.name}: {len(sweep_plan.jobs):,} jobs, {added:,} new")
    sweep = plan.find_sweep(engine, sweep_plan.name)
    # A broker may still hold the queued jobs of an earlier run: queue only the new ones (resume queues all).
    job_ids = plan.unfinished_jobs(engine, sweep_id, pending_only=bool(settings().broker_url))
    _run(engine, sweep, job_ids, workers, chunk, wait)
    return sweep


def _print_table(table: Table) -> None:
    """A table at its natural width: wrapped to a terminal's width, never to 80 columns in a pipe."""
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(80, Console(width=10_000).measure(table).maximum))
    console.print(table)


def _sweep_arguments(args: list[str]) -> tuple[dict[str, list[Any]], list[str]]:
    """The `--name VALUES` parameters among the extra arguments, and the boards that follow --boards."""
    params: dict[str, list[Any]] = {}
    boards: list[str] = []
    tokens = iter(args)
    for token in tokens:
        if not token.startswith("--"):
            boards.append(token)
            continue
        option, has_value, value = token.partition("=")
        if not has_value:
            value = next(tokens, None)
            if value is None:
                raise PuzzleError(f"{option} needs a value")
        params[option[2:].replace("-", "_")] = parse_values(value, option)
    return params, boards


def _default_name(algorithms: list[str], params: dict[str, list[Any]], seeds: list[int] | None, repeat: int) -> str:
    grid = json.dumps([algorithms, params, seeds, repeat], sort_keys=True)
    return f"{'+'.join(algorithms)}-{hashlib.sha256(grid.encode()).hexdigest()[:8]}"


def _engine(url: str) -> Engine:
    """The database at `url`, brought to the newest schema (a new SQLite file is created)."""
    migrate.upgrade(url)
    return engine_for(url)


def _newest_sweep(engine: Engine) -> str:
    sweeps = list_sweeps(engine)
    if not sweeps:
        raise PuzzleError(f"{masked(settings().database_url)} holds no sweeps yet")
    return sweeps[0].name


def _run(engine: Engine, sweep: Sweep, job_ids: list[int], workers: int, chunk: int | None, wait: bool) -> None:
    """Run the jobs here, or queue them when there is a broker (and follow them with `wait`)."""
    size = chunk or chunk_size(len(job_ids))
    if settings().broker_url:
        messages = enqueue(engine, job_ids, size)
        typer.echo(f"queued {len(job_ids):,} jobs in {messages:,} messages on {masked(settings().broker_url)}")
        if wait:
            _follow(engine, sweep)
        else:
            typer.echo(f"follow with: orchestrate status {sweep.name} --watch")
        return
    console = Console(stderr=True)
    try:
        with sweep_view.live_bar(console, sweep.name, len(job_ids)) as update:
            run_local(engine, job_ids, workers, size, lambda: update(sweep_status(engine, sweep)))
            update(sweep_status(engine, sweep))
    except KeyboardInterrupt:
        typer.echo(f"stopped; continue with: orchestrate resume {sweep.name}", err=True)
        raise typer.Exit(130) from None
    typer.echo(sweep_view.status_text(sweep_status(engine, sweep)))


def _follow(engine: Engine, sweep: Sweep) -> None:
    """A live progress bar until every job of the sweep is finished."""
    with sweep_view.live_bar(Console(stderr=True), sweep.name, 0) as update:

        def poll() -> bool:
            current = sweep_status(engine, sweep)
            update(current)
            return current.complete

        watch_until(poll)


boards_app = typer.Typer(
    no_args_is_help=True,
    help=(
        "The board catalogue: boards stored once, in named sets that sweeps take as --boards set:NAME.\n\n"
        "Example: orchestrate boards import data/boards/rushhour/ --set course"
    ),
)
app.add_typer(boards_app, name="boards")
SetOption = Annotated[str | None, typer.Option("--set", help="The board set's name (set:NAME in --boards).")]


@boards_app.command("import")
def boards_import_command(
    sources: Annotated[
        list[str],
        typer.Argument(
            metavar="PATHS...",
            help="Board files, board lists (their optimal column gives known optima), directories, globs,"
            " literal boards or sets (set:NAME).",
        ),
    ],
    set_name: SetOption = None,
    goal: Annotated[
        str | None, typer.Option(help="Goal of the N-puzzle boards that give none: blank-last (default) or blank-first.")
    ] = None,
    db: DbOption = None,
) -> None:
    """Store boards once each, with the known optima their board lists give, and add them to a set.

    Importing again adds only what is missing: no board is stored or put in a set twice.

    Example: orchestrate boards import data/boards/npuzzle/korf100.csv 412763580 --set mine
    """
    with user_errors():
        url = override(database_url=db).database_url
        boards = _boards(sources, goal, url)
        optima = boardsets.listed_optima(plan.board_sources(sources), goal=goal)
        done = boardsets.import_boards(_engine(url), boards, optima, set_name)
    into = f"; set {set_name}: {done.added:,} added" if set_name else ""
    typer.echo(f"{done.boards:,} boards, {done.new:,} new, {done.optima:,} with a known optimum given{into}")


@boards_app.command("list")
def boards_list_command(set_name: SetOption = None, db: DbOption = None) -> None:
    """The board sets (the shipped ones too), or with --set the boards of one set, in order, with their known optima.

    Example: orchestrate boards list --set korf100
    """
    with user_errors():
        engine = _engine(override(database_url=db).database_url)
        if set_name is None:
            _print_table(boards_view.sets_table(boardsets.list_sets(engine)))
            return
        _print_table(boards_view.boards_table(boardsets.members(engine, set_name)))


@boards_app.command("show")
def boards_show_command(
    board: Annotated[
        str,
        typer.Argument(
            metavar="BOARD", help="A stored board's name or id (its first 6+ hex digits), a board file, FILE#ID or a literal board."
        ),
    ],
    db: DbOption = None,
) -> None:
    """A board: its picture, size, vehicles or tiles, known optimum and sets.

    Example: orchestrate boards show Rushhour6x6_1
    """
    with user_errors():
        info = boardsets.board_info(_engine(override(database_url=db).database_url), board)
    typer.echo(boards_view.board_card(info))


@boards_app.command("generate")
def boards_generate_command(
    domain: Annotated[str, typer.Argument(help="rushhour or npuzzle.")],
    size: Annotated[int, typer.Option("--size", min=2, help="Board side: 6, 9 or 12 for Rush Hour; 3, 4, 5 ... for the N-puzzle.")],
    count: Annotated[int, typer.Option("--count", min=1, help="How many distinct boards.")] = 10,
    seed: Annotated[int, typer.Option("--seed", help="The same seed gives the same boards.")] = 1,
    min_moves: Annotated[
        int | None, typer.Option("--min-moves", help="Rush Hour: each board's optimal solution is at least this long.")
    ] = None,
    moves: Annotated[int | None, typer.Option("--moves", help="Rush Hour: each board's optimal solution is exactly this long.")] = None,
    walk: Annotated[
        int | None, typer.Option("--walk", help="N-puzzle: random walks of this many moves from the goal (default: uniform).")
    ] = None,
    height: Annotated[int | None, typer.Option("--height", help="N-puzzle: rows, for rectangular boards (default: --size).")] = None,
    goal: Annotated[str, typer.Option(help="N-puzzle goal: blank-last or blank-first.")] = "blank-last",
    max_attempts: Annotated[
        int | None,
        typer.Option("--max-attempts", min=1, help="Rush Hour: placements tried before giving up (default: 100,000 up to 6x6, "
                     "1,500,000 / size³ beyond, 2,057 on 9x9: a few minutes).")  # fmt: skip
    ] = None,
    set_name: SetOption = None,
    db: DbOption = None,
) -> None:
    """Generate boards of a chosen difficulty and store them in a set (default: `<domain>-<size>-s<seed>`).

    Rush Hour: vehicles placed at random, then the hardest board of the placement's whole
    state space (its optimal length is stored as the known optimum). N-puzzle: uniformly random
    solvable boards, or random walks from the goal.

    Example: orchestrate boards generate rushhour --size 6 --min-moves 20 --count 5 --seed 1
    """
    with user_errors():
        boards, optima = boardsets.generated(
            domain, size, count, seed, min_moves=min_moves, moves=moves, walk=walk, height=height, goal=goal,
            max_attempts=max_attempts,
        )
        name = set_name or f"{domain}-{size}x{height or size}-s{seed}"
        done = boardsets.import_boards(_engine(override(database_url=db).database_url), boards, optima, name)
    for board in boards:
        typer.echo(f"{board.name}  {optima[board.id]} moves" if board.id in optima else board.name)
    typer.echo(f"set {name}: {done.added:,} added ({len(boards):,} boards; sweep them with --boards set:{name})")


@boards_app.command("optimum")
def boards_optimum_command(
    set_name: SetOption = None,
    time_limit: TimeLimitOption = None,
    memory_limit: MemoryLimitOption = None,
    max_nodes: MaxNodesOption = None,
    workers: WorkersOption = os.cpu_count() or 1,
    chunk: ChunkOption = None,
    db: DbOption = None,
    broker: BrokerOption = None,
) -> None:
    """Find and store the known optimum of every board (of a set) that lacks one, as a sweep on the runner.

    Each board gets an optimal search that fits it: BFS for Rush Hour and N-puzzles up to 3x3, IDA* with
    pattern databases (pdb-max on square boards, else pdb) for larger ones. The jobs run here, or on the
    workers of a broker, as any sweep's do (sweep `optimum`, or `optimum-<digest>` under limits); this
    command follows them to the end and stores the fewest moves each optimal search found. An unsolvable
    board keeps no optimum.

    Example: orchestrate boards optimum --set korf100 --time-limit 600
    """
    with user_errors():
        limits = _limits(time_limit, max_nodes, memory_limit)
        engine = _engine(override(database_url=db, broker_url=broker).database_url)
        boards = boardsets.members(engine, set_name) if set_name else boardsets.all_boards(engine)
        known = optima.record_optima(engine, [board.id for board in boards])  # proven by earlier results
        lacking = [boardsets.instance(b) for b in boards if b.known_optimum is None and b.id not in known]
        if known:
            typer.echo(f"{len(known):,} known optima stored from earlier results")
        if not lacking:
            typer.echo(f"every one of the {len(boards):,} boards has a known optimum")
            return
        sweep = _store_and_run(engine, optima.plan_optima(lacking, limits), False, workers, chunk, True)
        found = optima.record_optima(engine, [board.id for board in lacking])
        others = optima.unresolved(engine, sweep.id, [board.id for board in lacking])
    counts = ", ".join(f"{status} {count:,}" for status, count in sorted(others.items()))
    hint = f"; the others: {counts} (orchestrate jobs {sweep.name})" if others else ""
    typer.echo(f"{len(found):,} of {len(lacking):,} boards now have a known optimum{hint}")


OutOption = Annotated[Path | None, typer.Option("--out", help="Write to this file (html, parquet: default SWEEP.html / required).")]


@app.command("report")
def report_command(
    sweep_name: SweepArgument,
    by: Annotated[
        str | None, typer.Option(help="Group by these columns, e.g. algo,k (default: algorithm, params, board).")
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="table, csv, markdown, json, html (one file with the plots) or parquet.")
    ] = "table",
    out: OutOption = None,
    plot: Annotated[bool, typer.Option("--plot", help="Also write the plots as PNG files (next to --out, else here).")] = False,
    db: DbOption = None,
) -> None:
    """Summarize a sweep: per algorithm, parameters and board, the share solved, moves, optimality gap, nodes, time, memory.

    A sweep still running is reported on the jobs that are finished.

    Example: orchestrate report beam-k --by algo,k --format html --out beam-k.html
    """
    from orchestrator import report  # pandas (and matplotlib, below) only for reports

    with user_errors():
        if fmt not in report.FORMATS:
            raise PuzzleError(f"--format: {fmt!r} is not one of {', '.join(report.FORMATS)}")
        engine = _engine(override(database_url=db).database_url)
        sweep = plan.find_sweep(engine, sweep_name)
        rows = _report_rows(engine, sweep)
        groups = [report.ALIASES.get(c, c) for c in parse_values(by, "--by")] if by else list(report.GROUPS)
        summary = report.summarize(rows, groups)
        notes = report.notes(rows, sweep.name, groups)
        if plot or fmt == "html":
            from orchestrator import html_report, plots
        if plot:
            folder = out.parent if out else Path.cwd()
            for path in plots.write_pngs(rows, folder, sweep.name):
                typer.echo(f"wrote {path}", err=True)
        if fmt != "html":
            for note in notes:
                typer.echo(note, err=True)  # stdout keeps only the table, csv, markdown or json
        if fmt == "table":
            _print_table(sweep_view.report_table(summary, groups))
        elif fmt == "html":
            target = out or Path(f"{sweep.name}.html")
            title = f"slidelab report: {sweep.name}"
            shown = summary.assign(params=summary["params"].map(sweep_view.params_text)) if "params" in summary else summary
            target.write_text(html_report.html_report(title, shown, plots.figures(rows), notes))
            typer.echo(f"wrote {target}", err=True)
        else:
            _emit(report.write(summary, fmt, out))


@app.command("compare")
def compare_command(
    first: Annotated[str, typer.Argument(metavar="SWEEP_A", help="The first sweep.")],
    second: Annotated[str, typer.Argument(metavar="SWEEP_B", help="The second sweep.")],
    fmt: Annotated[str, typer.Option("--format", help="table, csv, markdown or json.")] = "table",
    db: DbOption = None,
) -> None:
    """Two sweeps side by side, per algorithm, parameters and board.

    Example: orchestrate compare beam-blockers beam-lb
    """
    from orchestrator import report

    with user_errors():
        if fmt not in ("table", "csv", "markdown", "json"):
            raise PuzzleError(f"--format: {fmt!r} is not one of table, csv, markdown, json")
        engine = _engine(override(database_url=db).database_url)
        sweeps = [plan.find_sweep(engine, name) for name in (first, second)]
        rows = [_report_rows(engine, sweep) for sweep in sweeps]
        table = report.compare(*(report.summarize(frame) for frame in rows), (first, second))
        for note in dict.fromkeys(note for frame, name in zip(rows, (first, second)) for note in report.notes(frame, name)):
            typer.echo(note, err=True)
        if fmt == "table":
            _print_table(sweep_view.frame_table(table))
        else:
            _emit(report.write(table, fmt, None))


@app.command("export")
def export_command(
    sweep_name: SweepArgument,
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet.")] = "csv",
    out: OutOption = None,
    db: DbOption = None,
) -> None:
    """The raw rows of a sweep (jobs joined with results and boards), one per job, for pandas.

    Example: orchestrate export beam-k --format parquet --out beam-k.parquet
    """
    from orchestrator import report

    with user_errors():
        if fmt not in report.EXPORT_FORMATS:
            raise PuzzleError(f"--format: {fmt!r} is not one of {', '.join(report.EXPORT_FORMATS)}")
        engine = _engine(override(database_url=db).database_url)
        _emit(report.write(report.load_rows(engine, plan.find_sweep(engine, sweep_name)), fmt, out))


@app.command("verify")
def verify_command(
    sweep_name: SweepArgument,
    sample: Annotated[int | None, typer.Option("--sample", help="Check this many finished jobs drawn at random; default: all.")] = None,
    sample_seed: Annotated[int, typer.Option("--sample-seed", help="The same seed draws the same sample.")] = 0,
    workers: WorkersOption = os.cpu_count() or 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the verification as one JSON object.")] = False,
    db: DbOption = None,
) -> None:
    """Run a sweep's finished jobs again, as workers run them, and compare each result with the one stored.

    Compares status, moves, steps, node counts and the solution (random algorithms rerun with their stored
    seed). Results stored under a time or memory limit are skipped; a rerun stopped by one is inconclusive.
    Writes nothing. Exits 1 if any result differs or any job checked was produced by another code version
    than the one running now, 0 otherwise.

    Example: orchestrate verify beam-k --sample 50 --workers 4
    """
    from orchestrator import verify, verify_view

    with user_errors():
        engine = _engine(override(database_url=db).database_url)
        selection = verify.select_jobs(engine, plan.find_sweep(engine, sweep_name), sample=sample, sample_seed=sample_seed)
        try:
            with sweep_view.build_bar(Console(stderr=True), f"verify {selection.sweep}") as progress:
                outcome = verify.verify(engine, selection, workers=workers, progress=progress)
        except KeyboardInterrupt:
            typer.echo("stopped", err=True)
            raise typer.Exit(130) from None
    if as_json:
        typer.echo(json.dumps(outcome.to_dict()))
    else:
        for table in verify_view.tables(outcome):
            _print_table(table)
        typer.echo(verify_view.summary_text(outcome))
    if not outcome.ok:
        raise typer.Exit(1)


@app.command("analyze")
def analyze_command(
    size: Annotated[str, typer.Argument(metavar="WxH", help="The board size, e.g. 3x3 or 2x4 (at most 9 cells).")],
    goal: Annotated[str, typer.Option(help="blank-last or blank-first (Korf's).")] = "blank-last",
    fmt: Annotated[str, typer.Option("--format", help="csv or parquet, for --out.")] = "csv",
    out: Annotated[Path | None, typer.Option("--out", help="Write every board with its distance and estimates here.")] = None,
    pdb: Annotated[
        str | None, typer.Option("--pdb", help="Pattern-database partitions to score, comma-separated (e.g. 4-4,6-2).")
    ] = None,
) -> None:
    """Every solvable N-puzzle board: its true distance and each heuristic's estimate, summarized.

    Prints per heuristic the mean estimate, the mean ratio of estimate to distance, the share of
    boards where it is exact and where it is admissible, then the number of boards per distance.

    Example: orchestrate analyze 3x3 --out eight.parquet --format parquet
    """
    from orchestrator import analyze, report

    with user_errors():
        width, height = _board_size(size)
        if fmt not in report.EXPORT_FORMATS:
            raise PuzzleError(f"--format: {fmt!r} is not one of {', '.join(report.EXPORT_FORMATS)}")
        goal_tiles(width, height, goal)  # an unknown goal is refused before the search
        partitions = [part.strip() for part in pdb.split(",")] if pdb else None
        rows = analyze.analyze(width, height, goal, partitions)
        if out is not None:
            report.write(rows, fmt, out)
            typer.echo(f"wrote {out} ({len(rows):,} boards)", err=True)
    typer.echo(f"{len(rows):,} solvable {size} boards, goal {goal}")
    _print_table(sweep_view.frame_table(analyze.summary(rows)))
    _print_table(sweep_view.frame_table(analyze.depth_histogram(rows)))


def _report_rows(engine: Engine, sweep: Sweep):
    from orchestrator import report

    rows = report.load_rows(engine, sweep)
    if rows.empty:
        raise PuzzleError(f"sweep {sweep.name!r} has no jobs")
    return rows


def _emit(text: str | None) -> None:
    if text is not None:
        typer.echo(text, nl=not text.endswith("\n"))
