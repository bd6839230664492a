"""A sweep's report as one self-contained HTML file: title, notes, summary table and plots.

Everything is inline: a little CSS, the table, and each figure as a PNG in a
`data:` URI, so the file can be mailed or opened offline and needs no network.
"""

from __future__ import annotations

import html
import math
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import pandas as pd

from orchestrator.plots import png_base64

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MISSING = "–"

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.3em; }
h2 { font-size: 1.15em; margin-top: 1.6em; }
ul.notes { color: #555; padding-left: 1.2em; }
.table-wrap { overflow-x: auto; }
table.summary { border-collapse: collapse; font-size: 0.85em; font-variant-numeric: tabular-nums; }
table.summary th, table.summary td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: right; white-space: nowrap; }
table.summary th { background: #f3f3f3; position: sticky; top: 0; }
table.summary tbody tr:nth-child(even) { background: #fafafa; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; margin-top: 0.3em; }
""".strip()


def html_report(title: str, summary: pd.DataFrame, figures: list[tuple[str, Figure]], notes: list[str]) -> str:
    """The report as a complete HTML document (a string): notes, plots (embedded as base64 PNGs), then the table."""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(title)}</title>",
        f"<style>\n{CSS}\n{_left_align(summary)}</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    if notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
    if figures:
        parts.append("<h2>Plots</h2>")
    for caption, figure in figures:
        text = html.escape(caption, quote=True)
        parts.append(f'<figure><img src="data:image/png;base64,{png_base64(figure)}" alt="{text}" title="{text}">'
                     f"<figcaption>{text}</figcaption></figure>")
    parts.append("<h2>Summary</h2>")
    parts.append(summary_table(summary))
    parts.extend(["</body>", "</html>", ""])
    return "\n".join(parts)


def summary_table(summary: pd.DataFrame) -> str:
    """The summary as an HTML table: numbers formatted for reading, missing values as "–"."""
    if summary.empty:
        return '<p class="empty">no jobs</p>'
    table = summary.map(format_cell).to_html(index=False, classes=["summary"], border=0, na_rep=MISSING, escape=True)
    return f'<div class="table-wrap">\n{table}\n</div>'


def format_cell(value: Any) -> str:
    """One table cell: integers and numbers from 1,000 up as "12,345", others to four significant digits, missing as "–"."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return f"{int(value):,}"
    if isinstance(value, Real):
        number = float(value)
        if math.isnan(number):
            return MISSING
        if math.isinf(number):
            return "∞" if number > 0 else "-∞"
        if number.is_integer() and abs(number) < 1e15:
            return f"{int(number):,}"
        if abs(number) >= 1e3:
            return f"{number:,.0f}"
        return f"{number:.4g}"
    return str(value)


def _left_align(summary: pd.DataFrame) -> str:
    """CSS aligning the leading text columns (the group columns) to the left."""
    leading = 0
    for column in summary.columns:
        if pd.api.types.is_numeric_dtype(summary[column]) and not pd.api.types.is_bool_dtype(summary[column]):
            break
        leading += 1
    if not leading:
        return ""
    return (f"table.summary td:nth-child(-n+{leading}), table.summary th:nth-child(-n+{leading}) "
            "{ text-align: left; }\n")
