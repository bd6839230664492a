"""A study's search space: each parameter's range as the sweep writes it, read once at the boundary.

`0..10` is a range of whole numbers, `0.5..2.0` (or any bound with a fraction)
a range of real numbers, `0..100:5` a range in steps, `log:1..1000` a range
drawn log-uniformly; a comma list (`blockers,moves-freed` or `1,2,8`) is a set
of choices; one value is fixed. Every bound and choice is checked against the
solver's own parameter tables (through the sweep's `combinations`), so a study
refuses what a sweep would refuse, before anything is stored.
"""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from orchestrator.sweeps.grid import check_number, combinations, flag_name, parse_values
from puzzles.algorithms import find_algorithm
from puzzles.errors import PuzzleError
from puzzles.textio import quote

LOG = "log:"
INT, FLOAT, CHOICE, FIXED = "int", "float", "choice", "fixed"


@dataclass(frozen=True)
class Dimension:
    """One parameter's range: `kind` int or float (low..high, a step, log-uniform), choice (`choices`), or fixed."""

    name: str
    kind: str
    low: Any = None
    high: Any = None
    step: Any = None
    log: bool = False
    choices: tuple[Any, ...] = ()

    def text(self) -> str:
        """The range as the command line writes it: `log:1..1000`, `0..10:2`, `a,b`."""
        if self.kind in (CHOICE, FIXED):
            return ",".join(str(choice) for choice in self.choices)
        step = f":{self.step}" if self.step is not None else ""
        return f"{LOG if self.log else ''}{self.low}..{self.high}{step}"


def parse_space(algorithm: str, texts: dict[str, str]) -> list[Dimension]:
    """The dimensions of the study of `algorithm` over the parameters' texts; PuzzleError, naming the option, if bad."""
    if "," in algorithm:
        raise PuzzleError(f"--algo: a study tunes one algorithm, not {quote(algorithm)}")
    find_algorithm(algorithm)
    dimensions = [parse_dimension(name, text) for name, text in texts.items()]
    if not any(dimension.kind != FIXED for dimension in dimensions):
        raise PuzzleError("give at least one parameter a range or a list of values to tune (e.g. --w-exit 0..10)")
    for dimension in dimensions:
        probes = [dimension.low, dimension.high] if dimension.kind in (INT, FLOAT) else list(dimension.choices)
        try:
            combinations([algorithm], {dimension.name: probes})
        except PuzzleError as err:
            raise PuzzleError(f"{flag_name(dimension.name)} {dimension.text()}: {err}") from None
    return dimensions


def parse_dimension(name: str, text: str) -> Dimension:
    """One parameter's range, choices or fixed value (see the module's docstring); PuzzleError if it is none of them."""
    option = flag_name(name)
    body = text.strip()
    log = body.startswith(LOG)
    if log:
        body = body[len(LOG):]
    if ".." in body and "," not in body:
        return _range(name, option, body, log)
    if log:
        raise PuzzleError(f"{option}: {LOG} goes with a range (log:1..1000), not {quote(text)}")
    values = parse_values(body, option)
    return Dimension(name, FIXED if len(values) == 1 else CHOICE, choices=tuple(values))


def _range(name: str, option: str, body: str, log: bool) -> Dimension:
    bounds, _, step_text = body.partition(":")
    low_text, _, high_text = (part.strip() for part in bounds.partition(".."))
    texts = [low_text, high_text] + ([step_text.strip()] if step_text else [])
    try:
        numbers = [Decimal(part) for part in texts]
    except InvalidOperation:
        raise PuzzleError(f"{option}: {quote(body)} is not a range of numbers (write a..b, a..b:step or log:a..b)") from None
    for number, part in zip(numbers, texts):
        check_number(number, part, option)
    low, high = numbers[0], numbers[1]
    if step_text and numbers[2] <= 0:
        raise PuzzleError(f"{option}: the step of {quote(body)} must be positive")
    if low > high:
        raise PuzzleError(f"{option}: the range {quote(body)} is empty")
    if log and low <= 0:
        raise PuzzleError(f"{option}: a log range starts above 0, not at {low_text}")
    if log and step_text:
        raise PuzzleError(f"{option}: a log range takes no step ({quote(body)})")
    whole = all(part.lstrip("+-").isdigit() for part in texts)
    convert = int if whole else float
    step = convert(numbers[2]) if step_text else None
    return Dimension(name, INT if whole else FLOAT, convert(low), convert(high), step, log)


def suggest(trial, dimensions: list[Dimension]) -> dict[str, Any]:
    """The parameter point an Optuna trial (`optuna.Trial`) proposes in this space, fixed values included."""
    point: dict[str, Any] = {}
    for dimension in dimensions:
        name = dimension.name
        if dimension.kind == INT:
            point[name] = trial.suggest_int(name, dimension.low, dimension.high, step=dimension.step or 1, log=dimension.log)
        elif dimension.kind == FLOAT:
            point[name] = trial.suggest_float(name, dimension.low, dimension.high, step=dimension.step, log=dimension.log)
        elif dimension.kind == CHOICE:
            point[name] = trial.suggest_categorical(name, list(dimension.choices))
        else:
            point[name] = dimension.choices[0]
    return point


def grid_space(dimensions: list[Dimension]) -> dict[str, list[Any]]:
    """The values of each tuned parameter as the grid sampler walks them: ranges expanded as the sweep expands them."""
    space = {}
    for dimension in dimensions:
        if dimension.kind in (INT, FLOAT):
            if dimension.log:
                raise PuzzleError(f"{flag_name(dimension.name)}: the grid sampler walks no log range; give a list")
            space[dimension.name] = parse_values(dimension.text(), flag_name(dimension.name))
        elif dimension.kind == CHOICE:
            space[dimension.name] = list(dimension.choices)
    return space
