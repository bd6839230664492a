"""Boards as SVG pictures, and the frames of a solution played on them, as each board's domain draws them.

Every movable piece of a domain's picture (`puzzles.picture`) is a `<g
class="piece">` placed by its `transform`, so a solution is a list of frames,
each a translation per piece: the report's player steps through them, and
`animated_svg` turns them into an SVG that plays itself (SMIL, no script).
"""

import json
import re

from puzzles.domains import find_domain
from puzzles.picture import Frames, Picture

SECONDS_PER_MOVE = 0.6
SVG_NAMESPACE = "http://www.w3.org/2000/svg"
__all__ = ["Picture"]  # the domains' pictures, as the report and the catalogue draw them


def board_svg(domain: str, text: str) -> Picture:
    """The picture of a board given by its canonical text (JSON), drawn by its domain."""
    return find_domain(domain).picture(text)


def solution_frames(domain: str, text: str, solution: str | None) -> Frames:
    """The translation of every piece at the start and after each move of `solution` (space-separated moves).

    Rush Hour moves are `<vehicle><+|-><cells>` (`+` right or down), N-puzzle
    moves where the blank goes (`U`, `D`, `L`, `R`). PuzzleError for a move
    that names no vehicle or leaves the board.
    """
    return find_domain(domain).frames(text, (solution or "").split())


def animated_svg(domain: str, text: str, solution: str | None) -> str:
    """The board's SVG whose pieces play the solution, a move each SECONDS_PER_MOVE, over and over (SMIL)."""
    picture = board_svg(domain, text)
    frames = solution_frames(domain, text, solution)
    if len(frames) < 2:
        return picture.svg
    held = [frames[0], *frames, frames[-1]]  # a pause at the start and at the end
    duration = SECONDS_PER_MOVE * (len(held) - 1)
    pieces = iter(range(len(picture.places)))

    def animate(match: re.Match) -> str:
        index = next(pieces)
        values = ";".join(f"{frame[index][0]:g},{frame[index][1]:g}" for frame in held)
        return (f'{match.group(0)}<animateTransform attributeName="transform" type="translate" values="{values}" '
                f'dur="{duration:g}s" repeatCount="indefinite"/>')

    return re.sub(r'<g class="piece[^"]*"[^>]*>', animate, picture.svg)


def frames_json(frames: Frames) -> str:
    """Frames as compact JSON for the player: a list per frame of [x, y] per piece."""
    return json.dumps([[[round(x, 1), round(y, 1)] for x, y in frame] for frame in frames], separators=(",", ":"))


def standalone(svg: str) -> str:
    """An inline SVG as a file of its own: with its XML namespace (an SVG that has it stays as it is)."""
    if svg.startswith("<svg xmlns="):
        return svg
    return svg.replace("<svg ", f'<svg xmlns="{SVG_NAMESPACE}" ', 1) + "\n"
