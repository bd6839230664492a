"""What a board's picture is made of in every domain: the SVG's cells, its frame, and the `Picture` a domain draws;
and a board in text, its `Card` and its `TextGrid`.

Each domain draws its own boards (`puzzles.<domain>.picture`) as an SVG whose
movable pieces are `<g class="piece">` placed by their `transform`, so that a
solution is a list of frames, each a translation per piece. In a terminal a
board is a grid of cells, each its text and its style. Plain text: no drawing
library.
"""

import html
from dataclasses import dataclass

CELL = 40
MARGIN = 24  # room around the grid for the exit arrow

Frames = list[list[tuple[float, float]]]  # per frame, the translation (x, y) of each piece
TextGrid = list[list[tuple[str, str]]]  # rows of cells, each its text and its terminal style (rich's syntax: "on red")


@dataclass(frozen=True)
class Picture:
    """A board's SVG and the translation (x, y) of each of its pieces, in the order of the SVG's pieces."""

    svg: str
    places: list[tuple[float, float]]


@dataclass(frozen=True)
class Card:
    """A board in text: its size `WxH`, what it is made of as labelled lines (vehicles, tiles ...) and its grid."""

    shape: str
    details: list[tuple[str, str]]
    grid: str


def plain_text(grid: TextGrid) -> str:
    """The grid without its styles: cells side by side, a space between them where they are wider than a character."""
    sep = "" if len(grid[0][0][0]) == 1 else " "
    return "\n".join(sep.join(text for text, _ in row) for row in grid)


def joined(items: list[str], width: int) -> str:
    """The items separated by `; `, on lines of at most `width` characters, never broken inside an item."""
    lines = [""]
    for item in items:
        if lines[-1] and len(lines[-1]) + len(item) + 2 > width:
            lines.append("")
        lines[-1] += f"; {item}" if lines[-1] else item
    return "\n".join(lines)


def cell(index: int) -> float:
    """Where cell `index` of a row or column starts, in the SVG's units."""
    return MARGIN + index * CELL


def svg_document(width: float, height: float, domain: str, name: str, parts: list[str]) -> str:
    """The SVG of a board of `domain`, titled by its name, of the drawn `parts`."""
    title = f"<title>{html.escape(name)}</title>" if name else ""
    return (f'<svg class="board {domain}" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" font-family="system-ui, sans-serif">{title}' + "".join(parts) + "</svg>")
