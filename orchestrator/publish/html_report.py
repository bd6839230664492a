"""A sweep's report as one self-contained HTML file: header, notes, interactive plots, boards, summary table.

Everything is inline, so the file can be mailed or opened offline and needs
no network: the CSS and script of `orchestrator/publish/static/`, plotly.js itself
(`plotly.offline.get_plotlyjs()`, about 4.8 MB), each figure's Plotly JSON
(`orchestrator.publish.interactive`), the boards as SVG (`orchestrator.boards.pictures`)
with a player for the shortest solution the sweep stored of each, and the
summary as a table that sorts by a click on a heading, filters by the words
typed, and shows its key columns unless asked for all. The dashboard
(`orchestrator.publish.dashboard`) builds its pages from the same parts.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Sequence
from importlib import resources
from numbers import Real
from typing import TYPE_CHECKING, Any

import pandas as pd

from orchestrator.reports.columns import column
from orchestrator.reports.tables import best_cells, row_text
from puzzles.errors import PuzzleError

if TYPE_CHECKING:
    from orchestrator.publish.interactive_paper import Chart
    from workers.store.rows import BoardSolution

STATIC = resources.files(__package__) / "static"  # package data
MAX_BOARDS = 48  # board pictures in one report; a note names how many more the sweep has


def html_report(title: str, summary: pd.DataFrame, charts: list[Chart], notes: list[str], *,
                header: Iterable[tuple[str, str]] = (), boards: Sequence[BoardSolution] = (), keys: dict[str, str] | None = None) -> str:
    """The report as a complete HTML document (a string) with plotly.js inlined: header, notes, plots, boards, table."""
    from plotly.offline import get_plotlyjs

    body = [f"<h1>{html.escape(title)}</h1>", header_list(header)]
    if notes:
        body.append('<ul class="notes">' + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
    if charts:
        body += ["<h2>Plots</h2>", plots_section(charts)]
    if boards:
        body += ["<h2>Boards</h2>", board_cards(boards)]
    body += ["<h2>Summary</h2>", summary_table(summary, keys)]
    return page(title, body, [inline_script(get_plotlyjs())])


def page(title: str, body: list[str], scripts: list[str], *, manual: bool = False) -> str:
    """An HTML document: slidelab's CSS and script in the head after `scripts` (script elements), then `body`."""
    own = (STATIC / "slidelab.js").read_text()
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">', f"<title>{html.escape(title)}</title>",
        f"<style>\n{(STATIC / 'slidelab.css').read_text()}</style>", *scripts, inline_script(own), "</head>",
        "<body data-manual>" if manual else "<body>", *body, "</body>", "</html>", "",
    ])


def inline_script(code: str) -> str:
    """A script element holding `code` (a `</script` inside it cannot end the element early)."""
    return "<script>" + code.replace("</script", "<\\/script") + "</script>"


def header_list(items: Iterable[tuple[str, str]]) -> str:
    """The sweep's header as a definition list (label, value); nothing for none."""
    rows = "".join(f"<dt>{html.escape(label)}</dt><dd>{html.escape(value)}</dd>" for label, value in items)
    return f'<dl class="header">{rows}</dl>' if rows else ""


def plots_section(charts: list[Chart]) -> str:
    """A div per figure and their Plotly JSON, which the page's script draws."""
    divs = "".join(f'<div class="plot" data-index="{i}" title="{html.escape(chart.title, quote=True)}"></div>'
                   for i, chart in enumerate(charts))
    figures = json.dumps([{"title": chart.title, "figure": chart.figure} for chart in charts], separators=(",", ":"))
    escaped = figures.replace("</", "<\\/")
    return f'<div class="plots">{divs}</div><script type="application/json" class="figures">{escaped}</script>'


def board_cards(boards: Sequence[BoardSolution]) -> str:
    """A card per board (its picture, optimum, and a player of its shortest stored solution), at most MAX_BOARDS."""
    cards = "".join(board_card(board) for board in boards[:MAX_BOARDS])
    more = len(boards) - MAX_BOARDS
    note = f'<p class="muted">and {more:,} more boards (orchestrate boards show BOARD --svg FILE)</p>' if more > 0 else ""
    return f'<div class="boards">{cards}</div>{note}'


def board_card(solved: BoardSolution) -> str:
    """A board's card: name, known optimum, SVG; with its solution's frames and controls when it has one."""
    from orchestrator.boards.pictures import board_svg, frames_json, solution_frames

    board = solved.board
    picture = board_svg(board.domain, board.canonical_text)
    optimum = "unknown" if board.known_optimum is None else f"{board.known_optimum} moves"
    meta = f"known optimum {optimum}"
    player, data = "", ""
    if solved.solution:
        try:
            frames = solution_frames(board.domain, board.canonical_text, solved.solution)
        except PuzzleError as err:
            meta += f"; its solution cannot be replayed: {err}"
        else:
            meta += f"; shortest solution here: {solved.moves} moves (job {solved.job_id})"
            moves = json.dumps(solved.solution.split())
            data = f' data-frames="{html.escape(frames_json(frames))}" data-moves="{html.escape(moves)}"'
            player = (f'<div class="player"><button class="first" title="start">|&#9664;</button><button class="back" '
                      f'title="previous move">&#9664;</button><button class="play" title="play">play</button><button '
                      f'class="next" title="next move">&#9654;</button><button class="last" title="end">&#9654;|</button>'
                      f'<input type="range" min="0" max="{len(frames) - 1}" value="0"><span class="caption"></span></div>')
    name = html.escape(board.name or board.id[:12])
    return (f'<div class="board-card" data-board="{name}"{data}><h3>{name}</h3><div class="meta">{html.escape(meta)}</div>'
            f"{picture.svg}{player}</div>")


def summary_table(summary: pd.DataFrame, keys: dict[str, str] | None = None) -> str:
    """The summary as a sortable, filterable table: headings and values as the terminal writes them
    (`orchestrator.reports.columns`: `moves median`; `85 µs`, `2 GiB`, `+12.5%`), missing ones "–", the best of
    each column among the rows compared in bold (`tables.best_cells`), key columns shown.

    `keys` are the key columns; the other numeric columns are shown by the
    "every column" box (all are shown when `keys` is None).
    """
    if summary.empty:
        return '<p class="empty">no jobs</p>'
    text_columns = [name for name in summary.columns if not _numeric(summary[name])]
    kinds = {name: "text" if name in text_columns else "" if keys is None or name in keys else "extra"
             for name in summary.columns}
    headings = [f'<th class="{kind}" title="{html.escape(name, quote=True)}">{html.escape(column(name).heading)}</th>'
                for name, kind in kinds.items()]
    (best, among), bodies = best_cells(summary), []
    for index, row in enumerate(summary.to_dict("records")):
        cells = []
        for name, value in row.items():
            shown = html.escape(row_text(row, name))
            shown = f"<strong>{shown}</strong>" if (index, name) in best else shown
            cells.append(f'<td class="{kinds[name]}"{_sort_key(value)}>{shown}</td>')
        bodies.append("<tr>" + "".join(cells) + "</tr>")
    tools = ('<div class="table-tools"><input type="search" placeholder="filter rows: words they hold">'
             '<label><input type="checkbox"> every column</label><span class="shown muted"></span></div>')
    table = (f'<table class="summary"><thead><tr>{"".join(headings)}</tr></thead>'
             f'<tbody>{"".join(bodies)}</tbody></table>')
    note = f'<p class="muted">bold: the best value of its column among {among}</p>' if best else ""
    return f'<div class="table-box">{tools}<div class="table-wrap">{table}</div>{note}</div>'


def _numeric(column: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column)


def _sort_key(value: Any) -> str:
    """A number's full value for sorting (the cell shows it rounded)."""
    if isinstance(value, Real) and not isinstance(value, bool) and not (isinstance(value, float) and math.isnan(value)):
        return f' data-sort="{float(value)!r}"'
    return ""
