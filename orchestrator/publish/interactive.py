"""Interactive plots of a sweep's rows, as Plotly figures: the HTML report's and the dashboard's, one set.

`charts(rows)` gives, like `orchestrator.reports.plots` for the files, per numeric
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

Then the figures of search papers, scatter and coverage plots
(`orchestrator.publish.interactive_paper`). A comparison of sweeps
(`figures.joined_rows`) gets these alone.
"""

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from orchestrator.publish.interactive_paper import COLOURS, DASHES, SYMBOLS, TIME_TICKS, WRITERS, Chart, chart_layout, paper_charts, plain
from orchestrator.reports.figures import is_comparison
from orchestrator.reports.plots import (
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
from orchestrator.text import count_text, missing
from puzzles.result import Outcome
from puzzles.textio import plural

MAX_TICKS = 12
SHARE = ("share solved", "share solved")  # (title noun, axis title)
Y_LOG_SPAN = 20.0  # a logarithmic metric axis when its values span more than this factor


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
    traces: list[dict] = []
    variants: dict[tuple, int] = {}
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
        "x": plain(points["x"]), "y": plain(points["y"]),
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
        "x": plain(points["x"]), "y": plain(points["y"]),
        "line": {"color": colour, "dash": dash, "width": 2}, "marker": {"symbol": SYMBOLS[variant % len(SYMBOLS)], "size": 7},
        "customdata": [plain(row) for row in points[["low", "high", "solved", "n"]].to_numpy()],
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
    points: list[dict[str, Any]] = []
    for board in boards:
        values = group.loc[group["board"].astype(str) == board, metric].dropna()
        if values.empty:
            points.append({"x": board, "y": None, "low": None, "high": None, "n": 0})
            continue
        low, high = share_interval(int(values.sum()), len(values)) if metric == "solved" else mean_interval(values)
        points.append({"x": board, "y": values.mean(), "low": low, "high": high, "n": len(values)})
    frame = pd.DataFrame(points)
    return {"type": "bar", "name": label, "x": list(frame["x"]), "y": plain(frame["y"]), "marker": {"color": colour},
            "error_y": _error_bars(frame, "#333"), "text": _hover_texts(frame, WRITERS[metric]), "textposition": "none",
            "hovertemplate": f"<b>{label}</b><br>%{{x}}: %{{text}}<extra></extra>"}


def _optimum_marks(data: pd.DataFrame, boards: list[str]) -> list[dict]:
    optima = data[data["optimum"].notna()].groupby(data["board"].astype(str))["optimum"].first().reindex(boards)
    if optima.dropna().empty:
        return []
    return [{"type": "scatter", "mode": "markers", "name": "optimum (best known)", "x": boards, "y": plain(optima),
             "marker": {"symbol": "line-ew-open", "size": 36, "color": "#111", "line": {"width": 3}},
             "hovertemplate": "%{x}: optimum %{y} moves<extra></extra>"}]


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
        yaxis |= {"title": {"text": "time"}} | TIME_TICKS
    layout = chart_layout(title, xaxis, yaxis, f"no data: {', '.join(empty)}" if empty else "")
    if bars:
        layout |= {"barmode": "group", "bargap": 0.25}
    if not traces:
        layout["annotations"] = [{"text": "no data yet", "showarrow": False, "xref": "paper", "yref": "paper",
                                  "x": 0.5, "y": 0.5, "font": {"color": "grey", "size": 16}}]
    return Chart(title, {"data": traces, "layout": layout})


def _ticks(values: np.ndarray) -> dict[str, Any]:
    """The x axis for a parameter's values: logarithmic from X_LOG_SPAN; the values as ticks when few, else
    integer ticks for integer parameters."""
    axis: dict[str, Any] = {"type": "log"} if spans_decades(values, X_LOG_SPAN) else {}
    integer = len(values) and all(float(value).is_integer() for value in values)
    if 0 < len(values) <= MAX_TICKS:
        return axis | {"tickmode": "array", "tickvals": plain(values), "ticktext": [value_text(v) for v in values]}
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
    upper = edge | {"name": f"{trace['name']} upper", "y": plain(points["high"])}
    lower = edge | {"name": f"{trace['name']} lower", "y": plain(points["low"]), "fill": "tonexty",
                    "fillcolor": f"rgba({red},{green},{blue},0.15)"}
    return [upper, lower, trace]


def _error_bars(points: pd.DataFrame, colour: str) -> dict:
    """Asymmetric error bars from each point's `low` and `high` (none where they are missing)."""
    y, low, high = (pd.to_numeric(points[c], errors="coerce") for c in ("y", "low", "high"))
    return {"type": "data", "symmetric": False, "array": plain(high - y), "arrayminus": plain(y - low),
            "color": colour, "thickness": 1.2, "width": 3}


