"""Every output writes every column through one registry (issue 46 §1-§4): its unit in each format, tables as papers
print them (the best of the rows compared marked, summary rows), LaTeX that compiles and reads back, Markdown that is
the terminal's table, and terminal tables 80 columns wide that never cut a number."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.publish import files
from orchestrator.publish.html_report import summary_table
from orchestrator.publish.latex import latex_escape, latex_table
from orchestrator.reports.columns import COLUMNS, UNITS, column, value_text
from orchestrator.reports.comparison import COMPARED
from orchestrator.reports.tables import MARKER, Grid, compare_grid, fitted, markdown_text, report_grid, terminal_table
from orchestrator.sweeps.grid import SweepGrid
from tests.browser import missing_program
from tests.orchestrator.test_report_common import FAILED, solved, stored

ROOT = Path(__file__).resolve().parents[2]
REQUIRE_LATEX = os.environ.get("SLIDELAB_REQUIRE_LATEX") == "1"  # set by .ci/run, which installs TeX Live
NASTY = r"R_1 & #2 50% $x^2$ {a}~\b"  # a board name with every TeX special
# four rows' values per unit: two algorithms on two boards
VALUES = {
    "count": [3, 1_081_234, 12, 0], "moves": [30.5, 1234.5, 36.25, 20.0], "time": [8.534e-05, 1.2, 75.0, 0.368],
    "bytes": [2048.0, 0.5, 300.0, 20.0], "share": [1.0, 0.5, 0.667, 0.0], "gap": [0.0, 9469.2, 0.125, 0.18],
    "ratio": [1.0, 0.368, 1.149, 2.5], "score": [3.456, 1.0, 0.25, 2.0], "text": ["-", "Rushhour6x6_3", "-", "a_b"],
}


def every_column() -> pd.DataFrame:
    """A summary with every column of the registry and three outcome counts: two algorithms on two boards."""
    frame = pd.DataFrame({"algorithm": ["astar", "astar", "beam", "beam"], "board": ["R6_1", NASTY, "R6_1", NASTY]})
    values = {name: VALUES[unit] for name, unit in UNITS.items()} | {"common": [1, 1, 2, 0], "units": [2, 2, 2, 2]}
    outcomes = {"n_solved": [1, 1, 2, 0], "n_failed": [0, 0, 1, 3], "n_unsolvable": [0, 1, 0, 0]}
    return frame.assign(**values, **outcomes)


def compared_frame() -> pd.DataFrame:
    """A comparison of sweeps A and B with every column `compare` makes, on two values of k."""
    frame = pd.DataFrame({"k": [1, 2], "common": [2, 1], "units": [2, 2], "jobs A": [4, 4], "jobs B": [4, 3]})
    by_unit = {"share": ([1.0, 0.5], [0.5, 0.5]), "moves": ([30.0, 24.0], [33.0, 24.0]),
               "count": ([300.0, 2_000_000.0], [150.0, 2_100_000.0]), "time": ([1.0, 0.0004], [0.5, 0.0005])}
    for metric in COMPARED:
        a, b = (np.array(values) for values in by_unit[column(metric).unit.name])
        frame = frame.assign(**{f"{metric} A": a, f"{metric} B": b, f"{metric} Δ B": b - a,
                                f"{metric} × B": b / a, f"{metric} p B": [0.01, 0.5], f"{metric} q B": [0.02, 0.5]})
    return frame


def time_metric() -> str:
    """The metric of time `compare` compares."""
    return next(metric for metric in COMPARED if column(metric).unit.name == "time")


def everything(frame: pd.DataFrame) -> list[str]:
    """Every column of a made-up summary but the groups, chosen with --columns."""
    return [name for name in frame.columns if name not in ("algorithm", "board")]


def shown(grid: Grid, width: int = 1000) -> str:
    console = Console(width=width, record=True)
    console.print(terminal_table(grid))
    return console.export_text()


def terminal_cells(grid: Grid) -> list[list[str]]:
    """The grid's cells as a terminal table writes them, the best marker taken off."""
    return [[cell.written(value_text) for cell in row] for row in (*grid.rows, *grid.summaries)]


def test_every_column_has_a_heading_that_says_of_what_a_unit_and_a_priority():
    assert set(UNITS.values()) == set(VALUES)
    for name, found in COLUMNS.items():
        assert found.heading and found.unit.name == UNITS[name] and 0 < found.priority <= 100
    assert COLUMNS["moves_median"].heading == "moves median" and COLUMNS["elapsed_p95"].heading == "time p95"
    assert column("n_failed").heading == "jobs failed" and column("moves_mean × B").heading == "moves × B"
    for lead in ("moves_common", "expanded_common", "generated_common", "elapsed_common", "peak_mem_common"):
        mean = lead.replace("_common", "_mean").replace("peak_mem_mean", "peak_mem_mib")
        assert COLUMNS[lead].unit == COLUMNS[mean].unit and COLUMNS[lead].base == COLUMNS[mean].base
    assert (UNITS["coverage"], UNITS["score_time"], UNITS["left_out"]) == ("count", "score", "text")


def test_a_ratio_is_written_as_a_ratio_never_as_a_time():
    assert value_text("elapsed_ratio", 0.368) == "0.37×"  # a ratio, not 368 ms
    assert value_text("elapsed_mean", 0.368) == "368 ms" and value_text("elapsed_mean × B", 0.368) == "0.37×"
    summary = pd.DataFrame({"algorithm": ["astar", "beam"], "elapsed_mean": [1.0, 0.368], "elapsed_ratio": [1.0, 0.368]})
    text = shown(report_grid(summary, ["algorithm"]))
    assert re.search(r"astar +1\.00 s +1\.00×", text) and re.search(r"beam +•368 ms +•0\.37×", text)


def test_the_cli_writes_time_ratios_as_ratios(tmp_path, boards_dir):
    url = f"sqlite:///{tmp_path / 'ratio.db'}"
    stored(url, "mixed", boards_dir, SweepGrid(["bfs", "beam"], {"k": [1]}),
           lambda board, params, seed: solved(30, elapsed=0.368 if params.get("k") else 1.0))
    result = CliRunner().invoke(app, ["report", "mixed", "--by", "algo", "--baseline", "bfs", "--db", url])
    assert result.exit_code == 0, result.output
    beam = next(line for line in result.stdout.splitlines() if line.strip().startswith("beam"))
    assert beam.split()[-1].lstrip(MARKER) == "0.37×" and "368 ms" in beam  # the ratio last, the time itself in its column


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex", "html", "csv", "json"])
def test_every_column_of_the_registry_in_every_format(fmt, tmp_path):
    summary = every_column()
    grid = report_grid(summary, ["algorithm", "board"], columns=everything(summary))
    cells = terminal_cells(grid)
    if fmt == "table":
        text = shown(grid)
        for row in cells:
            assert all(cell in text for cell in row), row
    elif fmt == "markdown":
        lines = markdown_text(grid).splitlines()
        assert lines[0] == "| " + " | ".join(heading.text for heading in grid.headings) + " |"
        assert [[cell.strip("*").replace("\\|", "|") for cell in line[2:-2].split(" | ")] for line in lines[2:]] == cells
    elif fmt == "latex":
        text = latex_table(grid)
        assert all(latex_escape(heading.text) in text for heading in grid.headings)
        assert "time (s)" in text and "peak memory (GiB)" in text and r"solved (\%)" in text and "_" not in text.replace(r"\_", "")
    elif fmt == "html":
        page = summary_table(summary)
        for name in everything(summary):
            assert f'title="{name}">{column(name).heading}<' in page
        for row in summary.to_dict("records"):
            assert all(value_text(name, row[name]) in page for name in ("elapsed_mean", "peak_mem_mib", "gap_mean"))
    else:
        files.write(summary, fmt, tmp_path / f"summary.{fmt}")
        back = files.read(tmp_path / f"summary.{fmt}", fmt)
        assert list(back.columns) == list(summary.columns)  # names kept; raw values in base units
        assert back["elapsed_mean"].tolist() == pytest.approx(VALUES["time"]) and back["solved_share"].tolist() == VALUES["share"]


def test_each_unit_is_written_as_the_docs_say():
    row = every_column().iloc[0].to_dict() | {"peak_mem_mib": 2048.0, "elapsed_p95": 75.0, "gap_mean": 9469.2}
    written = {name: value_text(name, row[name]) for name in ("jobs", "moves_mean", "elapsed_mean", "elapsed_p95",
                                                              "peak_mem_mib", "solved_share", "gap_mean", "moves_ratio",
                                                              "score_time", "left_out")}
    assert written == {"jobs": "3", "moves_mean": "30.5", "elapsed_mean": "85.3 µs", "elapsed_p95": "1 min 15 s",
                       "peak_mem_mib": "2 GiB", "solved_share": "100%", "gap_mean": "+946,920%", "moves_ratio": "1.00×",
                       "score_time": "3.46", "left_out": "-"}


def test_the_docs_list_every_column_with_its_unit():
    docs = (ROOT / "docs" / "reports.md").read_text()
    listed = dict(re.findall(r"^\| `([a-z0-9_ ]+)` \| [^|]+ \| ([a-z]+) \|", docs, re.MULTILINE))
    assert listed == {name: unit for name, unit in UNITS.items()}


def test_markdown_is_the_table_the_terminal_shows():
    summary = every_column()
    grid = report_grid(summary, ["algorithm", "board"])
    lines = markdown_text(grid).splitlines()
    headings = [heading.text for heading in grid.headings]
    assert lines[0] == "| " + " | ".join(headings) + " |"
    assert len(headings) < len(everything(summary)) and "moves median" not in headings  # the key columns, not all
    terminal = shown(grid)
    assert all(heading in terminal for heading in headings)
    bold = [cell for line in lines[2:] for cell in line[2:-2].split(" | ") if cell.startswith("**")]
    assert bold and all(MARKER + cell.strip("*") in terminal for cell in bold)  # the best: bold here, marked there


def test_the_best_of_each_column_is_marked_among_the_rows_compared_with_a_note():
    summary = every_column()
    grid = report_grid(summary, ["algorithm", "board"], columns=["solved_share", "elapsed_mean", "moves_ratio", "jobs"])
    marks = [[cell.best for cell in row[2:]] for row in grid.rows]
    # per board: solved higher is better (astar 100% vs beam 67% on R6_1), time lower, ratio lower, jobs neither
    assert marks == [[True, True, True, False], [True, False, True, False], [False, False, False, False],
                     [False, True, False, False]]
    assert "•: the best value of its column among the rows of the same board" in grid.notes(MARKER)
    across = report_grid(summary.drop(columns="board").iloc[:2], ["algorithm"], columns=["elapsed_mean"])
    assert [row[1].best for row in across.rows] == [True, False] and "among all rows" in across.notes("bold")[0]
    assert "<strong>85.3 µs</strong>" in summary_table(summary)


def test_summary_rows_sum_coverage_and_take_the_geometric_mean_of_ratios():
    summary = every_column()
    grid = report_grid(summary, ["algorithm", "board"], columns=["coverage", "score_time", "elapsed_ratio", "jobs"])
    texts = [[cell.written(value_text) for cell in row] for row in grid.summaries]
    assert texts[0][:2] == ["astar", "sum, geo. mean (2)"] and texts[1][0] == "beam"
    assert texts[0][2:] == ["1,081,237", "4.46", f"{np.sqrt(0.368):.2f}×", ""]
    assert texts[1][2:] == ["12", "2.25", f"{np.sqrt(1.149 * 2.5):.2f}×", ""]
    assert grid.notes(MARKER)[-1] == ("last rows: per algorithm, over its rows (one per board): the sum of coverage and "
                                      "score time; the geometric mean of time ×base")
    assert report_grid(summary.drop(columns="board"), ["algorithm"]).summaries == []  # rows already over the boards


def test_a_comparison_marks_the_best_sweep_of_each_row_and_sums_up_the_ratios():
    grid = compare_grid(compared_frame(), ["k"], ["A", "B"], wide=True)
    time = [heading.column.name for heading in grid.headings].index(time_metric())
    texts = terminal_cells(grid)
    assert texts[0][:4] == ["1", "2 of 2", "A", "4"] and texts[2][:4] == ["2", "1 of 2", "A", "4"]
    assert texts[3][time] == "500 µs (+100 µs, 1.25×, q 0.500)" and grid.rows[2][time].best  # A's 400 µs
    assert texts[1][time] == "500 ms (-500 ms, 0.50×, q 0.020 *)" and grid.rows[1][time].best
    assert texts[-1][:3] == ["geo. mean (2)", "", "B"] and texts[-1][time] == f"{np.sqrt(0.5 * 1.25):.2f}×"
    assert grid.notes(MARKER)[0] == "•: the best value of its column among the sweeps of a row"
    assert markdown_text(grid).count("\n") == 2 + 4 + 1
    assert "<strong>400 µs</strong>" in summary_table(compared_frame())


def latex() -> tuple[str, str]:
    """pdflatex and pdftotext; skips without them (fails in CI: SLIDELAB_REQUIRE_LATEX=1)."""
    found = shutil.which("pdflatex"), shutil.which("pdftotext")
    if None in found:
        missing_program("no pdflatex or pdftotext on PATH (.ci/run installs texlive-latex-base, -recommended, "
                        "poppler-utils)", REQUIRE_LATEX)
    return found


def test_a_latex_table_compiles_and_its_numbers_read_back_from_the_pdf(tmp_path):
    pdflatex, pdftotext = latex()
    summary = pd.DataFrame({"algorithm": ["astar", "beam", "bfs"], "board": [NASTY, NASTY, "Rushhour6x6_1"],
                            "jobs": [3, 3, 3], "solved_share": [1.0, 0.5, 1.0], "expanded_mean": [1_081_234.0, 2_345.0, 9.0],
                            "elapsed_mean": [0.368, 1.0, 1.149], "peak_mem_mib": [300.0, 20.0, 1.5],
                            "elapsed_ratio": [1.0, 2.5, 0.4]})
    report = latex_table(report_grid(summary, ["algorithm", "board"], columns=list(summary.columns[2:])), ["50% _note_"])
    comparison = latex_table(compare_grid(compared_frame(), ["k"], ["A", "B"]))
    (tmp_path / "report.tex").write_text(report)
    (tmp_path / "compare.tex").write_text(comparison)
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{booktabs}"
                                        "\\usepackage[landscape,margin=1cm]{geometry}\n"
                                        "\\begin{document}\n\\input{report}\n\n\\input{compare}\n\\end{document}\n")
    run = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    text = subprocess.run([pdftotext, "-layout", "paper.pdf", "-"], cwd=tmp_path, capture_output=True, text=True).stdout
    lines = [" ".join(line.split()) for line in text.splitlines() if line.strip()]
    assert "algorithm board jobs solved (%) expanded time (s) peak memory (MiB) time ×base" in lines
    assert f"astar {NASTY} 3 100 1,081,234 0.368 300 1.00" in lines  # bold is still the number
    assert f"beam {NASTY} 3 50 2,345 1.00 20.0 2.50" in lines  # each to three significant digits in the heading's unit
    assert "bfs Rushhour6x6_1 3 100 9 1.15 1.50 0.40" in lines
    assert any(line.startswith("k compared sweep jobs solved (%)") and "(s)" in line for line in lines)
    assert any(line.startswith("B 4 50 (-50, q 0.020 *)") and "0.500 (0.50×, q 0.020 *)" in line for line in lines)
    assert any(line.startswith("geo. mean (2) B") and line.endswith("0.79×") for line in lines)


def test_latex_escapes_every_special_and_what_pdflatex_cannot_print():
    assert latex_escape(NASTY) == (r"R\_1 \& \#2 50\% \$x\textasciicircum{}2\$ \{a\}\textasciitilde{}"
                                   r"\textbackslash{}b")
    assert latex_escape("k=-1 -- ×1.2 µs é 漢\x1b") == r"k=-{}1 -{}-{} $\times$1.2 \textmu{}s é ??"


def test_the_cli_writes_latex_and_markdown_for_report_and_compare(tmp_path, boards_dir):
    url = f"sqlite:///{tmp_path / 'latex.db'}"
    grid = SweepGrid(["beam"], {"k": [1, 2]})
    stored(url, "first", boards_dir, grid, lambda board, params, seed: solved(30))
    stored(url, "second", boards_dir, grid, lambda board, params, seed: solved(33) if params["k"] == 2 else FAILED)
    run = CliRunner().invoke
    report = run(app, ["report", "first", "--format", "latex", "--db", url])
    assert report.exit_code == 0, report.output
    assert report.stdout.splitlines()[-1] == r"\end{tabular}" and r"\toprule" in report.stdout and "% time:" in report.stdout
    compared = run(app, ["compare", "first", "second", "--format", "latex", "--out", tmp_path / "c.tex", "--db", url])
    assert compared.exit_code == 0 and r"\bottomrule" in (tmp_path / "c.tex").read_text()
    markdown = run(app, ["compare", "first", "second", "--format", "markdown", "--db", url]).stdout.splitlines()
    table = run(app, ["compare", "first", "second", "--db", url]).stdout
    assert markdown[0].startswith("| k | compared | sweep | jobs | solved |") and len(markdown) == 2 + 4 + 1
    assert all(cell.strip("*") in table for line in markdown[2:] for cell in line[2:-2].split(" | "))


def test_the_cli_at_80_columns_leaves_columns_out_and_names_them(tmp_path, boards_dir):
    url = f"sqlite:///{tmp_path / 'narrow.db'}"
    stored(url, "wide", boards_dir, SweepGrid(["bfs", "beam"], {"k": [1, 2]}),
           lambda board, params, seed: solved(1_081 + (params.get("k") or 0), elapsed=123.4))
    result = CliRunner().invoke(app, ["report", "wide", "--db", url],
                                env={"COLUMNS": "80", "TTY_COMPATIBLE": "1"})
    assert result.exit_code == 0, result.output
    table = re.sub("\x1b\\[[0-9;]*m", "", result.stdout).splitlines()  # its terminal's bold headings
    assert max(map(len, table)) <= 80 and "…" not in result.stdout and "1,081" in result.stdout  # not cut to 1,081…
    left_out = re.search(r"not shown at 80 columns: (.*) \(--columns chooses; a wider terminal", result.stderr)
    header = " ".join(table[:4])
    assert left_out and all(name not in header for name in left_out[1].split(", "))
    assert "solved" in header and "moves" in header  # the columns of highest priority stay


@given(st.lists(st.tuples(st.floats(0, 1e12), st.floats(0, 1e5), st.floats(0, 1e7), st.floats(0, 1)), min_size=1,
                max_size=4))
def test_at_80_columns_no_number_is_ever_cut(values):
    summary = pd.DataFrame({
        "algorithm": [f"beam{index}" for index in range(len(values))], "params": ['{"k":1000}'] * len(values),
        "board": ["Rushhour9x9_12"] * len(values), "jobs": [1_000_000] * len(values),
        **{name: [row[i] for row in values] for i, name in enumerate(("expanded_mean", "elapsed_mean", "moves_mean",
                                                                       "solved_share"))},
        "moves_ci_low": [row[2] / 2 for row in values], "moves_ci_high": [row[2] * 2 for row in values],
        "gap_mean": [row[3] * 1e4 for row in values], "peak_mem_mib": [row[0] / 1e6 for row in values],
        "elapsed_p95": [row[1] * 2 for row in values], "elapsed_ratio": [row[3] + 1e-3 for row in values],
    })
    grid = fitted(report_grid(summary, ["algorithm", "params", "board"], wide=True), 80)
    text = shown(grid, 80)
    assert max(map(len, text.splitlines())) <= 80 and "…" not in text
    lines = text.splitlines()
    for row in terminal_cells(grid):
        assert any(all(cell in line for cell in row[:3]) for line in lines)
        assert all(cell in text for cell in row)  # every number whole, on one line
