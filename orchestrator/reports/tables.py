"""The report and compare tables for a terminal: key columns by default, `--columns` to choose, `--wide` for all.

Moves and times are shown with their spread: `(low–high)`, the 95% interval
of the mean over one board's repeats and seeds, or `±sd` across boards when a
group spans them. Times are in the unit that shows them (s, ms, µs). Group
values longer than GROUP_WIDTH are cut (csv and json keep them whole).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from rich.table import Table

from orchestrator.reports.comparison import COMPARED, significant
from orchestrator.reports.rows import params_key_text
from orchestrator.text import cell, duration_text, plain_table
from puzzles.errors import PuzzleError

GROUP_WIDTH = 28


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
    for heading in (*groups, "sweep", "jobs"):
        terminal.add_column(heading, justify="left" if heading in (*groups, "sweep") else "right")
    for metric in shown:
        terminal.add_column(COMPARED[metric].removesuffix("_s").replace("elapsed", "time"), justify="right")
    for row in table.to_dict("records"):
        for index, name in enumerate(names):
            keys = [_group_text(row, group) if index == 0 else "" for group in groups]
            cells = [_compared_cell(row, metric, names[0], name, wide) for metric in shown]
            terminal.add_row(*keys, name, _count(f"jobs {name}")(row), *cells)
    return terminal


def _compared_cell(row: dict, metric: str, first: str, name: str, wide: bool) -> str:
    """A sweep's value of a metric; after the first sweep, its ratio to it (a share: the difference) and p.

    With --wide the difference is shown for every metric.
    """
    render = _render_for(metric)
    value = render(f"{metric} {name}")(row)
    if name == first or _missing(row.get(f"{metric} {name}")):
        return value
    against = []
    if wide or metric == "solved_share":
        against.append(render(f"{metric} Δ {name}", signed=True))
    if metric != "solved_share":
        against.append(_ratio(f"{metric} × {name}"))
    against.append(_p_value(f"{metric} p {name}", prefix="p "))
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

    columns = {
        "boards": Column("boards", _count("boards"), beyond("boards", 1)),
        "jobs": Column("jobs", _count("jobs"), True),
        "unfinished": Column("unfinished", _count("unfinished"), beyond("unfinished", 0)),
        "solved_share": Column("solved", _share("solved_share"), True),
        "moves_mean": Column("moves", _with_spread("moves", _number), True),
        "moves_median": Column("median", _number("moves_median")),
        "moves_min": Column("min", _count("moves_min")),
        "moves_max": Column("max", _count("moves_max")),
        "gap_mean": Column("gap", _percent("gap_mean"), True),
        "gap_moves_mean": Column("gap moves", _number("gap_moves_mean", signed=True)),
        "expanded_mean": Column("expanded", _count("expanded_mean"), True),
        "generated_mean": Column("generated", _count("generated_mean")),
        "elapsed_mean": Column("time", _with_spread("elapsed", _duration), True),
        "elapsed_median": Column("time median", _duration("elapsed_median")),
        "elapsed_p95": Column("p95", _duration("elapsed_p95")),
        "cpu_mean": Column("cpu", _duration("cpu_mean")),
        "peak_mem_mib": Column("peak MiB", _count("peak_mem_mib")),
        **{f"{name}_ratio": Column(f"{name} ×base", _ratio(f"{name}_ratio"), True) for name in ("moves", "expanded", "elapsed")},
    }
    outcomes = [name for name in summary.columns if name.startswith("n_")]
    return columns | {name: Column(name.removeprefix("n_"), _count(name)) for name in outcomes}


def _group_text(row: dict, column: str) -> str:
    """A group's value; a long one (a literal board's text) cut to GROUP_WIDTH characters, with an ellipsis."""
    text = params_key_text(row[column]) if column == "params" else cell(row[column])
    return text if len(text) <= GROUP_WIDTH else text[: GROUP_WIDTH - 1] + "…"


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _formatted(name: str, write: Callable[[float], str]) -> Callable[[dict], str]:
    return lambda row: "–" if _missing(row.get(name)) else write(row[name])


def _count(name: str) -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{value:,.0f}")


def _number(name: str, signed: bool = False) -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{value:+,.1f}" if signed else f"{value:,.1f}")


def _duration(name: str, signed: bool = False) -> Callable[[dict], str]:
    return _formatted(name, lambda value: ("+" if signed and value >= 0 else "-" if value < 0 else "") + duration_text(abs(value)))


def _share(name: str, signed: bool = False) -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{value:+.0%}" if signed else f"{value:.0%}")


def _percent(name: str) -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{value:+.1%}")


def _ratio(name: str) -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{value:.2f}×")


def _p_value(name: str, prefix: str = "") -> Callable[[dict], str]:
    return _formatted(name, lambda value: f"{prefix}{value:.3f}{' *' if significant(value) else ''}")


def _render_for(metric: str) -> Callable[..., Callable[[dict], str]]:
    """How a compared metric is written: shares as %, times as durations, the rest as numbers."""
    if metric == "solved_share":
        return _share
    return _duration if metric == "elapsed_mean" else _number


def _with_spread(metric: str, render: Callable[[str], Callable[[dict], str]]) -> Callable[[dict], str]:
    """`26.8 (24.1–29.5)` over one board's runs, `26.8 ±5.0` across boards, or the mean alone."""
    mean = render(f"{metric}_mean")

    def written(row: dict) -> str:
        shown = mean(row)
        if not _missing(row.get(f"{metric}_ci_low")):
            return f"{shown} ({render(f'{metric}_ci_low')(row)}–{render(f'{metric}_ci_high')(row)})"
        if not _missing(row.get(f"{metric}_board_std")):
            return f"{shown} ±{render(f'{metric}_board_std')(row)}"
        return shown

    return written
