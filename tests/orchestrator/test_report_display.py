"""What every output shows of a sweep (issue 32 §3): baselines only from solved optimal runs, lines that break where a
value is missing, shares of one job as points, and one way to write a value in the terminal, HTML, dashboard and plots."""

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from rich.console import Console

from orchestrator.publish import interactive
from orchestrator.publish.dashboard import _result_line
from orchestrator.publish.html_report import summary_table
from orchestrator.reports import plots
from orchestrator.reports.rows import with_parameter_columns
from orchestrator.reports.tables import report_grid, terminal_table, value_text
from orchestrator.sweeps.job_limits import limits_text
from orchestrator.text import duration_text
from tests.orchestrator.test_plots import BOARDS, PARAMETERS, beam_rows, job
from workers.store.activity import RecentResult


def chart(rows: pd.DataFrame, title: str) -> dict:
    return next(found for found in interactive.charts(rows) if found.title == title).figure


def traces(figure: dict) -> dict[str, dict]:
    return {trace["name"]: trace for trace in figure["data"]}


def with_astar(outcomes: dict[str, str]) -> pd.DataFrame:
    """beam_rows and an A* job per board with the outcome given (a limit hit after 60 s, or solved in 0.2 s)."""
    rows = beam_rows().to_dict("records")
    for board, outcome in outcomes.items():
        astar = job(len(rows) + 1, board, "astar", {"heuristic": "blockers-lb"}, None, outcome, 10,
                    60.0 if outcome == "limit" else 0.2, 900, heuristic="blockers-lb", k=np.nan)
        rows.append(astar | {"optimal": True})
    return with_parameter_columns(pd.DataFrame(rows).assign(optimal=lambda frame: frame["optimal"].fillna(False)), PARAMETERS)


def test_the_optimal_baseline_comes_only_from_solved_runs_of_an_optimal_search():
    rows = with_astar({BOARDS[0]: "limit", BOARDS[1]: "solved"})
    time = traces(chart(rows, "beam: time vs k"))
    assert f"{BOARDS[1]} astar (optimal)" in time and time[f"{BOARDS[1]} astar (optimal)"]["y"] == [0.2, 0.2]
    assert f"{BOARDS[0]} astar (optimal)" not in time  # no dotted line at 60 s from the job that hit its limit


def test_lines_break_where_a_value_has_no_data():
    rows = beam_rows()
    rows = rows[~((rows["board"] == BOARDS[1]) & (rows["k"] == 3))]  # no job of k = 3 on the second board
    moves = traces(chart(rows, "beam: solution length vs k"))[BOARDS[1]]
    assert moves["x"] == [1, 2, 3, 4, 5] and moves["y"][0] is None and moves["y"][2] is None  # k = 1 failed, k = 3 not run
    png = dict(plots.figures(rows))["beam: solution length vs k"].axes[0].get_lines()[1]
    assert list(png.get_xdata()) == [1, 2, 3, 4, 5] and np.isnan(png.get_ydata()[2])  # a gap at 3, not 2 joined to 4


def test_a_share_of_one_job_per_point_is_drawn_as_points_with_intervals():
    rows = beam_rows()
    rows = rows[(rows["board"] == BOARDS[1]) & (rows["seed"] == 1)]  # one job per k: 0% at k = 1, then 100%
    overall = traces(chart(rows, "beam: share solved vs k"))["all boards"]
    assert overall["mode"] == "markers" and overall["error_y"]["array"]  # no zigzag line, each point its interval
    png = dict(plots.figures(rows))["beam: share solved vs k"].axes[0].get_lines()[0]
    assert png.get_linestyle() == "None"


def test_an_integer_parameter_gets_integer_ticks_on_a_png():
    ks = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000)
    rows = pd.concat([beam_rows().assign(k=k) for k in ks], ignore_index=True)
    figure = dict(plots.figures(rows))["beam: time vs k"]
    FigureCanvasAgg(figure).draw()
    labels = [label.get_text() for label in figure.axes[0].get_xticklabels() if label.get_text()]
    assert labels == ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"]  # not 10⁰, 3×10⁰, ...
    times = [label.get_text() for label in figure.axes[0].get_yticklabels() if label.get_text()]
    assert any(text.endswith(("ms", "µs", " s")) for text in times)


def summary() -> pd.DataFrame:
    return pd.DataFrame({"algorithm": ["beam"], "jobs": [4], "solved_share": [0.5], "common": [1], "units": [2],
                         "moves_mean": [26.25], "gap_mean": [9469.2], "elapsed_mean": [8.534e-05],
                         "elapsed_p95": [75.0], "peak_mem_mib": [2048.0], "expanded_mean": [1234567.0]})


def test_html_dashboard_and_terminal_write_values_alike():
    html = summary_table(summary())
    for text in ("85.3 µs", "1 min 15 s", "2 GiB", "+946,920%", "50%", "1,234,567", "26.2"):
        assert f">{text}<" in html, text  # not the raw 8.534e-05, 75, 2,048, 9,469
    assert value_text("elapsed_mean", 8.534e-05) == duration_text(8.534e-05) == "85.3 µs"
    console = Console(width=200, record=True)
    console.print(terminal_table(report_grid(summary(), ["algorithm"], columns=["elapsed_mean", "gap_mean", "peak_mem_mib"])))
    terminal = console.export_text()
    assert all(text in terminal for text in ("85.3 µs", "+946,920%", "2 GiB"))
    result = RecentResult(1, "sweep", "6x6_1", "bfs", {}, "solved", 8, 8.534e-05, "host-a", None, None)
    line = _result_line(result)
    assert line["time"] == "85.3 µs"  # the dashboard's recent results: the server writes it, not the page's script


def test_limits_are_written_in_their_units():
    text = limits_text({"memory_limit": 2 << 30, "time_limit": 60.0, "max_nodes": 50_000_000})
    assert text == "max_nodes=50,000,000, memory_limit=2 GiB, time_limit=1 min 00 s"  # not memory_limit=2147483648


def test_comparison_columns_are_written_by_their_metric():
    assert value_text("elapsed_mean Δ second", -0.0005) == "-500 µs"
    assert value_text("moves_mean × second", 1.4321) == "1.43×"
    assert value_text("moves_mean q second", 0.012) == "0.012 *" and value_text("moves_mean p second", 0.012) == "0.012"
    assert value_text("jobs second", 1200) == "1,200"
