"""What a plugin imports: the declarations of algorithms and heuristics, and the problem they search.

This package's names are slidelab's plugin API, version `API_VERSION`
(docs/plugins.md is its reference): a change that breaks a plugin raises its
major number.

- `algorithm(...)` declares a search function ``f(problem, **params)`` over a
  `SearchProblem` (states are `State`s); its parameters are `Param`s.
- `heuristic(domain=..., admissible=...)` declares an estimate
  ``h(spec, work, key) -> int`` of one domain's states: `spec` is the board's
  compiled description, `work` scratch arrays the heuristic may overwrite,
  `key` the state's key words (read only). In plain Python it serves plugin
  algorithms; declared over ``@numba.njit`` it also runs inside slidelab's
  own compiled searches (astar, idastar, beam, layered) at compiled speed.
- `slidelab.plugin.rushhour` and `slidelab.plugin.npuzzle` (imported on their
  own: they load numba) describe each domain's `spec`, `work` and `key`, and
  give the functions that read a key, callable from numba and from Python.
"""

from puzzles.plugged import SearchProblem, State
from puzzles.plugins import API_VERSION, algorithm, heuristic
from puzzles.registry import Param

__all__ = ["API_VERSION", "Param", "SearchProblem", "State", "algorithm", "heuristic"]
