"""The figures of search papers (issue 46 §2): scatter plots unit by unit, coverage curves, Lab's scores, the files in
every format, and the HTML of `report` and `compare` drawn in headless Chromium."""

import json
import math
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import numpy as np
import pandas as pd
import pytest

from orchestrator.publish import interactive
from orchestrator.reports import figures, paper_plots
from orchestrator.reports.figures import EXPANSION_BOUNDS, TIME_BOUNDS, coverage_curves, log_score, scatter_points, scores
from orchestrator.reports.rows import with_parameter_columns
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.sources import load_boards
from puzzles.errors import PuzzleError
from tests.browser import browser_page, plotted
from tests.orchestrator.clirun import ok, orchestrate
from tests.orchestrator.handmade import NAME, SOLUTIONS, beam_sweep, result_for
from tests.orchestrator.test_html_report import figures_of
from tests.orchestrator.test_report_formats import latex
from tests.stored import store_sweep
from workers.store import connect
from workers.store.jobs import claim, record
from workers.store.migrate import upgrade


def job(board: str, algorithm: str, outcome: str | None, expanded: float = np.nan, elapsed: float = np.nan, *,
        seed: int | None = None, k: int | None = None, domain: str = "rushhour", size: int = 6) -> dict:
    """A row as `rows.load_rows` makes it, with what the figures read."""
    params = {"k": k} if k is not None else {}
    return {"board": board, "board_size": size, "domain": domain, "algorithm": algorithm, "params": json.dumps(params),
            "k": k, "seed": seed, "repeat": 0, "state": "done" if outcome else "pending", "outcome": outcome,
            "moves": 10.0 if outcome == "solved" else np.nan, "expanded": expanded, "elapsed_s": elapsed}


def frame(jobs: list[dict]) -> pd.DataFrame:
    return with_parameter_columns(pd.DataFrame(jobs), ["k"])


def two_configurations() -> pd.DataFrame:
    """astar and beam on five boards and an 8-puzzle: beam fails on one, hits a limit on another; a board only astar
    ran, one proved unsolvable, one job not done yet."""
    return frame([
        job("Rushhour6x6_1", "astar", "solved", 1000, 0.5), job("Rushhour6x6_1", "beam", "solved", 100, 0.05),
        job("Rushhour6x6_2", "astar", "solved", 10_000, 2.0), job("Rushhour6x6_2", "beam", "failed", 50, 0.01),
        job("Rushhour6x6_3", "astar", "failed", 7, 0.01), job("Rushhour6x6_3", "beam", "limit", 2e7, 60.0),
        job("Rushhour9x9_4", "astar", "solved", 300, 0.1, size=9),
        job("Rushhour9x9_5", "astar", "unsolvable", 40, 0.2, size=9), job("Rushhour9x9_5", "beam", "failed", 4, 0.1, size=9),
        job("Rushhour9x9_6", "astar", None, size=9), job("Rushhour9x9_6", "beam", None, size=9),
        job("412763580", "astar", "solved", 0, 0.0001, domain="npuzzle", size=3),
        job("412763580", "beam", "solved", 20, 0.0002, domain="npuzzle", size=3),
    ])


def test_a_point_per_board_both_ran_failures_on_the_border_and_the_rest_named():
    rows = two_configurations()
    found = scatter_points(rows, rows["algorithm"], "astar", "beam", "expanded")
    points = found.points.set_index("unit")

    # Rushhour9x9_5 is proved unsolvable (no unit), Rushhour9x9_6 not done: neither is a point nor left out
    assert list(points.index) == ["412763580", "Rushhour6x6_1", "Rushhour6x6_2", "Rushhour6x6_3"]
    assert found.only == {"astar": ["Rushhour9x9_4"], "beam": []}
    assert found.left_out() == "1 board only in astar: Rushhour9x9_4"
    assert points.loc["Rushhour6x6_1", ["x", "y"]].tolist() == [1000, 100]
    assert points.loc["Rushhour6x6_2", ["x_solved", "y_solved"]].tolist() == [True, False]
    assert math.isnan(points.loc["Rushhour6x6_2", "y"]) and math.isnan(points.loc["Rushhour6x6_3", "y"])  # no value
    # the largest value is 10,000: unsolved runs go on the border at 100,000; the 0 expansions a decade below 10 (Lab)
    assert (found.floor, found.border) == (1.0, 100_000.0)
    assert found.placed("x").tolist() == [1.0, 1000, 10_000, 100_000]
    assert found.placed("y").tolist() == [20, 100, 100_000, 100_000]
    assert dict(zip(points.index, points["category"])) == {
        "412763580": "N-puzzle width 3", "Rushhour6x6_1": "Rush Hour 6x6", "Rushhour6x6_2": "Rush Hour 6x6",
        "Rushhour6x6_3": "Rush Hour 6x6"}
    assert figures.styles(found.points) == {"N-puzzle width 3": (0, 0), "Rush Hour 6x6": (1, 1)}


def test_a_deterministic_run_stands_for_every_seed_and_repeats_count_as_their_median():
    rows = frame([
        job("B1", "astar", "solved", 500),
        *(job("B1", "beam", "solved", 100 * seed, seed=seed) for seed in (1, 2, 3)),
        job("B2", "astar", "solved", 800), job("B2", "astar", "solved", 1200),  # two repeats: 1,000
        job("B2", "beam", "solved", 5, seed=1), job("B2", "beam", "failed", 5, seed=2), job("B2", "beam", "solved", 7, seed=3),
    ])
    found = scatter_points(rows, rows["algorithm"], "astar", "beam", "expanded").points.set_index("unit")

    assert list(found.index) == [f"B{b} seed {s}" for b in (1, 2) for s in (1, 2, 3)]
    assert found["x"].tolist() == [500, 500, 500, 1000, 1000, 1000]
    assert found["y"].tolist()[:3] == [100, 200, 300] and found["y_solved"].tolist()[3:] == [True, False, True]

    derived = rows.assign(seed=rows["seed"].where(rows["algorithm"] == "astar", rows["seed"] + 10 * rows.index))
    other = derived.assign(algorithm=derived["algorithm"].replace("astar", "idastar"),
                           seed=derived["seed"].where(derived["algorithm"] == "astar", derived["seed"] + 1))
    both = pd.concat([derived[derived["algorithm"] == "beam"], other[other["algorithm"] == "beam"].assign(algorithm="beam2")])
    paired = scatter_points(both, both["algorithm"], "beam", "beam2", "expanded").points.set_index("unit")
    # seeds drawn per job pair nothing: the unit is the board, each side's runs its median (B2: 5, unsolved, 7 -> 7)
    assert paired.index.tolist() == ["B1", "B2"] and paired["x"].tolist() == [200, 7]


def test_a_configuration_not_in_the_rows_is_named():
    rows = two_configurations()
    with pytest.raises(PuzzleError, match="no configuration 'bfs' in these rows .choose from astar, beam."):
        scatter_points(rows, rows["algorithm"], "astar", "bfs", "expanded")


def test_coverage_counts_the_boards_solved_within_each_value_over_those_every_configuration_ran():
    rows = two_configurations()
    found = coverage_curves(rows, rows["algorithm"], "elapsed_s")

    assert found.units == 4 and found.noun == "boards"  # Rushhour9x9_4: only astar ran it
    assert found.curves["astar"].tolist() == [0.0001, 0.5, 2.0]
    assert found.curves["beam"].tolist() == [0.0002, 0.05]
    assert found.left_out() == "1 board not run by beam: Rushhour9x9_4"
    assert (found.floor, found.border) == (0.0001, 10.0)


def test_the_log_score_at_its_bounds_and_between():
    assert log_score([10, 100, 10_000, 1_000_000, 5e7, np.nan], EXPANSION_BOUNDS).tolist() == [1, 1, 0.5, 0, 0, 0]
    assert log_score([0.001, 1.0, math.sqrt(1800), 1800, np.nan], TIME_BOUNDS) == pytest.approx([1, 1, 0.5, 0, 0])
    assert EXPANSION_BOUNDS == (100, 1_000_000) and TIME_BOUNDS == (1, 1800)


def test_scores_sum_coverage_and_the_log_scores_per_group():
    rows = two_configurations()
    found = scores(rows, ["algo"]).set_index("algorithm")

    assert list(found.columns) == ["coverage", "coverage_units", "score_expanded", "score_time"]
    assert found.loc["astar", ["coverage", "coverage_units"]].tolist() == [4, 5]
    assert found.loc["beam", ["coverage", "coverage_units"]].tolist() == [2, 4]
    # astar: 1,000 expansions 0.75, 10,000 0.5, 300 1 - log(3)/log(10^4), 0 -> 1; a failure 0
    assert found.loc["astar", "score_expanded"] == pytest.approx(0.75 + 0.5 + 1 - math.log(3) / math.log(1e4) + 1)
    assert found.loc["astar", "score_time"] == pytest.approx(1 + (1 - math.log(2) / math.log(1800)) + 1 + 1)
    assert found.loc["beam", "score_expanded"] == pytest.approx(1 + 1)
    per_board = scores(rows, ["algorithm", "board"])
    assert len(per_board) == 13 and per_board["coverage"].sum() == 6  # a group with no done job has 0s
    assert scores(rows.iloc[0:0], ["algorithm"]).empty


def test_a_group_spanning_parameters_scores_each_ones_runs_as_units_of_their_own():
    rows = frame([job("B1", "beam", "solved", 100, 1.0, k=k) for k in (1, 2)] + [job("B1", "beam", "failed", 1, 1.0, k=3)])
    found = scores(rows, ["algorithm"])
    assert found[["coverage", "coverage_units"]].values.tolist() == [[2, 3]]


def test_sides_name_the_reference_first_and_compare_pairs_on_the_columns_lined_up():
    rows = frame([job("B1", "beam", "solved", 10, k=k) for k in (10, 2)] + [job("B1", "astar", "solved", 5)])
    assert figures.sides(rows).names == ["astar", "beam k=2", "beam k=10"]
    assert figures.sides(rows, baseline="beam").pairs() == [("beam k=2", "astar"), ("beam k=2", "beam k=10")]
    many = frame([job("B1", "beam", "solved", 10, k=k) for k in range(1, 10)])
    assert figures.sides(many).pairs() == [] and figures.sides(many).curves()

    joined = figures.joined_rows({"b4": rows, "b3": rows[rows["algorithm"] == "beam"]}, ["k", "board"])
    found = figures.sides(joined)
    assert (found.names, found.pair) == (["b4", "b3"], ["k"])
    scatter = scatter_points(joined, found.config, "b4", "b3", "expanded", found.pair)
    assert scatter.points["unit"].tolist() == ["B1 k=2", "B1 k=10"] and scatter.left_out() == "1 run only in b4: B1"
    assert [chart.title for chart in interactive.charts(joined)] == [
        "states expanded: b4 vs b3", "time: b4 vs b3", "coverage by states expanded", "coverage by time"]


# Files -------------------------------------------------------------------------------------------------


def written(tmp_path, fmt: str, **options) -> dict[str, bytes]:
    paths = paper_plots.write_plots(two_configurations(), tmp_path / fmt, "two", fmt=fmt, **options)
    return {path.name: path.read_bytes() for path in paths}


def test_the_scatter_and_coverage_plots_are_written_after_the_others(tmp_path):
    names = list(written(tmp_path, "png"))
    assert names[-4:] == ["two-states-expanded-astar-vs-beam.png", "two-time-astar-vs-beam.png",
                          "two-coverage-by-states-expanded.png", "two-coverage-by-time.png"]


def test_a_pdf_embeds_its_fonts(tmp_path):
    files = written(tmp_path, "pdf")
    for name, data in files.items():
        assert data.startswith(b"%PDF-") and b"/FontFile2" in data, name  # TrueType font programs, not references
        assert b"CreationDate" not in data and b"Matplotlib" not in data
    if shutil.which("pdffonts") is None:
        return
    listed = subprocess.run(["pdffonts", str(tmp_path / "pdf" / "two-coverage-by-time.pdf")], capture_output=True,
                            text=True, check=True).stdout.splitlines()[2:]
    assert listed and all(line.split()[-5] == "yes" for line in listed)  # the column `emb`


def test_an_svg_parses_and_draws_its_text_as_outlines(tmp_path):
    for name, data in written(tmp_path, "svg").items():
        root = ElementTree.fromstring(data)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", name
        assert not root.findall(".//{http://www.w3.org/2000/svg}text")  # glyphs as paths: no font needed to show it


def test_a_pgf_picture_for_latex_compiles_in_a_paper(tmp_path):
    pdflatex, pdftotext = latex()
    files = written(tmp_path, "pgf", width="two")
    for name, data in files.items():
        assert b"\\begin{pgfpicture}" in data and b"\\end{pgfpicture}" in data, name
    scatter = next(tmp_path.rglob("*.pgf"))
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\\usepackage{pgf}\n\\begin{document}\n"
                                        f"\\input{{{scatter.relative_to(tmp_path)}}}\n\\end{{document}}\n")
    run = subprocess.run([pdflatex, "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    text = subprocess.run([pdftotext, "paper.pdf", "-"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "unsolved" in text or "solved" in text  # the plot's own words, set by LaTeX


def test_pgf_without_latex_and_an_unknown_format_or_width_say_so(tmp_path, monkeypatch):
    with pytest.raises(PuzzleError, match="--plot-format: 'jpg' is not one of png, pdf, svg, pgf"):
        written(tmp_path, "jpg")
    with pytest.raises(PuzzleError, match="--plot-width: 'three' is not one of one, two"):
        written(tmp_path, "png", width="three")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(PuzzleError, match="--plot-format pgf needs LaTeX"):
        written(tmp_path, "pgf")


def test_the_width_is_one_column_or_two(tmp_path):
    from matplotlib.image import imread

    pixels = {}
    for width in ("one", "two"):
        written(tmp_path / width, "png", width=width)
        pixels[width] = imread(tmp_path / width / "png" / "two-coverage-by-time.png").shape[1]
    assert 0.85 < pixels["one"] / (3.5 * paper_plots.PAPER_DPI) <= 1 and 0.9 < pixels["two"] / (7 * paper_plots.PAPER_DPI) <= 1


# The command line and the HTML -------------------------------------------------------------------------------


@pytest.fixture
def two_sweeps(tmp_path, boards_dir) -> str:
    """`beam-k` (astar, beam k = 1..4 twice, on two boards) and `beam-one`, the same on the first board."""
    url = f"sqlite:///{tmp_path / 'figures.db'}"
    upgrade(url)
    beam_sweep(url, boards_dir)
    db = connect(url)
    board = load_boards([str(boards_dir / f"{next(iter(SOLUTIONS))}.csv")])
    _, _, ids = store_sweep(db, "beam-one", board, SweepGrid(["astar", "beam"], {"k": [1, 2, 3, 4], "heuristic": ["blockers-lb"]},
                                                             seeds=[1, 2]))
    record(db, [(found.job_id, result_for(found, boards_dir)) for found in claim(db, ids, "hand@test", 60)])
    return url


def test_report_and_compare_write_their_plots_in_the_format_asked_for(two_sweeps, tmp_path):
    report = ok(orchestrate("report", NAME, "--db", two_sweeps, "--baseline", "astar", "--plot-format", "pdf",
                            "--out", tmp_path / "r" / "x.csv", "--format", "csv"))
    compare = ok(orchestrate("compare", NAME, "beam-one", "--db", two_sweeps, "--by", "k", "--plot", "--plot-width", "two",
                             "--out", tmp_path / "c" / "x.csv", "--format", "csv"))

    made = sorted(path.name for path in (tmp_path / "r").glob("*.pdf"))
    assert "beam-k-states-expanded-astar-vs-beam-k-4.pdf" in made and "beam-k-coverage-by-time.pdf" in made
    assert len([name for name in made if "-astar-vs-beam-" in name]) == 8  # A* against each of four beam widths, two metrics
    assert report.stderr.count("wrote ") == len(made)
    compared = sorted(path.name for path in (tmp_path / "c").glob("*.png"))
    assert compared == ["beam-k-vs-beam-one-coverage-by-states-expanded.png", "beam-k-vs-beam-one-coverage-by-time.png",
                        "beam-k-vs-beam-one-states-expanded-beam-k-vs-beam-one.png",
                        "beam-k-vs-beam-one-time-beam-k-vs-beam-one.png"]
    assert "wrote " in compare.stderr


def test_a_bad_plot_format_is_a_usage_error(two_sweeps):
    result = orchestrate("report", NAME, "--db", two_sweeps, "--plot-format", "gif")
    assert result.exit_code != 0 and "--plot-format: 'gif' is not one of png, pdf, svg, pgf" in result.stderr
    assert "Traceback" not in result.output


def test_chromium_draws_the_scatter_and_coverage_plots_of_a_comparison_and_its_menu(two_sweeps, tmp_path):
    out = tmp_path / "compare.html"
    ok(orchestrate("compare", NAME, "beam-one", "--db", two_sweeps, "--by", "k", "--format", "html", "--out", out))
    charts = {figure["title"]: figure["figure"] for figure in figures_of(out.read_text())}
    scatter = charts["states expanded: beam-k vs beam-one"]
    # beam is deterministic: its jobs have no seed, a board's two runs count as their median
    assert "left out, 5 runs only in beam-k: Rushhour6x6_2, Rushhour6x6_2 k=1," in scatter["layout"]["title"]["text"]
    report = tmp_path / "report.html"
    ok(orchestrate("report", NAME, "--db", two_sweeps, "--format", "html", "--out", report))

    with browser_page() as (page, errors):
        page.goto(out.resolve().as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg")
        drawn = plotted(page)
        page.goto(report.resolve().as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg")
        menu = page.locator('.plot[title="states expanded: astar vs each other configuration"]')
        before = _shown(menu)
        menu.locator(".updatemenu-header-group").click()
        menu.locator(".updatemenu-dropdown-button").nth(3).click()
        after = _shown(menu)
        reported = plotted(page)

    assert errors == []
    assert [figure["title"].split("<br>")[0] for figure in drawn] == list(charts)
    for figure in [*drawn, *reported]:
        assert figure["traces"] > 0 and figure["points"] > 0 and figure["drawn"] > 0, figure
    assert before == {"title": "states expanded: astar vs beam k=1", "points": 2}
    assert after == {"title": "states expanded: astar vs beam k=4", "points": 2}


def _shown(plot) -> dict:
    """The scatter plot's title and how many of its points are drawn."""
    return plot.evaluate("""element => ({title: element.layout.title.text.split('<br>')[0],
        points: element.data.filter(t => t.visible === true && t.mode === 'markers')
                            .reduce((sum, t) => sum + t.x.length, 0)})""")
