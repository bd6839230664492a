"""A report as a value: a sweep's summary, or sweeps compared, with its notes and rows, in every format it is written in.

`slidelab.report` and `slidelab.compare` return a `Report`; the command line
prints it (`orchestrator.publish.outputs.publish`), a notebook shows it as an
HTML table (`_repr_html_`), a script asks for its table, its Markdown or LaTeX,
its HTML page or its plots.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from orchestrator.publish.latex import latex_table
from orchestrator.reports import tables

if TYPE_CHECKING:
    from workers.store import Database
    from workers.store.sweeps import SweepRow


@dataclass(frozen=True)
class Source:
    """The database and sweep a report reads: for the HTML report's header and board pictures."""

    db: Database
    sweep: SweepRow


@dataclass(frozen=True)
class Report:
    """A table of one row per group (`table`), the notes a reader must know (`notes`), and the job rows it was made of.

    `names` are the sweeps compared, the first the reference (None for one
    sweep's report); `groups` the columns the rows are grouped by; `baseline`
    the algorithm a report's ratios are to; `db` the database read, and `sweep`
    the sweep a report is of (for the HTML page's header and board pictures).
    """

    title: str
    stem: str
    table: pd.DataFrame
    groups: list[str]
    notes: list[str]
    rows: pd.DataFrame
    names: list[str] | None = None
    baseline: str | None = None
    db: Database | None = None
    sweep: SweepRow | None = None

    @property
    def source(self) -> Source | None:
        """The database and sweep of a one-sweep report, None for a comparison."""
        return Source(self.db, self.sweep) if self.db is not None and self.sweep is not None else None

    def grid(self, columns: list[str] | None = None, wide: bool = False) -> tables.Grid:
        """The table as every format lays it out: the key columns (or `columns`, or all with `wide`), best values marked."""
        if self.names is None:
            return tables.report_grid(self.table, self.groups, columns=columns, wide=wide)
        return tables.compare_grid(self.table, self.groups, self.names, columns=columns, wide=wide)

    def markdown(self, columns: list[str] | None = None, wide: bool = False) -> str:
        """The table as a Markdown pipe table, the best values in bold."""
        return tables.markdown_text(self.grid(columns, wide))

    def latex(self, columns: list[str] | None = None, wide: bool = False) -> str:
        """The table as a booktabs tabular for a paper, the notes as comments above it."""
        grid = self.grid(columns, wide)
        return latex_table(grid, [*self.notes, *grid.notes("bold")])

    def html(self) -> str:
        """The whole HTML page (`orchestrate report --format html`): header, notes, interactive plots, boards, the table."""
        from orchestrator.publish import outputs

        return outputs.html_page(self)

    def plots(self, folder: Path | str = ".", fmt: str = "png", width: str | None = None) -> list[Path]:
        """Write the paper's plots (per parameter, per algorithm, scatter, coverage) into `folder`; the files written."""
        from orchestrator.publish.outputs import file_stem
        from orchestrator.reports import paper_plots  # matplotlib only when a plot is asked for

        return paper_plots.write_plots(self.rows, Path(folder), file_stem(self.stem), fmt=fmt, width=width,
                                       baseline=self.baseline)

    def _repr_html_(self) -> str:
        """The table as a notebook shows it: the key columns, the best in bold, the notes under it."""
        grid = self.grid()
        notes = [*self.notes, *grid.notes("bold")]
        items = "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        return f"<h4>{html.escape(self.title)}</h4>{grid_html(grid)}" + (f"<ul>{items}</ul>" if items else "")

    def __repr__(self) -> str:
        return f"<Report {self.title!r}: {len(self.table)} rows of {len(self.rows)} jobs>"


def grid_html(grid: tables.Grid) -> str:
    """The grid as a plain HTML table (no script, no style sheet): the terminal's headings and values, the best bold."""
    def row(cells: list[tables.Cell], tag: str = "td") -> str:
        texts = (cell_html(cell) for cell in cells)
        return "<tr>" + "".join(f"<{tag}>{text}</{tag}>" for text in texts) + "</tr>"

    head = "<tr>" + "".join(f"<th>{html.escape(heading.text)}</th>" for heading in grid.headings) + "</tr>"
    body = "".join(row(cells) for cells in (*grid.rows, *grid.summaries))
    return f"<table><thead>{head}</thead><tbody>{body}</tbody></table>"


def cell_html(cell: tables.Cell) -> str:
    """A cell's text as the terminal writes it, escaped, bold if it is the best of its column."""
    from orchestrator.reports.columns import value_text

    text = html.escape(cell.written(value_text))
    return f"<strong>{text}</strong>" if cell.best else text
