"""`slidelab.results`: a sweep's rows, or their summary, as a DataFrame from a database URL (SQLite and PostgreSQL)."""

import io

import pandas as pd
import pytest

import slidelab
from puzzles.errors import PuzzleError
from tests.orchestrator.clirun import ok, orchestrate


@pytest.fixture
def swept(db_url, boards_dir) -> str:
    """A sweep `py` (beam k = 1..3 and astar on two 6x6 boards) in the test database; its URL."""
    ok(orchestrate("sweep", "--name", "py", "--algo", "beam,astar", "--k", "1..3", "--boards",
                   boards_dir / "Rushhour6x6_1.csv", boards_dir / "Rushhour6x6_2.csv", "--workers", 2, "--db", db_url))
    return db_url


def test_the_rows_are_the_rows_of_export(swept):
    rows = slidelab.results("py", db=swept)
    exported = pd.read_csv(io.StringIO(ok(orchestrate("export", "py", "--db", swept)).stdout))
    assert list(rows.columns) == list(exported.columns) and len(rows) == len(exported) == 8
    assert rows["job_id"].tolist() == exported["job_id"].tolist()
    assert rows["moves"].fillna(-1).tolist() == exported["moves"].fillna(-1).tolist()
    assert set(rows["outcome"]) <= {"solved", "failed"} and (rows["state"] == "done").all()


def test_by_gives_the_summary_of_report(swept):
    table = slidelab.results("py", db=swept, by="algo,k", baseline="astar")
    csv = pd.read_csv(io.StringIO(ok(orchestrate("report", "py", "--by", "algo,k", "--baseline", "astar", "--format",
                                                 "csv", "--db", swept)).stdout))
    assert list(table.columns) == list(csv.columns)
    assert table["jobs"].tolist() == csv["jobs"].tolist() == [2, 2, 2, 2]
    astar = table.set_index("algorithm").loc["astar"]
    rows = slidelab.results("py", db=swept)
    solved = rows[rows["outcome"] == "solved"].groupby(["algorithm", "k"], dropna=False)["board"].agg(set)
    common = set.intersection(*solved)  # common figures are over the boards every row that solved any solved
    optima = {"Rushhour6x6_1": 21, "Rushhour6x6_2": 15}
    assert astar["common"] == len(common) and astar["moves_ratio"] == pytest.approx(1.0)
    assert astar["moves_common"] == pytest.approx(sum(optima[board] for board in common) / len(common))
    assert astar["moves_mean"] == pytest.approx(sum(optima.values()) / 2)  # its own: over the boards it solved
    assert slidelab.results("py", db=swept, by=["board"])["board"].tolist() == ["Rushhour6x6_1", "Rushhour6x6_2"]


def test_an_unknown_sweep_or_database_is_a_puzzle_error(swept, tmp_path):
    with pytest.raises(PuzzleError, match="no sweep named 'nope'"):
        slidelab.results("nope", db=swept)
    with pytest.raises(PuzzleError, match="no results database there"):
        slidelab.results("py", db=f"sqlite:///{tmp_path / 'none.db'}")
    assert not (tmp_path / "none.db").exists()


def test_every_call_of_the_library_is_named_documented_and_typed():
    calls = [name for name in slidelab.__all__ if name not in ("PuzzleError", "__version__")]
    assert {"solve", "sweep", "tune", "status", "cancel", "report", "compare", "results"} <= set(calls)
    for name in calls:
        call = getattr(slidelab, name)
        assert callable(call) and call.__doc__ and call.__annotations__.get("return"), name
