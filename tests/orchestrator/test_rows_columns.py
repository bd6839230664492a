"""A sweep's rows read as Arrow columns are the rows read one dict per job (`job_rows`): same columns, values, types."""

from typing import Any

import pandas as pd
import pytest

from orchestrator.publish import files
from orchestrator.reports import rows as report_rows
from orchestrator.reports.rows import parameter_column, with_parameter_columns
from orchestrator.sweeps.grid import SweepGrid
from orchestrator.sweeps.lookups import find_sweep
from orchestrator.sweeps.optima import best_optima, is_optimal
from orchestrator.sweeps.sources import load_boards
from tests.orchestrator.handmade import SOLUTIONS, result_for
from tests.stored import store_sweep
from workers.store import connect
from workers.store.boards import store_optima
from workers.store.jobs import claim, record
from workers.store.migrate import upgrade
from workers.store.records import JobResult
from workers.store.rows import job_rows
from workers.store.schema import canonical_params


def dict_rows(db, sweep) -> pd.DataFrame:
    """The rows read a dict per job (`job_rows`), a record per dict: what `load_rows` must equal."""
    stored = job_rows(db, sweep)
    optima = best_optima(db, {row["board_id"] for row in stored})
    parameters = [parameter_column(name) for name in sorted({name for row in stored for name in row["params"]})]
    columns = [*report_rows.LEADING_COLUMNS, *parameters, *report_rows.TRAILING_COLUMNS]
    rows = with_parameter_columns(pd.DataFrame.from_records([_record(row) for row in stored], columns=columns), parameters)
    for column in parameters:
        if pd.api.types.is_float_dtype(rows[column]) and rows[column].dropna().mod(1).eq(0).all():
            rows[column] = rows[column].astype("Int64")
    rows["known_optimum"] = rows["known_optimum"].astype("Int64")
    known = rows["known_optimum"].astype("Float64")
    rows["optimum"] = known.fillna(rows["board_id"].map(optima).astype("Float64")).astype(float)
    rows["gap"] = rows["moves"] / rows["optimum"] - 1
    rows["gap_moves"] = rows["moves"] - rows["optimum"]
    return rows.drop(columns=["board_id"])


def _record(row: dict[str, Any]) -> dict[str, Any]:
    params = row["params"]
    return {
        "job_id": row["job_id"], "board": row["board"] or row["board_id"][:12], "board_id": row["board_id"],
        "board_size": row["board_size"], "domain": row["domain"], "algorithm": row["algorithm"], "params": canonical_params(params),
        **{parameter_column(name): value for name, value in params.items()},
        "seed": row["seed"], "repeat": row["repeat"], "state": row["state"], "outcome": row["outcome"],
        **{column: row[column] for column in report_rows.RESULT_COLUMNS},
        "reason": row["reason"] or row["error"], "host": row["host"] or row["worker_host"],
        "code_version": row["code_version"], "speed": (row["provenance"] or {}).get("speed"),
        "known_optimum": row["known_optimum"],
        "optimal": is_optimal(row["algorithm"], params, row["domain"], row["canonical_text"]),
    }


def mixed_sweep(url: str, boards_dir) -> None:
    """astar and beam (k 1..4, two seeds, a parameter named like a column) on two boards, one with a known optimum:
    solved, failed, error, limit, a result without a host, one with a speed, and jobs not run."""
    db = connect(url)
    boards = load_boards([str(boards_dir / f"{name}.csv") for name in SOLUTIONS])
    grid = SweepGrid(["astar", "beam"], {"k": [1, 2, 3, 4], "heuristic": ["blockers-lb"]}, seeds=[1, 2])
    _, _, ids = store_sweep(db, "mixed", boards, grid)
    store_optima(db, {boards[0].id: 21})
    held = claim(db, ids[:-3], "hand@test", 60)
    results = [result_for(job, boards_dir) for job in held]
    results[0] = JobResult.failure("it raised")
    results[1] = JobResult.limit("time limit 1 s", 1.0)
    results[2].host, results[3].provenance = None, {"speed": 812.5}
    record(db, [(job.job_id, result) for job, result in zip(held, results)])


@pytest.mark.parametrize("db_url", ["sqlite", "postgresql"], indirect=True)
def test_the_columns_are_the_rows_read_a_dict_at_a_time(db_url, boards_dir):
    mixed_sweep(db_url, boards_dir)
    db = connect(db_url)
    sweep = find_sweep(db, "mixed")
    old, new = dict_rows(db, sweep), report_rows.load_rows(db, sweep)
    assert set(old["outcome"].dropna()) == {"solved", "failed", "error", "limit"} and old["outcome"].isna().sum() == 3
    pd.testing.assert_frame_equal(new, old)
    assert new.attrs == old.attrs


def test_a_csv_file_is_written_a_slice_at_a_time_as_the_whole_text(tmp_path, boards_dir):
    url = f"sqlite:///{tmp_path / 'results.db'}"
    upgrade(url)
    mixed_sweep(url, boards_dir)
    db = connect(url)
    sweep = find_sweep(db, "mixed")
    slices = list(report_rows.row_slices(db, sweep, rows=3))
    (whole,) = report_rows.row_slices(db, sweep, rows=len(report_rows.load_rows(db, sweep)))
    assert len(slices) > 1
    files.write_texts(files.csv_texts(slices), tmp_path / "rows.csv")
    assert (tmp_path / "rows.csv").read_text() == files.write(whole, "csv", None)
