"""Sweep grids: the `SweepGrid` value, value lists such as `1..50:5,64`, and their product per algorithm.

A sweep's grid is one `SweepGrid` from the command line (`from_options`) to
the plan, the experiment's row (`to_json`, `stored_grid`) and the spec file.
`parse_values` reads what a user writes after a sweep option; `combinations`
gives each algorithm every combination of the values of the parameters it
takes, checked by the solver's own parameter tables.
"""

import itertools
import math
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from puzzles.algorithms import ALGORITHMS, PROBLEM_OPTIONS, Param, bind_params, canonical_name, find_algorithm, without_foreign_options
from puzzles.errors import PuzzleError
from puzzles.registry import option_takers
from puzzles.textio import quote

if TYPE_CHECKING:
    from workers.store.sweeps import SweepRow

MAX_VALUES = 100_000  # per option: a typo such as 1..10000000 is refused, not expanded
MAX_MAGNITUDE = Decimal(10) ** 15  # numbers beyond it are typos, and would overflow the kernels' integers
_DASHED_RANGE = re.compile(r"([+-]?\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)")  # 1-50: a range written as a word


@dataclass(frozen=True)
class SweepGrid:
    """A sweep's grid: what the command line, the plan, the sweep row and the spec file all hold of it.

    The algorithms, each parameter's values, the seeds of the randomized
    algorithms or the runs per point (`repeat`), and the name derived seeds
    are digested with (`seed_namespace`: None until planned, then the sweep's
    name, or its original's for a replay). `boards` names the planned sweep's
    boards in order; the planner fills it in.
    """

    algorithms: list[str]
    params: dict[str, list[Any]] = field(default_factory=dict)
    seeds: list[int] | None = None
    repeat: int = 1
    seed_namespace: str | None = None
    boards: list[str] = field(default_factory=list)

    @classmethod
    def from_options(cls, algorithms: str, params: dict[str, str], seeds: str | None = None, repeat: int = 1) -> "SweepGrid":
        """The grid of the command line's texts (`--algo beam --k 1..50:5 --seeds 1..10`); PuzzleError for a bad one."""
        values = {name: _numbers(name, parse_values(text, flag_name(name))) for name, text in params.items()}
        chosen = [canonical_name(str(algorithm)) for algorithm in parse_values(algorithms, "--algo")]
        seed_values = _numbers("seeds", parse_values(seeds, "--seeds")) if seeds else None
        if seed_values is not None and not all(isinstance(seed, int) for seed in seed_values):
            raise PuzzleError(f"--seeds: {seeds!r} are not whole numbers")
        return cls(chosen, values, seed_values, repeat)

    def to_json(self) -> dict[str, Any]:
        """The grid as the sweep row keeps it; a spec file has the same keys, but its boards in full."""
        return {"algorithms": self.algorithms, "params": self.params, "boards": self.boards, "seeds": self.seeds,
                "repeat": self.repeat, "seed_namespace": self.seed_namespace}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "SweepGrid":
        """The grid of `to_json`'s keys; a stored grid that lacks boards, repeat or namespace takes their defaults."""
        return cls(list(data["algorithms"]), dict(data["params"]), data.get("seeds"), data.get("repeat", 1),
                   data.get("seed_namespace"), list(data.get("boards", [])))

    def union(self, other: "SweepGrid", name: str) -> "SweepGrid":
        """This grid of the sweep `name` extended by `other`: every algorithm, parameter value, board and seed of either.

        It then covers every job of the sweep (replayed, it may plan
        combinations neither grid had); `other`'s seed namespace is kept.
        PuzzleError if one grid gives seeds and the other repeats.
        """
        if (self.seeds is None) != (other.seeds is None):
            given = "--seeds" if self.seeds is not None else "--repeat"
            raise PuzzleError(f"sweep {name!r} was planned with {given}: extend it with {given} too")
        params = {param: _union(self.params.get(param, []), values) for param, values in other.params.items()}
        return replace(
            other,
            algorithms=_union(self.algorithms, other.algorithms),
            params={**self.params, **params},
            boards=_union(self.boards, other.boards),
            seeds=None if other.seeds is None else _union(self.seeds or [], other.seeds),
            repeat=max(self.repeat, other.repeat),
        )

    def options_text(self) -> str:
        """The grid as command-line options: `--algo beam,astar --k 1..50 --heuristic blockers`."""
        options = [f"--algo {','.join(self.algorithms)}"]
        return " ".join(options + [f"{flag_name(name)} {values_text(values)}" for name, values in self.params.items()])


def flag_name(name: str) -> str:
    """The command-line option of a parameter or limit: `--batch-size` for `batch_size`."""
    return "--" + name.replace("_", "-")


def stored_grid(sweep: "SweepRow") -> SweepGrid | None:
    """The grid a stored sweep was planned from, its seed namespace filled in.

    None for an experiment of another kind than a grid sweep, or one planned before grids were kept.
    """
    if sweep.kind != "grid" or "algorithms" not in sweep.definition:
        return None
    grid = SweepGrid.from_json(sweep.definition)
    return grid if grid.seed_namespace is not None else replace(grid, seed_namespace=sweep.name)


def parse_values(text: str, option: str) -> list[Any]:
    """The values of a comma list of numbers, words and inclusive ranges `a..b` or `a..b:step`.

    Integers stay integers, other numbers become floats, anything else is a word;
    repeated values are kept once, in the order given.
    """
    values: list[Any] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise PuzzleError(f"{option}: an empty value in {quote(text)}")
        values.extend(_range(item, option) if ".." in item else [_scalar(item, option)])
        if len(values) > MAX_VALUES:
            raise PuzzleError(f"{option}: more than {MAX_VALUES:,} values in {quote(text)}")
    return list(dict.fromkeys(values))


def values_text(values: list[Any]) -> str:
    """Values as `parse_values` reads them: `1..50` or `50..3000:50` for four or more evenly spaced integers, else
    a comma list."""
    integers = all(isinstance(value, int) and not isinstance(value, bool) for value in values)
    if integers and len(values) >= 4:
        step = values[1] - values[0]
        if step > 0 and all(b - a == step for a, b in zip(values, values[1:])):
            return f"{values[0]}..{values[-1]}" + (f":{step}" if step != 1 else "")
    return ",".join(str(value) for value in values)


def combinations(algorithms: list[str], params: dict[str, list[Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Each algorithm with every combination of the given values of the parameters it takes.

    A parameter that none of the algorithms takes, or an unknown algorithm, is a
    PuzzleError; so is a value its algorithm refuses. A heuristic option (`pdb`)
    goes only with the heuristics that take it; the points it would duplicate are
    kept once.
    """
    entries = {name: find_algorithm(name) for name in algorithms}
    taken = {param for entry in entries.values() for param in entry.params} | set(PROBLEM_OPTIONS)
    unused = sorted(set(params) - taken)
    if unused:
        raise PuzzleError(f"no algorithm among {', '.join(algorithms)} takes {', '.join(unused)}")
    grid, seen = [], set()
    for name, entry in entries.items():
        own = [param for param in params if param in entry.params or param in PROBLEM_OPTIONS]
        for values in itertools.product(*(params[param] for param in own)):
            bound = without_foreign_options(bind_params(name, dict(zip(own, values))))
            if (name, *sorted(bound.items())) not in seen:
                seen.add((name, *sorted(bound.items())))
                grid.append((name, bound))
    for option in sorted(set(params) & set(option_takers())):
        if not any(option in values for _, values in grid):
            raise PuzzleError(f"--{option} is for the heuristics {', '.join(option_takers()[option])}: give one with --heuristic")
    return grid


def grid_size(algorithms: list[str], params: dict[str, list[Any]]) -> int:
    """How many points `combinations` gives at most, counted without making them (0 for an unknown algorithm)."""
    entries = [ALGORITHMS.get(name) for name in algorithms]
    return sum(
        math.prod(len(values) for param, values in params.items() if param in entry.params or param in PROBLEM_OPTIONS)
        for entry in entries if entry is not None
    )


def _numbers(name: str, values: list[Any]) -> list[Any]:
    """`values` of a numeric parameter (or the seeds); PuzzleError for a range written with a dash (`1-50`)."""
    if name == "seeds" or any(param.kind in (int, float) for param in _declarations(name)):
        for value in values:
            dashed = _DASHED_RANGE.fullmatch(value) if isinstance(value, str) else None
            if dashed:
                raise PuzzleError(f"{flag_name(name)}: {quote(value)} is not a number; write ranges as"
                                  f" {dashed[1]}..{dashed[2]}")
    return values


def _declarations(name: str) -> list[Param]:
    """The declarations of the parameter `name` in the algorithms' tables and the problem options."""
    tables = [PROBLEM_OPTIONS, *(entry.params for entry in ALGORITHMS.values())]
    return [table[name] for table in tables if name in table]


def _union(first: list[Any], second: list[Any]) -> list[Any]:
    return list(dict.fromkeys([*first, *second]))


def _scalar(item: str, option: str) -> Any:
    try:
        number = Decimal(item)
    except InvalidOperation:
        return item
    check_number(number, item, option)
    return int(number) if _integral(item) else float(number)


def check_number(number: Decimal, item: str, option: str) -> None:
    """PuzzleError, naming the option, for a number that is not finite or out of range (a typo such as 1e99)."""
    if not number.is_finite():
        raise PuzzleError(f"{option}: {quote(item)} is not a finite number")
    size = number.copy_abs()  # abs() would round to the context, and overflow on an exponent like 1e999999999
    if size > MAX_MAGNITUDE or (number and size < 1 / MAX_MAGNITUDE):
        raise PuzzleError(f"{option}: {quote(item)} is out of range (numbers are between 1e-15 and 1e15 in size)")


def _integral(text: str) -> bool:
    return text.lstrip("+-").isdigit()


def _range(item: str, option: str) -> list[Any]:
    bounds, _, step_text = item.partition(":")
    low_text, _, high_text = bounds.partition("..")
    texts = (low_text.strip(), high_text.strip(), step_text.strip() or "1")
    try:
        low, high, step = (Decimal(text) for text in texts)
    except InvalidOperation:
        raise PuzzleError(f"{option}: {quote(item)} is not a range of numbers (write a..b or a..b:step)") from None
    for number, text in zip((low, high, step), texts):
        check_number(number, text, option)
    if step <= 0:
        raise PuzzleError(f"{option}: the step of {quote(item)} must be positive")
    if low > high:
        raise PuzzleError(f"{option}: the range {quote(item)} is empty")
    if high - low >= step * MAX_VALUES:
        raise PuzzleError(f"{option}: {quote(item)} has more than {MAX_VALUES:,} values")
    count = int((high - low) // step) + 1
    convert = int if all(_integral(text) for text in texts) else float
    return [convert(low + i * step) for i in range(count)]
