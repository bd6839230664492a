"""The compiled entry points every algorithm calls, dispatched on the domain.

A domain registers its spec class with its compiled functions; an algorithm
calls `expand`, `is_goal` and `heuristic` with a spec, and numba picks the
domain's functions when it compiles the algorithm for that spec type. So each
algorithm is written once, and its compiled form is cached on disk.

Signatures:

- ``expand(spec, key, out_keys, out_moves) -> int`` writes the successors of
  `key` into the first rows of `out_keys` (shape ``(max_branching, key_words)``)
  and their move codes into `out_moves`, and returns how many it wrote.
- ``is_goal(spec, key) -> bool``.
- ``heuristic(spec, code, args, key, parent_branching) -> int``: the estimate of
  heuristic number `code` (the domain's numbering), with parameters `args`
  (float64 array) and the number of successors the parent had.
"""

from numba.extending import overload

_DOMAINS: dict[type, tuple] = {}


def register(spec_class: type, *, expand, is_goal, heuristic) -> None:
    """Make a domain's compiled functions the ones called for specs of `spec_class`."""
    _DOMAINS[spec_class] = (expand, is_goal, heuristic)


def _functions(spec_type):
    return _DOMAINS[spec_type.instance_class]


def expand(spec, key, out_keys, out_moves):
    """Write the successors of `key`; returns their number (see the module docstring)."""
    return _DOMAINS[type(spec)][0](spec, key, out_keys, out_moves)


def is_goal(spec, key):
    """True if `key` is a goal state."""
    return _DOMAINS[type(spec)][1](spec, key)


def heuristic(spec, code, args, key, parent_branching):
    """Heuristic number `code` of the domain at `key`."""
    return _DOMAINS[type(spec)][2](spec, code, args, key, parent_branching)


@overload(expand)
def _expand(spec, key, out_keys, out_moves):
    function = _functions(spec)[0]
    return lambda spec, key, out_keys, out_moves: function(spec, key, out_keys, out_moves)


@overload(is_goal)
def _is_goal(spec, key):
    function = _functions(spec)[1]
    return lambda spec, key: function(spec, key)


@overload(heuristic)
def _heuristic(spec, code, args, key, parent_branching):
    function = _functions(spec)[2]
    return lambda spec, code, args, key, parent_branching: function(spec, code, args, key, parent_branching)
