"""The compiled entry points every algorithm calls, dispatched on the domain.

A domain registers its spec class with its compiled functions; an algorithm
calls `expand`, `is_goal` and `heuristic` with a spec, and numba picks the
domain's functions when it compiles the algorithm for that spec type. So each
algorithm is written once, and its compiled form is cached on disk.

The spec describes the board and is never written. What the kernels write
while they work (a grid to paint, occupancy masks) lives in a *workspace* the
search makes once with `workspace(spec)` and passes to every call, so two
searches on one spec never share scratch space.

`expand`, `is_goal`, `heuristic` and `child_heuristics` are called once per
node, so they are compiled without numba's runtime (no reference counts on
the spec's and workspace's arrays at every call), and so is what a domain
registers for them: they must not allocate, nor copy an array by slice
assignment (copy word by word).

Signatures:

- ``workspace(spec)``: a fresh workspace of the domain's own type.
- ``expand(spec, work, key, out_keys, out_moves) -> int`` writes the successors
  of `key` into the first rows of `out_keys` (shape ``(max_branching,
  key_words)``) and their move codes into `out_moves`, and returns how many it
  wrote.
- ``is_goal(spec, key) -> bool``.
- ``heuristic(spec, work, code, args, key, parent_branching) -> int``: the
  estimate of heuristic number `code` (the domain's numbering), with
  parameters `args` (float64 array) and the number of successors the parent
  had.
- ``child_heuristics(spec, work, code, args, key, out_keys, out_moves, rows, n,
  parent_branching, out_h)`` writes heuristic `code`'s estimate of successor
  ``out_keys[rows[t]]`` into ``out_h[rows[t]]`` for each t < n: the same values
  as `heuristic`, for successors of `key` that the last `expand` of `key` with
  this `work` wrote, nothing else having used `work` since. A domain may
  register a version that works from the parent's board as that `expand` left
  it decoded in `work`, and the moves (`child_heuristics=`; Rush Hour's reads
  the positions from there, not from `key`); without one, each successor is
  estimated from scratch.

A domain whose states are cheap to change in place may also register the
make/undo entry points depth-first searches prefer (`register_in_place`):

- ``place(spec, code, key, capacity) -> (board, h)``: a mutable board of the
  key (of the domain's board class), room for `capacity` moves made and not
  yet undone, and heuristic `code`'s value on it;
- ``degree(board) -> int``: how many moves the board allows;
- ``make(board, code, move, limit, enough) -> int``: heuristic `code`'s value
  after the move, the move played in place only if that value is at most
  `limit` (so a domain may foresee the value and not move at all), or
  `ILLEGAL` for a move code (0 .. max_branching - 1) the board does not allow,
  which the search tries in turn: no list of legal moves is made. A value
  over `limit` may be a lower bound of the true one if it is at least
  `enough` (the caller needs it no more exactly);
  ``undo(board, code, move)`` takes back `move`, the last one made, and
  ``inverse(board, move)`` is the move that leads back.
- ``solved(board, code) -> bool``: the goal test, from what heuristic `code`'s
  makes keep up to date.
  The domain gives one make, one undo and one goal test per heuristic code
  (`makes`, `undos`, `solveds`), and `code` must be a compile-time constant
  (``numba.literally``): each heuristic's search is compiled with its own and
  nothing of the others'.

The board carries what these need, so the hot loop passes one small object.
"""

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload

from puzzles.jit import nb

_DOMAINS: dict[type, tuple] = {}
_IN_PLACE: dict[type, tuple] = {}
_NO_REFCOUNTS = {"_nrt": False}  # the per-node dispatchers: see the module docstring
ILLEGAL = np.iinfo(np.int64).max  # what an in-place `make` returns for a move the board does not allow


def register(spec_class: type, *, workspace, expand, is_goal, heuristic, child_heuristics=None) -> None:
    """Make a domain's compiled functions the ones called for specs of `spec_class` (`child_heuristics` optional)."""
    _DOMAINS[spec_class] = (workspace, expand, is_goal, heuristic, child_heuristics)


def register_in_place(spec_class: type, board_class: type, *, place, degree, makes, undos, solveds, inverse) -> None:
    """Make a domain's in-place entry points (see the module docstring) the ones called for its spec and board."""
    _IN_PLACE[spec_class] = (place,)
    _IN_PLACE[board_class] = (degree, makes, inverse, solveds, undos)


def has_in_place(spec) -> bool:
    """True if the spec's domain registered in-place entry points."""
    return type(spec) in _IN_PLACE


def _functions(spec_type):
    return _DOMAINS[spec_type.instance_class]


def workspace(spec):
    """A fresh workspace for the domain's kernels (see the module docstring)."""
    return _DOMAINS[type(spec)][0](spec)


def expand(spec, work, key, out_keys, out_moves):
    """Write the successors of `key`; returns their number (see the module docstring)."""
    return _DOMAINS[type(spec)][1](spec, work, key, out_keys, out_moves)


def is_goal(spec, key):
    """True if `key` is a goal state."""
    return _DOMAINS[type(spec)][2](spec, key)


def heuristic(spec, work, code, args, key, parent_branching):
    """Heuristic number `code` of the domain at `key`."""
    return _DOMAINS[type(spec)][3](spec, work, code, args, key, parent_branching)


def child_heuristics(spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h):
    """Heuristic `code` of the successors `out_keys[rows[:n]]` of `key` into `out_h` (see the module docstring)."""
    domain = _DOMAINS[type(spec)]
    if domain[4] is not None:
        domain[4](spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h)
        return
    for t in range(n):
        out_h[rows[t]] = domain[3](spec, work, code, args, out_keys[rows[t]], parent_branching)


@overload(workspace)
def _workspace(spec):
    function = _functions(spec)[0]
    return lambda spec: function(spec)


@overload(expand, jit_options=_NO_REFCOUNTS)
def _expand(spec, work, key, out_keys, out_moves):
    function = _functions(spec)[1]
    return lambda spec, work, key, out_keys, out_moves: function(spec, work, key, out_keys, out_moves)


@overload(is_goal, jit_options=_NO_REFCOUNTS)
def _is_goal(spec, key):
    function = _functions(spec)[2]
    return lambda spec, key: function(spec, key)


@overload(heuristic, jit_options=_NO_REFCOUNTS)
def _heuristic(spec, work, code, args, key, parent_branching):
    function = _functions(spec)[3]
    return lambda spec, work, code, args, key, parent_branching: function(spec, work, code, args, key, parent_branching)


@overload(child_heuristics, jit_options=_NO_REFCOUNTS)
def _child_heuristics(spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h):
    heuristic_of, together = _functions(spec)[3:5]
    if together is not None:
        return lambda spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h: together(
            spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h)

    def one_by_one(spec, work, code, args, key, out_keys, out_moves, rows, n, parent_branching, out_h):
        for t in range(n):
            out_h[rows[t]] = heuristic_of(spec, work, code, args, out_keys[rows[t]], parent_branching)

    return one_by_one


def place(spec, code, key, capacity):
    """A mutable board of `key` with room for `capacity` moves, and heuristic `code`'s value on it."""
    return _IN_PLACE[type(spec)][0](spec, code, key, capacity)


def degree(board):
    """How many moves `board` allows."""
    return _IN_PLACE[type(board)][0](board)


def make(board, code, move, limit, enough):
    """Heuristic `code` after `move`, played on `board` in place if that is at most `limit` (exact below `enough`)."""
    return _IN_PLACE[type(board)][1][code](board, move, limit, enough)


def undo(board, code, move):
    """Take back `move`, the last move made on `board`."""
    _IN_PLACE[type(board)][4][code](board, move)


def inverse(board, move):
    """The move that undoes `move`."""
    return _IN_PLACE[type(board)][2](board, move)


def solved(board, code):
    """True if `board` is a goal state (tested from what heuristic `code` keeps)."""
    return _IN_PLACE[type(board)][3][code](board)


def successors(spec, max_branching: int, key: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The (move code, key) pairs one move from `key`, for Python callers (replays, tests), not for searches."""
    out_keys = np.empty((max_branching, key.shape[0]), dtype=np.uint64)
    out_moves = np.empty(max_branching, dtype=np.int64)
    count = expand(spec, workspace(spec), key, out_keys, out_moves)
    return [(int(out_moves[i]), out_keys[i].copy()) for i in range(count)]


@nb.njit(cache=True, _nrt=False)
def is_goal_row(spec, keys, row):
    """`is_goal` of row `row` of the 2-D array `keys`, without reference-counting a view of the row."""
    return is_goal(spec, keys[row])


@nb.njit(cache=True)
def estimates(spec, code, args, keys):
    """Heuristic `code`'s estimate at every row of `keys` (a 2-D array of keys), with no parent (branching 0)."""
    work = workspace(spec)
    values = np.empty(keys.shape[0], dtype=np.int64)
    for row in range(keys.shape[0]):
        values[row] = heuristic(spec, work, code, args, keys[row], 0)
    return values


def _in_place(numba_type):
    return _IN_PLACE[numba_type.instance_class]


@overload(place)
def _place(spec, code, key, capacity):
    function = _in_place(spec)[0]
    return lambda spec, code, key, capacity: function(spec, code, key, capacity)


@overload(degree, jit_options=_NO_REFCOUNTS)
def _degree(board):
    function = _in_place(board)[0]
    return lambda board: function(board)


def _by_code(board, code, index: int):
    if not isinstance(code, types.IntegerLiteral):
        raise TypingError("make, undo and solved need the heuristic code as a constant: call numba.literally(code)"
                          " first")
    return _in_place(board)[index][code.literal_value]


@overload(make, prefer_literal=True, inline="always", jit_options=_NO_REFCOUNTS)
def _make(board, code, move, limit, enough):
    function = _by_code(board, code, 1)
    return lambda board, code, move, limit, enough: function(board, move, limit, enough)


@overload(undo, prefer_literal=True, inline="always", jit_options=_NO_REFCOUNTS)
def _undo(board, code, move):
    function = _by_code(board, code, 4)
    return lambda board, code, move: function(board, move)


@overload(inverse)
def _inverse(board, move):
    function = _in_place(board)[2]
    return lambda board, move: function(board, move)


@overload(solved, prefer_literal=True, jit_options=_NO_REFCOUNTS)
def _solved(board, code):
    function = _by_code(board, code, 3)
    return lambda board, code: function(board)
