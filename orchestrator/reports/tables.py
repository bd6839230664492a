"""The report and compare tables as papers print them, for a terminal, Markdown and (`orchestrator.publish.latex`) LaTeX.

A `Grid` is a table before it is written: headings, cells, the best value of
each column among the rows compared (marked `•` in a terminal, bold in
Markdown, HTML and LaTeX), summary rows (the sum of coverage and scores, the
geometric mean of ratios, per side over the rows compared), and the notes
that say so. Columns are the registry's (`orchestrator.reports.columns`): key
ones by default, `--columns` to choose, `--wide` for all. On a terminal too
narrow for them, the columns of lowest priority are left out and named
(`fitted`): a number is never cut. Moves and times are shown with their
spread: `(low–high)`, the 95% interval of the mean over one board's repeats
and seeds, or `±sd` across boards when a group spans them. Group values
longer than GROUP_WIDTH are cut (csv and json keep them whole).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console
from rich.table import Table

from orchestrator.reports.columns import COLUMNS, Column, column, kind, value_text
from orchestrator.reports.comparison import COMPARED, OWN
from orchestrator.reports.rows import params_key_text
from orchestrator.reports.summary import families
from orchestrator.text import MISSING, cell, missing, plain_table
from puzzles.errors import PuzzleError

GROUP_WIDTH = 28
MARKER = "•"  # before the best value of a column in a terminal table
COMPARE_KEYS = ("solved_share", "moves_common", "elapsed_common", "moves_mean own")  # what `compare` shows without --wide
AGGREGATES = {"sum": "sum", "geomean": "geometric mean"}  # how a summary row aggregates a column, for its note
LABELS = {"sum": "sum", "geomean": "geo. mean"}  # and for its label


@dataclass(frozen=True)
class Cell:
    """A table cell: a column's value, and the values it adds: an `interval` (low–high), a `spread` (±sd) or the
    values `against` the first sweep (`(0.64×, q 0.902)`), each (column, value, prefix); or a `text` as it is."""

    column: str = ""
    value: Any = None
    form: str = ""
    around: tuple[tuple[str, Any, str], ...] = ()
    text: str | None = None
    best: bool = False

    def written(self, number: Callable[[str, Any], str], dash: str = "–", pm: str = "±") -> str:
        """The cell's text, each value written by `number(column, value)`."""
        if self.text is not None:
            return self.text
        main = number(self.column, self.value)
        parts = [prefix + number(name, value) for name, value, prefix in self.around]
        if self.form == "interval":
            return f"{main} ({parts[0]}{dash}{parts[1]})"
        if self.form == "spread":
            return f"{main} {pm}{parts[0]}"
        return f"{main} ({', '.join(parts)})" if parts else main


@dataclass(frozen=True)
class Heading:
    """A column of a grid: its registry column (or a group's), its heading, and whether it is a group column."""

    column: Column
    text: str
    group: bool = False


@dataclass(frozen=True)
class Grid:
    """A table as every format writes it: headings, rows of cells, summary rows, and what its notes say."""

    headings: list[Heading]
    rows: list[list[Cell]]
    summaries: list[list[Cell]] = field(default_factory=list)
    among: str = ""  # whom the best of a column is among: `the rows of the same board`
    summarized: str = ""  # what the summary rows hold
    left_out: tuple[str, ...] = ()
    width: int | None = None

    def notes(self, mark: str) -> list[str]:
        """What a reader must know of the table: what `mark` marks, what the summary rows hold, what is not shown."""
        notes = []
        if any(cell.best for row in self.rows for cell in row):
            notes.append(f"{mark}: the best value of its column among {self.among}")
        if self.summaries:
            notes.append(self.summarized)
        if self.left_out:
            notes.append(f"not shown at {self.width} columns: {', '.join(self.left_out)} "
                         f"(--columns chooses; a wider terminal or a pipe shows them)")
        return notes


def report_grid(summary: pd.DataFrame, groups: list[str], *, columns: list[str] | None = None,
                wide: bool = False) -> Grid:
    """The summary's rows: the group columns, then its key columns (or those asked for, or all), best values marked,
    summary rows per side over the rows compared."""
    shown = _chosen(summary, columns, wide)
    family = families(groups)
    frame = summary.reset_index(drop=True)
    best = {column.name: _best(frame, column.name, family) for column in shown}
    rows = [[*(Cell(text=_group_text(row, group)) for group in groups),
             *(replace(_value_cell(row, column.name), best=bool(best[column.name][index])) for column in shown)]
            for index, row in enumerate(frame.to_dict("records"))]
    headings = [*(Heading(column(group), group, True) for group in groups), *(Heading(c, c.heading) for c in shown)]
    grid = Grid(headings, rows, among=_among(family))
    return _with_summaries(grid, frame, groups, family, shown) if family else grid


def compare_grid(table: pd.DataFrame, groups: list[str], names: list[str], *, columns: list[str] | None = None,
                 wide: bool = False) -> Grid:
    """The lined-up sweeps, a row per group and sweep: each metric, for the others with its ratio to the first and q;
    the best sweep of each row and metric marked, the geometric mean of each later sweep's ratios last.

    `--wide` adds the difference to the first sweep and the metrics that are not
    key ones; `--columns` chooses metrics by their summary names (`moves_mean`).
    """
    metrics = _compared_metrics(columns, wide, _narrowed_rows(table, names))
    fixed = [Heading(column("common"), "compared"), Heading(column("sweep"), "sweep", True), Heading(column("jobs"), "jobs")]
    headings = [*(Heading(column(group), group, True) for group in groups), *fixed,
                *(Heading(column(metric), column(metric).heading) for metric in metrics)]
    rows = []
    for row in table.to_dict("records"):
        best = {metric: column(metric).best(pd.Series([row.get(f"{metric} {name}") for name in names]))
                for metric in metrics}
        for index, name in enumerate(names):
            first = index == 0
            keys = [Cell(text=_group_text(row, group) if first else "") for group in groups]
            cells = [replace(_compared_cell(row, metric, names[0], name, wide), best=bool(best[metric][index]))
                     for metric in metrics]
            rows.append([*keys, Cell(text=compared_text(row) if first else ""), Cell(text=name),
                         _value_cell(row, f"jobs {name}"), *cells])
    grid = Grid(headings, rows, among="the sweeps of a row")
    return _compared_summaries(grid, table, groups, names, metrics)


def fitted(grid: Grid, width: int | None) -> Grid:
    """The grid for a terminal `width` columns wide: if it does not fit, its headings wrap and its value columns of
    lowest priority are left out (and named) until every cell fits whole; as it is for None (a pipe: the table at its
    natural width)."""
    if width is None or _measured(grid) <= width:
        return grid
    shown = replace(grid, width=width)
    while _measured(shown) > width:
        droppable = [index for index, heading in enumerate(shown.headings) if not heading.group]
        if not droppable:
            break
        worst = max(reversed(droppable), key=lambda index: shown.headings[index].column.priority)
        shown = _without(shown, worst)
    return shown


def terminal_table(grid: Grid) -> Table:
    """The grid as a terminal table: best values marked with MARKER, summary rows under a rule; each column as wide as
    its widest cell, its heading wrapped to it, where the grid is fitted to a terminal."""
    table = plain_table()
    for index, heading in enumerate(grid.headings):
        widest = max((len(_terminal_text(row[index])) for row in (*grid.rows, *grid.summaries)), default=0)
        fixed = max(widest, *(len(word) for word in heading.text.split())) if grid.width else None
        table.add_column(heading.text, justify="left" if heading.group else "right", width=fixed)
    for row in grid.rows:
        table.add_row(*(_terminal_text(cell) for cell in row))
    if grid.summaries:
        table.add_section()
    for row in grid.summaries:
        table.add_row(*(_terminal_text(cell) for cell in row))
    return table


def markdown_text(grid: Grid) -> str:
    """The grid as a Markdown pipe table: the terminal's headings and values, the best in bold."""
    def line(texts: Iterable[str]) -> str:
        return "| " + " | ".join(text.replace("|", "\\|") for text in texts) + " |"

    aligns = [":--" if heading.group else "--:" for heading in grid.headings]
    lines = [line(heading.text for heading in grid.headings), "|" + "|".join(aligns) + "|"]
    lines += [line(_markdown_text(cell) for cell in row) for row in (*grid.rows, *grid.summaries)]
    return "\n".join(lines) + "\n"


def key_columns(summary: pd.DataFrame) -> dict[str, str]:
    """The summary's key columns (those a terminal report shows without --wide) with their headings."""
    return {found.name: found.heading for found in _available(summary).values() if found.key(summary)}


def best_cells(frame: pd.DataFrame) -> tuple[set[tuple[int, str]], str]:
    """The (row position, column) of each best value in a summary (among the rows of the same board and seed, where
    those are group columns) or a comparison (among the sweeps of a row), for the HTML table; and whom among."""
    family = [name for name in ("board", "seed") if name in frame.columns]
    compared = any(kind(name) for name in frame.columns)
    frame = frame.reset_index(drop=True)
    found: set[tuple[int, str]] = set()
    for name in frame.columns:
        if name in COLUMNS and COLUMNS[name].table:
            found |= {(int(index), name) for index in np.flatnonzero(_best(frame, name, family))}
    for metric in COMPARED:
        mine = [name for name in frame.columns if name.startswith(f"{metric} ") and kind(name) is None]
        for index, values in enumerate(frame[mine].itertuples(index=False)):
            marks = column(metric).best(pd.Series(values, index=mine))
            found |= {(index, name) for name in marks[marks].index}
    return found, "the sweeps of a row" if compared else _among(family)


def _among(family: list[str]) -> str:
    """Whom the best of a report's column is among: `the rows of the same board`, or `all rows`."""
    return f"the rows of the same {' and '.join(family)}" if family else "all rows"


def compared_text(row: dict) -> str:
    """`2 of 4`: the common units a row's common figures are over, of those every side ran (`shared`, else all its
    units); `none in common` where there are none."""
    if missing(row.get("common")) or missing(row.get("units")) or row.get("solved_share") == 0:
        return MISSING
    if row["common"] == 0:
        return "none in common"
    return f"{row['common']:,.0f} of {row.get('shared', row['units']):,.0f}"


def row_text(row: dict, name: str) -> str:
    """A row's value of the column `name` as every output writes it: `value_text`, and `2 of 4` for the common units."""
    return compared_text(row) if name == "common" else value_text(name, row.get(name))


def _available(summary: pd.DataFrame, every: bool = False) -> dict[str, Column]:
    """The registry's columns the summary has (table columns only unless `every`), in the registry's order, then its
    outcome counts."""
    known = [name for name in COLUMNS if name in summary.columns and (every or COLUMNS[name].table)]
    return {name: column(name) for name in [*known, *(name for name in summary.columns if name.startswith("n_"))]}


def _chosen(summary: pd.DataFrame, chosen: list[str] | None, wide: bool) -> list[Column]:
    """The columns a report shows: those of `--columns`, or every table column (`--wide`), or the key ones."""
    available = _available(summary)
    if not chosen:
        return [found for found in available.values() if wide or found.key(summary)]
    choosable = _available(summary, every=True)
    unknown = [name for name in chosen if name not in choosable]
    if unknown:
        raise PuzzleError(f"--columns: no column {', '.join(unknown)} (choose from {', '.join(available)})")
    return [choosable[name] for name in chosen]


def _compared_metrics(chosen: list[str] | None, wide: bool, narrowed: bool) -> list[str]:
    """The metrics `compare` shows: those of `--columns`, or all (`--wide`), or the key ones (the sweeps' own moves
    only where some row's common figures leave runs out: elsewhere they are the compared ones)."""
    metrics = [*COMPARED, *(f"{own} own" for own in OWN)]
    if not chosen:
        return [metric for metric in metrics if wide or (metric in COMPARE_KEYS and (narrowed or metric in COMPARED))]
    unknown = [name for name in chosen if name not in metrics]
    if unknown:
        raise PuzzleError(f"--columns: no column {', '.join(unknown)} (choose from {', '.join(metrics)})")
    return chosen


def _narrowed_rows(table: pd.DataFrame, names: list[str]) -> bool:
    """True if in some row of a comparison the common units are fewer than those any sweep ran, or a sweep that ran
    some solved none."""
    solved_none = pd.concat([table[f"solved_share {name}"].eq(0) for name in names], axis=1).any(axis=1)
    return bool((table["common"].lt(table["units"]) | solved_none).any())


def _best(frame: pd.DataFrame, name: str, family: list[str]) -> np.ndarray:
    """Per row, whether its value of `name` is the best among the rows of its family."""
    found = column(name)
    ranked = found.rank if found.rank is not None and found.rank in frame.columns else name
    if found.summary == "sum" and "coverage_units" in frame.columns:  # sums compare only over as many runs
        alike = frame.groupby(family, dropna=False, sort=False)["coverage_units"].transform("nunique").eq(1) \
            if family else pd.Series(frame["coverage_units"].nunique() == 1, index=frame.index)
        frame = frame.assign(**{ranked: frame[ranked].where(alike)})
    if not family:
        return found.best(frame[ranked]).to_numpy()
    marks = frame.groupby(family, dropna=False, sort=False)[ranked].transform(lambda values: found.best(values))
    return marks.astype(bool).to_numpy()


def _value_cell(row: dict, name: str) -> Cell:
    """A row's cell of a column: `2 of 4` for the common units, a mean with its interval or spread, or the value."""
    if name == "common":
        return Cell(text=compared_text(row))
    found = column(name)
    if found.spread is None:
        return Cell(name, row.get(name))
    metric, value = found.spread, row.get(name)
    low, high, spread = (f"{metric}_ci_low", f"{metric}_ci_high", f"{metric}_board_std")
    if not missing(value) and not missing(row.get(low)):
        return Cell(name, value, "interval", ((low, row[low], ""), (high, row.get(high), "")))
    if not missing(value) and not missing(row.get(spread)):
        return Cell(name, value, "spread", ((spread, row[spread], ""),))
    return Cell(name, value)


def _compared_cell(row: dict, metric: str, first: str, name: str, wide: bool) -> Cell:
    """A sweep's value of a metric; after the first sweep, its ratio to it (a share: the difference) and q.

    With --wide the difference is shown for every metric.
    """
    value = row.get(f"{metric} {name}")
    if name == first or missing(value) or metric not in COMPARED:  # a sweep's own figure is compared with nothing
        return Cell(f"{metric} {name}", value)
    kinds = [*(["Δ"] if wide or metric == "solved_share" else []), *(["×"] if metric != "solved_share" else []), "q"]
    around = tuple((f"{metric} {kind} {name}", row.get(f"{metric} {kind} {name}"), "q " if kind == "q" else "")
                   for kind in kinds if not missing(row.get(f"{metric} {kind} {name}")))
    return Cell(f"{metric} {name}", value, "against", around)


def _with_summaries(grid: Grid, frame: pd.DataFrame, groups: list[str], family: list[str], shown: list[Column]) -> Grid:
    """The grid with a summary row per side (the rows alike but for the family's columns, two or more of them):
    the sum of its coverage and scores, the geometric mean of its ratios."""
    summed = {found.name: found.summary for found in shown if found.summary}  # how each summed column sums up
    sides = [group for group in groups if group not in family]
    if not summed:
        return grid
    summaries = []
    for _, side in frame.groupby(sides, dropna=False, sort=False) if sides else [((), frame)]:
        if len(side) < 2:
            continue
        first = side.iloc[0].to_dict()
        label = _aggregates_label(list(summed.values()), len(side))
        keys = [Cell(text=_group_text(first, group) if group in sides else "") for group in groups]
        keys[groups.index(family[0])] = Cell(text=label)
        cells = [Cell(found.name, _aggregate(side[found.name], summed[found.name])) if found.name in summed
                 else Cell(text="") for found in shown]
        summaries.append([*keys, *cells])
    noun = " and ".join(family)
    whom = f"per {', '.join(sides)}" if sides else "over all rows"
    what = "; ".join(f"the {aggregate} of {_and([found.heading for found in shown if summed.get(found.name) == how])}"
                     for how, aggregate in AGGREGATES.items() if how in summed.values())
    return replace(grid, summaries=summaries,
                   summarized=f"last rows: {whom}, over its rows (one per {noun}): {what}") if summaries else grid


def _compared_summaries(grid: Grid, table: pd.DataFrame, groups: list[str], names: list[str], metrics: list[str]) -> Grid:
    """The grid with a row per later sweep: the geometric mean of its ratios to the first over the rows."""
    ratios = [metric for metric in metrics if metric in COMPARED and metric != "solved_share"]
    if len(table) < 2 or not ratios or not groups:
        return grid
    summaries, counted = [], []
    for name in names[1:]:
        present = {metric: int((pd.to_numeric(table[f"{metric} × {name}"], errors="coerce") > 0).sum())
                   for metric in ratios}
        label = [Cell(text=_aggregates_label(["geomean"], max(present.values())) if index == 0 else "")
                 for index in range(len(groups))]
        cells = [Cell(f"{metric} × {name}", _aggregate(table[f"{metric} × {name}"], "geomean")) if metric in ratios
                 else Cell(text="") for metric in metrics]
        summaries.append([*label, Cell(text=""), Cell(text=name), Cell(text=""), *cells])
        counted += [f"{column(metric).heading} over {count:,} of {len(table):,}" for metric, count in present.items()]
    return replace(grid, summaries=summaries,
                   summarized=f"last rows: per later sweep, the geometric mean of its ratio to the first over the rows "
                              f"that have one ({_and(list(dict.fromkeys(counted)))})")


def _and(names: list[str]) -> str:
    """`a, b and c`."""
    return " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)


def _aggregates_label(kinds: Iterable[str], size: int) -> str:
    """`sum, geo. mean (3)`: what a summary row holds, over how many rows."""
    return f"{', '.join(dict.fromkeys(LABELS[how] for how in kinds))} ({size:,})"


def _aggregate(values: pd.Series, how: str) -> float:
    """The sum of the values, or the geometric mean of the positive ones (NaN for none)."""
    present = pd.to_numeric(values, errors="coerce").dropna()
    if how == "sum":
        return float(present.sum()) if len(present) else np.nan
    positive = present[present > 0]
    return float(np.exp(np.log(positive).mean())) if len(positive) else np.nan


def _measured(grid: Grid) -> int:
    """The columns a terminal table of the grid takes."""
    return Console(width=1 << 20).measure(terminal_table(grid)).maximum


def _without(grid: Grid, index: int) -> Grid:
    """The grid without its column at `index`, named among those left out."""
    def cut(rows: list[list[Cell]]) -> list[list[Cell]]:
        return [row[:index] + row[index + 1:] for row in rows]

    return replace(grid, headings=grid.headings[:index] + grid.headings[index + 1:], rows=cut(grid.rows),
                   summaries=cut(grid.summaries), left_out=(*grid.left_out, grid.headings[index].text))


def _terminal_text(cell: Cell) -> str:
    written = cell.written(value_text)
    return MARKER + written if cell.best else written


def _markdown_text(cell: Cell) -> str:
    written = cell.written(value_text)
    return f"**{written}**" if cell.best else written


def _group_text(row: dict, name: str) -> str:
    """A group's value; a long one (a literal board's text) cut to GROUP_WIDTH characters, with an ellipsis."""
    text = params_key_text(row[name]) if name == "params" else cell(row[name])
    return text if len(text) <= GROUP_WIDTH else text[: GROUP_WIDTH - 1] + "…"

