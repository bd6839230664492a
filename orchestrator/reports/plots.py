"""Plots of a sweep's rows as PNG files (`report --plot`): how solution length, time, states expanded and success
depend on a parameter. The HTML report and the dashboard draw the same figures with Plotly (`orchestrator.publish.interactive`).

`figures(rows)` builds matplotlib figures from the per-job DataFrame of a sweep
(one row per job, see `orchestrator.reports.rows`). For every numeric parameter that
takes at least two values (k, batches, w_exit, ...) there are four figures, the
parameter against: solution length, time, states expanded and share solved; a
line per board (and per value of the other parameters that vary), with the
spread across seeds and repeats as a shaded min–max band. When the sweep has no
such parameter, or compares several algorithms, there are bar charts per board
and algorithm label ("beam k=50") instead or as well.

`paper_figures(rows)` draws the figures of search papers (`orchestrator.reports.figures`):
per metric, states expanded and time, a scatter plot of two configurations board
by board and a coverage ("cactus") plot. `write_plots` writes every figure as PNG,
PDF, SVG or PGF, one or two columns of a paper wide.

Figures are `matplotlib.figure.Figure` objects created without pyplot, so
nothing opens a window and nothing needs closing; matplotlib itself is imported
only when a figure is made, to keep the command line quick to start.
"""

from __future__ import annotations

import re
import shutil
import textwrap
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from orchestrator.reports.rows import parameter_columns, parameter_name
from orchestrator.text import duration_text
from puzzles.algorithms import ALGORITHMS
from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

    from orchestrator.reports.figures import Coverage, Scatter

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
PLOT_FORMATS = ("png", "pdf", "svg", "pgf")
WIDTHS = {"one": 3.5, "two": 7.0}  # inches: a figure one or two columns of a paper wide
PAPER_DPI = 300  # a PNG of a paper figure: 1,050 pixels one column wide
PAPER_FONTS = {"font.size": 8, "legend.fontsize": 7, "axes.titlesize": 8}  # the size of a paper's captions
EMBEDDED = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path", "pgf.rcfonts": False}  # TrueType fonts in
# a PDF, glyph outlines in an SVG (it needs no font installed); a PGF file's text is set by the document that inputs it
METADATA = {"png": {"Software": None}, "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
            "svg": {"Creator": None, "Date": None}}  # no version or date: the same figure makes the same file
TEX_SPECIAL = re.compile(r"[\\_%&#{}~^]")  # characters LaTeX reads as commands in a PGF figure's text
TEX_ESCAPES = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
TEX_SYSTEMS = ("xelatex", "lualatex", "pdflatex")  # the pgf backend measures text with the first found
MARGIN = 1.6  # a log axis of a paper figure runs this factor beyond the floor and the border
BORDER_LINE = {"color": "0.35", "linestyle": "--", "linewidth": 0.8, "zorder": 1}


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


def write_plots(rows: pd.DataFrame, outdir: Path, stem: str, *, fmt: str = "png", width: str | None = None,
                baseline: str | None = None) -> list[Path]:
    """Every figure of `rows` (`figures`, then `paper_figures`; a comparison's, `figures.joined_rows`, only the latter)
    written to `outdir/{stem}-{slug}.{fmt}`, `fmt` one of PLOT_FORMATS; the paths in order.

    Fonts are embedded: TrueType in a PDF, glyph outlines in an SVG; a PGF
    file's text is set by the LaTeX document that inputs it, and writing it
    needs LaTeX to measure the text. `width` (`one` or `two` columns of a
    paper, WIDTHS) sets every figure's width; by default the scatter and
    coverage plots are one column wide, the others as drawn. `baseline`: an
    algorithm, the reference of the scatter plots (`figures.sides`).
    """
    from matplotlib import rc_context

    from orchestrator.reports.figures import is_comparison

    inches = _inches(fmt, width)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    with _saving(fmt), rc_context(PAPER_FONTS if inches else {}):
        made = [*([] if is_comparison(rows) else figures(rows)), *paper_figures(rows, inches or WIDTHS["one"], baseline)]
        return [_save(figure, outdir / f"{stem}-{slug(title)}.{fmt}", fmt, inches) for title, figure in made]


def _inches(fmt: str, width: str | None) -> float | None:
    """The width asked for, in inches (None: as drawn); PuzzleError for an unknown format or width."""
    if fmt not in PLOT_FORMATS:
        raise PuzzleError(f"--plot-format: {fmt!r} is not one of {', '.join(PLOT_FORMATS)}")
    if width is not None and width not in WIDTHS:
        raise PuzzleError(f"--plot-width: {width!r} is not one of {', '.join(WIDTHS)}")
    return WIDTHS[width] if width else None


def _saving(fmt: str) -> AbstractContextManager:
    """matplotlib's settings while figures are made and saved: fonts embedded; for PGF, the LaTeX found."""
    from matplotlib import rc_context

    return rc_context(EMBEDDED | ({"pgf.texsystem": _tex_system()} if fmt == "pgf" else {}))


def _tex_system() -> str:
    """The first LaTeX of TEX_SYSTEMS on PATH; PuzzleError without one."""
    found = next((name for name in TEX_SYSTEMS if shutil.which(name)), None)
    if found is None:
        raise PuzzleError("--plot-format pgf needs LaTeX to measure its text (xelatex, lualatex or pdflatex on PATH);"
                          " pdf and svg do not")
    return found


def _save(figure: Figure, path: Path, fmt: str, inches: float | None) -> Path:
    """Write `figure` to `path` as `fmt`, `inches` wide if given, then release it; PuzzleError where LaTeX cannot set
    a label of a PGF figure."""
    if inches:
        figure.set_size_inches(inches, inches * figure.get_figheight() / figure.get_figwidth())
        figure.set_dpi(PAPER_DPI)
    if fmt == "pgf":
        _tex_texts(figure)
    try:
        figure.savefig(path, dpi="figure", **({"metadata": METADATA[fmt]} if fmt in METADATA else {}))
    except _latex_errors(fmt) as err:
        raise PuzzleError(f"{path.name}: LaTeX cannot set a text of this figure: {str(err).splitlines()[0]}") from None
    finally:
        _close(figure)
    return path


def _tex_texts(figure: Figure) -> None:
    """Every text of the figure but math (`$10^{3}$`) made safe for LaTeX, which sets a PGF figure's words: a board's
    or a sweep's name may hold `_`, `%`, `&` or `#`."""
    from matplotlib.text import Text

    for text in figure.findobj(Text):
        words = text.get_text()
        if words and "$" not in words:
            text.set_text(TEX_SPECIAL.sub(lambda found: TEX_ESCAPES.get(found.group(0), "\\" + found.group(0)), words))


def _latex_errors(fmt: str) -> tuple[type[Exception], ...]:
    """The errors of LaTeX measuring a PGF figure's text; none for the other formats."""
    if fmt != "pgf":
        return ()
    from matplotlib.backends.backend_pgf import LatexError

    return (LatexError,)


def slug(title: str) -> str:
    """`title` as a file-name part: lower case, runs of other characters as one hyphen."""
    return re.sub(r"[^a-z0-9_]+", "-", title.lower()).strip("-") or "figure"


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
    colours = _colours(len(boards))
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
    _durations(ax.yaxis)


def _durations(axis: Axis) -> None:
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
        colours = _colours(len(labels))
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


# The figures of papers: scatter and coverage plots --------------------------------------------


def paper_figures(rows: pd.DataFrame, width: float = WIDTHS["one"], baseline: str | None = None) -> list[tuple[str, Figure]]:
    """(title, figure) of the figures of search papers, `width` inches wide: per metric (states expanded, time) a
    scatter plot of the reference configuration against each other one (`figures.Sides.pairs`), then per metric a
    coverage plot (`figures.Sides.curves`); none for an empty sweep. `baseline`: as `write_plots` takes it."""
    from matplotlib import rc_context

    from orchestrator.reports.figures import METRICS, coverage_curves, scatter_points, sides

    if rows.empty:
        return []
    found = sides(rows, baseline)
    with rc_context(PAPER_FONTS):
        out = [_scatter_figure(scatter_points(rows, found.config, a, b, metric, found.pair), noun, width)
               for metric, noun in METRICS for a, b in found.pairs()]
        if found.curves():
            out += [_coverage_figure(coverage_curves(rows, found.config, metric, found.pair), noun, found.names, width)
                    for metric, noun in METRICS]
    return out


def _scatter_figure(scatter: Scatter, noun: str, width: float) -> tuple[str, Figure]:
    """A square log-log plot of B's values against A's, the diagonal, unsolved runs on a dashed border line, a
    colour per domain and a marker per kind of board (filled for the first domain, hollow for the next)."""
    from matplotlib.figure import Figure

    from orchestrator.reports.figures import styles

    title = f"{noun}: {scatter.a} vs {scatter.b}"
    figure = Figure(figsize=(width, width * 1.15), dpi=PAPER_DPI, layout="constrained")
    ax = figure.add_subplot()
    low, high = scatter.floor / MARGIN, scatter.border * MARGIN
    ax.set(xscale="log", yscale="log", xlim=(low, high), ylim=(low, high), box_aspect=1, title=title,
           xlabel=f"{noun}: {scatter.a}", ylabel=f"{noun}: {scatter.b}")
    ax.plot([low, high], [low, high], color="0.6", linewidth=0.8, zorder=1)
    ax.axvline(scatter.border, **BORDER_LINE)
    ax.axhline(scatter.border, **BORDER_LINE)
    ax.text(scatter.border, low, " unsolved", rotation=90, ha="right", va="bottom", fontsize="small", color="0.35")
    ax.text(low, scatter.border, " unsolved", ha="left", va="bottom", fontsize="small", color="0.35")
    x, y = scatter.placed("x"), scatter.placed("y")
    categories = scatter.points["category"].to_numpy()
    found = styles(scatter.points)
    colours = _colours(len({domain for domain, _ in found.values()}))
    for category, (domain, number) in found.items():
        mine = categories == category
        ax.scatter(x[mine], y[mine], s=16, marker=MARKERS[number % len(MARKERS)], edgecolors=colours[domain],
                   facecolors=colours[domain] if domain % 2 == 0 else "none", linewidths=0.8, label=category, zorder=3)
    if scatter.metric == "elapsed_s":
        _durations(ax.xaxis)
        _durations(ax.yaxis)
    _paper_legend(figure, ax, width, scatter.left_out())
    return title, figure


def _coverage_figure(coverage: Coverage, noun: str, names: list[str], width: float) -> tuple[str, Figure]:
    """Per configuration a step line: how many units it solved within each value of the metric (log x axis); a dotted
    line at the units in all."""
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    title = f"coverage by {noun}"
    figure = Figure(figsize=(width, width * 0.9), dpi=PAPER_DPI, layout="constrained")
    ax = figure.add_subplot()
    low, high = coverage.floor / MARGIN, coverage.border
    drawn = [name for name in names if name in coverage.curves]
    colours = _colours(len(drawn))
    for number, name in enumerate(drawn):
        values = np.maximum(coverage.curves[name], coverage.floor)
        solved = np.arange(len(values) + 2).clip(max=len(values))
        ax.step(np.concatenate([[low], values, [high]]), solved, where="post", color=colours[number],
                linestyle=LINESTYLES[number % len(LINESTYLES)], marker=MARKERS[number % len(MARKERS)], markersize=3,
                markevery=slice(1, len(values) + 1, max(1, len(values) // 8)), linewidth=1, label=name)
    ax.axhline(coverage.units, color="0.5", linestyle=":", linewidth=0.8)
    ax.set(xscale="log", xlim=(low, high), ylim=(0, max(coverage.units, 1) * 1.08), title=title, xlabel=noun,
           ylabel=f"{coverage.noun} solved (of {coverage.units:,})")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if coverage.metric == "elapsed_s":
        _durations(ax.xaxis)
    _paper_legend(figure, ax, width, coverage.left_out())
    return title, figure


def _paper_legend(figure: Figure, ax: Axes, width: float, note: str) -> None:
    """The legend above the plot, in two columns, and what was left out beneath it, wrapped to the figure's width;
    labels on the powers of ten of a log axis alone (never `2×10²` crowding them)."""
    from matplotlib.ticker import NullFormatter

    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            axis.set_minor_formatter(NullFormatter())
    if ax.get_legend_handles_labels()[0]:
        figure.legend(*ax.get_legend_handles_labels(), loc="outside upper center", ncols=2, frameon=False)
    if note:
        figure.supxlabel(textwrap.fill(f"left out: {note}", int(width * 17)), fontsize="x-small", ha="left", x=0.02)


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


def _colours(n: int) -> list:
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


def _close(figure: Figure) -> None:
    """Release a figure: close it if pyplot manages it (ours are not), then drop its artists."""
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(figure)
    figure.clear()
