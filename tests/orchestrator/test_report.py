"""Reports: aggregates checked against values computed by hand, every format written and read back."""

import io
import math

import pandas as pd
import pyarrow as pa
import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.publish import files
from orchestrator.reports import rows as report_rows
from orchestrator.reports.plots import algorithm_labels
from orchestrator.reports.summary import summarize
from orchestrator.reports.tables import MARKER
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.sources import load_boards
from tests.stored import store_sweep
from tests.tables import Board, Sweep
from workers.store import connect
from workers.store.boards import StoredBoard
from workers.store.database import engine_for
from workers.store.jobs import record
from workers.store.migrate import upgrade
from workers.store.records import JobResult
from workers.store.schema import canonical_params

# job index (in plan order) -> the result recorded by hand
BY_HAND = {
    0: JobResult(outcome="solved", moves=21, steps=30, expanded=100, generated=500, elapsed_s=1.0, peak_mem_bytes=100 << 20),
    1: JobResult(outcome="solved", moves=21, steps=30, expanded=300, generated=900, elapsed_s=3.0, peak_mem_bytes=300 << 20),
    2: JobResult(outcome="failed", expanded=5, elapsed_s=0.1, reason="beam emptied at depth 3"),
    3: JobResult(outcome="failed", expanded=7, elapsed_s=0.3, reason="beam emptied at depth 4"),
    4: JobResult(outcome="solved", moves=25, steps=40, expanded=10, generated=50, elapsed_s=0.5),
    5: JobResult(outcome="solved", moves=27, steps=44, expanded=30, generated=70, elapsed_s=1.5),
}


@pytest.fixture
def db(tmp_path, boards_dir) -> str:
    """A sweep `hand`: bfs and beam k=1,2 on Rushhour6x6_1, twice each, with the results above."""
    url = f"sqlite:///{tmp_path / 'report_rows.db'}"
    upgrade(url)
    db = connect(url)
    boards = load_boards([str(boards_dir / "Rushhour6x6_1.csv")])
    plan, _, ids = store_sweep(db, "hand", boards, SweepGrid(["bfs", "beam"], {"k": [1, 2]}, repeat=2))
    order = sorted(range(6), key=lambda i: (plan.jobs[i].algorithm != "bfs", plan.jobs[i].params.get("k"), i))
    record(db, [(ids[job], BY_HAND[index]) for index, job in enumerate(order)])
    return url


def rows_of(url: str) -> pd.DataFrame:
    db = connect(url)
    return report_rows.load_rows(db, find_sweep(db, "hand"))


def test_rows_have_parameters_as_columns_and_the_optimum_from_bfs(db):
    rows = rows_of(db)
    assert len(rows) == 6
    assert rows["k"].dtype == "Int64" and sorted(rows["k"].dropna()) == [1, 1, 2, 2]
    assert set(rows["optimum"]) == {21.0}  # no known optimum stored: the best optimal (bfs) result
    assert rows.loc[rows["moves"] == 27, "gap"].item() == pytest.approx(27 / 21 - 1)
    assert rows["optimal"].sum() == 2  # the bfs jobs


def test_summary_by_algorithm_params_board_matches_the_hand_computation(db):
    summary = summarize(rows_of(db)).set_index("params")
    bfs = summary.loc['{"exhaustive":false}']
    assert (bfs["jobs"], bfs["solved_share"], bfs["moves_mean"], bfs["moves_std"]) == (2, 1.0, 21.0, 0.0)
    assert (bfs["expanded_mean"], bfs["generated_median"], bfs["elapsed_mean"]) == (200.0, 700.0, 2.0)
    assert bfs["elapsed_p95"] == pytest.approx(1.0 + 0.95 * 2.0)
    assert bfs["peak_mem_mib"] == 300.0 and bfs["gap_mean"] == 0.0
    k1 = summary.loc['{"heuristic":"blockers-lb","k":1}']
    assert (k1["solved_share"], k1["n_failed"], k1["n_solved"]) == (0.0, 2, 0) and math.isnan(k1["moves_mean"])
    k2 = summary.loc['{"heuristic":"blockers-lb","k":2}']
    assert (k2["moves_mean"], k2["moves_median"], k2["moves_min"], k2["moves_max"]) == (26.0, 26.0, 25.0, 27.0)
    assert k2["moves_std"] == pytest.approx(math.sqrt(2))
    assert k2["gap_mean"] == pytest.approx(26 / 21 - 1) and k2["steps_mean"] == 42.0
    assert list(summary["algorithm"]) == ["beam", "beam", "bfs"]  # by algorithm, then parameter values


def test_by_chooses_the_grouping(db):
    summary = summarize(rows_of(db), ["algo"]).set_index("algorithm")
    assert summary.loc["beam", "jobs"] == 4 and summary.loc["beam", "solved_share"] == 0.5
    assert summary.loc["beam", "moves_mean"] == 26.0
    by_k = summarize(rows_of(db), ["algorithm", "k"])
    assert by_k["algorithm"].tolist() == ["beam", "beam", "bfs"]
    assert by_k["k"].tolist()[:2] == [1, 2] and pd.isna(by_k["k"].tolist()[2])
    with pytest.raises(Exception, match="no column nope"):
        summarize(rows_of(db), ["nope"])


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_every_format_reads_back(db, tmp_path, fmt):
    summary = summarize(rows_of(db))
    path = tmp_path / f"summary.{fmt}"
    files.write(summary, fmt, path)
    back = files.read(path, fmt)
    assert list(back.columns) == list(summary.columns)
    for column in summary.columns:
        if pd.api.types.is_numeric_dtype(summary[column]):
            expected = summary[column].astype(float).to_numpy()
            assert back[column].astype(float).to_numpy() == pytest.approx(expected, nan_ok=True), column
        else:
            assert back[column].astype(str).tolist() == summary[column].astype(str).tolist(), column


def test_markdown_is_a_pipe_table_of_what_the_terminal_shows(db):
    lines = run("report", "hand", "--by", "algo", "--format", "markdown", "--db", db).stdout.splitlines()
    assert lines[0].startswith("| algorithm | jobs | solved | ") and lines[1].startswith("|:--|--:|--:|")
    assert any(line.startswith("| beam | 4 | 50% | ") for line in lines)


def run(*args):
    return CliRunner().invoke(app, list(map(str, args)))


def test_cli_report_table_and_a_running_sweep_says_so(db, boards_dir):
    result = run("report", "hand", "--db", db)
    assert result.exit_code == 0, result.output
    assert "heuristic=blockers-lb k=2" in result.output and "26.0" in result.output
    board = load_boards([str(boards_dir / "Rushhour6x6_2.csv")])
    store_sweep(connect(db), "hand", board, SweepGrid(["bfs"]), extend=True)  # a job not run, and none running: the sweep has stopped
    result = run("report", "hand", "--db", db, "--by", "algo")
    assert result.exit_code == 0
    assert "sweep hand is stopped: 6 of 7 jobs done; this report covers those" in result.stderr
    assert "orchestrate resume hand" in result.stderr
    (bfs,) = [line.split() for line in result.stdout.splitlines() if line.strip().startswith("bfs")]
    assert [cell.lstrip(MARKER) for cell in bfs[:7]] == ["bfs", "2", "2", "1", "100%", "1", "21.0"]  # boards, done
    # jobs, unfinished, solved of the done ones, coverage (the best of each column marked)


def test_cli_export_compare_and_errors(db, tmp_path):
    out = tmp_path / "rows.parquet"
    assert run("export", "hand", "--format", "parquet", "--out", out, "--db", db).exit_code == 0
    assert len(pd.read_parquet(out)) == 6
    csv = run("export", "hand", "--db", db)
    assert csv.exit_code == 0 and csv.output.count("\n") == 7
    same = run("compare", "hand", "hand", "--db", db)
    assert same.exit_code == 2 and "two different sweeps" in same.stderr
    assert run("report", "nope", "--db", db).exit_code == 2
    assert run("report", "hand", "--format", "xml", "--db", db).exit_code == 2
    assert run("report", "hand", "--format", "parquet", "--db", db).exit_code == 2
    with Session(engine_for(db)) as session, session.begin():
        session.add(Sweep(name="empty", kind="grid", definition={}, limits={}))
    empty = run("report", "empty", "--db", db)
    assert empty.exit_code == 2 and "has no jobs" in empty.output


def test_rows_carry_the_known_optimum_and_the_gap_in_moves(db):
    assert set(rows_of(db)["known_optimum"]) == {21}  # the course board's, stored with it
    with Session(engine_for(db)) as session, session.begin():
        session.execute(update(Board).values(known_optimum=None))  # a board no one knows the optimum of
    rows = rows_of(db)
    assert rows["known_optimum"].isna().all()  # none stored: the gap is against the best bfs result, 21
    assert rows.loc[rows["moves"] == 27, "gap_moves"].item() == 6
    with Session(engine_for(db)) as session, session.begin():
        session.execute(update(Board).values(known_optimum=20))  # a stored optimum takes precedence
    rows = rows_of(db)
    assert set(rows["known_optimum"]) == {20} and set(rows["optimum"]) == {20.0}
    assert rows.loc[rows["moves"] == 27, "gap_moves"].item() == 7
    assert rows.loc[rows["moves"] == 27, "gap"].item() == pytest.approx(27 / 20 - 1)
    summary = summarize(rows).set_index("params")
    assert summary.loc['{"exhaustive":false}', "gap_moves_mean"] == 1.0
    assert summary.loc['{"heuristic":"blockers-lb","k":2}', "gap_moves_mean"] == 6.0
    assert math.isnan(summary.loc['{"heuristic":"blockers-lb","k":1}', "gap_moves_mean"])  # nothing solved
    table = run("report", "hand", "--by", "algo,k", "--wide", "--db", db)
    assert table.exit_code == 0 and "gap moves" in table.output and "+6.0" in table.output


def stored_row(job_id: int, params: dict, **result) -> dict:
    """A job as `workers.store.rows.job_table` gives it: a done beam job on one board, with `result`'s measures."""
    measures = dict.fromkeys(report_rows.RESULT_COLUMNS) | result
    return {"job_id": job_id, "board_id": BOARD.id, "algorithm": "beam", "params": canonical_params(params),
            "seed": None, "repeat": 0, "state": "done", "outcome": "solved", **measures, "reason": None, "host": "h",
            "code_version": None, "plugins": None, "speed": None}


BOARD = StoredBoard(id="b" * 64, name="board", size=6, domain="rushhour", canonical_text="", known_optimum=None)


def test_a_parameter_named_like_a_result_column_neither_overwrites_it_nor_is_lost():
    stored = pa.Table.from_pylist([stored_row(1, {"k": 2, "steps": 3, "seed": 7}, moves=10, steps=10),
                           stored_row(2, {"k": 2, "steps": 4, "seed": 7}, moves=12, steps=11)])
    rows = report_rows.rows_frame(stored, {BOARD.id: BOARD}, {})
    assert rows["steps"].tolist() == [10, 11] and rows["seed"].isna().all()  # the results' own columns
    assert rows["param:steps"].tolist() == [3, 4] and rows["param:seed"].tolist() == [7, 7]
    assert report_rows.parameter_columns(rows) == ["k", "param:seed", "param:steps"]
    assert rows["params"].tolist() == ['{"k":2,"seed":7,"steps":3}', '{"k":2,"seed":7,"steps":4}']
    summary = summarize(rows, ["param:steps"]).set_index("param:steps")
    assert summary.loc[3, "steps_mean"] == 10 and summary.loc[4, "steps_mean"] == 11
    assert algorithm_labels(rows).tolist() == ["beam k=2 seed=7 steps=3", "beam k=2 seed=7 steps=4"]


def test_a_csv_export_made_a_slice_at_a_time_holds_the_whole_sweeps_rows(db, boards_dir, tmp_path):
    """Slices of two jobs of a sweep of bfs and beam (k only on some rows) with a job not run: the rows, columns
    and values of the whole frame, and integer columns written as integers beside the empty cells."""
    store_sweep(connect(db), "hand", load_boards([str(boards_dir / "Rushhour6x6_2.csv")]), SweepGrid(["bfs"]), extend=True)
    sweep = find_sweep(connect(db), "hand")
    slices = list(report_rows.row_slices(connect(db), sweep, rows=2))
    assert len(slices) >= 3 and sum(map(len, slices)) == 7 and all(len(rows) >= 2 for rows in slices[:-1])
    whole = report_rows.load_rows(connect(db), sweep)
    out = tmp_path / "rows.csv"
    assert run("export", "hand", "--out", out, "--db", db).exit_code == 0
    exported = pd.read_csv(out)
    pd.testing.assert_frame_equal(exported, pd.read_csv(io.StringIO(whole.to_csv(index=False))), check_dtype=False)
    as_written = pd.read_csv(out, dtype=str)[["k", "moves", "steps", "expanded", "known_optimum"]].stack()
    assert len(as_written) > 20 and not as_written.str.contains(".", regex=False).any()
    assert run("export", "hand", "--db", db).stdout == out.read_text()
