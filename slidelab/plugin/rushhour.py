"""Rush Hour for plugin heuristics: what `spec`, `work` and `key` hold, and the functions that read a key.

A Rush Hour heuristic is ``h(spec, work, key) -> int``, declared with
``@heuristic(domain="rushhour", admissible=...)``. The vehicles are numbered
0 .. ``spec.count - 1`` in the board's order; cells ``row * spec.size + col``,
rows from the top, columns from the left, from 0. A vehicle's *position* is
its first cell along its line: the column of a horizontal vehicle's leftmost
cell, the row of a vertical one's top cell. The board is solved when the red
car touches the right edge: ``positions[spec.red] + spec.length[spec.red] ==
spec.size``.

`spec` (read it; what a heuristic writes there is lost after its search):

- ``size``: the board's side (6, 9, 12, ...).
- ``count``: the number of vehicles.
- ``horizontal[i]``: True if vehicle i moves along a row, False along a column.
- ``line[i]``: the row (horizontal) or column (vertical) vehicle i moves along.
- ``length[i]``: the cells vehicle i covers (2 or more).
- ``red``: the red car's number; it is horizontal and leaves by the right edge.
- ``walls``: one int16 per cell, -1 for a wall, else 0.
- ``single_step``: True under the step move model (a move is one cell).
- ``body``, ``place``, ``weight``, ``table``, ``row_walls``, ``column_walls``:
  the key's layout and the move generator's masks (use `positions`).

`work` (scratch the heuristic may overwrite; nothing in it is kept between
calls): ``positions`` (int64, ``count``), ``grid`` (int16, ``size * size``),
``seen`` (int8, ``count + 1``), ``queue`` (int64, ``(2 * count, 2)``),
``rows`` and ``columns`` (uint64, ``size``).

`key`: the state's key words (uint64, read only: numba refuses to compile a
write to it). Decode it with `positions` (or `grid`), never by hand: its
layout is slidelab's to change.

These functions run inside numba-compiled heuristics (inlined there) and from
plain Python alike.
"""

from puzzles.plugin_kernels import rushhour_grid as grid
from puzzles.plugin_kernels import rushhour_positions as positions

__all__ = ["grid", "positions"]
