"""What a plugin imports: the declarations of algorithms and heuristics, and the problem they search.

This module's names are slidelab's plugin API, version `API_VERSION`
(docs/plugins.md is its reference): a change that breaks a plugin raises its
major number.
"""

from puzzles.plugged import SearchProblem, State
from puzzles.plugins import API_VERSION, algorithm, heuristic
from puzzles.registry import Param

__all__ = ["API_VERSION", "Param", "SearchProblem", "State", "algorithm", "heuristic"]
