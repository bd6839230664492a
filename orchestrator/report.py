"""Reports: a sweep's jobs as one DataFrame, summaries per group, and writing them out.

`load_rows` turns the joined jobs, results and boards into flat records, one
per job, with each algorithm parameter as a column, the board's known optimum
(`boards.known_optimum`), the best optimum known (that one, else the fewest
moves an optimal search found on the board anywhere in the database) and the
optimality gap against it, as a ratio (`gap`) and in moves (`gap_moves`);
`summarize` aggregates them with named aggregations; `write` is the last step,
formatting only.
"""

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from orchestrator.optima import best_optima, is_optimal
from puzzles.errors import PuzzleError
from workers.db import Board, Job, Result, Sweep

GROUPS = ("algorithm", "params", "board")
ALIASES = {"algo": "algorithm"}
FORMATS = ("table", "csv", "markdown", "json", "html", "parquet")
EXPORT_FORMATS = ("csv", "parquet")
MIB = 1 << 20
STATUSES = ("solved", "unsolvable", "failed", "limit", "error")
RESULT_COLUMNS = ("moves", "steps", "expanded", "generated", "max_frontier", "stored", "elapsed_s", "peak_mem_bytes")
LEADING_COLUMNS = ("job_id", "board", "board_id", "board_size", "algorithm", "params")
TRAILING_COLUMNS = ("seed", "repeat", "job_status", "status", *RESULT_COLUMNS, "reason", "host", "known_optimum", "optimal")


def load_rows(engine: Engine, sweep: Sweep) -> pd.DataFrame:
    """One row per job of the sweep, with its result (if any), its parameters as columns, its board's optima and gaps."""
    query = (
        select(Job, Board.name, Board.size, Board.domain, Board.canonical_text, Board.known_optimum, Result)
        .join(Board, Job.board_id == Board.id)
        .outerjoin(Result, Result.job_id == Job.id)
        .where(Job.sweep_id == sweep.id)
        .order_by(Job.id)
    )
    with Session(engine) as session:
        records = [_record(*row) for row in session.execute(query).all()]
        optima = best_optima(session, {record["board_id"] for record in records})
    rows = pd.DataFrame.from_records(records, columns=_columns(records))
    if rows.empty:
        return rows
    for column in parameter_columns(rows):
        if pd.api.types.is_float_dtype(rows[column]) and rows[column].dropna().mod(1).eq(0).all():
            rows[column] = rows[column].astype("Int64")  # integers stay integers beside the NaN of other algorithms
    rows["known_optimum"] = rows["known_optimum"].astype("Int64")
    known = rows["known_optimum"].astype("Float64")
    rows["optimum"] = known.fillna(rows["board_id"].map(optima).astype("Float64")).astype(float)
    rows["gap"] = rows["moves"] / rows["optimum"] - 1
    rows["gap_moves"] = rows["moves"] - rows["optimum"]
    return rows.drop(columns=["board_id"])


def summarize(rows: pd.DataFrame, by: list[str] | None = None) -> pd.DataFrame:
    """Per group (default: algorithm, params, board): jobs, share solved, status counts and the metrics' statistics."""
    groups = [ALIASES.get(column, column) for column in (by or GROUPS)]
    unknown = [column for column in groups if column not in rows.columns]
    if unknown:
        choices = ", ".join(column for column in rows.columns if column not in RESULT_COLUMNS)
        raise PuzzleError(f"--by: no column {', '.join(unknown)} in this sweep (choose from {choices})")
    order = [column for column in ("algorithm", *parameter_columns(rows), "board") if column in rows.columns]
    counted = rows.sort_values(order, kind="stable", na_position="first").assign(
        solved=rows["status"].eq("solved"),
        peak_mem_mib=rows["peak_mem_bytes"] / MIB,
        **{f"n_{status}": rows["status"].eq(status) for status in STATUSES},
        n_unfinished=rows["status"].isna(),
    )
    summary = (
        counted.groupby(groups, dropna=False, sort=False)
        .agg(
            jobs=("job_id", "count"),
            solved_share=("solved", "mean"),
            moves_mean=("moves", "mean"),
            moves_median=("moves", "median"),
            moves_min=("moves", "min"),
            moves_max=("moves", "max"),
            moves_std=("moves", "std"),
            steps_mean=("steps", "mean"),
            gap_mean=("gap", "mean"),
            gap_moves_mean=("gap_moves", "mean"),
            expanded_mean=("expanded", "mean"),
            expanded_median=("expanded", "median"),
            generated_mean=("generated", "mean"),
            generated_median=("generated", "median"),
            elapsed_mean=("elapsed_s", "mean"),
            elapsed_median=("elapsed_s", "median"),
            elapsed_p95=("elapsed_s", lambda values: values.quantile(0.95)),
            peak_mem_mib=("peak_mem_mib", "max"),
            **{f"n_{status}": (f"n_{status}", "sum") for status in (*STATUSES, "unfinished")},
        )
        .reset_index()
    )
    empty_counts = [column for column in summary.columns if column.startswith("n_") and not summary[column].any()]
    return summary.drop(columns=empty_counts)


def parameter_columns(rows: pd.DataFrame) -> list[str]:
    """The columns holding algorithm parameters (k, heuristic, batches, ...): the keys of the params JSON."""
    keys = set().union(*(json.loads(text) for text in rows["params"].unique())) if "params" in rows.columns else set()
    return [column for column in rows.columns if column in keys]


def compare(first: pd.DataFrame, second: pd.DataFrame, names: tuple[str, str]) -> pd.DataFrame:
    """Two summaries side by side on their shared group columns, the metrics suffixed by sweep name."""
    keys = [column for column in GROUPS if column in first.columns and column in second.columns]
    metrics = ["jobs", "solved_share", "moves_mean", "gap_mean", "gap_moves_mean", "expanded_mean", "elapsed_median"]
    left, right = (frame[keys + [m for m in metrics if m in frame.columns]] for frame in (first, second))
    suffixes = (f" ({names[0]})", f" ({names[1]})") if names[0] != names[1] else (" (A)", " (B)")
    return left.merge(right, on=keys, how="outer", suffixes=suffixes)


def write(frame: pd.DataFrame, fmt: str, out: Path | None) -> str | None:
    """`frame` as csv, markdown or json (returned when `out` is None) or parquet (needs `out`)."""
    if fmt == "parquet":
        if out is None:
            raise PuzzleError("--format parquet needs --out FILE")
        frame.to_parquet(out, index=False)
        return None
    writers: dict[str, Callable[[], str]] = {
        "csv": lambda: frame.to_csv(index=False),
        "markdown": lambda: _markdown(frame),
        "json": lambda: frame.to_json(orient="records", indent=1),
    }
    text = writers[fmt]()
    if out is None:
        return text
    out.write_text(text)
    return None


def read(path: Path, fmt: str) -> pd.DataFrame:
    """A table written by `write` (csv, json or parquet), read back."""
    readers = {"csv": pd.read_csv, "json": lambda p: pd.read_json(p, orient="records"), "parquet": pd.read_parquet}
    return readers[fmt](path)


def _record(job: Job, board: str, size: int, domain: str, text: str, known: int | None, result: Result | None) -> dict:
    record = {
        "job_id": job.id,
        "board": board or job.board_id[:12],
        "board_id": job.board_id,
        "board_size": size,
        "algorithm": job.algorithm,
        "params": job.params,
        **json.loads(job.params),
        "seed": job.seed,
        "repeat": job.repeat,
        "job_status": job.status,
        "status": result.status if result else None,
        "reason": (result.reason or result.error) if result else None,
        "host": job.worker_host,
        "known_optimum": known,
        "optimal": is_optimal(job.algorithm, json.loads(job.params), domain, text),
    }
    for column in RESULT_COLUMNS:
        record[column] = getattr(result, column) if result else None
    return record


def _columns(records: list[dict]) -> list[str]:
    params = sorted({key for record in records for key in json.loads(record["params"])})
    return list(LEADING_COLUMNS) + params + list(TRAILING_COLUMNS)


def _markdown(frame: pd.DataFrame) -> str:
    """A pipe table (without the optional tabulate package)."""
    cells = frame.astype(object).where(frame.notna(), "").map(_cell)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(row) + " |" for row in cells.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value).replace("|", "\\|")
