"""Plots of a sweep's rows (`orchestrator.reports.plots`, written as files by `orchestrator.reports.paper_plots`), on
synthetic rows shaped like `orchestrator.reports.rows`'s."""

import json

import numpy as np
import pandas as pd
import pytest
from matplotlib.image import imread

from orchestrator.reports import paper_plots, plots
from orchestrator.reports.rows import with_parameter_columns

BOARDS = ("Rushhour6x6_1", "Rushhour6x6_2")
PARAMETERS = ["exhaustive", "heuristic", "k"]  # the parameter columns of these rows (those they have)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def job(job_id, board, algorithm, params, seed, status, moves, elapsed, expanded, **columns):
    return {
        "job_id": job_id, "board": board, "board_size": 6, "domain": "rushhour", "algorithm": algorithm,
        "params": json.dumps(params, sort_keys=True), **columns, "seed": seed, "repeat": 0,
        "state": "done" if status else "queued", "outcome": status,
        "moves": float(moves) if status == "solved" else np.nan, "steps": moves, "expanded": expanded,
        "generated": 3 * expanded, "max_frontier": 10, "stored": expanded, "elapsed_s": elapsed,
        "peak_mem_bytes": 1 << 20, "reason": None, "error": None, "host": "h", "optimum": 10.0,
        "gap": (moves / 10.0 - 1) if status == "solved" else np.nan,
    }


def beam_rows() -> pd.DataFrame:
    """A beam sweep over k = 1..5 on two boards with two seeds; k = 1 fails on the second board."""
    rows = []
    for b, board in enumerate(BOARDS):
        for k in range(1, 6):
            for seed in (1, 2):
                status = "failed" if (b == 1 and k == 1) else "solved"
                moves = 30 - 3 * k + seed + 5 * b
                rows.append(job(len(rows) + 1, board, "beam", {"k": k, "heuristic": "blockers-lb"}, seed, status,
                                moves, 0.01 * k * seed * (1 + b), 100 * k + seed + 50 * b, k=k, heuristic="blockers-lb"))
    return with_parameter_columns(pd.DataFrame(rows), PARAMETERS)


def colours(pixels: np.ndarray) -> int:
    """How many colours an image read by `imread` holds (each as one integer: a row-wise unique is 10 times slower)."""
    channels = np.round(pixels[..., :3] * 255).astype(np.uint32)
    return len(np.unique(channels[..., 0] << 16 | channels[..., 1] << 8 | channels[..., 2]))


def two_widths() -> pd.DataFrame:
    """`beam_rows` of k = 1 and 2 alone: every kind of figure, one scatter plot per metric (drawing is what costs)."""
    rows = beam_rows()
    return rows[rows["k"] <= 2]


def comparison_rows() -> pd.DataFrame:
    """bfs, astar and beam k=50 on two boards: no parameter takes two numeric values."""
    rows = []
    for board in BOARDS:
        rows.append(job(len(rows) + 1, board, "bfs", {"exhaustive": False}, None, "solved", 12, 0.5, 5000,
                        exhaustive=False, heuristic=None, k=np.nan))
        rows.append(job(len(rows) + 1, board, "astar", {"heuristic": "blockers-lb"}, None, "solved", 12, 0.2, 900,
                        exhaustive=None, heuristic="blockers-lb", k=np.nan))
        rows.append(job(len(rows) + 1, board, "beam", {"heuristic": "blockers-lb", "k": 50}, None, "solved", 15, 0.05,
                        300, exhaustive=None, heuristic="blockers-lb", k=50))
    return with_parameter_columns(pd.DataFrame(rows), PARAMETERS)


def test_numeric_parameters_are_the_varying_numeric_columns():
    assert plots.numeric_parameters(beam_rows()) == ["k"]
    # k has one value, heuristic is text, exhaustive boolean: none is a numeric parameter
    assert plots.numeric_parameters(comparison_rows()) == []


def test_a_numeric_parameter_gives_four_figures():
    titles = [title for title, _ in plots.figures(beam_rows())]

    assert titles == ["beam: solution length vs k", "beam: time vs k", "beam: states expanded vs k",
                      "beam: share solved vs k"]


def test_the_moves_figure_plots_the_mean_per_board_and_k():
    rows = beam_rows()
    figure = dict(plots.figures(rows))["beam: solution length vs k"]
    ax = figure.axes[0]
    lines = ax.get_lines()

    assert [line.get_label() for line in lines] == list(BOARDS)
    for line, board in zip(lines, BOARDS):
        expected = []
        for k in range(1, 6):
            solved = rows[(rows.board == board) & (rows.k == k) & (rows.outcome == "solved")]
            expected.append(solved.moves.mean() if len(solved) else np.nan)
        np.testing.assert_array_equal(line.get_xdata(), [1, 2, 3, 4, 5])
        np.testing.assert_allclose(line.get_ydata(), expected)  # NaN where nothing was solved
    assert np.isnan(lines[1].get_ydata()[0])
    assert len(ax.collections) == 2  # a min–max band across the seeds per board
    assert ax.get_xlabel() == "k"
    assert ax.get_ylabel() == "solution length (moves)"


def test_axis_labels_and_share_solved():
    found = dict(plots.figures(beam_rows()))
    assert found["beam: time vs k"].axes[0].get_ylabel() == "time"  # its ticks in units: 85 µs, 12.5 ms
    assert found["beam: states expanded vs k"].axes[0].get_ylabel() == "states expanded"
    share = found["beam: share solved vs k"].axes[0].get_lines()
    np.testing.assert_allclose(share[0].get_ydata(), [1, 1, 1, 1, 1])
    np.testing.assert_allclose(share[1].get_ydata(), [0, 1, 1, 1, 1])


def test_axes_are_logarithmic_when_the_values_span_decades():
    rows = beam_rows()
    assert dict(plots.figures(rows))["beam: time vs k"].axes[0].get_yscale() == "linear"
    assert dict(plots.figures(rows))["beam: time vs k"].axes[0].get_xscale() == "linear"
    rows["elapsed_s"] = 10.0 ** rows["k"]
    rows["k"] = rows["k"].map({1: 1, 2: 2, 3: 5, 4: 10, 5: 50})
    ax = dict(plots.figures(rows))["beam: time vs k"].axes[0]
    assert (ax.get_yscale(), ax.get_xscale()) == ("log", "log")


def test_another_varying_parameter_splits_the_lines():
    rows = beam_rows()
    other = rows.assign(heuristic="blockers", moves=rows.moves + 1,
                        params=rows.params.str.replace('"blockers-lb"', '"blockers"'))
    rows = pd.concat([rows, other], ignore_index=True)

    assert plots.numeric_parameters(rows) == ["k"]
    lines = dict(plots.figures(rows))["beam: solution length vs k"].axes[0].get_lines()
    assert [line.get_label() for line in lines] == [
        f"{board}, heuristic={h}" for board in BOARDS for h in ("blockers", "blockers-lb")
    ]


def test_algorithm_labels_show_parameters_that_vary_or_differ_from_the_default():
    labels = plots.algorithm_labels(comparison_rows())
    assert list(labels[:3]) == ["bfs", "astar", "beam k=50"]
    assert list(plots.algorithm_labels(beam_rows()).unique()) == [f"beam k={k}" for k in range(1, 6)]


def test_a_comparison_gives_bar_charts_per_board_and_algorithm():
    found = plots.figures(comparison_rows())

    assert [title for title, _ in found] == ["mean solution length per algorithm", "mean time per algorithm",
                                             "share solved per algorithm"]
    ax = found[0][1].axes[0]
    assert [text.get_text() for text in ax.get_xticklabels()] == list(BOARDS)
    from matplotlib.container import BarContainer

    heights = {c.get_label(): [p.get_height() for p in c.patches] for c in ax.containers
               if isinstance(c, BarContainer)}
    assert heights == {"astar": [12, 12], "beam k=50": [15, 15], "bfs": [12, 12]}
    assert ax.get_ylabel() == "solution length (moves)"
    assert found[1][1].axes[0].get_ylabel() == "time (s)"


def test_several_algorithms_with_a_numeric_parameter_also_get_bar_charts():
    rows = pd.concat([beam_rows(), comparison_rows()[lambda df: df.algorithm == "bfs"]], ignore_index=True)
    titles = [title for title, _ in plots.figures(rows)]
    assert titles[:4] == ["beam: solution length vs k", "beam: time vs k", "beam: states expanded vs k",
                          "beam: share solved vs k"]
    assert titles[4:] == ["mean solution length per algorithm", "mean time per algorithm",
                          "share solved per algorithm"]


@pytest.mark.parametrize(("make", "files"), [(two_widths, 4 + 2 + 2), (comparison_rows, 3 + 4 + 2)])
def test_nothing_solved_or_nothing_finished_does_not_crash(make, files, tmp_path):
    """Every figure drawn, empty where there is nothing to show: per parameter or algorithm, scatter, coverage."""
    failed = make().assign(outcome="failed", moves=np.nan, gap=np.nan)
    assert len(paper_plots.write_plots(failed, tmp_path / "failed", "s")) == files
    unfinished = failed.assign(state="queued", outcome=None, elapsed_s=np.nan, expanded=np.nan)
    assert len(paper_plots.write_plots(unfinished, tmp_path / "unfinished", "s")) == files


def test_no_rows_no_figures(tmp_path):
    rows = beam_rows().iloc[0:0]
    assert plots.figures(rows) == []
    assert paper_plots.write_plots(rows, tmp_path, "empty") == []


def test_write_plots_writes_one_nonblank_png_per_figure(tmp_path):
    paths = paper_plots.write_plots(two_widths(), tmp_path / "out", "beam-sweep")

    assert [path.name for path in paths][:4] == [
        "beam-sweep-beam-solution-length-vs-k.png", "beam-sweep-beam-time-vs-k.png",
        "beam-sweep-beam-states-expanded-vs-k.png", "beam-sweep-beam-share-solved-vs-k.png",
    ]
    assert len(paths) == 4 + 2 * 1 + 2  # then k = 1 against k = 2, per metric, and the coverage plots
    for path in paths:
        assert path.read_bytes()[:8] == PNG_SIGNATURE
        pixels = imread(path)
        assert pixels.shape[0] > 200 and pixels.shape[1] > 400
        assert pixels[..., :3].std() > 0.05
        assert colours(pixels) > 10  # lines in colour, not just text
