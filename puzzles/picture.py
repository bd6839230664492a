"""What a board's picture is made of in every domain: the SVG's cells, its frame, and the `Picture` a domain draws.

Each domain draws its own boards (`puzzles.<domain>.picture`) as an SVG whose
movable pieces are `<g class="piece">` placed by their `transform`, so that a
solution is a list of frames, each a translation per piece. Plain text: no
drawing library.
"""

import html
from dataclasses import dataclass

CELL = 40
MARGIN = 24  # room around the grid for the exit arrow

Frames = list[list[tuple[float, float]]]  # per frame, the translation (x, y) of each piece


@dataclass(frozen=True)
class Picture:
    """A board's SVG and the translation (x, y) of each of its pieces, in the order of the SVG's pieces."""

    svg: str
    places: list[tuple[float, float]]


def cell(index: int) -> float:
    """Where cell `index` of a row or column starts, in the SVG's units."""
    return MARGIN + index * CELL


def svg_document(width: float, height: float, domain: str, name: str, parts: list[str]) -> str:
    """The SVG of a board of `domain`, titled by its name, of the drawn `parts`."""
    title = f"<title>{html.escape(name)}</title>" if name else ""
    return (f'<svg class="board {domain}" viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" font-family="system-ui, sans-serif">{title}' + "".join(parts) + "</svg>")
