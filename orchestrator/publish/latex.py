r"""Tables for a paper: a report's or a comparison's grid as a LaTeX booktabs tabular (`--format latex`).

Each value column names its unit in its heading (`time (ms)`, `solved (\%)`)
and holds plain numbers in it (`orchestrator.reports.columns`: the unit in
which the column's largest value is 1 or more), right-aligned; the best of
the rows compared is bold (`\textbf`), summary rows come after a rule, and
the table's notes are comments above it. Every text (board names,
parameters and sweep names come from users) is escaped, so the table
compiles whatever they hold: TeX's specials, and characters pdflatex cannot
print without packages of its own, written as `?`. The document needs
`\usepackage{booktabs}` (and `\usepackage[T1]{fontenc}` for accented letters).
"""

from collections.abc import Callable, Iterable
from typing import Any

from orchestrator.reports.columns import Scale, column, kind, value_text
from orchestrator.reports.tables import Cell, Grid, Heading

SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
    "|": r"\textbar{}", "-": "-{}", "`": r"\textasciigrave{}", "'": r"\textquotesingle{}", '"': r"\textquotedbl{}",
    "×": r"$\times$", "µ": r"\textmu{}", "±": r"$\pm$", "–": "--", "…": r"\ldots{}", "·": r"\textperiodcentered{}",
}
LATIN = range(0xA0, 0x180)  # Latin-1 and Latin Extended-A: what pdflatex's utf8 input prints with T1 fonts


def latex_table(grid: Grid, notes: Iterable[str] = ()) -> str:
    """The grid as a booktabs tabular, its `notes` as comments above it."""
    writers = [_writer(heading, grid) for heading in grid.headings]
    spec = "".join("l" if heading.group else "r" for heading in grid.headings)
    lines = [*(f"% {' '.join(note.split())}" for note in notes), rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
             _line(_heading_text(heading, grid) for heading in grid.headings), r"\midrule"]
    lines += [_line(write(cell) for write, cell in zip(writers, row)) for row in grid.rows]
    if grid.summaries:
        lines.append(r"\midrule")
        lines += [_line(write(cell) for write, cell in zip(writers, row)) for row in grid.summaries]
    return "\n".join([*lines, r"\bottomrule", r"\end{tabular}", ""])


def latex_escape(text: str) -> str:
    """`text` as LaTeX prints it literally: TeX's specials escaped, other characters pdflatex cannot print as `?`."""
    return "".join(SPECIALS.get(char) or (char if 32 <= ord(char) < 127 or ord(char) in LATIN else "?")
                   for char in text)


def _line(cells: Iterable[str]) -> str:
    return " & ".join(cells) + r" \\"


def _heading_text(heading: Heading, grid: Grid) -> str:
    """A heading with the unit of its column's numbers: `time (ms)`."""
    symbol = "" if heading.group else _scale(heading, grid).symbol
    return latex_escape(f"{heading.text} ({symbol})" if symbol else heading.text)


def _scale(heading: Heading, grid: Grid) -> Scale:
    """The unit of a column's numbers: the one its values' largest shows in (`orchestrator.reports.columns`)."""
    index = grid.headings.index(heading)
    values = [row[index].value for row in (*grid.rows, *grid.summaries) if _in_unit(row[index].column, heading)]
    return heading.column.scale(values)


def _in_unit(name: str, heading: Heading) -> bool:
    """True if the values of the column `name` are in the unit of the heading's column (not a ratio or a p-value)."""
    found = column(name) if name else None
    return found is not None and found.unit is heading.column.unit and found.base == heading.column.base


def _writer(heading: Heading, grid: Grid) -> Callable[[Cell], str]:
    """How the cells of a column are written: values in its unit as plain numbers, others (ratios, q) with theirs."""
    scale = None if heading.group else _scale(heading, grid)

    def number(name: str, value: Any) -> str:
        if scale is not None and _in_unit(name, heading):
            found = scale.number(value, signed=kind(name) == "Δ")
            return latex_escape(found if found is not None else value_text(name, value))
        return latex_escape(value_text(name, value))

    def write(cell: Cell) -> str:
        text = latex_escape(cell.text) if cell.text is not None else cell.written(number, dash="--", pm=r"$\pm$")
        return rf"\textbf{{{text}}}" if cell.best else text

    return write
