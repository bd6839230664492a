"""`orchestrate solve` and `orchestrate demo`: searches in this process, without a database."""

import json
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from orchestrator.cli.options import GoalOption, MaxNodesOption, MemoryLimitOption, TimeLimitOption, user_errors, with_parameters
from puzzles.algorithms import ALGORITHMS, OFFERED, compiling_notice
from puzzles.errors import PuzzleError

app = typer.Typer()


@app.command("solve")
@with_parameters(grid=False)
def solve_command(
    board: Annotated[
        str,
        typer.Argument(
            help="A board file (Rush Hour or N-puzzle; FILE#ID for a row of a board list) or a literal board,"
            " e.g. a Fogleman string or 412763580."
        ),
    ],
    algo: Annotated[
        str, typer.Option("--algo", help="Algorithm: " + "; ".join(f"{n} ({ALGORITHMS[n].summary})" for n in OFFERED))
    ],
    params: dict[str, Any],
    seed: Annotated[int | None, typer.Option(min=0, max=2**32 - 1, help="Seed of the random generator (random, spr).")] = None,
    goal: GoalOption = None,
    time_limit: TimeLimitOption = None,
    memory_limit: MemoryLimitOption = None,
    max_nodes: MaxNodesOption = None,
    size: Annotated[int | None, typer.Option(min=4, max=63, help="Rush Hour board size N, when the CSV file name does not give it.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as one JSON object and nothing else.")] = False,
    show_frames: Annotated[bool, typer.Option("--show", help="Print the board after every move of the solution.")] = False,
) -> None:
    """Solve one board, Rush Hour or N-puzzle, with one algorithm and print the result.

    A search that ends unsolved (outcome unsolvable, failed or limit) exits 0; bad input exits 2. A layered
    search prints a line on stderr as it proves each layer, with the bound proven so far.

    Example: orchestrate solve data/boards/rushhour/Rushhour6x6_1.csv --algo astar --heuristic blockers-lb
    """
    from rich.console import Console

    import slidelab
    from orchestrator.boards import show

    with user_errors():
        if as_json and show_frames:
            raise PuzzleError("--json and --show cannot be combined")
        with show.search_log():
            solved = slidelab.solve(board, algo, seed=seed, goal=goal, size=size, time_limit=time_limit,
                                    max_nodes=max_nodes, memory_limit=memory_limit, on_compile=compile_notice(algo),
                                    **params)
        if as_json:
            typer.echo(json.dumps(solved.to_dict()))
            return
        if show_frames:
            show.print_frames(solved.problem, solved.result, Console(highlight=False))
        typer.echo(show.summary(solved.result))


def compile_notice(algorithm: str) -> Callable[[], None] | None:
    """What to call should the kernels compile: say so on stderr, when it is a terminal (a script's output stays clean)."""
    if not sys.stderr.isatty():
        return None
    return lambda: typer.echo(compiling_notice(algorithm), err=True)


@app.command("demo")
def demo_command(
    boards: Annotated[
        list[str] | None,
        typer.Argument(help="Boards to solve; default: the three 6x6 course boards and Rushhour9x9_4."),
    ] = None,
    time_limit: TimeLimitOption = 60.0,
    max_nodes: MaxNodesOption = None,
) -> None:
    """Solve boards with bfs, astar, beam, moves-freed and spr, and print a comparison table.

    Example: orchestrate demo data/boards/rushhour/Rushhour6x6_1.csv --time-limit 10
    """
    from rich.console import Console

    from orchestrator.boards import show
    from orchestrator.boards.demo import default_boards, run_demo
    from orchestrator.sweeps.job_limits import checked_limits
    from puzzles.result import Limits

    with user_errors():
        checked_limits({"time_limit": time_limit, "max_nodes": max_nodes})
        rows = run_demo(boards or default_boards(), Limits(max_nodes=max_nodes, time_limit=time_limit))
    Console().print(show.demo_table(rows))
