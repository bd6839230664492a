"""The floor every stage may use: durations in the unit that shows them, plain tables and progress bars."""

import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table


def duration_text(seconds: float) -> str:
    """`1.23 s`, `45.6 ms` or `789 µs`: a duration in the unit that shows it."""
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


@contextmanager
def build_bar(console: Console, name: str) -> Iterator[callable]:
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


def cell(value) -> str:
    """A value for a table cell: missing as –, floats to four significant digits."""
    pandas = sys.modules.get("pandas")  # only a table pandas made holds its NA: not imported for this
    if value is None or (pandas is not None and value is pandas.NA) or value != value:
        return "–"
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def counts_text(counts: dict[str, int]) -> str:
    """`solved 12, failed 3`: counts by name, the largest first."""
    return ", ".join(f"{name} {count:,}" for name, count in sorted(counts.items(), key=lambda item: -item[1]))
