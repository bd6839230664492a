"""The figures of search papers as Plotly charts, and the ground every interactive chart stands on.

`paper_charts(rows)` draws the figures of `orchestrator.reports.figures`, as the
files of `orchestrator.reports.paper_plots.paper_figures`: per metric (states
expanded, time) a scatter plot of the reference configuration against another,
chosen in a menu when there are several, and a coverage plot.

Shared with the charts of `orchestrator.publish.interactive`: `Chart`, the
colours, dashes and symbols, how hovering writes each metric (`WRITERS`), the
ticks of a time axis, a chart's layout (`chart_layout`) and numbers made
JSON-ready (`plain`).
"""

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from orchestrator.reports.figures import METRICS as PAPER_METRICS
from orchestrator.reports.figures import Coverage, Scatter, paper_data, sides, styles
from orchestrator.reports.paper_plots import MARGIN
from orchestrator.text import count_text, duration_text, number_text, share_text

# Tableau 10, then its light shades: the colours of boards (lines) or algorithm labels (bars).
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
SYMBOLS = ("circle", "square", "triangle-up", "diamond", "triangle-down", "cross", "x", "star")
HEIGHT = 430
WRITERS: dict[str, Callable[[float], str]] = {  # how hovering writes each metric: as the tables do (orchestrator.text)
    "moves": number_text, "elapsed_s": duration_text, "expanded": count_text, "solved": share_text,
}
TIME_TICKS = {"tickformat": "~s", "ticksuffix": "s"}  # 85µs, 500ms, 2s: as the tables write times


@dataclass(frozen=True)
class Chart:
    """A figure: its title and its Plotly JSON (`{"data": [...], "layout": {...}}`)."""

    title: str
    figure: dict[str, Any]


# The figures of papers: scatter and coverage plots --------------------------------------------


def paper_charts(rows: pd.DataFrame) -> list[Chart]:
    """Per metric a scatter plot of the reference configuration against the others (`figures.Sides.pairs`), then per
    metric a coverage plot (`figures.Sides.curves`)."""
    found = sides(rows)
    scatters, curves = paper_data(rows, found, [metric for metric, _ in PAPER_METRICS])
    out = [_scatter_chart(scatters[metric], noun) for metric, noun in PAPER_METRICS if scatters[metric]]
    return out + [_coverage_chart(curves[metric], noun, found.names) for metric, noun in PAPER_METRICS if metric in curves]


def _scatter_chart(scatters: list[Scatter], noun: str) -> Chart:
    """Log-log and square: B's values against A's, a trace per kind of board (a colour per domain, a marker per kind),
    the diagonal, unsolved runs on the dashed border; a menu picks B where there are several."""
    floor, border = min(scatter.floor for scatter in scatters), max(scatter.border for scatter in scatters)
    low, high = floor / MARGIN, border * MARGIN
    traces = [{"type": "scatter", "mode": "lines", "name": "x = y", "x": [low, high], "y": [low, high], "showlegend": False,
               "line": {"color": "#999", "width": 1}, "hoverinfo": "skip"},
              {"type": "scatter", "mode": "lines", "name": "unsolved", "x": [border, border, None, low, high],
               "y": [low, high, None, border, border], "line": {"color": "#555", "width": 1, "dash": "dash"}, "hoverinfo": "skip"}]
    owners: list[int | None] = [None, None]  # the scatter each trace shows: None for those every one shows
    for number, scatter in enumerate(scatters):
        mine = _scatter_traces(scatter, floor, border, visible=number == 0)
        traces += mine
        owners += [number] * len(mine)
    first = scatters[0]
    axis = {"type": "log", "range": [math.log10(low), math.log10(high)], "automargin": True, "gridcolor": "#eee",
            "dtick": 1, "constrain": "domain"} | (TIME_TICKS if first.metric == "elapsed_s" else {})
    title = f"{noun}: {first.a} vs " + (first.b if len(scatters) == 1 else "each other configuration")
    layout = chart_layout(f"{noun}: {first.a} vs {first.b}", axis | {"title": {"text": f"{noun}: {first.a}"}},
                     axis | {"title": {"text": f"{noun}: {first.b}"}, "scaleanchor": "x", "scaleratio": 1},
                     first.left_out())
    if len(scatters) > 1:
        layout["updatemenus"] = [_pair_menu(scatters, owners, noun)]
        layout["margin"]["t"] = 90
    return Chart(title, {"data": traces, "layout": layout})


def _scatter_traces(scatter: Scatter, floor: float, border: float, *, visible: bool) -> list[dict]:
    """A trace per kind of board of one scatter plot, hovering the unit and both values (or `unsolved`)."""
    x, y = scatter.placed("x", floor, border), scatter.placed("y", floor, border)
    write = WRITERS[scatter.metric]
    points = scatter.points
    texts = [f"<b>{unit}</b><br>{scatter.a}: {write(a) if solved_a else 'unsolved'}"
             f"<br>{scatter.b}: {write(b) if solved_b else 'unsolved'}"
             for unit, a, solved_a, b, solved_b in points[["unit", "x", "x_solved", "y", "y_solved"]].itertuples(index=False)]
    traces = []
    for category, (domain, number) in styles(points).items():
        mine = (points["category"] == category).to_numpy()
        symbol = SYMBOLS[number % len(SYMBOLS)] + ("" if domain % 2 == 0 else "-open")
        traces.append({"type": "scatter", "mode": "markers", "name": category, "legendgroup": category, "visible": visible,
                       "x": plain(x[mine]), "y": plain(y[mine]), "text": [t for t, m in zip(texts, mine) if m],
                       "marker": {"symbol": symbol, "size": 9, "color": COLOURS[domain % len(COLOURS)],
                                  "line": {"width": 1.5, "color": COLOURS[domain % len(COLOURS)]}},
                       "hovertemplate": "%{text}<extra></extra>"})
    return traces


def _pair_menu(scatters: list[Scatter], owners: list[int | None], noun: str) -> dict:
    """A menu of the configurations set against the reference: each shows its own points, title and y axis."""
    buttons = [{"label": scatter.b, "method": "update",
                "args": [{"visible": [owner is None or owner == number for owner in owners]},
                         {"title.text": _title_text(f"{noun}: {scatter.a} vs {scatter.b}", scatter.left_out()), "yaxis.title.text": f"{noun}: {scatter.b}"}]}
               for number, scatter in enumerate(scatters)]
    return {"buttons": buttons, "direction": "down", "showactive": True, "x": 1.02, "xanchor": "left", "y": 1.18,
            "yanchor": "top"}


def _coverage_chart(coverage: Coverage, noun: str, names: list[str]) -> Chart:
    """A step line per configuration: how many units it solved within each value of the metric, on a log axis; a
    dotted line at the units in all."""
    low, high = coverage.floor / MARGIN, coverage.border
    write = WRITERS[coverage.metric]
    traces = []
    for number, name in enumerate(name for name in names if name in coverage.curves):
        values = np.maximum(coverage.curves[name], coverage.floor)
        solved = np.arange(len(values) + 2).clip(max=len(values))
        traces.append({"type": "scatter", "mode": "lines+markers", "name": name, "x": plain([low, *values, high]),
                       "y": plain(solved), "line": {"shape": "hv", "color": COLOURS[number % len(COLOURS)], "width": 2,
                                                     "dash": DASHES[number % len(DASHES)]},
                       "marker": {"symbol": SYMBOLS[number % len(SYMBOLS)], "size": 6},
                       "text": ["", *(f"{n:,} solved within {write(v)}" for n, v in enumerate(values, 1)), ""],
                       "hovertemplate": f"<b>{name}</b><br>%{{text}}<extra></extra>"})
    traces.append({"type": "scatter", "mode": "lines", "name": f"all {coverage.units:,} {coverage.noun}", "x": [low, high],
                   "y": [coverage.units, coverage.units], "line": {"color": "#999", "width": 1, "dash": "dot"},
                   "hoverinfo": "skip"})
    xaxis = {"type": "log", "range": [math.log10(low), math.log10(high)], "dtick": 1, "title": {"text": noun},
             "automargin": True, "gridcolor": "#eee"} | (TIME_TICKS if coverage.metric == "elapsed_s" else {})
    yaxis = {"range": [0, max(coverage.units, 1) * 1.08], "title": {"text": f"{coverage.noun} solved"}, "tickformat": "d",
             "rangemode": "tozero", "automargin": True, "gridcolor": "#eee", "zeroline": False}
    title = f"coverage by {noun}"
    return Chart(title, {"data": traces, "layout": chart_layout(title, xaxis, yaxis, coverage.left_out())})


# Layout and helpers -----------------------------------------------------------------------------


def chart_layout(title: str, xaxis: dict, yaxis: dict, left_out: str = "") -> dict[str, Any]:
    """A figure's layout: its title (what it leaves out beneath), axes, the legend right of the data, white ground."""
    return {
        "title": {"text": _title_text(title, left_out), "x": 0.01, "xanchor": "left"},
        "height": HEIGHT, "xaxis": xaxis, "yaxis": yaxis,
        "legend": {"x": 1.02, "xanchor": "left", "y": 1, "yanchor": "top", "font": {"size": 11}, "groupclick": "togglegroup",
                   "traceorder": "grouped"},
        "margin": {"l": 70, "r": 20, "t": 70 if left_out else 50, "b": 50}, "hovermode": "closest",
        "plot_bgcolor": "#fff", "paper_bgcolor": "#fff", "font": {"family": "system-ui, sans-serif", "size": 12},
    }


def _title_text(title: str, left_out: str) -> str:
    """A figure's title, and beneath it in small what it leaves out (if anything)."""
    return title + (f"<br><sup>left out, {left_out}</sup>" if left_out else "")


def plain(values: Iterable) -> list:
    """Numbers as JSON-ready floats and ints; NaN and missing values as None."""
    out: list[Any] = []
    for value in values:
        if value is None or value is pd.NA or (isinstance(value, float | np.floating) and math.isnan(value)):
            out.append(None)
        elif isinstance(value, np.integer) or (isinstance(value, float | np.floating) and float(value).is_integer()):
            out.append(int(value))
        else:
            out.append(float(value) if isinstance(value, float | np.floating) else value)
    return out
