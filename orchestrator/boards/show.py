"""Printing results: a readable summary, solution frames, the demo table.

Everything here formats; nothing here searches. Frames are coloured with rich
when the console is a terminal and plain text grids otherwise, so that piped
output stays easy to diff and test. Frames label vehicles as the input did
(`X` the red car of a course CSV), like the moves in the captions.
"""

import logging
import sys
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestrator.text import duration_text
from puzzles.algorithms import param_text
from puzzles.result import SolveResult
from puzzles.rushhour.board import RushHourBoard

if TYPE_CHECKING:  # the problem's compiled kernels are not needed to list boards
    from puzzles.rushhour.problem import RushHourProblem

MIB = 1 << 20
NOT_SEARCHED = "not searched"  # a result without a peak: no search ran (the board was proven unsolvable first)
WIDTH = 88

# Background colours for vehicles other than the red car, cycled when a board
# has more vehicles than colours.
PALETTE = (
    "green",
    "blue",
    "yellow",
    "magenta",
    "cyan",
    "dark_orange",
    "bright_green",
    "bright_blue",
    "bright_yellow",
    "bright_magenta",
    "bright_cyan",
    "purple",
    "spring_green3",
    "deep_sky_blue3",
    "gold3",
    "orchid",
    "chartreuse3",
    "steel_blue",
    "light_salmon3",
    "turquoise2",
)
RED_STYLE = "bold white on red"
WALL_STYLE = "on grey37"
EMPTY_STYLE = "grey50"


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def _value(value: Any) -> str:
    """An `extra` value on one line: mappings as `k=v`, sequences space separated."""
    if isinstance(value, dict):
        return ", ".join(f"{k}={_value(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return " ".join(_value(v) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


@contextmanager
def search_log() -> Iterator[None]:
    """Show on stderr, with the time, what a search logs as it goes (a layered search's bound, layer by layer)."""
    logger = logging.getLogger("puzzles")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%H:%M:%S"))
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def summary(result: SolveResult) -> str:
    """The result as labelled lines, the solution wrapped at the end."""
    params = ", ".join(param_text(name, value) for name, value in result.params.items())
    rows = [
        ("algorithm", f"{result.algorithm} ({params})" if params else result.algorithm),
        ("outcome", str(result.outcome)),
        ("moves", _count(result.moves)),
        ("steps", _count(result.steps)),
        ("expanded", _count(result.expanded)),
        ("generated", _count(result.generated)),
        ("max frontier", _count(result.max_frontier)),
        ("stored", _count(result.stored)),
        ("time", duration_text(result.elapsed_s)),
        ("peak memory", f"{result.peak_mem_bytes / MIB:.1f} MiB" if result.peak_mem_bytes else NOT_SEARCHED),
    ]
    if result.seed is not None:
        rows.append(("seed", str(result.seed)))
    if result.reason:
        rows.append(("reason", result.reason))
    rows += [(key.replace("_", " "), _value(value)) for key, value in result.extra.items()]
    width = max(len(label) for label, _ in rows) + 2
    lines = [f"{label + ':':<{width}}{text}" for label, text in rows]
    if result.solution:
        lines.append(
            textwrap.fill(
                " ".join(result.solution),
                width=WIDTH,
                initial_indent=f"{'solution:':<{width}}",
                subsequent_indent=" " * width,
                break_on_hyphens=False,
            )
        )
    return "\n".join(lines)


def vehicle_styles(board: RushHourBoard) -> dict[str, str]:
    """A rich style per cell label: the red car red, walls grey, others distinct colours."""
    styles = {"#": WALL_STYLE, board.red: RED_STYLE}
    others = [v.name for v in board.vehicles if v.name != board.red]
    for i, name in enumerate(others):
        styles[name] = f"bold black on {PALETTE[i % len(PALETTE)]}"
    return styles


def _cell_rows(board: RushHourBoard) -> list[list[tuple[str, str | None]]]:
    """Rows of (text, content) cells: the vehicle label, `x` for a wall or `.`,
    padded to the longest label; content is the label, "#" or None."""
    width = max(len(v.name) for v in board.vehicles)
    return [
        [(("." if cell is None else "x" if cell == "#" else cell).ljust(width), cell) for cell in row]
        for row in board.grid()
    ]


def plain_grid(board: RushHourBoard) -> str:
    """The board as text with the input's own vehicle labels, so that it matches
    the solution's notation; for one-letter labels with the red car `A` (a
    Fogleman string or grid) this is exactly `format_board(board, "grid")`."""
    rows = _cell_rows(board)
    sep = "" if len(rows[0][0][0]) == 1 else " "
    return "\n".join(sep.join(text for text, _ in row) for row in rows)


def coloured_grid(board: RushHourBoard, styles: dict[str, str]) -> Text:
    """The board as rich text, each cell its label on the vehicle's colour."""
    text = Text()
    for r, row in enumerate(_cell_rows(board)):
        if r:
            text.append("\n")
        for label, cell in row:
            text.append(f" {label} ", EMPTY_STYLE if cell is None else styles[cell])
    return text


def frames(problem: "RushHourProblem", result: SolveResult) -> Iterable[tuple[str, RushHourBoard]]:
    """(caption, board) for the start and after each move of the solution."""
    keys = problem.play(result.move_codes)
    total = len(result.move_codes)
    yield (f"start: {total} moves to play" if total else "start"), problem.board_at(keys[0])
    for i, (label, key) in enumerate(zip(result.solution, keys[1:]), start=1):
        yield f"move {i}/{total}: {label}", problem.board_at(key)


def print_frames(problem: "RushHourProblem", result: SolveResult, console: Console) -> None:
    """Print the solution as one board per move; plain grids unless the console is a terminal."""
    styles = vehicle_styles(problem.board) if console.is_terminal else {}
    for caption, board in frames(problem, result):
        if console.is_terminal:
            console.print(Text(caption, style="bold"))
            console.print(coloured_grid(board, styles))
            console.print()
        else:
            console.out(f"{caption}\n{plain_grid(board)}\n", highlight=False)


def demo_table(rows: Iterable[tuple[str, str, SolveResult]]) -> Table:
    """A comparison table of (board, algorithm label, result) rows."""
    table = Table(
        title="Rush Hour: moves = vehicle slides, steps = cells moved; lb = blockers-lb",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
    )
    table.add_column("board", no_wrap=True, overflow="ellipsis", max_width=14)
    table.add_column("algorithm", no_wrap=True)
    table.add_column("outcome", no_wrap=True)
    for name in ("moves", "steps", "expanded", "time"):
        table.add_column(name, justify="right", no_wrap=True, min_width=6)
    colours = {"solved": "green", "unsolvable": "cyan", "failed": "yellow", "limit": "red"}
    previous = None
    for board, label, result in rows:
        status = str(result.outcome)
        if previous is not None and board != previous:
            table.add_section()
        table.add_row(
            board if board != previous else "",
            label,
            Text(status, style=colours.get(status, "")),
            _count(result.moves),
            _count(result.steps),
            _count(result.expanded),
            duration_text(result.elapsed_s),
        )
        previous = board
    return table
