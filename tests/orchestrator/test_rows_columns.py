"""A sweep's rows read as Arrow columns are the rows read one record per job (`job_rows`): same columns, values, types."""

from dataclasses import asdict
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
from workers.store.boards import StoredBoard, store_optima
from workers.store.jobs import claim, record
from workers.store.migrate import upgrade
from workers.store.records import JobResult, JobRow
from workers.store.rows import job_rows
from workers.store.schema import RESULT_FIELDS, canonical_params


def record_rows(db, sweep) -> pd.DataFrame:
    """The rows read a record per job (`job_rows`), a table row per record: what `load_rows` must equal."""
    stored = job_rows(db, sweep)
    optima = best_optima(db, {job.board_id for job, _ in stored})
    parameters = [parameter_column(name) for name in sorted({name for job, _ in stored for name in job.params})]
    columns = [*report_rows.LEADING_COLUMNS, *parameters, *report_rows.TRAILING_COLUMNS]
    records = [_record(job, board) for job, board in stored]
    rows = with_parameter_columns(pd.DataFrame.from_records(records, columns=columns), parameters)
    for column in parameters:
        if pd.api.types.is_float_dtype(rows[column]) and rows[column].dropna().mod(1).eq(0).all():
            rows[column] = rows[column].astype("Int64")
    rows["known_optimum"] = rows["known_optimum"].astype("Int64")
    known = rows["known_optimum"].astype("Float64")
    rows["optimum"] = known.fillna(rows["board_id"].map(optima).astype("Float64")).astype(float)
    rows["gap"] = rows["moves"] / rows["optimum"] - 1
    rows["gap_moves"] = rows["moves"] - rows["optimum"]
    return rows.drop(columns=["board_id"])


def _record(job: JobRow, board: StoredBoard) -> dict[str, Any]:
    params = job.params
    result = asdict(job.result) if job.result is not None else dict.fromkeys(RESULT_FIELDS)
    return {
        "job_id": job.job_id, "board": board.name or board.id[:12], "board_id": job.board_id,
        "board_size": board.size, "domain": board.domain, "algorithm": job.algorithm, "params": canonical_params(params),
        **{parameter_column(name): value for name, value in params.items()},
        "seed": job.seed, "repeat": job.repeat, "state": str(job.state), "outcome": result["outcome"] and str(result["outcome"]),
        **{column: result[column] for column in report_rows.RESULT_COLUMNS},
        "reason": result["reason"] or result["error"], "host": result["host"] or job.worker_host,
        "code_version": result["code_version"], "plugins": job.plugins, "speed": (result["provenance"] or {}).get("speed"),
        "known_optimum": board.known_optimum,
        "optimal": is_optimal(job.algorithm, params, board.domain, board.canonical_text),
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
def test_the_columns_are_the_rows_read_a_record_at_a_time(db_url, boards_dir):
    mixed_sweep(db_url, boards_dir)
    db = connect(db_url)
    sweep = find_sweep(db, "mixed")
    old, new = record_rows(db, sweep), report_rows.load_rows(db, sweep)
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
