"""The one place that knows each column of a summary and of a comparison: its heading, unit, priority, which way is better.

Every output writes a value through here: the terminal and Markdown tables,
the HTML report and the dashboard (`text`, the unit written in each cell:
`85.3 µs`, `2 GiB`, `50%`, `1.43×`), and LaTeX (`number` in the unit of
the column's heading, `scale`: `time (ms)` over `0.085`). CSV, JSON and
Parquet keep the columns' names and raw values in base units (seconds,
bytes, fractions; `peak_mem_*` in MiB), which `UNITS` and docs/reports.md
list per column.

- **Names** are the columns `summarize` and `compare` make (`moves_mean`,
  `n_failed`; `moves_mean B`, `moves_mean Δ B`, `× B`, `p B`, `q B` per later
  sweep B): `column(name)` knows each, and any other (a group column such
  as `algorithm` or `k`) as text.
- **Priority**: the lower, the longer a column stays on a narrow terminal.
- **Better**: which way a value is better, for marking the best of the rows
  compared; `summary` is how a summary row aggregates the column (`sum` of
  coverage and scores, `geomean` of ratios), if it does.
"""

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from numbers import Real
from typing import Any

import pandas as pd

from orchestrator.reports.comparison import significant
from orchestrator.reports.summary import narrowed
from orchestrator.text import MISSING, bytes_text, cell, count_text, duration_text, gap_text, missing, number_text, ratio_text, share_text, signed_duration_text

MIB = 1 << 20
KINDS = ("Δ", "×", "p", "q")  # a comparison's columns per later sweep: `moves_mean Δ B`


class Better(StrEnum):
    """Which way a column's value is better, for marking the best of the rows compared."""

    LOWER = "lower"
    HIGHER = "higher"
    NONE = "none"


@dataclass(frozen=True)
class Unit:
    """A kind of value: how a cell writes one with its unit, and the units a heading may name for a whole column.

    `write(value, signed)` writes a value (signed: a difference of two);
    `scales` are (symbol, size in base units), largest first, for a column
    whose heading names the unit (LaTeX); `digits` the decimals of its plain
    numbers, None for three significant digits of each.
    """

    name: str
    write: Callable[[float, bool], str]
    scales: tuple[tuple[str, float], ...] = (("", 1.0),)
    digits: int | None = 0

    def text(self, value: Any, signed: bool = False) -> str:
        """A value as the terminal, Markdown and HTML write it, unit included; `–` for a missing one."""
        if missing(value):
            return MISSING
        if isinstance(value, bool) or not isinstance(value, Real):
            return cell(value)
        return self.write(float(value), signed)

    def scale(self, values: Iterable[Any]) -> "Scale":
        """The unit a heading names for these values: the largest in which their largest is 1 or more."""
        largest = max((abs(float(value)) for value in values if _number(value)), default=0.0)
        symbol, size = next(((symbol, size) for symbol, size in self.scales if largest >= size),
                            self.scales[0 if largest == 0 else -1])
        return Scale(symbol, size, self.digits)


@dataclass(frozen=True)
class Scale:
    """The unit a heading names for a column's numbers (`ms`), its size in the values' unit, and their decimals (None:
    each to three significant digits)."""

    symbol: str
    size: float
    digits: int | None

    def number(self, value: Any, signed: bool = False) -> str | None:
        """A value as a plain number in this unit, `1,234.5`; None for a missing one."""
        if not _number(value):
            return None
        scaled = float(value) / self.size
        return f"{scaled:{'+' if signed else ''},.{self.digits if self.digits is not None else _decimals(scaled)}f}"


def _number(value: Any) -> bool:
    return isinstance(value, Real) and not isinstance(value, bool) and not missing(value)


def _decimals(value: float) -> int:
    """Decimals for three significant digits of `value` (none from 100 on)."""
    return max(0, 2 - math.floor(math.log10(abs(value)))) if value else 2


def _counted(value: float, signed: bool) -> str:
    return f"{value:+,.0f}" if signed else count_text(value)


def _timed(value: float, signed: bool) -> str:
    return signed_duration_text(value) if signed else duration_text(value)


def _plain(value: float, signed: bool) -> str:
    return f"{value:+.3g}" if signed else cell(value)


def _score(value: float, signed: bool) -> str:
    return f"{value:{'+' if signed else ''},.2f}"


def _p(value: float, signed: bool) -> str:
    return f"{value:.3f}"


COUNT = Unit("count", _counted)
MOVES = Unit("moves", lambda value, signed: number_text(value, signed), digits=1)  # a mean of moves, to a tenth
WHOLE_MOVES = Unit("moves", _counted)  # fewest and most moves
MOVES_BEYOND = Unit("moves", lambda value, signed: number_text(value, signed=True), digits=1)  # moves - optimum
TIME = Unit("time", _timed, (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)), digits=None)
BYTES = Unit("bytes", lambda value, signed: ("+" if signed and value >= 0 else "") + bytes_text(value),
             (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10), ("bytes", 1.0)), digits=None)
SHARE = Unit("share", share_text, (("%", 0.01),))
GAP = Unit("gap", lambda value, signed: gap_text(value), (("%", 0.01),), digits=1)
RATIO = Unit("ratio", lambda value, signed: ratio_text(value), digits=2)  # its heading says of what: `time ×base`
SCORE = Unit("score", _score, digits=2)
P_VALUE = Unit("p", _p, digits=3)
TEXT = Unit("text", _plain, digits=None)


def _always(summary: pd.DataFrame) -> bool:
    return True


def _never(summary: pd.DataFrame) -> bool:
    return False


@dataclass(frozen=True)
class Column:
    """A column of a summary or comparison: what it is called, in what unit, how it is shown, which way is better.

    `base` is the base unit's factor of the stored value (peak memory is
    stored in MiB: its bytes are the value × MIB); `spread` the metric whose
    interval or spread across boards its cell adds (`moves`); `table` False
    for a column shown only inside another's cell (interval bounds, spreads);
    `key(summary)` whether a terminal report shows it without --wide.
    """

    name: str
    heading: str
    unit: Unit = TEXT
    priority: int = 90
    better: Better = Better.NONE
    summary: str | None = None
    base: float = 1.0
    spread: str | None = None
    table: bool = True
    key: Callable[[pd.DataFrame], bool] = _never
    rank: str | None = None  # the column whose values decide the best marks, if not this one's (own ranked by common)

    def text(self, value: Any, signed: bool = False) -> str:
        """A value of the column as a cell writes it, unit included (`value_text`)."""
        return self.unit.text(value * self.base if _number(value) else value, signed)

    def scale(self, values: Iterable[Any]) -> Scale:
        """The unit a heading of the column names for these values (`Unit.scale`), sized in the stored values' unit."""
        found = self.unit.scale(float(value) * self.base for value in values if _number(value))
        return replace(found, size=found.size / self.base)

    def best(self, values: pd.Series) -> pd.Series:
        """True where a value is the best of `values` (every one that ties), only where two or more differ."""
        present = pd.to_numeric(values, errors="coerce")
        if self.better is Better.NONE or present.nunique() < 2:
            return pd.Series(False, index=values.index)
        top = present.min() if self.better is Better.LOWER else present.max()
        return present.sub(top).abs().le(1e-9 * max(1.0, abs(top)))


def _beyond(name: str, least: int) -> Callable[[pd.DataFrame], bool]:
    """A key column where some row's value is more than `least`."""
    return lambda summary: name in summary.columns and bool(summary[name].fillna(0).gt(least).any())


def _any(summary: pd.DataFrame, name: str) -> bool:
    """True if some row has a value of the column `name`."""
    return name in summary.columns and bool(summary[name].notna().any())


def _narrowed(summary: pd.DataFrame) -> bool:
    return {"common", "units", "solved_share"} <= set(summary.columns) and narrowed(summary)


def _metric(name: str, heading: str, unit: Unit, priority: int, key: Callable[[pd.DataFrame], bool] = _always
            ) -> list[Column]:
    """A metric's mean (with its spread), median, spread and interval bounds, and its figure over the common runs."""
    lower = Better.LOWER
    return [
        Column(f"{name}_mean", heading, unit, priority, lower, spread=name, key=key, rank=f"{name}_common"),
        Column(f"{name}_common", f"{heading} common", unit, priority + 5, lower,
               key=lambda summary: key(summary) and _narrowed(summary) and _any(summary, f"{name}_common")),
        Column(f"{name}_median", f"{heading} median", unit, priority + 40),
        *(Column(f"{name}_{stat}", f"{heading} {label}", unit, 99, table=False) for stat, label in
          (("std", "sd"), ("board_std", "sd across boards"), ("ci_low", "95% low"), ("ci_high", "95% high"))),
    ]


def _registry() -> dict[str, Column]:
    lower, higher = Better.LOWER, Better.HIGHER
    columns = [
        Column("boards", "boards", COUNT, 40, key=_beyond("boards", 1)),
        Column("jobs", "jobs", COUNT, 28, key=_always),
        Column("unfinished", "unfinished", COUNT, 30, key=_beyond("unfinished", 0)),
        Column("solved_share", "solved", SHARE, 10, higher, key=_always),
        Column("coverage", "coverage", COUNT, 12, higher, "sum", key=_beyond("boards", 1)),
        Column("coverage_units", "coverage of", COUNT, 99, table=False),
        Column("score_expanded", "score expanded", SCORE, 45, higher, "sum"),
        Column("score_time", "score time", SCORE, 45, higher, "sum"),
        Column("shared_solved_share", "solved shared", SHARE, 50, higher),
        Column("common", "compared", COUNT, 35, key=_narrowed),
        Column("shared", "shared", COUNT, 99, table=False),
        Column("units", "units", COUNT, 99, table=False),
        *_metric("moves", "moves", MOVES, 20),
        Column("moves_min", "moves min", WHOLE_MOVES, 70),
        Column("moves_max", "moves max", WHOLE_MOVES, 70),
        Column("steps_mean", "steps", MOVES, 75),
        Column("gap_mean", "gap", GAP, 25, lower, key=_always, rank="gap_common"),
        Column("gap_common", "gap common", GAP, 30, lower),
        Column("gap_moves_mean", "gap moves", MOVES_BEYOND, 65),
        *_metric("expanded", "expanded", COUNT, 25),
        *_metric("generated", "generated", COUNT, 60, key=_never),
        *_metric("elapsed", "time", TIME, 20),
        Column("elapsed_p95", "time p95", TIME, 72),
        Column("cpu_mean", "cpu time", TIME, 74),
        Column("peak_mem_mib", "peak memory", BYTES, 55, lower, base=MIB, rank="peak_mem_common"),
        Column("peak_mem_common", "peak memory common", BYTES, 57, lower, base=MIB),
        *(Column(f"{name}_ratio", f"{heading} ×base", RATIO, 15, lower, "geomean", key=_always)
          for name, heading in (("moves", "moves"), ("expanded", "expanded"), ("elapsed", "time"))),
        Column("left_out", "left out", TEXT, 85),
        Column("moves_mean own", "moves own", MOVES, 30),  # a comparison's sweeps' own figures, beside the compared
        Column("elapsed_mean own", "time own", TIME, 35),
    ]
    return {column.name: column for column in columns}


COLUMNS = _registry()
UNITS = {name: column.unit.name for name, column in COLUMNS.items()}  # the unit of each column, for the docs


def column(name: str) -> Column:
    """The column called `name`: a summary's, an outcome count (`n_failed`), a comparison's (`moves_mean Δ B`), or text."""
    if name in COLUMNS:
        return COLUMNS[name]
    if name.startswith("n_"):
        outcome = name.removeprefix("n_")
        return Column(name, f"jobs {outcome}", COUNT, 40 if outcome == "unsolvable" else 80,
                      key=lambda summary: name == "n_unsolvable")
    metric = name.split(" ")[0]
    if metric != name and metric in COLUMNS:
        return _compared(COLUMNS[metric], name)
    return Column(name, name)


def _compared(metric: Column, name: str) -> Column:
    """A comparison's column of `metric` (`moves_mean B`, `moves_mean × B`): a sweep's value, or against the first
    sweep its difference, ratio, p or q; headed `moves × B`."""
    heading, against = metric.heading + name.removeprefix(metric.name), kind(name)
    if against is None or against == "Δ":
        return replace(metric, name=name, heading=heading, better=metric.better if against is None else Better.NONE)
    if against == "×":
        return Column(name, heading, RATIO, metric.priority, metric.better, "geomean")
    return Column(name, heading, P_VALUE, metric.priority)


def value_text(name: str, value: Any) -> str:
    """A value of the column `name` as every output writes it: times as durations, shares and gaps as percentages,
    memory in binary units, counts to the unit, ratios as `1.43×`; in a comparison differences signed, p and q to
    three decimals, `q` with ` *` where it is below 5%."""
    found = column(name)
    against = kind(name)
    written = found.text(value, signed=against == "Δ")
    return f"{written} *" if against == "q" and _number(value) and significant(value) else written


def kind(name: str) -> str | None:
    """Of a comparison's column (`moves_mean Δ B`), which value against the first sweep it holds (`Δ`, `×`, `p`,
    `q`); None otherwise."""
    parts = name.split(" ")
    return parts[1] if len(parts) > 2 and parts[1] in KINDS else None


