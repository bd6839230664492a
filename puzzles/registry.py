"""The registries of named algorithms and heuristics: what a search can be asked to run, by name.

slidelab's own algorithms (`puzzles.algorithms`) and each domain's heuristics
(its `puzzles.<domain>.registered` module) are registered here by
`register_algorithm` and `register_heuristic`, as any package may register its
own: nothing else keeps a list of them. A heuristic is known by its domain and
name; its `code` is the number the domain's compiled kernels know it by, given
in the order the domain registers its heuristics. Light enough for a `--help`:
no numba.
"""

import functools
import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from collections.abc import Callable

    from puzzles.plugins import Origin
    from puzzles.result import SearchReport


@dataclass(frozen=True)
class Param:
    """A parameter's default, its type, what it means (for the command line's help) and its range for numbers.

    A parameter whose default is None is optional: it is left out of the bound
    values unless given, so adding one does not change existing jobs' keys.
    """

    default: Any
    kind: type
    help: str
    minimum: float | None = None
    choices: tuple[str, ...] | None = None
    maximum: float | None = None


@dataclass(frozen=True)
class HeuristicEntry:
    """A domain's heuristic by name: whether it is admissible, the options it takes, its kernels' number."""

    domain: str
    name: str
    summary: str
    admissible: bool
    options: dict[str, Param] = field(default_factory=dict)
    code: int = 0  # the domain's compiled `heuristic` (and in-place makes) know it by this number
    origin: "Origin | None" = None  # a plugin's package, version and source hash; None for slidelab's own
    function: "Callable[..., Any] | None" = None  # a plugin's function of (spec, work, key)


@dataclass(frozen=True)
class Algorithm:
    """An algorithm module's `search` with the parameters it takes.

    `heuristic` is the default heuristic of an algorithm that is given one
    (its `heuristic` parameter, and every heuristic's options beside it); with
    `fixed_heuristic`, the domain it names, the algorithm always runs that
    domain's heuristic, whose options are then its parameters, defaults and all.
    """

    module: str  # the module whose `search` runs it: a name in `puzzles.search`, or a full dotted path
    summary: str
    own_params: dict[str, Param] = field(default_factory=dict)
    randomized: bool = False
    optimal: bool = False  # finds a shortest solution (with an admissible heuristic, if it takes one)
    internal: bool = False  # run by a command for its jobs (split's subtrees), never offered to choose
    enumerates: bool = False  # counts the states it reaches (its layers), so it runs where a check proves no solution
    compile_s: int = 40  # about how long its kernels take to compile, the first time on a machine (2 quiet cores)
    heuristic: str | None = None
    fixed_heuristic: str | None = None  # the domain whose heuristic `heuristic` it always runs
    origin: "Origin | None" = None  # a plugin's package, version and source hash; None for slidelab's own
    function: "Callable[..., Any] | None" = None  # a plugin's function, which `puzzles.plugged` runs

    @property
    def params(self) -> dict[str, Param]:
        """Every parameter it takes: its own, and its heuristic's options (or the choice of one, every heuristic's
        options beside it, default None)."""
        if self.heuristic is None:
            return self.own_params
        known = (id(self), len(HEURISTICS))  # the heuristics' options change only as heuristics are registered
        if known not in _PARAMS:
            if self.fixed_heuristic:
                _PARAMS[known] = {**self.own_params, **heuristic_entry(self.fixed_heuristic, self.heuristic).options}
            else:
                chosen = {"heuristic": Param(self.heuristic, str, _heuristic_help())}
                _PARAMS[known] = {**self.own_params, **chosen, **offered_options()}
        return _PARAMS[known]

    @property
    def search(self) -> "Callable[..., SearchReport]":
        """The module's `search` (importing it loads, or compiles, the kernels); a plugin's, run by `puzzles.plugged`."""
        module = self.module if "." in self.module else f"puzzles.search.{self.module}"
        search = importlib.import_module(module).search
        return search if self.function is None else functools.partial(search, self.function)


ALGORITHMS: dict[str, Algorithm] = {}
_PARAMS: dict[tuple[int, int], dict[str, Param]] = {}  # an algorithm's parameters, by (algorithm, heuristics known)
HEURISTICS: dict[tuple[str, str], HeuristicEntry] = {}  # by (domain, name)
_BUILT_IN = ("puzzles.algorithms", "puzzles.domains")  # their imports register slidelab's own
_ALL_LOADED: list[bool] = []  # set once they and the installed plugins are registered


def register_algorithm(name: str, algorithm: Algorithm) -> Algorithm:
    """Add `algorithm` under `name`; PuzzleError if the name is taken."""
    if name in ALGORITHMS:
        raise PuzzleError(f"an algorithm named {name!r} is registered already")
    ALGORITHMS[name] = algorithm
    return algorithm


def register_heuristic(domain: str, name: str, summary: str, *, admissible: bool,
                       options: dict[str, Param] | None = None, origin: "Origin | None" = None,
                       function: "Callable[..., Any] | None" = None) -> HeuristicEntry:
    """Add heuristic `name` to `domain`, numbered after the domain's others; PuzzleError if the domain has one so named."""
    if (domain, name) in HEURISTICS:
        raise PuzzleError(f"a heuristic named {name!r} is registered already for {domain}")
    code = sum(owner == domain for owner, _ in HEURISTICS)
    entry = HeuristicEntry(domain, name, summary, admissible, dict(options or {}), code, origin, function)
    HEURISTICS[domain, name] = entry
    return entry


def loaded() -> None:
    """Register slidelab's own algorithms and domains, then the installed plugins, if nothing has yet."""
    if _ALL_LOADED:
        return
    for module in _BUILT_IN:
        importlib.import_module(module)
    importlib.import_module("puzzles.plugins").load_installed()
    _ALL_LOADED.append(True)


def heuristics_of(domain: str) -> tuple[HeuristicEntry, ...]:
    """The domain's heuristics in the order of their codes."""
    loaded()
    return tuple(entry for (owner, _), entry in HEURISTICS.items() if owner == domain)


def own_heuristic_names(domain: str) -> tuple[str, ...]:
    """The names of the domain's own heuristics (not plugins'), in the order of their codes: its kernels' numbering."""
    return tuple(entry.name for entry in heuristics_of(domain) if entry.origin is None)


def heuristic_names(domain: str) -> tuple[str, ...]:
    """The names of the domain's heuristics, in the order of their codes."""
    return tuple(entry.name for entry in heuristics_of(domain))


def code_of(domain: str, name: str) -> int:
    """The kernels' number of the domain's heuristic `name`."""
    return heuristic_entry(domain, name).code


def heuristic_entry(domain: str, name: str) -> HeuristicEntry:
    """The domain's heuristic `name`; PuzzleError naming the domain's heuristics if it has none so named."""
    loaded()
    if (domain, name) not in HEURISTICS:
        raise PuzzleError(f"unknown heuristic {name!r} for {_title(domain)} (choose from {', '.join(heuristic_names(domain))})")
    return HEURISTICS[domain, name]


def offered_options() -> dict[str, Param]:
    """Every heuristic's options, optional (default None) where an algorithm chooses its heuristic.

    An option left out takes its heuristic's own default, or the problem's for
    the board (`Problem.heuristic_defaults`), so adding a heuristic changes no
    existing job's parameters.
    """
    loaded()
    options: dict[str, Param] = {}
    for name, takers in option_takers().items():
        param = next(entry.options[name] for entry in HEURISTICS.values() if name in entry.options)
        default = "" if param.default is None else f", default {_number(param.default)}"
        options[name] = Param(None, param.kind, f"{param.help} (with {' or '.join(takers)}{default})",
                              param.minimum, param.choices, param.maximum)
    return options


def option_takers() -> dict[str, tuple[str, ...]]:
    """Each heuristic option's name with the heuristics that take it."""
    loaded()
    takers: dict[str, tuple[str, ...]] = {}
    for entry in HEURISTICS.values():
        for name in entry.options:
            takers[name] = (*takers.get(name, ()), entry.name)
    return takers


def check_options(domain: str, name: str, options: dict[str, Any]) -> HeuristicEntry:
    """The domain's heuristic `name`; PuzzleError if it is unknown or `options` holds one it does not take."""
    entry = heuristic_entry(domain, name)
    foreign = [option for option in options if option not in entry.options]
    if foreign:
        given = ", ".join(f"--{option.replace('_', '-')} {options[option]!r}" for option in foreign)
        takers = sorted({taker for option in foreign for taker in option_takers().get(option, ())})
        which = f"the {' and '.join(takers)} heuristic{'s' if len(takers) > 1 else ''}" if takers else "no heuristic"
        raise PuzzleError(f"{given} {'is' if len(foreign) == 1 else 'are'} for {which}, not {name}")
    return entry


class RegisteredHeuristics:
    """A problem's heuristics as its domain registered them: a base of each domain's `Problem`."""

    domain: str

    @property
    def heuristic_names(self) -> tuple[str, ...]:
        """What `heuristic` accepts."""
        return heuristic_names(self.domain)

    @property
    def admissible_heuristics(self) -> tuple[str, ...]:
        """Those that never overestimate."""
        return tuple(entry.name for entry in heuristics_of(self.domain) if entry.admissible)


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _heuristic_help() -> str:
    """The `heuristic` parameter's help: each domain's heuristics by name."""
    from puzzles.domains import DOMAINS

    domains = dict.fromkeys([*DOMAINS, *(domain for domain, _ in HEURISTICS)])
    return "the heuristic: " + "; ".join(f"{_title(domain)} {', '.join(heuristic_names(domain))}" for domain in domains)


def _title(domain: str) -> str:
    """The domain as a sentence names it (`Rush Hour`), or its key if it registered no title."""
    from puzzles.domains import DOMAINS  # registers the built-in domains, which import this module

    return DOMAINS[domain].title if domain in DOMAINS else domain
