"""The self-contained interactive HTML report (`orchestrator.publish.html_report`), checked as text and in headless Chromium."""

import json
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from orchestrator.publish import interactive
from orchestrator.publish.html_report import html_report, summary_table
from orchestrator.text import cell
from tests.browser import browser_page, plotted
from tests.orchestrator.clirun import ok, orchestrate
from tests.orchestrator.handmade import NAME, SOLUTIONS, VEHICLES, beam_sweep
from tests.orchestrator.test_plots import beam_rows
from workers.store.migrate import upgrade


@pytest.fixture
def report_file(tmp_path, boards_dir):
    """`orchestrate report beam-k --format html` of the hand-made sweep (three jobs left unfinished)."""
    url = f"sqlite:///{tmp_path / 'report.db'}"
    upgrade(url)
    beam_sweep(url, boards_dir, leave=3)
    out = tmp_path / "beam-k.html"
    ok(orchestrate("report", NAME, "--db", url, "--format", "html", "--out", out))
    return out


def figures_of(text: str) -> list[dict]:
    found = re.search(r'<script type="application/json" class="figures">(.*?)</script>', text, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_cells_are_formatted_for_reading():
    assert [cell(v) for v in (np.nan, None, 3, 1234567, 12.0, 28.5, 0.0123449, 123456.7, True)] == [
        "–", "–", "3", "1,234,567", "12", "28.5", "0.01234", "123,457", "yes"]


def test_the_report_is_one_file_with_plotly_inlined_and_nothing_fetched(report_file):
    text = report_file.read_text()

    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    assert "<h1>slidelab report: beam-k</h1>" in text
    assert len(text) > 3_000_000 and "Plotly" in text  # plotly.js itself, not a link to it
    assert not re.search(r"<script[^>]+src=|<link\b|<img\b|<iframe\b", text)
    outside_scripts = re.sub(r"<script>.*?</script>", "", text, flags=re.S)
    assert not re.search(r"https?:", outside_scripts)


def test_the_header_names_grid_limits_size_span_hosts_and_code(report_file):
    header = dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", report_file.read_text()))

    assert set(header) == {"grid", "runs", "limits", "size", "created", "time span", "hosts", "code versions"}
    assert header["grid"] == "--algo astar,beam --k 1..4 --heuristic blockers-lb"  # as orchestrate sweep takes it
    assert header["size"] == "20 jobs on 2 boards, 17 done (stopped)"
    assert header["hosts"] == "hand@test (17 results)"
    assert header["limits"] == "none"


def test_every_figure_is_valid_plotly_with_data(report_file):
    figures = figures_of(report_file.read_text())

    assert [figure["title"] for figure in figures] == [
        "beam: solution length vs k", "beam: time vs k", "beam: states expanded vs k", "beam: share solved vs k",
        "mean solution length per algorithm", "mean time per algorithm", "share solved per algorithm",
        "states expanded: astar vs each other configuration", "time: astar vs each other configuration",
        "coverage by states expanded", "coverage by time"]
    for figure in figures:
        go.Figure(figure["figure"])  # raises for a property Plotly does not know
        assert figure["figure"]["data"], figure["title"]


def test_the_moves_plot_has_the_optimum_and_the_time_plot_the_optimal_baseline(report_file):
    figures = {figure["title"]: figure["figure"] for figure in figures_of(report_file.read_text())}
    moves = {trace["name"]: trace for trace in figures["beam: solution length vs k"]["data"]}
    time = {trace["name"]: trace for trace in figures["beam: time vs k"]["data"]}

    # k = 1, 2 fail: the lines have no point there; the optimum of each board is known (the course's: 21 and 15 moves)
    assert moves["Rushhour6x6_1"]["x"] == [1, 2, 3, 4] and moves["Rushhour6x6_1"]["y"] == [None, None, 22, 21]
    assert moves["Rushhour6x6_1 optimum (21 moves)"]["y"] == [21, 21]
    assert moves["Rushhour6x6_2 optimum (15 moves)"]["line"]["dash"] == "dash"
    assert time["Rushhour6x6_1 astar (optimal)"]["y"] == [0.5, 0.5]
    assert {trace["legendgroup"] for trace in moves.values()} == set(SOLUTIONS)  # a legend click hides a board


def test_share_solved_is_aggregated_over_boards_and_seeds_with_its_interval():
    rows = beam_rows()  # k = 1 fails on one board of two, with two seeds each: 2 of 4 solved
    share = next(chart for chart in interactive.charts(rows) if chart.title == "beam: share solved vs k").figure
    overall = next(trace for trace in share["data"] if trace["name"] == "all boards")

    assert overall["x"] == [1, 2, 3, 4, 5] and overall["y"] == [0.5, 1, 1, 1, 1]
    low, high = overall["y"][0] - overall["error_y"]["arrayminus"][0], overall["y"][0] + overall["error_y"]["array"][0]
    assert 0.1 < low < 0.2 and 0.8 < high < 0.9  # Wilson's 95% interval of 2 in 4: 0.15–0.85
    boards = [trace for trace in share["data"] if trace["name"] != "all boards"]
    assert len(boards) == 2 and all(trace["visible"] == "legendonly" for trace in boards)


def test_axes_integer_ticks_log_scale_and_legend_outside():
    rows = pd.concat([beam_rows().assign(k=k, params=json.dumps({"heuristic": "blockers", "k": k}))
                      for k in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)], ignore_index=True)
    rows["elapsed_s"] = rows["k"] * 0.001
    charts = {chart.title: chart.figure["layout"] for chart in interactive.charts(rows)}
    layout = charts["beam: time vs k"]

    assert layout["xaxis"]["type"] == "log" and layout["yaxis"]["type"] == "log"
    assert layout["xaxis"]["tickvals"] == [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
    assert layout["legend"]["x"] > 1  # right of the plotting area
    time = next(chart for chart in interactive.charts(rows) if chart.title == "beam: time vs k").figure["data"]
    bands = [trace for trace in time if trace.get("fill") == "tonexty"]  # 13 points: intervals as bands, not bars
    assert len(bands) == 2 and all("error_y" not in trace for trace in time)
    few = {chart.title: chart.figure["layout"] for chart in interactive.charts(beam_rows())}["beam: time vs k"]
    assert few["xaxis"]["ticktext"] == ["1", "2", "3", "4", "5"] and "type" not in few["xaxis"]


def test_a_board_without_data_is_left_out_and_named():
    rows = beam_rows()
    rows.loc[rows["board"] == "Rushhour6x6_2", ["outcome", "moves"]] = ["failed", np.nan]
    moves = next(chart for chart in interactive.charts(rows) if chart.title == "beam: solution length vs k").figure

    assert {trace["legendgroup"] for trace in moves["data"]} == {"Rushhour6x6_1"}  # its optimum line too
    assert "left out, no data: Rushhour6x6_2" in moves["layout"]["title"]["text"]


def test_the_table_shows_key_columns_and_hides_the_rest_until_asked():
    summary = pd.DataFrame({"algorithm": ["beam"], "jobs": [2], "moves_mean": [28.5], "moves_median": [28.0]})
    table = summary_table(summary, {"jobs": "jobs", "moves_mean": "moves"})

    assert '<th class="text" title="algorithm">algorithm</th>' in table
    assert '<th class="" title="moves_mean">moves</th>' in table and '<th class="extra" title="moves_median">' in table
    assert 'data-sort="28.5"' in table and 'type="search"' in table


def test_an_empty_sweep_still_makes_a_page():
    text = html_report("nothing yet", pd.DataFrame(), [], [])
    assert "<h1>nothing yet</h1>" in text and "no jobs" in text and 'class="plot"' not in text


def test_chromium_draws_every_plot_the_boards_and_plays_a_solution(report_file):
    with browser_page() as (page, errors):
        fetched = []
        page.route("**/*", lambda route: (fetched.append(route.request.url), route.continue_()))
        page.goto(report_file.resolve().as_uri())
        page.wait_for_selector(".js-plotly-plot .main-svg")
        figures = plotted(page)
        cards = page.eval_on_selector_all(".board-card", "cards => cards.map(card => [card.dataset.board, "
                                          "card.querySelectorAll('svg .vehicle').length, !!card.querySelector('.player')])")
        card = page.locator('.board-card[data-board="Rushhour6x6_2"]')
        card.locator("button.last").click()
        caption = card.locator(".caption").inner_text()
        red = card.locator('.vehicle[data-vehicle="X"]').evaluate("piece => piece.style.transform")
        page.fill(".table-box input[type=search]", "astar")
        shown = page.eval_on_selector_all(".summary tbody tr", "rows => rows.filter(r => r.style.display !== 'none').length")
        page.click(".summary th[title=jobs]")
        sorted_by = page.get_attribute(".summary th[title=jobs]", "aria-sort")

    assert errors == []
    assert fetched == [report_file.resolve().as_uri()]  # the file alone: it opens offline
    assert len(figures) == 11
    for figure in figures:
        assert figure["traces"] > 0 and figure["points"] > 0 and figure["drawn"] > 0, figure
    assert cards == [[name, VEHICLES[name], True] for name in SOLUTIONS]
    assert caption == "move 15/15: X+3"
    assert red == "translate(184px, 104px)"  # the red car's last cells, columns 5 and 6 of its row 3: at the exit
    assert shown == 2 and sorted_by == "ascending"
