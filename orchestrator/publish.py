"""What `report`, `compare` and `export` produce, in the format asked for: files written, and what to print.

A `Published` keeps stdout for the table, CSV, Markdown or JSON alone; the
notes a reader must know and the names of the files written go to stderr.
"""

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from rich.table import Table

from orchestrator import report, sweep_view
from orchestrator.grid import parse_values
from orchestrator.plan import find_sweep
from puzzles.errors import PuzzleError
from workers.store import Database

COMPARE_FORMATS = ("table", "csv", "markdown", "json")


@dataclass
class Published:
    """What a reporting command prints: a terminal table or a text on stdout, and lines for stderr."""

    table: Table | None = None
    text: str | None = None
    messages: list[str] = field(default_factory=list)


def report_sweep(db: Database, sweep_name: str, *, by: str | None, fmt: str, out: Path | None, plot: bool) -> Published:
    """A sweep's summary per group (default: algorithm, params, board) in `fmt`, with its notes and plots."""
    _check_format(fmt, report.FORMATS)
    rows = sweep_rows(db, sweep_name)
    groups = [report.ALIASES.get(column, column) for column in parse_values(by, "--by")] if by else list(report.GROUPS)
    summary = report.summarize(rows, groups)
    notes = report.notes(rows, sweep_name, groups)
    published = Published()
    if plot:
        from orchestrator import plots  # matplotlib only when a plot is asked for

        published.messages += [f"wrote {path}" for path in plots.write_pngs(rows, out.parent if out else Path.cwd(), sweep_name)]
    if fmt == "html":
        target = out or Path(f"{sweep_name}.html")
        target.write_text(_html(sweep_name, rows, summary, notes))
        published.messages.append(f"wrote {target}")
        return published
    published.messages += notes
    if fmt == "table":
        published.table = sweep_view.report_table(summary, groups)
    else:
        published.text = report.write(summary, fmt, out)
    return published


def compare_sweeps(db: Database, names: tuple[str, str], fmt: str) -> Published:
    """Two sweeps' summaries side by side, per algorithm, parameters and board."""
    _check_format(fmt, COMPARE_FORMATS)
    rows = [sweep_rows(db, name) for name in names]
    table = report.compare(*(report.summarize(frame) for frame in rows), names)
    notes = dict.fromkeys(note for frame, name in zip(rows, names) for note in report.notes(frame, name))
    if fmt == "table":
        return Published(table=sweep_view.frame_table(table), messages=list(notes))
    return Published(text=report.write(table, fmt, None), messages=list(notes))


def export_sweep(db: Database, sweep_name: str, fmt: str, out: Path | None) -> Published:
    """The raw rows of a sweep, one per job, as CSV or Parquet."""
    _check_format(fmt, report.EXPORT_FORMATS)
    return Published(text=report.write(report.load_rows(db, find_sweep(db, sweep_name)), fmt, out))


def sweep_rows(db: Database, sweep_name: str) -> pd.DataFrame:
    """The rows of the sweep called `sweep_name`; PuzzleError if there is none, or it has no jobs."""
    sweep = find_sweep(db, sweep_name)
    rows = report.load_rows(db, sweep)
    if rows.empty:
        raise PuzzleError(f"sweep {sweep.name!r} has no jobs")
    return rows


def _html(sweep_name: str, rows: pd.DataFrame, summary: pd.DataFrame, notes: list[str]) -> str:
    from orchestrator import html_report, plots  # matplotlib only for the HTML report's figures

    shown = summary.assign(params=summary["params"].map(sweep_view.params_text)) if "params" in summary else summary
    return html_report.html_report(f"slidelab report: {sweep_name}", shown, plots.figures(rows), notes)


def _check_format(fmt: str, formats: tuple[str, ...]) -> None:
    if fmt not in formats:
        raise PuzzleError(f"--format: {fmt!r} is not one of {', '.join(formats)}")
