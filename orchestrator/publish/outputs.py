"""What `report`, `compare` and `export` produce, in the format asked for: files written, and what to print.

A `Published` keeps stdout for the table, CSV, Markdown or JSON alone; the
notes a reader must know and the names of the files written go to stderr.
"""

import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import pandas as pd
from rich.console import Console
from rich.table import Table

from orchestrator.publish import files
from orchestrator.publish.document import Report, Source
from orchestrator.publish.latex import latex_table
from orchestrator.reports import rows as report_rows
from orchestrator.reports import tables
from orchestrator.reports.comparability import claims, comparison, report_summary
from orchestrator.reports.comparison import shared_groups
from orchestrator.reports.errors import error_lines
from orchestrator.reports.figures import joined_rows
from orchestrator.sweeps.lookups import find_sweep
from puzzles.errors import PuzzleError
from workers.store import Database
from workers.store.progress import sweep_provenance, sweep_status
from workers.store.rows import BoardSolution, board_solutions
from workers.store.sweeps import SweepRow

COMPARE_FORMATS = ("table", "csv", "markdown", "latex", "json", "html")
REPORT_FORMATS = (*COMPARE_FORMATS, "parquet")
MARKS = {"table": tables.MARKER, "markdown": "bold", "latex": "bold"}  # the formats of the table the terminal shows


@dataclass
class Published:
    """What a reporting command prints: a terminal table or a text on stdout, and lines for stderr."""

    table: Table | None = None
    text: str | None = None
    messages: list[str] = field(default_factory=list)
    pieces: Iterable[str] = ()  # a text printed a piece at a time, as it is made


@dataclass(frozen=True)
class Layout:
    """How a table is laid out: the format, the file to write, the columns chosen or all of them."""

    fmt: str = "table"
    out: Path | None = None
    columns: str | None = None
    wide: bool = False

    def checked(self, formats: tuple[str, ...]) -> "Layout":
        """This layout; PuzzleError if its format is not one of `formats`."""
        check_format(self.fmt, formats)
        return self

    def chosen(self) -> list[str] | None:
        """The columns of `--columns`, if given."""
        return column_names(self.columns, "--columns") if self.columns else None


@dataclass(frozen=True)
class PlotFiles:
    """The plots asked for as files (`--plot`): their format (`paper_plots.PLOT_FORMATS`) and width (`one` or `two` columns
    of a paper; None: as drawn)."""

    fmt: str = "png"
    width: str | None = None


def sweep_report(db: Database, sweep_name: str, *, by: str | None = None, baseline: str | None = None) -> Report:
    """A sweep's summary per group (default: algorithm, params, board), with its notes: errors first, then what the
    rows and the comparisons leave out."""
    sweep = find_sweep(db, sweep_name)
    rows = sweep_rows(db, sweep_name)
    groups = report_rows.group_columns(rows, column_names(by, "--by") if by else None)
    summary, compared = report_summary(rows, groups, baseline=baseline)
    notes = [*error_lines(rows, sweep_name), *report_rows.notes(rows, sweep_name, groups), *compared]
    return Report(f"slidelab report: {sweep_name}", sweep_name, summary, groups, notes, rows, baseline=baseline,
                  db=db, sweep=sweep)


def comparison_report(db: Database, names: list[str], *, by: str | None = None) -> Report:
    """The sweeps lined up group by group (`orchestrator.reports.comparison`), the first the reference."""
    unique = list(dict.fromkeys(names))
    with ThreadPoolExecutor(max_workers=len(unique) if db.reads_side_by_side else 1) as pool:
        found = dict(zip(unique, pool.map(partial(compared_rows, db), unique), strict=True))
    frames = {name: rows for name, (rows, _) in found.items()}
    trials = [text for _, text in found.values() if text]
    if len(frames) < 2:
        raise PuzzleError("compare needs two different sweeps or more")
    groups = column_names(by, "--by") if by else shared_groups(list(frames.values()))
    for rows in frames.values():
        report_rows.group_columns(rows, groups)  # an unknown column is named before anything is computed
    table, compared = comparison(frames, groups)
    notes = [*claims(frames), *dict.fromkeys(note for name, rows in frames.items()
                                             for note in report_rows.notes(rows, name, groups))]
    notes += [*trials, *compared]
    return Report(f"slidelab comparison: {' vs '.join(frames)}", "-vs-".join(frames), table, groups, notes,
                  joined_rows(frames, groups), names=list(frames), db=db)


def publish(report: Report, layout: Layout, plot: PlotFiles | None = None) -> Published:
    """The report as `layout` says (an HTML file; the table the terminal shows, in a terminal, as Markdown or as LaTeX;
    or the whole table's raw values: csv, json, parquet), with its plots as files if asked for."""
    check_not_database(layout.out, report.db)
    published = Published(messages=plot_files(report, plot, layout) if plot else [])
    if layout.fmt == "html":
        target = layout.out or Path(f"{file_stem(report.stem)}.html")
        target.write_text(html_page(report))
        published.messages.append(f"wrote {target}")
        return published
    published.messages += report.notes
    if layout.fmt not in MARKS:
        published.text = files.write(report.table, layout.fmt, layout.out)
        return published
    grid = report.grid(layout.chosen(), layout.wide)
    shown = tables.fitted(grid, terminal_width()) if layout.fmt == "table" else grid
    notes = shown.notes(MARKS[layout.fmt])
    published.messages += notes
    if layout.fmt == "table":
        published.table = tables.terminal_table(shown)
        return published
    text = tables.markdown_text(shown) if layout.fmt == "markdown" else latex_table(shown, [*report.notes, *notes])
    if layout.out is None:
        published.text = text
    else:
        files.write_texts([text], layout.out)
    return published


def plot_files(report: Report, plot: PlotFiles, layout: Layout) -> list[str]:
    """Write the report's plots (`Report.plots`) next to `--out`, else here; a line per file written."""
    folder = layout.out.parent if layout.out else Path.cwd()
    return [f"wrote {path}" for path in report.plots(folder, plot.fmt, plot.width)]


def column_names(text: str, option: str) -> list[str]:
    """The column names of a comma list such as `algo,k` (aliases resolved); PuzzleError for an empty one."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise PuzzleError(f"{option}: an empty column name in {text!r}")
    return [report_rows.ALIASES.get(name, name) for name in names]


def terminal_width() -> int | None:
    """The width of the terminal stdout is, None for a pipe or a file (where a table has its natural width)."""
    console = Console()
    return console.width if console.is_terminal else None


def export_sweep(db: Database, sweep_name: str, fmt: str, out: Path | None) -> Published:
    """The raw rows of a sweep, one per job (`rows.load_rows`), as CSV (written a slice of rows at a time, never held
    whole) or Parquet."""
    check_format(fmt, files.EXPORT_FORMATS)
    check_not_database(out, db)
    sweep = find_sweep(db, sweep_name)
    if fmt != "csv":
        return Published(text=files.write(report_rows.load_rows(db, sweep), fmt, out))
    slices = report_rows.row_slices(db, sweep)
    if out is None:
        return Published(pieces=files.csv_texts(slices))
    with closing(slices):  # a file that cannot be written ends the reading at once, its connection closed
        files.write_texts(files.csv_texts(slices), out)
    return Published()


def file_stem(name: str) -> str:
    """A file name made from a sweep's name: only letters, digits, `.`, `_`, `+` and `-`, never a path."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", name).lstrip(".") or "sweep"


def check_not_database(out: Path | None, db: Database | None) -> None:
    """Refuse to write over the database being read."""
    if out is not None and db is not None and db.file is not None and out.exists() and db.file.exists() and out.samefile(db.file):
        raise PuzzleError(f"--out {out} is the results database being read: give another file")


def sweep_rows(db: Database, sweep_name: str) -> pd.DataFrame:
    """The rows of the sweep called `sweep_name`; PuzzleError if there is none, or it has no jobs."""
    sweep = find_sweep(db, sweep_name)
    rows = report_rows.load_rows(db, sweep)
    if rows.empty:
        raise PuzzleError(f"sweep {sweep.name!r} has no jobs")
    return rows


def compared_rows(db: Database, name: str) -> tuple[pd.DataFrame, str | None]:
    """The rows `compare` lines up of a sweep: all of them, or of a study (`orchestrate tune`) its best trial's, with
    the line that names that trial."""
    from orchestrator.reports.study import best_trial, is_study, trial_text

    rows = sweep_rows(db, name)
    sweep = find_sweep(db, name)
    if not is_study(sweep):
        return rows, None
    trial = best_trial(db, sweep)
    return rows[rows["job_id"].isin(trial.job_ids)], trial_text(name, trial)


def html_page(report: Report) -> str:
    """The report as one self-contained HTML page (`orchestrator.publish.html_report`)."""
    from orchestrator.publish import html_report  # plotly only for the HTML report

    parts = html_parts(report.table, report.rows, report.source)
    return html_report.html_report(report.title, parts.summary, parts.charts, report.notes, header=parts.header,
                                   boards=parts.boards, keys=parts.keys)


@dataclass(frozen=True)
class Parts:
    """What an HTML page shows of a table and a sweep: the table (params as text), figures, header, boards, key columns."""

    summary: pd.DataFrame
    charts: list
    header: list[tuple[str, str]]
    boards: list[BoardSolution]
    keys: dict[str, str] | None


def html_parts(frame: pd.DataFrame, rows: pd.DataFrame | None, source: Source | None) -> Parts:
    """The parts of the HTML report, and of the dashboard's page of a sweep: figures of `rows`, the sweep's header."""
    from orchestrator.publish import interactive

    shown = frame.assign(params=frame["params"].map(report_rows.params_key_text)) if "params" in frame else frame
    charts = interactive.charts(rows) if rows is not None else []
    if source is None:
        return Parts(shown, charts, [], [], None)
    boards = board_solutions(source.db, source.sweep)
    header = sweep_header(source.db, source.sweep, len(boards))
    return Parts(shown, charts, header, boards, tables.key_columns(frame))


def sweep_header(db: Database, sweep: SweepRow, boards: int) -> list[tuple[str, str]]:
    """The header of a sweep's report and dashboard page: grid, limits, size, time span, hosts, code versions."""
    from orchestrator.sweeps.provenance_view import sweep_header as header

    return header(sweep, sweep_status(db, sweep), boards, sweep_provenance(db, sweep))


def check_format(fmt: str, formats: tuple[str, ...]) -> None:
    """PuzzleError unless `fmt` is one of `formats`."""
    if fmt not in formats:
        raise PuzzleError(f"--format: {fmt!r} is not one of {', '.join(formats)}")
