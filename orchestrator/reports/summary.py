"""A sweep's rows summarized per group: done jobs only, per board first, with intervals that mean something.

- **Done work only.** A group's `jobs` are its done jobs; its jobs without a
  result are `unfinished`, never counted as unsolved, and `solved_share` is
  the share solved of the done jobs that were not proved `unsolvable` (a
  proof is no failure: `n_unsolvable` counts those apart).
- **Own and common figures** (`orchestrator.reports.common`). A group's own
  figures describe it alone: moves, steps and the gap over its solved runs,
  states, time and memory over its done runs. Its common figures
  (`<metric>_common`) and its ratios to a baseline are over the runs on the
  units (boards, or board-seed pairs) solved by every group compared that
  solved any (`common` of `shared`, the units every group ran, of `units`,
  those any ran): only those compare like with like.
- **Intervals over repeats and seeds of one board.** `<metric>_ci_low` and
  `<metric>_ci_high` bound a 95% percentile-bootstrap interval of the mean
  (2,000 resamples, fixed seed: the bounds `scipy.stats.bootstrap` gives with
  `random_state=0`, drawn here with NumPy alone) over the group's jobs on its
  board. A bootstrap of the mean never leaves the range of the
  values, so moves, counts and times never get a bound below zero. Past
  `BOOTSTRAP_MAX` values, where the bootstrap's cost grows with the group
  and the mean is close to normal, the interval is the normal one, mean ±
  z·σ/√n (σ over the values, as the bootstrap's resamples spread), kept
  within the range of the values too; on groups of 1,000 to 5,000 skewed
  counts its bounds are within 10% of the interval's width of the
  bootstrap's (tests/orchestrator/test_report_intervals.py).
- **A group that spans boards** (`board` not among the group columns) is
  summarized per board first: its means are the means of the per-board
  means, `<metric>_board_std` is the spread of those across the `boards`, and
  it has no confidence interval (boards are not repeats of one another); a
  group on one board only keeps that board's medians, spread and intervals.
- **Measures that compare across boards**: the gap to the optimum, and with a
  baseline algorithm `<metric>_ratio`, the geometric mean over the common
  boards of the group's common mean on the board divided by the baseline's.
- **Coverage and scores** (`orchestrator.reports.figures.scores`) over the
  shared units: `coverage`, the units solved of `coverage_units` (a group
  over several parameter values counts each one's runs), and
  `score_expanded` and `score_time`, the sums of Downward Lab's log scores.
"""

import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import pandas as pd

from orchestrator.reports.common import UNIT, Compared, like_with_like
from orchestrator.reports.figures import scores
from orchestrator.reports.rows import group_columns, parameter_columns
from puzzles.errors import PuzzleError
from puzzles.result import Outcome

METRICS = {"moves": "moves", "expanded": "expanded", "generated": "generated", "elapsed": "elapsed_s"}  # name: column
ONE_BOARD = (*(f"{name}_{stat}" for name in METRICS for stat in ("median", "std", "ci_low", "ci_high")), "elapsed_p95")
RATIO_METRICS = ("moves", "expanded", "elapsed")
# common figure: the rows' column it is the mean of, over the runs on the common units
COMMON = {"moves_common": "moves", "gap_common": "gap", "expanded_common": "expanded", "generated_common": "generated",
          "elapsed_common": "elapsed_s", "peak_mem_common": "peak_mem_mib"}
# summary column: (the rows' column, its aggregation over one board's jobs, the aggregation of the boards' cells)
AGGREGATED = {
    "jobs": ("done", "sum", "sum"),
    "unfinished": ("unfinished", "sum", "sum"),
    "solved_share": ("solved", "mean", "mean"),
    "shared_solved_share": ("shared_solved", "mean", "mean"),
    "common": ("common", "max", "max"),
    "shared": ("shared", "max", "max"),
    "units": ("units", "max", "max"),
    "moves_min": ("moves", "min", "min"),
    "moves_max": ("moves", "max", "max"),
    "steps_mean": ("steps", "mean", "mean"),
    "gap_mean": ("gap", "mean", "mean"),
    "gap_moves_mean": ("gap_moves", "mean", "mean"),
    "cpu_mean": ("cpu_s", "mean", "mean"),
    "peak_mem_mib": ("peak_mem_mib", "max", "max"),
}
CONFIDENCE = 0.95
Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # the normal quantile of a two-sided CONFIDENCE interval, 1.96
RESAMPLES = 2_000
BATCH_VALUES = 16_000_000  # resampled values held at once by `mean_intervals` (128 MB)
BOOTSTRAP_MAX = 1_000  # the most values a bootstrap interval is drawn over; beyond, the normal interval
MIB = 1 << 20


def summarize(rows: pd.DataFrame, by: list[str] | None = None, *, baseline: str | None = None,
              family: list[str] | None = None) -> pd.DataFrame:
    """Per group (default: algorithm, params, board): the counts and the metrics' statistics (see the module docstring).

    The groups compared with one another are those with the same values of
    `family` (default: the group columns among board and seed, see `families`).
    """
    return summarized(rows, by, baseline=baseline, family=family)[0]


def summarized(rows: pd.DataFrame, by: list[str] | None = None, *, baseline: str | None = None,
               family: list[str] | None = None) -> tuple[pd.DataFrame, Compared]:
    """`summarize`, and the rows as `like_with_like` marked them with each family's units (for the notes)."""
    groups = group_columns(rows, by)
    family = families(groups) if family is None else family
    compared = like_with_like(with_peak_mib(rows), family, [column for column in groups if column not in family])
    ordered = compared.rows.sort_values(_order(rows), kind="stable", na_position="first")
    per_board = groups if "board" in groups else [*groups, "board"]
    cells = _cells(ordered, per_board).merge(_common_cells(ordered, per_board), on=per_board, how="left")
    if baseline is not None:
        cells = cells.assign(**_ratios(cells, compared.rows, baseline))
    summary = cells if "board" in groups else _across_boards(cells, groups, baseline is not None)
    scored = scores(compared.rows[compared.rows["shared_run"]], groups)
    summary = summary.merge(scored, on=groups, how="left")
    empty_counts = [column for column in summary.columns if column.startswith("n_") and not summary[column].any()]
    return summary.drop(columns=empty_counts), compared


def families(groups: list[str]) -> list[str]:
    """The group columns that make the families of a report: rows on one board (and seed) are compared, or all rows."""
    return [column for column in groups if column in UNIT]


def with_peak_mib(rows: pd.DataFrame) -> pd.DataFrame:
    """`rows` with each job's peak memory in MiB (`peak_mem_mib`)."""
    return rows.assign(peak_mem_mib=rows["peak_mem_bytes"] / MIB)


def narrowed(summary: pd.DataFrame) -> bool:
    """True if some row that solved anything has its common figures over fewer units than any row ran, or none, where
    a family has more than one unit (on one board alone, a row's common figures are its solved runs')."""
    solving = summary["solved_share"].fillna(0).gt(0)
    fewer = (summary["common"].lt(summary["units"]) & solving) | (summary["common"].eq(0) & ~solving)
    return bool((fewer & summary["units"].gt(1)).any())


def _order(rows: pd.DataFrame) -> list[str]:
    """The columns rows are sorted by before grouping: parameters in their own (numeric) order, not as JSON text."""
    return [column for column in ("algorithm", *parameter_columns(rows), "board") if column in rows.columns]


def _cells(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """The statistics of each group of `keys` (a board and what else): counts over all jobs, metrics over the done."""
    done = rows["outcome"].notna()
    solved = rows["outcome"].eq(Outcome.SOLVED).where(done & rows["outcome"].ne(Outcome.UNSOLVABLE))
    counted = rows.assign(
        done=done,
        solved=solved,
        shared_solved=solved.where(rows["shared_run"]),
        **{f"n_{outcome}": rows["outcome"].eq(outcome) for outcome in Outcome},
        unfinished=~done,
    )
    grouped = counted.groupby(keys, dropna=False, sort=False)
    aggregations = {
        **{name: (column, per_board) for name, (column, per_board, _) in AGGREGATED.items()},
        "elapsed_p95": ("elapsed_s", lambda values: values.quantile(0.95)),
        **{f"n_{outcome}": (f"n_{outcome}", "sum") for outcome in Outcome},
    }
    for name, column in METRICS.items():
        aggregations |= {f"{name}_mean": (column, "mean"), f"{name}_median": (column, "median"), f"{name}_std": (column, "std")}
    cells = grouped.agg(**aggregations)
    return cells.join(_intervals(counted[done].groupby(keys, dropna=False, sort=False), cells.index)).reset_index()


def _intervals(done: "pd.core.groupby.DataFrameGroupBy", index: pd.Index) -> pd.DataFrame:
    """Per group, the bootstrap interval of each metric's mean over its done jobs (NaN below two values)."""
    bounds = {}
    for name, column in METRICS.items():
        samples = {key: values.dropna().to_numpy(dtype=float) for key, values in done[column]}
        found = dict(zip(samples, mean_intervals(list(samples.values()))))
        bounds[f"{name}_ci_low"] = [found.get(key, (math.nan, math.nan))[0] for key in index]
        bounds[f"{name}_ci_high"] = [found.get(key, (math.nan, math.nan))[1] for key in index]
    return pd.DataFrame(bounds, index=index)


def mean_interval(values: pd.Series) -> tuple[float, float]:
    """The 95% interval of the mean of the values that are there (`mean_intervals`); (NaN, NaN) below two."""
    return mean_intervals([values.dropna().to_numpy(dtype=float)])[0]


def mean_intervals(samples: list[np.ndarray]) -> list[tuple[float, float]]:
    """`mean_interval` of many samples at once, as fast as one: those of a size are resampled together.

    The method and the resamples are the same (95% percentile bootstrap, 2,000
    resamples, seed 0: one set of indices for every sample of a size), so each
    sample's bounds are `mean_interval`'s; a sample of more than
    `BOOTSTRAP_MAX` values has the normal interval (`normal_interval`).
    """
    bounds = [(math.nan, math.nan)] * len(samples)
    by_size: dict[int, list[int]] = {}
    for index, values in enumerate(samples):
        if len(values) >= 2 and np.all(values == values[0]):
            bounds[index] = (float(values[0]), float(values[0]))
        elif len(values) > BOOTSTRAP_MAX:
            bounds[index] = normal_interval(values)
        elif len(values) >= 2:
            by_size.setdefault(len(values), []).append(index)
    for size, indices in by_size.items():
        picks = resample_indices(size)
        batch = max(1, BATCH_VALUES // (RESAMPLES * size))
        for start in range(0, len(indices), batch):
            chunk = indices[start : start + batch]
            means = np.vstack([samples[i] for i in chunk])[:, picks].mean(axis=-1)
            lows, highs = np.quantile(means, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2], axis=-1)
            for i, low, high in zip(chunk, lows, highs):
                bounds[i] = (float(low), float(high))
    return bounds


def resample_indices(size: int) -> np.ndarray:
    """The bootstrap's resamples of a sample of `size` values: RESAMPLES rows of indices drawn with replacement.

    Drawn as `scipy.stats.bootstrap(..., random_state=0)` draws them, so the
    bounds are the ones reports gave when they called it (scipy itself takes a
    second to import, more than a small report's whole work).
    """
    return np.random.RandomState(0).randint(0, size, (RESAMPLES, size))


def normal_interval(values: np.ndarray) -> tuple[float, float]:
    """The 95% normal interval of the mean, mean ± z·σ/√n (σ with divisor n), within the range of the values."""
    mean, half = float(values.mean()), Z * float(values.std()) / math.sqrt(len(values))
    return max(float(values.min()), mean - half), min(float(values.max()), mean + half)


def share_interval(solved: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of the share `solved` of `total` (it stays within 0..1); (NaN, NaN) for none."""
    if total <= 0:
        return math.nan, math.nan
    share, spread = solved / total, Z * Z / total
    centre = (share + spread / 2) / (1 + spread)
    half = Z * math.sqrt(share * (1 - share) / total + spread / (4 * total)) / (1 + spread)
    return max(0.0, centre - half), min(1.0, centre + half)


def _common_cells(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Per group of `keys` (a board and what else), the mean of each common figure over its runs on common units."""
    common = rows[rows["common_run"]]
    means = common.groupby(keys, dropna=False, sort=False)[list(COMMON.values())].mean()
    return means.set_axis(list(COMMON), axis=1).reset_index()


def _ratios(cells: pd.DataFrame, rows: pd.DataFrame, baseline: str) -> dict[str, pd.Series]:
    """Each cell's common mean of each ratio metric divided by the baseline algorithm's common mean on the cell's board
    (over the same common units, `like_with_like`); NaN where the baseline has none there."""
    ran = rows[(rows["algorithm"] == baseline) & rows["outcome"].notna()]
    if ran.empty:
        raise PuzzleError(f"--baseline {baseline}: no done job of {baseline} in the sweep")
    means = ran[ran["common_run"]].groupby("board")[[METRICS[name] for name in RATIO_METRICS]].mean()
    return {
        f"{name}_ratio": cells[f"{name}_common"] / cells["board"].map(means[METRICS[name]])
        for name in RATIO_METRICS
    }


def _across_boards(cells: pd.DataFrame, groups: list[str], with_ratios: bool) -> pd.DataFrame:
    """Per group, the statistics of its per-board cells: means of means, spread across boards, sums of counts."""
    aggregations: dict[str, tuple[str, str | Callable[[pd.Series], float]]] = {
        "boards": ("board", "nunique"),
        **{name: (name, across) for name, (_, _, across) in AGGREGATED.items()},
        **{column: (column, "sum") for column in cells.columns if column.startswith("n_")},
    }
    for name in METRICS:
        aggregations |= {f"{name}_mean": (f"{name}_mean", "mean"), f"{name}_board_std": (f"{name}_mean", "std")}
    aggregations |= {name: (name, "mean") for name in COMMON}
    if with_ratios:
        aggregations |= {f"{name}_ratio": (f"{name}_ratio", _geometric_mean) for name in RATIO_METRICS}
    summary = cells.groupby(groups, dropna=False, sort=False).agg(**aggregations).reset_index()
    boards = cells.groupby(groups, dropna=False, sort=False)["board"].transform("size")
    return summary.merge(cells.loc[boards == 1, [*groups, *ONE_BOARD]], on=groups, how="left")


def _geometric_mean(ratios: pd.Series) -> float:
    """The geometric mean of the positive ratios; NaN if there are none."""
    positive = ratios[ratios > 0].dropna()
    return float(np.exp(np.log(positive).mean())) if len(positive) else math.nan
