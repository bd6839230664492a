"""Interactive plots of a sweep's rows, as Plotly figures: the HTML report's and the dashboard's, one set.

`charts(rows)` gives, like `orchestrator.reports.plots` for the PNGs, per numeric
parameter P (k, batches, ...) P against solution length, time, states
expanded and share solved, and bar charts per board and algorithm label when
the sweep has no such parameter or compares a few algorithms. Each figure is
plain Plotly JSON (data and layout), drawn by plotly.js in the page:

- a line per board (and per value of the other parameters that vary), the
  mean over seeds and repeats with its 95% bootstrap interval (error bars, a band for many points);
  a board's lines share a legend group, so a click on the legend hides it;
  a board with no data for a metric is left out (and named under the title);
- solution length has each board's optimum (known, else best known: the
  fewest moves an optimal search found) as a dashed reference line; time and
  states expanded have the sweep's own optimal algorithm (A* with an
  admissible heuristic, BFS, ...) as a dotted baseline per board when the
  sweep ran one;
- share solved is aggregated over boards, seeds and repeats, with its 95%
  Wilson interval; each board's own share is one click away in the legend;
- integer parameters get integer ticks, axes whose values span decades are
  logarithmic, and the legend stands right of the data.

Then the figures of search papers (`orchestrator.reports.figures`), as the
files of `orchestrator.reports.plots.paper_figures`: per metric (states
expanded, time) a scatter plot of the reference configuration against another,
chosen in a menu when there are several, and a coverage plot. A comparison of
sweeps (`figures.joined_rows`) gets these alone.
"""

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from orchestrator.reports.figures import METRICS as PAPER_METRICS
from orchestrator.reports.figures import Coverage, Scatter, coverage_curves, is_comparison, scatter_points, sides, styles
from orchestrator.reports.plots import (
    MARGIN,
    METRICS,
    STEPS,
    TIME_AXIS,
    X_LOG_SPAN,
    algorithm_labels,
    log_ticks,
    natural_key,
    numeric_parameters,
    numeric_values,
    spans_decades,
    value_text,
    wants_bars,
    with_metrics,
)
from orchestrator.reports.rows import parameter_columns
from orchestrator.reports.summary import mean_interval, mean_intervals, share_interval
from orchestrator.text import count_text, duration_text, missing, number_text, share_text
from puzzles.result import Outcome
from puzzles.textio import plural

# Tableau 10, then its light shades: the colours of boards (lines) or algorithm labels (bars).
COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
           "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
DASHES = ("solid", "dash", "dot", "dashdot", "longdash")
SYMBOLS = ("circle", "square", "triangle-up", "diamond", "triangle-down", "cross", "x", "star")
MAX_TICKS = 12
HEIGHT = 430
SHARE = ("share solved", "share solved")  # (title noun, axis title)
Y_LOG_SPAN = 20.0  # a logarithmic metric axis when its values span more than this factor
WRITERS: dict[str, Callable[[float], str]] = {  # how hovering writes each metric: as the tables do (orchestrator.text)
    "moves": number_text, "elapsed_s": duration_text, "expanded": count_text, "solved": share_text,
}


@dataclass(frozen=True)
class Chart:
    """A figure: its title and its Plotly JSON (`{"data": [...], "layout": {...}}`)."""

    title: str
    figure: dict[str, Any]


def charts(rows: pd.DataFrame) -> list[Chart]:
    """Every interactive figure of the sweep's rows, or of the sweeps compared (see the module docstring); none for
    an empty sweep."""
    if rows.empty:
        return []
    if is_comparison(rows):
        return paper_charts(rows)
    numeric = numeric_parameters(rows)
    out = [chart for param in numeric for chart in _parameter_charts(rows, param)]
    if wants_bars(rows, numeric):
        out += _comparison_charts(rows)
    return out + paper_charts(rows)


# Per-parameter line plots ---------------------------------------------------------------------


def _parameter_charts(rows: pd.DataFrame, param: str) -> list[Chart]:
    data = with_metrics(rows).assign(**{param: numeric_values(rows[param])})
    swept = data[data[param].notna()]
    algorithms = sorted(swept["algorithm"].dropna().unique())
    others = [column for column in parameter_columns(swept) if column != param and swept[column].astype(str).nunique() > 1]
    keys = ["board", *(["algorithm"] if len(algorithms) > 1 else []), *others]
    prefix = f"{', '.join(algorithms)}: " if len(algorithms) == 1 else ""
    colours = board_colours(data["board"])
    baseline = data[_optimal(data) & data[param].isna() & data["outcome"].eq(Outcome.SOLVED)]
    out = []
    for _, metric, axis, noun in METRICS:
        traces, empty = _metric_lines(swept, param, keys, metric, colours)
        levels = _optimum_lines(data, swept[param], colours) if metric == "moves" else \
            _baselines(baseline, swept[param], metric, colours)
        drawn = {trace["legendgroup"] for trace in traces}
        traces += [level for level in levels if level["legendgroup"] in drawn]  # none for a board left out
        out.append(_chart(f"{prefix}{noun} vs {param}", traces, param, axis, swept[param], empty))
    traces = _share_lines(swept, param, keys[1:]) + _board_shares(swept, param, colours)
    out.append(_chart(f"{prefix}{SHARE[0]} vs {param}", traces, param, SHARE[1], swept[param], []))
    return out


def _metric_lines(swept: pd.DataFrame, param: str, keys: list[str], metric: str,
                  colours: dict[str, str]) -> tuple[list[dict], list[str]]:
    """A line per group of `keys` (the board first): the mean of `metric` per value of `param`, with its interval.

    Also the boards left out for having no value of the metric at all.
    """
    traces, variants = [], {}
    xs = np.sort(swept[param].dropna().unique())
    for key, group in swept.groupby(keys, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        variant = variants.setdefault(key[1:], len(variants))
        points = _mean_points(group, param, metric)
        if points.empty:
            continue
        points = _with_gaps(points, xs)
        board = str(key[0])
        traces += _spread(_line(points, _label(keys, key), board, colours[board], variant, WRITERS[metric]), points)
    drawn = {trace["legendgroup"] for trace in traces}
    return traces, [board for board in colours if board in set(swept["board"].astype(str)) and board not in drawn]


def _mean_points(group: pd.DataFrame, param: str, metric: str) -> pd.DataFrame:
    """Per value of `param` with values of `metric`: the mean, its 95% interval and how many values it has."""
    samples = {x: values.dropna().to_numpy(dtype=float) for x, values in group.groupby(param)[metric]}
    samples = {x: values for x, values in samples.items() if len(values)}
    bounds = mean_intervals(list(samples.values()))
    points = [{"x": x, "y": values.mean(), "low": low, "high": high, "n": len(values)}
              for (x, values), (low, high) in zip(samples.items(), bounds)]
    return pd.DataFrame(points, columns=["x", "y", "low", "high", "n"])


def _with_gaps(points: pd.DataFrame, xs: np.ndarray) -> pd.DataFrame:
    """`points` at every value of the parameter in `xs`, empty where they have none: the line breaks there."""
    return points.set_index("x").reindex(xs).rename_axis("x").reset_index()


def _line(points: pd.DataFrame, name: str, board: str, colour: str, variant: int, write: Callable[[float], str]) -> dict:
    return {
        "type": "scatter", "mode": "lines+markers", "name": name, "legendgroup": board,
        "x": _plain(points["x"]), "y": _plain(points["y"]),
        "line": {"color": colour, "dash": DASHES[variant % len(DASHES)], "width": 2},
        "marker": {"symbol": SYMBOLS[variant % len(SYMBOLS)], "size": 7},
        "text": _hover_texts(points, write), "hovertemplate": f"<b>{name}</b><br>%{{x}}: %{{text}}<extra></extra>",
    }


def _hover_texts(points: pd.DataFrame, write: Callable[[float], str]) -> list[str]:
    """Per point, what hovering shows, written as the tables write it: the mean, its 95% interval, how many jobs."""
    texts = []
    for y, low, high, n in points[["y", "low", "high", "n"]].itertuples(index=False, name=None):
        if missing(y):
            texts.append("")
            continue
        interval = "" if missing(low) else f"<br>95% interval {write(low)}–{write(high)}"
        texts.append(f"mean {write(y)}{interval}<br>{plural(int(n), 'job')}")
    return texts


def _optimum_lines(data: pd.DataFrame, xs: pd.Series, colours: dict[str, str]) -> list[dict]:
    """Each board's optimum (known, else best known) as a dashed line across the parameter's range."""
    if "optimum" not in data.columns:
        return []
    traces = []
    known = data["known_optimum"].notna() if "known_optimum" in data.columns else pd.Series(False, index=data.index)
    for board, group in data[data["optimum"].notna()].groupby("board", sort=False):
        kind = "optimum" if known[group.index].any() else "best known"
        value = float(group["optimum"].iloc[0])
        name = f"{board} {kind} ({count_text(value)} moves)"
        traces.append(_level(xs, value, name, str(board), colours[str(board)], "dash", name))
    return traces


def _baselines(baseline: pd.DataFrame, xs: pd.Series, metric: str, colours: dict[str, str]) -> list[dict]:
    """The mean of `metric` of each optimal algorithm of the sweep on each board, over its solved runs, as a dotted line
    (a run stopped by a limit measured no optimal search)."""
    if baseline.empty:
        return []
    traces = []
    for (board, label), group in baseline.assign(label=algorithm_labels(baseline)).groupby(["board", "label"], sort=False):
        mean = group[metric].mean()
        if not math.isnan(mean):
            name = f"{board} {label} (optimal)"
            traces.append(_level(xs, mean, name, str(board), colours[str(board)], "dot", f"{name}: {WRITERS[metric](mean)}"))
    return traces


def _level(xs: pd.Series, value: float, name: str, board: str, colour: str, dash: str, hover: str) -> dict:
    """A horizontal line at `value` over the range of `xs`, in the board's legend group, `hover` shown on hovering."""
    span = [float(xs.min()), float(xs.max())]
    return {"type": "scatter", "mode": "lines", "name": name, "legendgroup": board, "x": span, "y": [value, value],
            "line": {"color": colour, "dash": dash, "width": 1.5}, "opacity": 0.8, "hovertemplate": f"{hover}<extra></extra>"}


def _share_lines(swept: pd.DataFrame, param: str, variants: list[str]) -> list[dict]:
    """Per variant (the other parameters, the algorithm), the share solved over every board, seed and repeat."""
    groups = swept.groupby(variants, dropna=False, sort=True) if variants else [((), swept)]
    xs = np.sort(swept[param].dropna().unique())
    traces = []
    for number, (key, group) in enumerate(groups):
        key = key if isinstance(key, tuple) else (key,)
        name = "all boards" + (f", {_label(['board', *variants], ('', *key))[2:]}" if variants else "")
        points = _share_points(group, param, xs)
        if not points.empty:
            traces += _spread(_share_line(points, name, COLOURS[number % len(COLOURS)], number, "solid", True), points)
    return traces


def _board_shares(swept: pd.DataFrame, param: str, colours: dict[str, str]) -> list[dict]:
    """Each board's own share solved, hidden until its name is clicked in the legend."""
    if swept["board"].nunique() < 2:
        return []
    traces = []
    xs = np.sort(swept[param].dropna().unique())
    for board, group in swept.groupby("board", sort=False):
        points = _share_points(group, param, xs)
        if not points.empty:
            traces += _spread(_share_line(points, str(board), colours[str(board)], 0, "dot", "legendonly"), points)
    return traces


def _share_points(group: pd.DataFrame, param: str, xs: np.ndarray) -> pd.DataFrame:
    """Per value of `param` in `xs`: solved of done jobs (those proved unsolvable apart), their share and its Wilson
    interval; empty where none is done, so that the line breaks there."""
    counts = group.groupby(param)["solved"].agg(solved="sum", done="count")
    counts = counts[counts["done"] > 0]
    if counts.empty:
        return pd.DataFrame(columns=["x", "y", "low", "high", "solved", "n"])
    bounds = [share_interval(int(row.solved), int(row.done)) for row in counts.itertuples()]
    points = pd.DataFrame({"x": counts.index.to_numpy(dtype=float), "y": counts["solved"] / counts["done"],
                           "low": [low for low, _ in bounds], "high": [high for _, high in bounds],
                           "solved": counts["solved"], "n": counts["done"]}).reset_index(drop=True)
    return _with_gaps(points, xs)


def _share_line(points: pd.DataFrame, name: str, colour: str, variant: int, dash: str, visible: Any) -> dict:
    """The share solved per value: a line, or points alone where each has one job (a line would zigzag 0–100%)."""
    return {
        "type": "scatter", "mode": "markers" if _one_job_each(points) else "lines+markers", "name": name, "legendgroup": name, "visible": visible,
        "x": _plain(points["x"]), "y": _plain(points["y"]),
        "line": {"color": colour, "dash": dash, "width": 2}, "marker": {"symbol": SYMBOLS[variant % len(SYMBOLS)], "size": 7},
        "customdata": [_plain(row) for row in points[["low", "high", "solved", "n"]].to_numpy()],
        "hovertemplate": f"<b>{name}</b><br>%{{x}}: %{{y:.0%}} solved (%{{customdata[2]}} of %{{customdata[3]}})"
                         "<br>95% interval %{customdata[0]:.0%}–%{customdata[1]:.0%}<extra></extra>",
    }


# Algorithm comparison bar charts ---------------------------------------------------------------


def _comparison_charts(rows: pd.DataFrame) -> list[Chart]:
    data = with_metrics(rows).assign(label=algorithm_labels(rows))
    labels = sorted(data["label"].unique(), key=natural_key)
    out = []
    for title, metric, axis in (("mean solution length per algorithm", "moves", "solution length (moves)"),
                                ("mean time per algorithm", "elapsed_s", "time (s)"),
                                (f"{SHARE[0]} per algorithm", "solved", SHARE[1])):
        present = data[data[metric].notna()]
        boards = sorted(present["board"].astype(str).unique(), key=natural_key)
        traces = [_bars(present[present["label"] == label], boards, label, COLOURS[i % len(COLOURS)], metric)
                  for i, label in enumerate(labels) if (present["label"] == label).any()]
        if metric == "moves" and "optimum" in data.columns:
            traces += _optimum_marks(data, boards)
        empty = [board for board in sorted(data["board"].astype(str).unique(), key=natural_key) if board not in boards]
        out.append(_chart(title, traces, "board", axis, None, empty, bars=True))
    return out


def _bars(group: pd.DataFrame, boards: list[str], label: str, colour: str, metric: str) -> dict:
    """One algorithm label's bars: per board the mean (share solved) with its interval."""
    points = []
    for board in boards:
        values = group.loc[group["board"].astype(str) == board, metric].dropna()
        if values.empty:
            points.append({"x": board, "y": None, "low": None, "high": None, "n": 0})
            continue
        low, high = share_interval(int(values.sum()), len(values)) if metric == "solved" else mean_interval(values)
        points.append({"x": board, "y": values.mean(), "low": low, "high": high, "n": len(values)})
    frame = pd.DataFrame(points)
    return {"type": "bar", "name": label, "x": list(frame["x"]), "y": _plain(frame["y"]), "marker": {"color": colour},
            "error_y": _error_bars(frame, "#333"), "text": _hover_texts(frame, WRITERS[metric]), "textposition": "none",
            "hovertemplate": f"<b>{label}</b><br>%{{x}}: %{{text}}<extra></extra>"}


def _optimum_marks(data: pd.DataFrame, boards: list[str]) -> list[dict]:
    optima = data[data["optimum"].notna()].groupby(data["board"].astype(str))["optimum"].first().reindex(boards)
    if optima.dropna().empty:
        return []
    return [{"type": "scatter", "mode": "markers", "name": "optimum (best known)", "x": boards, "y": _plain(optima),
             "marker": {"symbol": "line-ew-open", "size": 36, "color": "#111", "line": {"width": 3}},
             "hovertemplate": "%{x}: optimum %{y} moves<extra></extra>"}]


# The figures of papers: scatter and coverage plots --------------------------------------------


def paper_charts(rows: pd.DataFrame) -> list[Chart]:
    """Per metric a scatter plot of the reference configuration against the others (`figures.Sides.pairs`), then per
    metric a coverage plot (`figures.Sides.curves`)."""
    found = sides(rows)
    out = []
    for metric, noun in PAPER_METRICS:
        scatters = [scatter_points(rows, found.config, a, b, metric, found.pair) for a, b in found.pairs()]
        if scatters:
            out.append(_scatter_chart(scatters, noun))
    if found.curves():
        out += [_coverage_chart(coverage_curves(rows, found.config, metric, found.pair), noun, found.names)
                for metric, noun in PAPER_METRICS]
    return out


def _scatter_chart(scatters: list[Scatter], noun: str) -> Chart:
    """Log-log and square: B's values against A's, a trace per kind of board (a colour per domain, a marker per kind),
    the diagonal, unsolved runs on the dashed border; a menu picks B where there are several."""
    floor, border = min(scatter.floor for scatter in scatters), max(scatter.border for scatter in scatters)
    low, high = floor / MARGIN, border * MARGIN
    traces = [{"type": "scatter", "mode": "lines", "name": "x = y", "x": [low, high], "y": [low, high], "showlegend": False,
               "line": {"color": "#999", "width": 1}, "hoverinfo": "skip"},
              {"type": "scatter", "mode": "lines", "name": "unsolved", "x": [border, border, None, low, high],
               "y": [low, high, None, border, border], "line": {"color": "#555", "width": 1, "dash": "dash"}, "hoverinfo": "skip"}]
    owners = [None, None]  # the scatter each trace shows: None for those every one shows
    for number, scatter in enumerate(scatters):
        mine = _scatter_traces(scatter, floor, border, visible=number == 0)
        traces += mine
        owners += [number] * len(mine)
    first = scatters[0]
    axis = {"type": "log", "range": [math.log10(low), math.log10(high)], "automargin": True, "gridcolor": "#eee",
            "dtick": 1, "constrain": "domain"} | (_TIME_TICKS if first.metric == "elapsed_s" else {})
    title = f"{noun}: {first.a} vs " + (first.b if len(scatters) == 1 else "each other configuration")
    layout = _layout(f"{noun}: {first.a} vs {first.b}", axis | {"title": {"text": f"{noun}: {first.a}"}},
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
                       "x": _plain(x[mine]), "y": _plain(y[mine]), "text": [t for t, m in zip(texts, mine) if m],
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
        traces.append({"type": "scatter", "mode": "lines+markers", "name": name, "x": _plain([low, *values, high]),
                       "y": _plain(solved), "line": {"shape": "hv", "color": COLOURS[number % len(COLOURS)], "width": 2,
                                                     "dash": DASHES[number % len(DASHES)]},
                       "marker": {"symbol": SYMBOLS[number % len(SYMBOLS)], "size": 6},
                       "text": ["", *(f"{n:,} solved within {write(v)}" for n, v in enumerate(values, 1)), ""],
                       "hovertemplate": f"<b>{name}</b><br>%{{text}}<extra></extra>"})
    traces.append({"type": "scatter", "mode": "lines", "name": f"all {coverage.units:,} {coverage.noun}", "x": [low, high],
                   "y": [coverage.units, coverage.units], "line": {"color": "#999", "width": 1, "dash": "dot"},
                   "hoverinfo": "skip"})
    xaxis = {"type": "log", "range": [math.log10(low), math.log10(high)], "dtick": 1, "title": {"text": noun},
             "automargin": True, "gridcolor": "#eee"} | (_TIME_TICKS if coverage.metric == "elapsed_s" else {})
    yaxis = {"range": [0, max(coverage.units, 1) * 1.08], "title": {"text": f"{coverage.noun} solved"}, "tickformat": "d",
             "rangemode": "tozero", "automargin": True, "gridcolor": "#eee", "zeroline": False}
    title = f"coverage by {noun}"
    return Chart(title, {"data": traces, "layout": _layout(title, xaxis, yaxis, coverage.left_out())})


# Layout and helpers -----------------------------------------------------------------------------


def _chart(title: str, traces: list[dict], xtitle: str, ytitle: str, xs: pd.Series | None, empty: list[str],
           *, bars: bool = False) -> Chart:
    """The figure: its traces, axes (log where values span decades, integer ticks), legend right of the data."""
    ys = [y for trace in traces for y in trace["y"] if y is not None]
    share = ytitle == SHARE[1]
    xaxis: dict[str, Any] = {"title": {"text": xtitle}, "automargin": True, "gridcolor": "#eee", "zeroline": False}
    if xs is not None:
        xaxis |= _ticks(np.sort(xs.dropna().unique().astype(float)))
    yaxis: dict[str, Any] = {"title": {"text": ytitle}, "automargin": True, "gridcolor": "#eee", "zeroline": False}
    if share:
        yaxis |= {"range": [-0.05, 1.05], "tickformat": ".0%"}
    elif spans_decades(np.array(ys, dtype=float), Y_LOG_SPAN):
        yaxis |= {"type": "log", "dtick": 1}  # a tick per power of ten, no 2s and 5s between
    if ytitle == TIME_AXIS:
        yaxis |= {"title": {"text": "time"}} | _TIME_TICKS
    layout = _layout(title, xaxis, yaxis, f"no data: {', '.join(empty)}" if empty else "")
    if bars:
        layout |= {"barmode": "group", "bargap": 0.25}
    if not traces:
        layout["annotations"] = [{"text": "no data yet", "showarrow": False, "xref": "paper", "yref": "paper",
                                  "x": 0.5, "y": 0.5, "font": {"color": "grey", "size": 16}}]
    return Chart(title, {"data": traces, "layout": layout})


_TIME_TICKS = {"tickformat": "~s", "ticksuffix": "s"}  # 85µs, 500ms, 2s: as the tables write times


def _layout(title: str, xaxis: dict, yaxis: dict, left_out: str = "") -> dict[str, Any]:
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


def _ticks(values: np.ndarray) -> dict[str, Any]:
    """The x axis for a parameter's values: logarithmic from X_LOG_SPAN; the values as ticks when few, else
    integer ticks for integer parameters."""
    axis: dict[str, Any] = {"type": "log"} if spans_decades(values, X_LOG_SPAN) else {}
    integer = len(values) and all(float(value).is_integer() for value in values)
    if 0 < len(values) <= MAX_TICKS:
        return axis | {"tickmode": "array", "tickvals": _plain(values), "ticktext": [value_text(v) for v in values]}
    if not integer:
        return axis
    if axis:
        return axis | {"tickmode": "array", "tickvals": log_ticks(values), "ticktext": [value_text(v) for v in log_ticks(values)]}
    return axis | {"tickmode": "linear", "tick0": 0, "dtick": _nice_step((values.max() - values.min()) / MAX_TICKS),
                   "tickformat": "d"}


def _nice_step(raw: float) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... at least `raw`."""
    return next(step for step in STEPS if step >= raw)


def board_colours(boards: pd.Series) -> dict[str, str]:
    """A colour per board, in natural order of the names, the same in every figure of a sweep."""
    names = sorted(boards.astype(str).unique(), key=natural_key)
    return {name: COLOURS[i % len(COLOURS)] for i, name in enumerate(names)}


def _optimal(data: pd.DataFrame) -> pd.Series:
    """Per row, whether its algorithm is an optimal search (False where the rows do not say)."""
    if "optimal" not in data.columns:
        return pd.Series(False, index=data.index)
    return data["optimal"].fillna(False).astype(bool)


def _label(keys: list[str], key: tuple) -> str:
    parts = [str(key[0])]
    for name, value in zip(keys[1:], key[1:]):
        if value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA:
            continue
        parts.append(str(value) if name == "algorithm" else f"{name}={value_text(value)}")
    return ", ".join(parts)


def _one_job_each(points: pd.DataFrame) -> bool:
    """True if no point has more than one job behind it."""
    return bool(points["n"].dropna().le(1).all())


def _spread(trace: dict, points: pd.DataFrame) -> list[dict]:
    """The line with its points' intervals: error bars for a few points or points of one job, a shaded band beneath
    it for many."""
    colour = trace["line"]["color"]
    if len(points) <= MAX_TICKS or _one_job_each(points):
        return [trace | {"error_y": _error_bars(points, colour)}]
    trace = trace | {"mode": "lines"}  # many points: markers would hide the line
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    edge = {"type": "scatter", "mode": "lines", "x": trace["x"], "line": {"width": 0}, "hoverinfo": "skip",
            "showlegend": False, "legendgroup": trace["legendgroup"], "visible": trace.get("visible", True),
            "connectgaps": False}
    upper = edge | {"name": f"{trace['name']} upper", "y": _plain(points["high"])}
    lower = edge | {"name": f"{trace['name']} lower", "y": _plain(points["low"]), "fill": "tonexty",
                    "fillcolor": f"rgba({red},{green},{blue},0.15)"}
    return [upper, lower, trace]


def _error_bars(points: pd.DataFrame, colour: str) -> dict:
    """Asymmetric error bars from each point's `low` and `high` (none where they are missing)."""
    y, low, high = (pd.to_numeric(points[c], errors="coerce") for c in ("y", "low", "high"))
    return {"type": "data", "symmetric": False, "array": _plain(high - y), "arrayminus": _plain(y - low),
            "color": colour, "thickness": 1.2, "width": 3}


def _plain(values: Iterable) -> list:
    """Numbers as JSON-ready floats and ints; NaN and missing values as None."""
    out = []
    for value in values:
        if value is None or value is pd.NA or (isinstance(value, float | np.floating) and math.isnan(value)):
            out.append(None)
        elif isinstance(value, np.integer) or (isinstance(value, float | np.floating) and float(value).is_integer()):
            out.append(int(value))
        else:
            out.append(float(value) if isinstance(value, float | np.floating) else value)
    return out
