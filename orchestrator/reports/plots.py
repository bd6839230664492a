"""Plots of a sweep's rows as matplotlib figures (`report --plot`): how solution length, time, states expanded and
success depend on a parameter, and bar charts comparing algorithms. The HTML report and the dashboard draw the same
figures with Plotly (`orchestrator.publish.interactive`); `orchestrator.reports.paper_plots` adds the figures of
search papers and writes them all as files.

`figures(rows)` builds matplotlib figures from the per-job DataFrame of a sweep
(one row per job, see `orchestrator.reports.rows`). For every numeric parameter that
takes at least two values (k, batches, w_exit, ...) there are four figures, the
parameter against: solution length, time, states expanded and share solved; a
line per board (and per value of the other parameters that vary), with the
spread across seeds and repeats as a shaded min–max band. When the sweep has no
such parameter, or compares several algorithms, there are bar charts per board
and algorithm label ("beam k=50") instead or as well.

Figures are `matplotlib.figure.Figure` objects created without pyplot, so
nothing opens a window and nothing needs closing; matplotlib itself is imported
only when a figure is made, to keep the command line quick to start.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from orchestrator.reports.rows import parameter_columns, parameter_name
from orchestrator.text import duration_text
from puzzles.algorithms import ALGORITHMS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

# (slug, metric column, y-axis label, title noun) of the figures per numeric parameter.
TIME_AXIS = "time (s)"
METRICS = (
    ("moves", "moves", "solution length (moves)", "solution length"),
    ("time", "elapsed_s", TIME_AXIS, "time"),
    ("expanded", "expanded", "states expanded", "states expanded"),
)
DPI = 100
MAX_BARS = 8  # beside parameter plots, bar charts only when they stay readable
FIGSIZE = (8.0, 4.5)
LOG_SPAN = 100.0  # a logarithmic metric axis when the values span more than two decades
X_LOG_SPAN = 20.0  # a logarithmic parameter axis from k = 1, 2, 5, 10, 20 on
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
STEPS = tuple(m * 10**e for e in range(12) for m in (1, 2, 5))  # 1, 2, 5, 10, 20, 50, ...: ticks of integers
LINESTYLES = ("-", "--", ":", "-.")


def numeric_parameters(rows: pd.DataFrame) -> list[str]:
    """The parameter columns with at least two distinct numeric values (not booleans), in column order."""
    out = []
    for column in parameter_columns(rows):
        values = numeric_values(rows[column])
        if values is not None and values.dropna().nunique() >= 2:
            out.append(column)
    return out


def figures(rows: pd.DataFrame) -> list[tuple[str, Figure]]:
    """(title, figure) for every plot of the sweep; none for an empty sweep.

    Per numeric parameter P: P against solution length, time, states expanded and
    share solved. With no numeric parameter, or with a few algorithm labels
    (at most MAX_BARS), bar charts per board and algorithm label: mean solution
    length, mean time and share solved. Unsolved jobs do not count towards solution length;
    unfinished jobs (no result status) count towards nothing.
    """
    if rows.empty:
        return []
    numeric = numeric_parameters(rows)
    out: list[tuple[str, Figure]] = []
    for param in numeric:
        out.extend(_parameter_figures(rows, param))
    if wants_bars(rows, numeric):
        out.extend(_comparison_figures(rows))
    return out


def wants_bars(rows: pd.DataFrame, numeric: list[str]) -> bool:
    """True if the sweep gets bar charts per board and algorithm label: no numeric parameter, or a few labels."""
    return not numeric or (rows["algorithm"].nunique() > 1 and algorithm_labels(rows).nunique() <= MAX_BARS)


def algorithm_labels(rows: pd.DataFrame) -> pd.Series:
    """Per row, the algorithm and its parameters that vary in the sweep or differ from the default: "beam k=50"."""
    defaults = {algorithm: _defaults(algorithm) for algorithm in rows["algorithm"].dropna().unique()}
    columns = parameter_columns(rows)
    names = [parameter_name(column) for column in columns]
    given = [{name: value for name, value in zip(names, values) if pd.notna(value)}
             for values in rows[columns].itertuples(index=False, name=None)]
    seen: dict[tuple[str, str], set] = {}
    for algorithm, params in zip(rows["algorithm"], given):
        for name, value in params.items():
            seen.setdefault((algorithm, name), set()).add(value)
    varying = {key for key, values in seen.items() if len(values) > 1}

    def label(algorithm: str, params: dict[str, Any]) -> str:
        shown = [f"{name}={value_text(value)}" for name, value in params.items()
                 if (algorithm, name) in varying or name not in defaults[algorithm] or defaults[algorithm][name] != value]
        return " ".join([algorithm, *shown])

    return pd.Series([label(a, p) for a, p in zip(rows["algorithm"], given)], index=rows.index, dtype=object)


# Per-parameter line plots ---------------------------------------------------------------------


def _parameter_figures(rows: pd.DataFrame, param: str) -> list[tuple[str, Figure]]:
    data = rows.assign(**{param: numeric_values(rows[param])}).loc[lambda df: df[param].notna()]
    data = with_metrics(data)
    algorithms = sorted(data["algorithm"].dropna().unique())
    others = [column for column in parameter_columns(data)
              if column != param and data[column].astype(str).nunique() > 1]
    keys = ["board", *(["algorithm"] if len(algorithms) > 1 else []), *others]
    prefix = f"{', '.join(algorithms)}: " if len(algorithms) == 1 else ""
    out = []
    for _name, metric, ylabel, noun in METRICS:
        title = f"{prefix}{noun} vs {param}"
        figure, ax = _axes()
        _lines(ax, data, param, keys, metric, band=True)
        _finish(ax, param, ylabel, title, data[param], data[metric])
        if not data[metric].notna().any():
            _no_data(ax, "no solved jobs" if metric == "moves" else "no finished jobs")
        out.append((title, figure))
    title = f"{prefix}share solved vs {param}"
    figure, ax = _axes()
    _lines(ax, data, param, keys, "solved", band=False)
    _finish(ax, param, "share solved", title, data[param], None)
    ax.set_ylim(-0.05, 1.05)
    if not data["solved"].notna().any():
        _no_data(ax, "no finished jobs")
    out.append((title, figure))
    return out


def _lines(ax: Axes, data: pd.DataFrame, param: str, keys: list[str], metric: str, band: bool) -> None:
    """A line per group of `keys`: the mean of `metric` per value of `param`, with a min–max band; the line breaks
    where a value has none. Points alone (a line would zigzag) where every value has one job at most."""
    boards = sorted(data["board"].astype(str).unique())
    colours = palette(len(boards))
    variants: dict[tuple, int] = {}
    xs = np.sort(data[param].dropna().unique())
    for key, group in data.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        variant = variants.setdefault(key[1:], len(variants))
        colour = colours[boards.index(str(key[0]))]
        stats = group.groupby(param)[metric].agg(["mean", "min", "max", "count"]).reindex(xs)
        x = stats.index.to_numpy(dtype=float)
        alone = bool(stats["count"].fillna(0).le(1).all())
        ax.plot(x, stats["mean"].to_numpy(dtype=float), color=colour, marker=MARKERS[variant % len(MARKERS)],
                linestyle="none" if alone else LINESTYLES[variant % len(LINESTYLES)], label=_line_label(keys, key))
        if band and (stats["max"] > stats["min"]).any():
            ax.fill_between(x, stats["min"].to_numpy(dtype=float), stats["max"].to_numpy(dtype=float),
                            color=colour, alpha=0.15, linewidth=0)


def _line_label(keys: list[str], key: tuple) -> str:
    parts = [str(key[0])]
    for name, value in zip(keys[1:], key[1:]):
        if value is None or (isinstance(value, float) and np.isnan(value)):
            continue
        parts.append(str(value) if name == "algorithm" else f"{name}={value_text(value)}")
    return ", ".join(parts)


def _finish(ax: Axes, param: str, ylabel: str, title: str, x: pd.Series, y: pd.Series | None) -> None:
    ax.set_xlabel(param)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    values = np.sort(x.dropna().unique().astype(float))
    if spans_decades(values, X_LOG_SPAN):
        ax.set_xscale("log")
    if 0 < len(values) <= 12:
        ax.set_xticks(values)
        ax.set_xticklabels([value_text(value) for value in values])
        ax.minorticks_off()
    elif len(values):
        _parameter_ticks(ax, values)
    if y is not None and spans_decades(y.dropna().to_numpy(dtype=float)):
        ax.set_yscale("log")
    if ylabel == TIME_AXIS:
        _time_ticks(ax)
    _legend(ax)


def _time_ticks(ax: Axes) -> None:
    """A time axis written as the tables write times: `85 µs`, `12.5 ms`, `2.00 s`."""
    ax.set_ylabel("time")
    duration_ticks(ax.yaxis)


def duration_ticks(axis: Axis) -> None:
    """The axis' ticks written as durations, as the tables write them; no labels on minor ticks."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: duration_text(value) if value > 0 else "0"))
    axis.set_minor_formatter(NullFormatter())


def _parameter_ticks(ax: Axes, values: np.ndarray) -> None:
    """Many values of a parameter: integer ticks (1, 2, 5, 10, ... on a log axis) for integers, written as values
    (`3`, never `3×10⁰`)."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, MaxNLocator, NullFormatter

    integer = all(float(value).is_integer() for value in values)
    if integer and ax.get_xscale() == "log":
        ax.xaxis.set_major_locator(FixedLocator(log_ticks(values)))
    elif integer:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: value_text(value)))
    ax.xaxis.set_minor_formatter(NullFormatter())


def log_ticks(values: np.ndarray) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... within the values' range: the ticks of a logarithmic axis of integers."""
    return [step for step in STEPS if values.min() <= step <= values.max()]


# Algorithm comparison bar charts ---------------------------------------------------------------


def _comparison_figures(rows: pd.DataFrame) -> list[tuple[str, Figure]]:
    data = with_metrics(rows).assign(label=algorithm_labels(rows))
    boards = sorted(data["board"].astype(str).unique())
    labels = sorted(data["label"].unique(), key=natural_key)
    out = []
    for title, metric, ylabel, empty in (
        ("mean solution length per algorithm", "moves", "solution length (moves)", "no solved jobs"),
        ("mean time per algorithm", "elapsed_s", "time (s)", "no finished jobs"),
        ("share solved per algorithm", "solved", "share solved", "no finished jobs"),
    ):
        figure, ax = _axes(width=max(FIGSIZE[0], 1.2 + 0.35 * len(boards) * len(labels)))
        stats = data.groupby(["board", "label"])[metric].agg(["mean", "min", "max"])
        width = 0.8 / len(labels)
        colours = palette(len(labels))
        for i, label in enumerate(labels):
            part = stats.xs(label, level="label").reindex(boards) if label in stats.index.get_level_values("label") \
                else pd.DataFrame(index=boards, columns=["mean", "min", "max"], dtype=float)
            mean = part["mean"].to_numpy(dtype=float)
            x = np.arange(len(boards)) - 0.4 + width * (i + 0.5)
            yerr = None
            if metric != "solved":
                yerr = np.vstack([mean - part["min"].to_numpy(dtype=float), part["max"].to_numpy(dtype=float) - mean])
                yerr = np.where(np.isnan(yerr), 0.0, yerr)
            ax.bar(x, np.nan_to_num(mean, nan=0.0), width, color=colours[i], label=label,
                   yerr=yerr, capsize=2 if yerr is not None else 0, error_kw={"linewidth": 0.8})
        ax.set_xticks(np.arange(len(boards)))
        ax.set_xticklabels(boards, rotation=30 if len(boards) > 4 else 0, ha="right" if len(boards) > 4 else "center")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
        if metric == "solved":
            ax.set_ylim(0, 1.05)
        elif spans_decades(data[metric].dropna().to_numpy(dtype=float)):
            ax.set_yscale("log")
        if not data[metric].notna().any():
            _no_data(ax, empty)
        _legend(ax)
        out.append((title, figure))
    return out


# Helpers ----------------------------------------------------------------------------------------


def with_metrics(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` with numeric metric columns; `solved` is 1/0 for finished jobs, NaN for unfinished ones and for those
    proved unsolvable (a proof is no failure)."""
    finished = rows["outcome"].notna() if "outcome" in rows.columns else pd.Series(False, index=rows.index)
    finished &= rows["outcome"].ne("unsolvable") if "outcome" in rows.columns else finished
    solved = (rows["outcome"] == "solved") if "outcome" in rows.columns else pd.Series(False, index=rows.index)
    out = rows.assign(solved=solved.astype(float).where(finished))
    for column in ("moves", "elapsed_s", "expanded"):
        out[column] = pd.to_numeric(out[column], errors="coerce") if column in out.columns else np.nan
    out["moves"] = out["moves"].where(solved)
    return out


def numeric_values(column: pd.Series) -> pd.Series | None:
    """The column as floats if every value present is a number (not a boolean); None otherwise."""
    values = column.dropna()
    if values.empty or pd.api.types.is_bool_dtype(column):
        return None
    if pd.api.types.is_numeric_dtype(column):
        return column.astype(float)
    if any(isinstance(value, (bool, np.bool_)) for value in values):
        return None
    converted = pd.to_numeric(column, errors="coerce")
    if converted.notna().sum() != len(values):
        return None
    return converted.astype(float)


def _defaults(algorithm: str) -> dict[str, Any]:
    entry = ALGORITHMS.get(algorithm)  # an algorithm this checkout does not know: every parameter shown
    return {name: param.default for name, param in entry.params.items()} if entry else {}


def value_text(value: Any) -> str:
    """A parameter value as written on an axis or in a label: 5 for 5.0, 0.25 as it is."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return f"{value:g}"
    return str(value)


def natural_key(text: str) -> list:
    """A sort key putting "beam k=5" before "beam k=10"."""
    return [(0, float(part), "") if i % 2 else (1, 0.0, part)
            for i, part in enumerate(re.split(r"(\d+(?:\.\d+)?)", text))]


def spans_decades(values: np.ndarray, span: float = LOG_SPAN) -> bool:
    """True if the values are all positive and the largest is more than `span` times the smallest."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return len(values) > 1 and values.min() > 0 and values.max() / values.min() > span


def _axes(width: float = FIGSIZE[0]) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, FIGSIZE[1]), dpi=DPI, layout="constrained")
    return figure, figure.add_subplot()


def palette(n: int) -> list:
    """`n` colours (at least one) from matplotlib's tab10, or tab20 beyond ten."""
    from matplotlib import colormaps

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(max(n, 1))]


def _legend(ax: Axes) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if not handles:
        return
    if len(handles) > 6:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    else:
        ax.legend(fontsize="small")


def _no_data(ax: Axes, text: str) -> None:
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="grey")
