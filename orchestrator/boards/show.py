"""Printing results: a readable summary, solution frames, the demo table.

Everything here formats; nothing here searches. Frames are the grids the
board's domain writes (`Domain.text_frames`: Rush Hour labels vehicles as the
input did, like the moves in the captions), coloured with rich when the
console is a terminal and plain text otherwise, so that piped output stays
easy to diff and test.
"""

import logging
import sys
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from orchestrator.text import duration_text
from puzzles.algorithms import param_text
from puzzles.domains import DOMAINS, find_domain
from puzzles.errors import PuzzleError
from puzzles.picture import TextGrid, plain_text
from puzzles.problem import Problem
from puzzles.result import SolveResult

MIB = 1 << 20
NOT_SEARCHED = "not searched"  # a result without a peak: no search ran (the board was proven unsolvable first)
WIDTH = 88


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


def frames(problem: Problem, result: SolveResult) -> Iterator[tuple[str, TextGrid]]:
    """(caption, grid) for the start and after each move of the solution, as the problem's domain writes its boards;
    PuzzleError naming the domains that do if it does not."""
    text_frames = find_domain(problem.domain).text_frames
    if text_frames is None:
        drawn = " and ".join(domain.title for domain in DOMAINS.values() if domain.text_frames)
        raise PuzzleError(f"--show draws {drawn} boards only")
    grids = text_frames(problem, result.move_codes)
    total = len(result.move_codes)
    yield (f"start: {total} moves to play" if total else "start"), grids[0]
    for i, (label, grid) in enumerate(zip(result.solution, grids[1:]), start=1):
        yield f"move {i}/{total}: {label}", grid


def print_frames(problem: Problem, result: SolveResult, console: Console) -> None:
    """Print the solution as one board per move; plain text unless the console is a terminal."""
    for caption, grid in frames(problem, result):
        if console.is_terminal:
            console.print(Text(caption, style="bold"))
            console.print(coloured(grid))
            console.print()
        else:
            console.out(f"{caption}\n{plain_text(grid)}\n", highlight=False)


def coloured(grid: TextGrid) -> Text:
    """The grid as rich text, each cell's text in its style."""
    text = Text()
    for r, row in enumerate(grid):
        if r:
            text.append("\n")
        for label, style in row:
            text.append(f" {label} ", style)
    return text


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
