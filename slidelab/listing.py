"""What can run: the algorithms and heuristics registered, slidelab's own and the plugins', with where each comes from.

A plugin is listed with its package and version (`greedy-search 0.2.0`), or its
file (`--algo path/to/file.py:name`, once named); slidelab's own with none.
These are the lists `orchestrate algorithms` prints.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from puzzles.plugins import Origin
    from puzzles.registry import Algorithm, HeuristicEntry, Param


@dataclass(frozen=True)
class Parameter:
    """A parameter as a user gives it: its name, type, default and range (None where it has none), and what it means."""

    name: str
    type: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Plugin:
    """Where a plugin comes from: its distribution (or file), version, and the sha256 of its source."""

    package: str
    version: str
    source_hash: str
    local: bool

    @property
    def label(self) -> str:
        """`greedy-search 0.2.0`, as slidelab's messages name it."""
        return f"{self.package} {self.version}"


@dataclass(frozen=True)
class AlgorithmInfo:
    """An algorithm that can be chosen with `--algo`: what it does, its parameters and what it claims.

    `heuristic` is the default heuristic of one that takes `--heuristic`
    (None if it takes none, or always runs its own); `optimal` says it finds
    shortest solutions (with an admissible heuristic); `plugin` is None for
    slidelab's own.
    """

    name: str
    summary: str
    parameters: tuple[Parameter, ...]
    randomized: bool
    optimal: bool
    heuristic: str | None
    plugin: Plugin | None


@dataclass(frozen=True)
class HeuristicInfo:
    """A heuristic of one domain: whether it is admissible, whether compiled searches can run it, its options."""

    domain: str
    name: str
    summary: str
    admissible: bool
    compiled: bool  # slidelab's own and numba plugins run inside the compiled searches; plain Python ones do not
    options: tuple[Parameter, ...]
    plugin: Plugin | None


def algorithms() -> list[AlgorithmInfo]:
    """Every algorithm a user can choose, slidelab's own first in the order registered, then the plugins by name."""
    from puzzles.algorithms import ALGORITHMS

    chosen = [(name, entry) for name, entry in ALGORITHMS.items() if not entry.internal]
    chosen.sort(key=lambda item: item[1].origin is not None)  # stable: the order of registration within each
    return [_algorithm_info(name, entry) for name, entry in chosen]


def heuristics(domain: str | None = None) -> list[HeuristicInfo]:
    """Every heuristic (of `domain`, if given) by domain, in the order registered; PuzzleError for an unknown domain."""
    from puzzles.domains import DOMAINS, find_domain
    from puzzles.registry import heuristics_of

    if domain is not None:
        find_domain(domain)  # PuzzleError naming the domains
    domains = list(DOMAINS) if domain is None else [domain]
    return [_heuristic_info(entry) for key in domains for entry in heuristics_of(key)]


def _algorithm_info(name: str, entry: Algorithm) -> AlgorithmInfo:
    own = entry.params if entry.fixed_heuristic else entry.own_params  # a fixed heuristic's options are its parameters
    return AlgorithmInfo(name, entry.summary, _parameters(own), entry.randomized, entry.optimal,
                         None if entry.fixed_heuristic else entry.heuristic, _plugin(entry.origin))


def _heuristic_info(entry: HeuristicEntry) -> HeuristicInfo:
    compiled = entry.function is None or hasattr(entry.function, "py_func")
    return HeuristicInfo(entry.domain, entry.name, entry.summary, entry.admissible, compiled,
                         _parameters(entry.options), _plugin(entry.origin))


def _parameters(params: dict[str, Param]) -> tuple[Parameter, ...]:
    return tuple(Parameter(name, param.kind.__name__, param.default, param.help, param.minimum, param.maximum,
                           param.choices) for name, param in params.items())


def _plugin(origin: Origin | None) -> Plugin | None:
    return None if origin is None else Plugin(origin.distribution, origin.version, origin.source_hash, origin.local)
