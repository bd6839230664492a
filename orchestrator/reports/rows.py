"""Reports: a sweep's jobs as one DataFrame, and the notes a reader must know.

`load_rows` turns a sweep's jobs and results, read as Arrow columns
(`workers.store.rows.job_table`), and its boards into a frame, one row per
job (its board's name, size and domain: `rushhour` or `npuzzle`), with
each algorithm parameter as a column (kept apart from the others: see
`parameter_column`), the board's known optimum
(`boards.known_optimum`), the best optimum known (that one, else the fewest
moves an optimal search found on the board anywhere in the database) and the
optimality gap against it, as a ratio (`gap`) and in moves (`gap_moves`),
and where each result came from (`host`, `code_version`, the job's `plugins`
key, the host's `speed`);
`orchestrator.reports.summary` aggregates them; `notes` says what a reader must know to
trust the numbers; `orchestrator.publish.files` writes them out. `row_slices`
makes the same rows a slice at a time, for a CSV export whose memory does not
grow with the sweep.
"""

import json
from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import pandas as pd

from orchestrator.sweeps.optima import best_optima, is_optimal
from orchestrator.sweeps.status_view import params_text
from puzzles.errors import PuzzleError
from puzzles.result import measures
from puzzles.textio import plural
from workers.provenance import TIMING, plugins_text
from workers.store import Database
from workers.store.boards import StoredBoard
from workers.store.rows import board_table, job_slices, job_table, sweep_board_ids, sweep_params
from workers.store.schema import canonical_params
from workers.store.states import JobState
from workers.store.sweeps import SweepRow

if TYPE_CHECKING:
    import pyarrow as pa

GROUPS = ("algorithm", "params", "board")
ALIASES = {"algo": "algorithm"}
TIMING_NOTE = f"time: {TIMING}"
RESULT_COLUMNS = measures()
LEADING_COLUMNS = ("job_id", "board", "board_id", "board_size", "domain", "algorithm", "params")
TRAILING_COLUMNS = ("seed", "repeat", "state", "outcome", *RESULT_COLUMNS, "reason", "host", "code_version",
                    "plugins", "speed", "known_optimum", "optimal")
DERIVED_COLUMNS = ("optimum", "gap", "gap_moves")
RESERVED = frozenset((*LEADING_COLUMNS, *TRAILING_COLUMNS, *DERIVED_COLUMNS))  # no parameter's column takes these names
PARAM_PREFIX = "param:"  # before the name of a parameter called like a reserved column: `param:steps`
PARAMETERS = "parameters"  # the key of a rows frame's `attrs` that lists its parameter columns
CSV_ROWS = 20_000  # rows of a sweep exported to CSV at a time: about 90 MiB of Python objects and text
SPEED_CLASS_RATIO = 1.25  # hosts differ in speed class when one's median speed is more than this × the other's


def load_rows(db: Database, sweep: SweepRow) -> pd.DataFrame:
    """One row per job of the sweep (`rows_frame`), the gaps against the best optima known anywhere in the database."""
    table = job_table(db, sweep)
    boards = {board.id: board for board in board_table(db, table.column("board_id").unique().to_pylist())}
    return rows_frame(table, boards, best_optima(db, set(boards)))


def row_slices(db: Database, sweep: SweepRow, rows: int = CSV_ROWS) -> Generator[pd.DataFrame, None, None]:
    """`load_rows`' frame a slice of `rows` jobs at a time, never the whole sweep at once, every slice with the same
    columns, and integer columns as integers (not floats beside a missing value)."""
    import pyarrow as pa

    boards = {board.id: board for board in board_table(db, sweep_board_ids(db, sweep))}
    optima, params = best_optima(db, set(boards)), sweep_params(db, sweep)
    for table in job_slices(db, sweep, rows):
        frame = rows_frame(table, boards, optima, params)
        integers = [field.name for field in table.schema if pa.types.is_integer(field.type) and field.name in frame]
        yield frame.astype(dict.fromkeys(integers, "Int64"))


def rows_frame(table: "pa.Table", boards: dict[str, StoredBoard], optima: dict[str, int],
               all_params: list[dict[str, Any]] | None = None) -> pd.DataFrame:
    """One row per job of the store's columns (`workers.store.rows.job_table`), with its board, its parameters as
    columns, its board's optima and gaps.

    `boards` are the boards by id, `optima` the best known per board id, used
    where the board has no known optimum stored. The parameter columns are
    named by `parameter_column` and listed in the frame's attrs
    (`parameter_columns`). Each distinct value (parameters, board, algorithm)
    is worked on once, whatever the number of jobs. `all_params`: the
    distinct parameters of the whole sweep when `table` holds a slice
    of it, so that every slice has the same parameter columns and types.
    """
    stored = _nulls_as_none(table)
    params_codes, params_texts = pd.factorize(stored["params"])
    decoded = [json.loads(text) for text in params_texts]
    every = decoded if all_params is None else all_params
    names = sorted({name for params in every for name in params})
    whole = [name for name in names if _whole_numbers([params.get(name) for params in every])]
    board_codes, board_ids = pd.factorize(stored["board_id"])
    of_board = [boards[key] for key in board_ids]
    frame = pd.DataFrame({
        "job_id": stored["job_id"], "board": _taken([found.name or found.id[:12] for found in of_board], board_codes),
        "board_id": stored["board_id"], "board_size": _taken([found.size for found in of_board], board_codes),
        "domain": _taken([found.domain for found in of_board], board_codes), "algorithm": stored["algorithm"],
        "params": _taken([canonical_params(params) for params in decoded], params_codes),
        **{parameter_column(name): _taken([params.get(name) for params in decoded], params_codes) for name in names},
        **{column: stored[column] for column in ("seed", "repeat", "state", "outcome", *RESULT_COLUMNS, "reason",
                                                 "host", "code_version", "plugins", "speed")},
        "known_optimum": _taken([found.known_optimum for found in of_board], board_codes),
        "optimal": _optimal(stored, decoded, params_codes, boards),
    })
    rows = with_parameter_columns(frame, [parameter_column(name) for name in names])
    if rows.empty:
        return rows
    for column in map(parameter_column, whole):
        if pd.api.types.is_float_dtype(rows[column]):
            rows[column] = rows[column].astype("Int64")  # integers stay integers beside the NaN of other algorithms
    rows["known_optimum"] = rows["known_optimum"].astype("Int64")
    known = rows["known_optimum"].astype("Float64")
    rows["optimum"] = known.fillna(_taken([optima.get(key) for key in board_ids], board_codes).astype("Float64")).astype(float)
    rows["gap"] = rows["moves"] / rows["optimum"] - 1
    rows["gap_moves"] = rows["moves"] - rows["optimum"]
    return rows.drop(columns=["board_id"])


def _whole_numbers(values: list[Any]) -> bool:
    """Whether the values given (None aside) are numbers with no fraction, none of them a bool."""
    given = [value for value in values if value is not None]
    return bool(given) and all(isinstance(value, (int, float)) and not isinstance(value, bool)
                               and float(value).is_integer() for value in given)


def _nulls_as_none(table: "pa.Table") -> pd.DataFrame:
    """The table as a frame whose columns without a value hold None (of type object), as in a frame of Python records."""
    empty = [name for name, column in zip(table.column_names, table.columns) if column.null_count == len(column)]
    stored = table.drop_columns(empty).to_pandas()
    return stored.assign(**{name: pd.Series([None] * len(table), dtype=object) for name in empty})[table.column_names]


def _taken(values: list[Any], codes: Any) -> pd.Series:
    """The column whose row i holds `values[codes[i]]` (the values' type inferred once, from the distinct ones)."""
    return pd.Series(values, dtype=None if values else object).take(codes).reset_index(drop=True)


def _optimal(stored: pd.DataFrame, decoded: list[dict[str, Any]], params_codes: Any,
             boards: dict[str, StoredBoard]) -> pd.Series:
    """Per job, whether its search is optimal (`is_optimal`), decided once per algorithm, parameters and board."""
    keys = pd.DataFrame({"algorithm": stored["algorithm"], "params": params_codes, "board_id": stored["board_id"]})
    codes = keys.groupby(list(keys.columns), sort=False).ngroup()
    distinct = keys.drop_duplicates()
    decided = [is_optimal(algorithm, decoded[params], boards[board].domain, boards[board].canonical_text)
               for algorithm, params, board in distinct.itertuples(index=False, name=None)]
    return pd.Series(decided, dtype=bool).take(codes.to_numpy()).reset_index(drop=True)


def group_columns(rows: pd.DataFrame, by: list[str] | None = None) -> list[str]:
    """The columns to group by (default: algorithm, params, board), aliases resolved; an error names unknown ones."""
    groups = [ALIASES.get(column, column) for column in (by or GROUPS)]
    unknown = [column for column in groups if column not in rows.columns]
    if unknown:
        choices = ", ".join(column for column in rows.columns if column not in RESULT_COLUMNS)
        raise PuzzleError(f"--by: no column {', '.join(unknown)} in this sweep (choose from {choices})")
    return groups


def notes(rows: pd.DataFrame, sweep_name: str, by: list[str] | None = None) -> list[str]:
    """Every note a report prints, one line each: a sweep still running or stopped, groups (as `summarize` groups by)
    spanning boards or mixing code versions, plugin versions or hosts of different speed classes, the plugins its
    results came from, and how time is measured."""
    groups = group_columns(rows, by)
    finished = rows[rows["outcome"].notna()]
    return [*_unfinished_note(rows, sweep_name), *_boards_note(groups, rows), *_version_warning(finished, groups),
            *_plugin_version_warning(finished, groups), *_speed_warning(finished, groups),
            *_plugins_note(finished, sweep_name), TIMING_NOTE]


def parameter_column(name: str) -> str:
    """The column of a parameter: its name (`k`, `heuristic`), or `param:NAME` for one called like another column."""
    return PARAM_PREFIX + name if name in RESERVED else name


def parameter_name(column: str) -> str:
    """The parameter a parameter column holds (`parameter_column` undone)."""
    return column.removeprefix(PARAM_PREFIX)


def with_parameter_columns(rows: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """`rows`, marked as holding the algorithm parameters in `columns` (kept in its attrs, which pandas carries along)."""
    rows.attrs[PARAMETERS] = list(columns)
    return rows


def parameter_columns(rows: pd.DataFrame) -> list[str]:
    """The columns holding algorithm parameters (k, heuristic, batches, ...), as `rows_frame` marked them."""
    return [column for column in rows.attrs.get(PARAMETERS, []) if column in rows.columns]


def params_key_text(key: str) -> str:
    """A value of the `params` column as a table shows it: `heuristic=blockers k=5` (`-` for none).

    The column holds each job's parameters as one text, the canonical JSON the
    job row stores (`workers.store.schema.canonical_params`): a key to group
    by, written as it is to csv and json, and read back only here, for show.
    """
    return params_text(json.loads(key))


def _unfinished_note(rows: pd.DataFrame, name: str) -> list[str]:
    """What a report of a sweep not done yet covers: whether it still runs, or has stopped and how to go on."""
    unfinished = int(rows["outcome"].isna().sum())
    if not unfinished:
        return []
    done = f"{len(rows) - unfinished:,} of {plural(len(rows), 'job')} done; this report covers those"
    if rows["state"].isin([JobState.RUNNING, JobState.QUEUED]).any():
        return [f"sweep {name} is still running: {done}"]
    return [f"sweep {name} is stopped: {done} (continue with: orchestrate resume {name})"]


def _boards_note(groups: list[str], rows: pd.DataFrame) -> list[str]:
    if "board" in groups or rows["board"].nunique() < 2:
        return []
    return ["groups span boards: their figures are the means of each board's means, and ± is the spread across the"
            " boards, not a confidence interval (group by board for intervals over repeats and seeds)"]


def _version_warning(finished: pd.DataFrame, groups: list[str]) -> list[str]:
    versions = finished.assign(code_version=finished["code_version"].fillna("unknown"))
    mixed = _mixed_groups(versions, groups, "code_version", lambda values: len(values) > 1)
    if mixed.empty:
        return []
    named = ", ".join(sorted(set().union(*mixed)))
    return [f"warning: {_share(mixed, finished, groups)} mix results of different code versions ({named}); "
            "timings in those groups are not comparable"]


def plugged_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of jobs that run plugins (none in a frame without a `plugins` column, such as one exported before
    plugins were recorded)."""
    return rows[rows["plugins"].notna()] if "plugins" in rows.columns else rows.iloc[:0]


def _plugin_version_warning(finished: pd.DataFrame, groups: list[str]) -> list[str]:
    """A warning if some group has results of one algorithm made by different versions of its plugins."""
    plugged = plugged_rows(finished)
    versions = plugged.groupby(list(dict.fromkeys([*groups, "algorithm"])), dropna=False)["plugins"].unique()
    mixed = versions[versions.map(len) > 1]
    if mixed.empty:
        return []
    count = len(mixed.reset_index()[groups].drop_duplicates())
    named = ", ".join(sorted({plugins_text(key) for keys in mixed for key in keys}))
    return [f"warning: {count:,} of {finished.groupby(groups, dropna=False).ngroups:,} groups mix results of different"
            f" versions of a plugin ({named}); orchestrate sweep --plugin-changed rerun runs them again with the one"
            " installed"]


def _plugins_note(finished: pd.DataFrame, name: str) -> list[str]:
    """The plugins the sweep's results came from, each version with its algorithms and results:
    `plugins of beam-k: greedy-search 0.2.0 (source 3f2a9c1b07de) for greedy (40 results)`."""
    plugged = plugged_rows(finished)
    if plugged.empty:
        return []
    used = [f"{plugins_text(key)} for {' and '.join(part['algorithm'].unique())} ({plural(len(part), 'result')})"
            for key, part in plugged.groupby("plugins", sort=True)]
    return [f"plugins of {name}: {'; '.join(used)}"]


def _speed_warning(finished: pd.DataFrame, groups: list[str]) -> list[str]:
    speeds = finished.dropna(subset=["host", "speed"]).groupby("host")["speed"].median()  # each host's, over the sweep
    known = finished[finished["host"].isin(speeds.index)]
    mixed = _mixed_groups(
        known, groups, "host", lambda hosts: speeds[hosts].max() > SPEED_CLASS_RATIO * speeds[hosts].min()
    )
    if mixed.empty:
        return []
    named = ", ".join(f"{host} {speeds[host]:g}" for host in sorted(set().union(*mixed)))
    return [f"warning: {_share(mixed, finished, groups)} mix hosts of different speed classes (median speed in million "
            f"steps/s: {named}); timings in those groups are not comparable"]


def _mixed_groups(rows: pd.DataFrame, groups: list[str], column: str, mixes: Callable) -> pd.Series:
    """Per group whose distinct values of `column` satisfy `mixes`, those values."""
    distinct = rows.groupby(groups, dropna=False)[column].unique().map(list)
    return distinct[distinct.map(mixes)]


def _share(mixed: pd.Series, finished: pd.DataFrame, groups: list[str]) -> str:
    """`2 of 5 groups`: how many groups of the finished rows are mixed."""
    return f"{len(mixed):,} of {finished.groupby(groups, dropna=False).ngroups:,} groups"
