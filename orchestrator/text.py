"""The floor every stage may use: the one way to write a number, plain tables and progress bars.

Every output (terminal tables, the HTML report, the dashboard, plots) writes
values with these: durations in the unit that shows them (`85 µs`, `8 min
15 s`), sizes in binary units (`2 GiB`), counts with thousands separators,
shares and gaps as percentages, ratios as `1.43×`.
"""

import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

MISSING = "–"
BINARY_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB")
LARGE_GAP = 10.0  # from +1,000% on, a gap is written without decimals


def duration_text(seconds: float) -> str:
    """`1.23 s`, `45.6 ms` or `789 µs`; from a minute on `8 min 15 s`, from an hour `2 h 05 min`."""
    if seconds >= 3600:
        hours, minutes = divmod(round(seconds / 60), 60)
        return f"{hours:,} h {minutes:02d} min"
    if seconds >= 60:
        minutes, rest = divmod(round(seconds), 60)
        return f"{minutes} min {rest:02d} s"
    if seconds >= 1 or seconds == 0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def signed_duration_text(seconds: float) -> str:
    """A difference of durations: `+1.20 s`, `-85 µs`."""
    return ("-" if seconds < 0 else "+") + duration_text(abs(seconds))


def bytes_text(size: float) -> str:
    """`2 GiB`, `1.5 GiB`, `512 MiB`, `100 bytes`: a size in the binary unit that shows it."""
    unit = 0
    while size >= 1024 and unit < len(BINARY_UNITS) - 1:
        size /= 1024
        unit += 1
    return f"{size:,.0f} {BINARY_UNITS[unit]}" if unit == 0 or size == int(size) else f"{size:.3g} {BINARY_UNITS[unit]}"


def count_text(value: float) -> str:
    """`12,345`: a count (or a mean of counts) to the unit, with thousands separators."""
    return f"{value:,.0f}"


def number_text(value: float, signed: bool = False) -> str:
    """`26.8`, `1,234.5` (`+6.0` signed): a measure to one decimal."""
    return f"{value:+,.1f}" if signed else f"{value:,.1f}"


def share_text(value: float, signed: bool = False) -> str:
    """`50%` (`+25%` signed, for a difference of shares)."""
    return f"{value:+.0%}" if signed else f"{value:.0%}"


def gap_text(value: float) -> str:
    """An optimality gap, moves / optimum − 1: `+12.5%`, `+0.0%`; large ones without decimals, `+946,920%`."""
    return f"{value:+,.0%}" if abs(value) >= LARGE_GAP else f"{value:+.1%}"


def ratio_text(value: float) -> str:
    """`1.43×`: a ratio to a reference."""
    return f"{value:,.2f}×"


@contextmanager
def build_bar(console: Console, name: str) -> Iterator[Callable[[int, int], None]]:
    """A progress bar for a pattern database; yields `update(reached, total)` (placements)."""
    with progress_bar(console) as progress:
        task = progress.add_task(name, total=None)
        yield lambda reached, total: progress.update(task, completed=reached, total=total)


def progress_bar(console: Console, *extra: ProgressColumn) -> Progress:
    """A bar that stays on screen: the task's name, the bar, done of total, the `extra` columns, time elapsed."""
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), *extra, TimeElapsedColumn())
    return Progress(*columns, console=console, transient=False)


def frame_table(frame) -> Table:
    """Any DataFrame as a table: numbers to four significant digits, missing values as –."""
    table = plain_table()
    for column in frame.columns:
        table.add_column(str(column), justify="right" if frame[column].dtype.kind in "if" else "left")
    for row in frame.itertuples(index=False):
        table.add_row(*(cell(value) for value in row))
    return table


def plain_table() -> Table:
    """A terminal table: a rule under the headings, no frame, one space between columns."""
    return Table(box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)


def missing(value) -> bool:
    """True for None, NaN and pandas' NA and NaT."""
    pandas = sys.modules.get("pandas")  # only a table pandas made holds its NA: not imported for this
    if value is None or (pandas is not None and (value is pandas.NA or value is pandas.NaT)):
        return True
    return isinstance(value, Real) and not isinstance(value, Integral) and math.isnan(value)


def cell(value) -> str:
    """A value with no unit known: integers (and numbers from 1,000 up) as `12,345`, others to four significant
    digits, booleans as yes/no, missing as –."""
    if missing(value):
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return f"{int(value):,}"
    if isinstance(value, Real):
        number = float(value)
        if math.isinf(number):
            return "∞" if number > 0 else "-∞"
        if (number.is_integer() and abs(number) < 1e15) or abs(number) >= 1e3:
            return f"{number:,.0f}"
        return f"{number:.4g}"
    return str(value)


def counts_text(counts: dict[str, int]) -> str:
    """`solved 12, failed 3`: counts by name, the largest first."""
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items(), key=lambda item: -item[1]))
