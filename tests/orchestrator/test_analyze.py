"""`orchestrate analyze`: the whole 8-puzzle space against the literature's depth counts."""

import pandas as pd
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.reports import analyze

# Boards of the 8-puzzle at each distance from the goal 123456780 (OEIS A089473).
EIGHT_PUZZLE_DEPTHS = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529, 10878,
    16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
]


def test_the_8_puzzle_space_has_the_known_depth_counts_and_admissible_heuristics():
    rows = analyze.analyze(3, 3, "blank-last", ["4-4", "8"])
    assert len(rows) == 181_440
    assert analyze.depth_histogram(rows)["boards"].tolist() == EIGHT_PUZZLE_DEPTHS
    summary = analyze.summary(rows).set_index("heuristic")
    assert summary.index.tolist() == [
        "misplaced", "manhattan", "linear-conflict", "pdb 4-4", "pdb 8", "pdb-max 4-4", "pdb-max 8"
    ]
    assert summary["admissible_share"].tolist() == [1.0] * 7
    assert summary.loc["manhattan", "mean_h"] < summary.loc["linear-conflict", "mean_h"] < rows["distance"].mean()
    assert summary.loc["misplaced", "exact_share"] < summary.loc["linear-conflict", "exact_share"]
    assert summary.loc["pdb 4-4", "mean_h"] < summary.loc["pdb-max 4-4", "mean_h"] < rows["distance"].mean()
    # One database of all eight tiles is the distance itself.
    assert summary.loc["pdb 8", "exact_share"] == 1.0 and (rows["pdb 8"] == rows["distance"]).all()


def test_cli_writes_every_board_and_refuses_large_boards(tmp_path):
    out = tmp_path / "small.parquet"
    result = CliRunner().invoke(app, ["analyze", "2x3", "--format", "parquet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "360 solvable 2x3 boards" in result.output  # 6! / 2
    rows = pd.read_parquet(out)
    assert rows["distance"].max() == 21 and set(rows.columns) >= {"board", "distance", "manhattan"}
    big = CliRunner().invoke(app, ["analyze", "4x4"])
    assert big.exit_code == 2 and "too many states" in big.output
    bad = CliRunner().invoke(app, ["analyze", "three"])
    assert bad.exit_code == 2 and "is not WxH" in bad.output
