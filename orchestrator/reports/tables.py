"""The report and compare tables for a terminal: key columns by default, `--columns` to choose, `--wide` for all.

Moves and times are shown with their spread: `(low–high)`, the 95% interval
of the mean over one board's repeats and seeds, or `±sd` across boards when a
group spans them. Times are in the unit that shows them (s, ms, µs). Group
values longer than GROUP_WIDTH are cut (csv and json keep them whole).
"""

from collections.abc import Callable
from dataclasses import dataclass
from numbers import Real
from typing import Any

import pandas as pd
from rich.table import Table

from orchestrator.reports.comparison import COMPARED, significant
from orchestrator.reports.rows import params_key_text
from orchestrator.reports.summary import MIB, narrowed
from orchestrator.text import (
    MISSING,
    bytes_text,
    cell,
    count_text,
    duration_text,
    gap_text,
    missing,
    number_text,
    plain_table,
    ratio_text,
    share_text,
    signed_duration_text,
)
from puzzles.errors import PuzzleError

GROUP_WIDTH = 28
COUNTS = ("jobs", "unfinished", "boards", "common", "units")


@dataclass(frozen=True)
class Column:
    """A table column: its heading, how a row's value is written, and whether it is shown without --wide."""

    heading: str
    render: Callable[[dict], str]
    key: bool = False


def report_table(summary: pd.DataFrame, groups: list[str], *, columns: list[str] | None = None, wide: bool = False) -> Table:
    """The summary's rows: the group columns, then its key columns (or those asked for, or all)."""
    available = {name: column for name, column in _report_columns(summary).items() if name in summary.columns}
    return _table(summary, groups, available, columns, wide)


def key_columns(summary: pd.DataFrame) -> dict[str, str]:
    """The summary's key columns (those a terminal report shows without --wide) with their headings."""
    return {name: column.heading for name, column in _report_columns(summary).items()
            if column.key and name in summary.columns}


def compare_table(table: pd.DataFrame, groups: list[str], names: list[str], *, columns: list[str] | None = None,
                  wide: bool = False) -> Table:
    """The lined-up sweeps, a row per group and sweep: each metric, for the others with its ratio to the first and p.

    `--wide` adds the difference to the first sweep and the metrics that are not
    key ones; `--columns` chooses metrics by their summary names (`moves_mean`).
    """
    available = {metric: metric != "expanded_mean" for metric in COMPARED}
    if columns:
        unknown = [name for name in columns if name not in available]
        if unknown:
            raise PuzzleError(f"--columns: no column {', '.join(unknown)} (choose from {', '.join(available)})")
        shown = columns
    else:
        shown = [metric for metric, key in available.items() if wide or key]
    terminal = plain_table()
    for heading in (*groups, "compared", "sweep", "jobs"):
        terminal.add_column(heading, justify="left" if heading in (*groups, "sweep") else "right")
    for metric in shown:
        terminal.add_column(COMPARED[metric].removesuffix("_s").replace("elapsed", "time"), justify="right")
    for row in table.to_dict("records"):
        for index, name in enumerate(names):
            keys = [_group_text(row, group) if index == 0 else "" for group in groups]
            cells = [_compared_cell(row, metric, names[0], name, wide) for metric in shown]
            terminal.add_row(*keys, compared_text(row) if index == 0 else "", name, _value(f"jobs {name}")(row), *cells)
    return terminal


def _compared_cell(row: dict, metric: str, first: str, name: str, wide: bool) -> str:
    """A sweep's value of a metric; after the first sweep, its ratio to it (a share: the difference) and p.

    With --wide the difference is shown for every metric.
    """
    value = _value(f"{metric} {name}")(row)
    if name == first or missing(row.get(f"{metric} {name}")):
        return value
    against = []
    if wide or metric == "solved_share":
        against.append(_value(f"{metric} Δ {name}"))
    if metric != "solved_share":
        against.append(_value(f"{metric} × {name}"))
    against.append(_p_value(f"{metric} q {name}", prefix="q "))
    written = [text for part in against if (text := part(row)) != "–"]
    return f"{value} ({', '.join(written)})" if written else value


def _table(frame: pd.DataFrame, groups: list[str], available: dict[str, Column], chosen: list[str] | None,
           wide: bool) -> Table:
    if chosen:
        unknown = [name for name in chosen if name not in available]
        if unknown:
            raise PuzzleError(f"--columns: no column {', '.join(unknown)} (choose from {', '.join(available)})")
        shown = [available[name] for name in chosen]
    else:
        shown = [column for column in available.values() if wide or column.key]
    table = plain_table()
    for group in groups:
        table.add_column(group)
    for column in shown:
        table.add_column(column.heading, justify="right")
    for row in frame.to_dict("records"):
        table.add_row(*(_group_text(row, group) for group in groups), *(column.render(row) for column in shown))
    return table


def _report_columns(summary: pd.DataFrame) -> dict[str, Column]:
    """The report's columns by summary column name; `unfinished` and `boards` are key columns where they say something."""

    def beyond(name: str, least: int) -> bool:
        return name in summary.columns and bool(summary[name].fillna(0).gt(least).any())

    beyond_common = "common" in summary.columns and narrowed(summary)

    columns = {
        "boards": Column("boards", _value("boards"), beyond("boards", 1)),
        "jobs": Column("jobs", _value("jobs"), True),
        "unfinished": Column("unfinished", _value("unfinished"), beyond("unfinished", 0)),
        "solved_share": Column("solved", _value("solved_share"), True),
        "common": Column("compared", compared_text, beyond_common),
        "moves_mean": Column("moves", _with_spread("moves"), True),
        "moves_median": Column("median", _value("moves_median")),
        "moves_min": Column("min", _value("moves_min")),
        "moves_max": Column("max", _value("moves_max")),
        "gap_mean": Column("gap", _value("gap_mean"), True),
        "gap_moves_mean": Column("gap moves", _value("gap_moves_mean")),
        "expanded_mean": Column("expanded", _value("expanded_mean"), True),
        "generated_mean": Column("generated", _value("generated_mean")),
        "elapsed_mean": Column("time", _with_spread("elapsed"), True),
        "elapsed_median": Column("time median", _value("elapsed_median")),
        "elapsed_p95": Column("p95", _value("elapsed_p95")),
        "cpu_mean": Column("cpu", _value("cpu_mean")),
        "peak_mem_mib": Column("peak memory", _value("peak_mem_mib")),
        **{f"{name}_ratio": Column(f"{name} ×base", _value(f"{name}_ratio"), True) for name in ("moves", "expanded", "elapsed")},
    }
    outcomes = [name for name in summary.columns if name.startswith("n_")]
    return columns | {name: Column(name.removeprefix("n_"), _value(name), name == "n_unsolvable") for name in outcomes}


def compared_text(row: dict) -> str:
    """`2 of 4`: the common units a row's measures are over, of all its units; `none in common` where there are none."""
    if missing(row.get("common")) or missing(row.get("units")) or row.get("solved_share") == 0:
        return "–"
    if row["common"] == 0:
        return "none in common"
    return f"{row['common']:,.0f} of {row['units']:,.0f}"


def _group_text(row: dict, column: str) -> str:
    """A group's value; a long one (a literal board's text) cut to GROUP_WIDTH characters, with an ellipsis."""
    text = params_key_text(row[column]) if column == "params" else cell(row[column])
    return text if len(text) <= GROUP_WIDTH else text[: GROUP_WIDTH - 1] + "…"


def row_text(row: dict, column: str) -> str:
    """A row's value of `column` as every output writes it: `value_text`, and `2 of 4` for the common units."""
    return compared_text(row) if column == "common" else value_text(column, row.get(column))


def value_text(column: str, value: Any) -> str:
    """A value of a summary's or a comparison's column as every output writes it (terminal, HTML, dashboard), by the
    column's name: times as durations, shares and gaps as percentages, memory in binary units, counts to the unit,
    ratios as `1.43×`; in a comparison (`moves_mean Δ B`, `× B`, `p B`, `q B`) differences signed and `*` where q < 5%."""
    if missing(value):
        return MISSING
    if isinstance(value, bool) or not isinstance(value, Real):
        return cell(value)
    metric, *rest = column.split(" ")
    kind = rest[0] if len(rest) > 1 and rest[0] in ("Δ", "×", "p", "q") else None
    if kind in ("p", "q"):
        return f"{value:.3f}{' *' if kind == 'q' and significant(value) else ''}"
    if kind == "×":
        return ratio_text(value)
    return _writer(metric)(float(value), kind == "Δ")


def _writer(metric: str) -> Callable[[float, bool], str]:
    """How a metric's value is written (signed: as a difference)."""
    if metric.startswith(("elapsed_", "cpu_")):
        return lambda value, signed: signed_duration_text(value) if signed else duration_text(value)
    if metric.endswith("_share"):
        return share_text
    if metric.endswith("_ratio"):
        return lambda value, signed: ratio_text(value)
    if metric.startswith("gap_moves"):
        return lambda value, signed: number_text(value, signed=True)
    if metric.startswith("gap_"):
        return lambda value, signed: gap_text(value)
    if metric == "peak_mem_mib":
        return lambda value, signed: bytes_text(value * MIB)
    if metric.startswith(("moves_", "steps_")) and not metric.endswith(("_min", "_max")):
        return number_text
    if metric.startswith(("moves_", "expanded_", "generated_", "n_")) or metric in COUNTS:
        return lambda value, signed: f"{value:+,.0f}" if signed else count_text(value)
    return lambda value, signed: cell(value)


def _value(name: str) -> Callable[[dict], str]:
    """A row's value of the column `name`, written by `value_text`."""
    return lambda row: value_text(name, row.get(name))


def _p_value(name: str, prefix: str = "") -> Callable[[dict], str]:
    return lambda row: "–" if missing(row.get(name)) else prefix + value_text(name, row[name])


def _with_spread(metric: str) -> Callable[[dict], str]:
    """`26.8 (24.1–29.5)` over one board's runs, `26.8 ±5.0` across boards, or the mean alone."""
    mean = _value(f"{metric}_mean")

    def written(row: dict) -> str:
        shown = mean(row)
        if not missing(row.get(f"{metric}_ci_low")):
            return f"{shown} ({_value(f'{metric}_ci_low')(row)}–{_value(f'{metric}_ci_high')(row)})"
        if not missing(row.get(f"{metric}_board_std")):
            return f"{shown} ±{_value(f'{metric}_board_std')(row)}"
        return shown

    return written
