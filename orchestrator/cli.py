"""The `orchestrate` command line.

Each command parses its options, calls one plain function and prints. Only
here is a `PuzzleError` turned into `error: <message>` on stderr and exit
status 2; a search that ends unsolved is data, not an error, and exits 0.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from orchestrator import show
from puzzles.errors import PuzzleError
from puzzles.result import Limits, SolveResult
from puzzles.rushhour import RushHourProblem
from puzzles.rushhour_formats import load_board
from puzzles.solver import ALGORITHMS, solve
from workers import migrate
from workers.settings import masked, settings

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
    """Turn a PuzzleError into `error: <message>` on stderr and exit status 2."""
    try:
        yield
    except PuzzleError as err:
        typer.echo(f"error: {err}", err=True)
        raise typer.Exit(2) from None


def solve_board(
    board: str,
    algorithm: str,
    params: dict[str, Any],
    *,
    size: int | None = None,
    move_model: str = "slide",
    limits: Limits = Limits(),
    seed: int | None = None,
) -> tuple[RushHourProblem, SolveResult]:
    """Load a board (file or literal string) and solve it; PuzzleError on bad input."""
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
        str, typer.Argument(help="A course CSV file, an ASCII grid file, or a Fogleman string.")
    ],
    algo: Annotated[
        str, typer.Option("--algo", help="Algorithm: " + "; ".join(f"{n} ({a.summary})" for n, a in ALGORITHMS.items()))
    ],
    heuristic: Annotated[
        str | None, typer.Option(help="Heuristic for beam/astar: blockers, blockers-lb, moves-freed.")
    ] = None,
    k: Annotated[int | None, typer.Option("--k", help="Beam width (beam).")] = None,
    batches: Annotated[int | None, typer.Option(help="Number of batches of random runs (spr).")] = None,
    batch_size: Annotated[int | None, typer.Option(help="Random runs per batch (spr).")] = None,
    max_steps: Annotated[int | None, typer.Option(help="Moves per random run (random, spr).")] = None,
    seed: Annotated[int | None, typer.Option(help="Seed of the random generator (random, spr).")] = None,
    move_model: Annotated[
        str, typer.Option(help="slide: a move slides a vehicle any distance; step: one cell per move.")
    ] = "slide",
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
            board, algo, params, size=size, move_model=move_model, limits=limits, seed=seed
        )
        if as_json:
            typer.echo(json.dumps(result.to_dict()))
            return
        if show_frames:
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
    url = db or settings().database_url
    try:
        migrate.upgrade(url)
    except ArgumentError:
        typer.echo("error: the database URL (--db or SLIDELAB_DATABASE_URL) does not parse", err=True)
        raise typer.Exit(2) from None
    except SQLAlchemyError as err:
        cause = getattr(err, "orig", None) or err
        typer.echo(f"error: {masked(url)}: {str(cause).splitlines()[0]}", err=True)
        raise typer.Exit(1) from None
    typer.echo(f"{masked(url)}: schema at the newest revision")

