"""The figures of search papers drawn as files, and every plot written as one (`report --plot`).

`paper_figures(rows)` draws the figures of `orchestrator.reports.figures`: per
metric, states expanded and time, a scatter plot of two configurations board by
board and a coverage ("cactus") plot. `write_plots` writes every figure of a
sweep (`orchestrator.reports.plots.figures`, then these) as PNG, PDF, SVG or
PGF, one or two columns of a paper wide, with its fonts embedded and, for PGF,
its texts made safe for LaTeX.

As in `orchestrator.reports.plots`, figures are made without pyplot and
matplotlib is imported only when one is made.
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

from orchestrator.reports.figures import METRICS, Coverage, Scatter, is_comparison, paper_data, sides, styles
from orchestrator.reports.plots import LINESTYLES, MARKERS, duration_ticks, figures, palette
from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

PLOT_FORMATS = ("png", "pdf", "svg", "pgf")
WIDTHS = {"one": 3.5, "two": 7.0}  # inches: a figure one or two columns of a paper wide
PAPER_DPI = 300  # a PNG of a paper figure: 1,050 pixels one column wide
PAPER_FONTS: dict[RcKeyType, Any] = {"font.size": 8, "legend.fontsize": 7, "axes.titlesize": 8}  # the size of a paper's captions
EMBEDDED: dict[RcKeyType, Any] = {"pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "path", "pgf.rcfonts": False}  # TrueType fonts in
# a PDF, glyph outlines in an SVG (it needs no font installed); a PGF file's text is set by the document that inputs it
METADATA = {"png": {"Software": None}, "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
            "svg": {"Creator": None, "Date": None}}  # no version or date: the same figure makes the same file
TEX_SPECIAL = re.compile(r"[\\_%&#{}~^]")  # characters LaTeX reads as commands in a PGF figure's text
TEX_ESCAPES = {"\\": r"\textbackslash{}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
TEX_SYSTEMS = ("xelatex", "lualatex", "pdflatex")  # the pgf backend measures text with the first found
MARGIN = 1.6  # a log axis of a paper figure runs this factor beyond the floor and the border
BORDER_LINE: dict[str, Any] = {"color": "0.35", "linestyle": "--", "linewidth": 0.8, "zorder": 1}


# Writing figures as files --------------------------------------------------------------------


def write_plots(rows: pd.DataFrame, outdir: Path, stem: str, *, fmt: str = "png", width: str | None = None,
                baseline: str | None = None) -> list[Path]:
    """Every figure of `rows` (`plots.figures`, then `paper_figures`; a comparison's, `figures.joined_rows`, only the latter)
    written to `outdir/{stem}-{slug}.{fmt}`, `fmt` one of PLOT_FORMATS; the paths in order.

    Fonts are embedded: TrueType in a PDF, glyph outlines in an SVG; a PGF
    file's text is set by the LaTeX document that inputs it, and writing it
    needs LaTeX to measure the text. `width` (`one` or `two` columns of a
    paper, WIDTHS) sets every figure's width; by default the scatter and
    coverage plots are one column wide, the others as drawn. `baseline`: an
    algorithm, the reference of the scatter plots (`figures.sides`).
    """
    from matplotlib import rc_context

    inches = _inches(fmt, width)
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    with _saving(fmt), rc_context(PAPER_FONTS if inches else None):
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

    settings = dict(EMBEDDED)
    if fmt == "pgf":
        settings["pgf.texsystem"] = _tex_system()
    return rc_context(settings)


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
        metadata: dict[str, Any] = {"metadata": METADATA[fmt]} if fmt in METADATA else {}
        figure.savefig(path, dpi="figure", **metadata)
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


def _close(figure: Figure) -> None:
    """Release a figure: close it if pyplot manages it (ours are not), then drop its artists."""
    import sys

    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close(figure)
    figure.clear()


def slug(title: str) -> str:
    """`title` as a file-name part: lower case, runs of other characters as one hyphen."""
    return re.sub(r"[^a-z0-9_]+", "-", title.lower()).strip("-") or "figure"


# The figures of papers: scatter and coverage plots --------------------------------------------


def paper_figures(rows: pd.DataFrame, width: float = WIDTHS["one"], baseline: str | None = None) -> list[tuple[str, Figure]]:
    """(title, figure) of the figures of search papers, `width` inches wide: per metric (states expanded, time) a
    scatter plot of the reference configuration against each other one (`figures.Sides.pairs`), then per metric a
    coverage plot (`figures.Sides.curves`); none for an empty sweep. `baseline`: as `write_plots` takes it."""
    from matplotlib import rc_context

    if rows.empty:
        return []
    found = sides(rows, baseline)
    scatters, curves = paper_data(rows, found, [metric for metric, _ in METRICS])
    with rc_context(PAPER_FONTS):
        out = [_scatter_figure(scatter, noun, width) for metric, noun in METRICS for scatter in scatters[metric]]
        out += [_coverage_figure(curves[metric], noun, found.names, width) for metric, noun in METRICS if metric in curves]
    return out


def _scatter_figure(scatter: Scatter, noun: str, width: float) -> tuple[str, Figure]:
    """A square log-log plot of B's values against A's, the diagonal, unsolved runs on a dashed border line, a
    colour per domain and a marker per kind of board (filled for the first domain, hollow for the next)."""
    from matplotlib.figure import Figure

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
    colours = palette(len({domain for domain, _ in found.values()}))
    for category, (domain, number) in found.items():
        mine = categories == category
        ax.scatter(x[mine], y[mine], s=16, marker=MARKERS[number % len(MARKERS)], edgecolors=colours[domain],
                   facecolors=colours[domain] if domain % 2 == 0 else "none", linewidths=0.8, label=category, zorder=3)
    if scatter.metric == "elapsed_s":
        duration_ticks(ax.xaxis)
        duration_ticks(ax.yaxis)
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
    colours = palette(len(drawn))
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
        duration_ticks(ax.xaxis)
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
