"""The N-puzzle for plugin heuristics: what `spec`, `work` and `key` hold, and the functions that read a key.

An N-puzzle heuristic is ``h(spec, work, key) -> int``, declared with
``@heuristic(domain="npuzzle", admissible=...)``. Cells are numbered row by
row from 0 (cell ``row * spec.width + column``); tile 0 is the blank. A move
moves the blank (up, down, left or right) and costs 1; a heuristic counts the
moves of the numbered tiles, never the blank's.

`spec` (read it; what a heuristic writes there is lost after its search):

- ``width``, ``height``: the board's columns and rows; ``cells`` their product.
- ``goal``: the goal's key (blank-last ``1 2 3 / 4 5 6 / 7 8 0``, or Korf's
  blank-first, as the board was given): ``tiles(spec, spec.goal, out)``
  gives each tile's goal cell.
- ``bits``, ``per_word``: the key's layout (use `tile` and `tiles`).
- ``table``, ``pdb_values``: slidelab's own heuristics' tables (no
  pattern databases are loaded for a plugin).

`work` (scratch the heuristic may overwrite; nothing in it is kept between
calls): one int64 array of ``6 * spec.cells``.

`key`: the state's key words (uint64, read only: numba refuses to compile a
write to it). Read it with `tile` and `tiles`, never by hand: its layout is
slidelab's to change.

These functions run inside numba-compiled heuristics (inlined there) and from
plain Python alike.
"""

from puzzles.plugin_kernels import npuzzle_tile as tile
from puzzles.plugin_kernels import npuzzle_tiles as tiles

__all__ = ["tile", "tiles"]
