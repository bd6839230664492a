"""`orchestrate compare`: sweeps lined up group by group, each metric side by side with its difference and ratio.

Groups are lined up on `--by`, by default on the columns the sweeps share and
that vary within them (the algorithm and parameters; a column whose values
the sweeps do not share, such as the heuristic two beam sweeps differ in, is
what is compared, not a group). The first sweep is the reference: for every
other sweep and metric there is the difference (other − first), the ratio
(other / first), the p-value of Welch's t-test over the group's runs (a
paired t-test over the boards' means when the group spans boards) and `q`,
the p-values adjusted for the false discovery rate across the rows of the
comparison (Benjamini–Hochberg, per metric and sweep), with the number of
jobs of each sweep. Every compared figure is over the units (boards, or
board-seed pairs) every sweep of the row has a value for
(`orchestrator.reports.common`): the share solved over the units every sweep
ran, moves, states and time over those every sweep that solved any solved.
Each sweep's own moves and time (over its own runs) stand beside them.
"""

import math
import warnings
from functools import partial

import pandas as pd

from orchestrator.reports.common import SWEEP, Compared
from orchestrator.reports.rows import parameter_columns, with_parameter_columns
from orchestrator.reports.summary import summarized
from puzzles.errors import PuzzleError

# compared metric: (the summary column it is, the rows' column its samples are of, the runs they are over)
COMPARED = {
    "solved_share": ("shared_solved_share", "solved", "shared_run"),
    "moves_common": ("moves_common", "moves", "common_run"),
    "expanded_common": ("expanded_common", "expanded", "common_run"),
    "elapsed_common": ("elapsed_common", "elapsed_s", "common_run"),
}
OWN = ("moves_mean", "elapsed_mean")  # each sweep's own figures, shown beside the compared ones
SIGNIFICANCE = 0.05
NO_SAMPLE = pd.Series(dtype=float)  # a group a sweep has no done job in


def compare(frames: dict[str, pd.DataFrame], by: list[str] | None = None) -> pd.DataFrame:
    """The sweeps' summaries on shared groups: per metric each sweep's value, then the others' difference, ratio, p, q."""
    return compared_table(frames, by)[0]


def compared_table(frames: dict[str, pd.DataFrame], by: list[str] | None = None) -> tuple[pd.DataFrame, Compared]:
    """`compare`, and the joined rows as `like_with_like` marked them, with each row's units (for the notes)."""
    if len(frames) < 2:
        raise PuzzleError("compare needs two sweeps or more")
    groups = by or shared_groups(list(frames.values()))
    summary, compared = summarized(_joined(frames), [*groups, SWEEP], family=groups)
    table = _aligned(summary, groups, list(frames))
    (first, _), *others = frames.items()
    done = {name: _done(compared.rows[compared.rows[SWEEP] == name]) for name in frames}
    keys, paired = [_key(key) for key in _keys(table, groups)], "board" not in groups
    for metric, (_, column, runs) in COMPARED.items():
        samples = {name: _samples(rows[rows[runs]], groups, column) for name, rows in done.items()}
        for name, _ in others:
            ours, theirs = table[f"{metric} {first}"], table[f"{metric} {name}"]
            table[f"{metric} Δ {name}"] = theirs - ours
            table[f"{metric} × {name}"] = theirs / ours.where(ours != 0)
            table[f"{metric} p {name}"] = [_p_value(samples[first].get(key, NO_SAMPLE), samples[name].get(key, NO_SAMPLE),
                                                    paired) for key in keys]
            table[f"{metric} q {name}"] = adjusted(table[f"{metric} p {name}"])
    return table[_column_order(groups, list(frames))], compared


def scipy_stats():
    """scipy.stats, imported on first use: it takes a second to import, which only `compare` pays."""
    from scipy import stats

    return stats


def adjusted(p_values: pd.Series) -> pd.Series:
    """The p-values adjusted for the false discovery rate across them (Benjamini–Hochberg); NaN stays NaN."""
    present = p_values.dropna()
    if present.empty:
        return p_values.astype(float)
    found = scipy_stats().false_discovery_control(present.to_numpy(dtype=float), method="bh")
    return pd.Series(found, index=present.index).reindex(p_values.index)


def test_note(table: pd.DataFrame) -> str:
    """The note naming a comparison's test and its correction for the rows compared."""
    return (f"p: Welch's t-test over the group's runs (a paired t-test over the boards' means where a group spans "
            f"boards); q: p adjusted for the false discovery rate (Benjamini–Hochberg) across the {len(table):,} rows, "
            f"per metric and sweep; * where q < {SIGNIFICANCE:g}")


def _joined(frames: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """The sweeps' rows in one frame, each row's sweep named in SWEEP, every sweep's parameter columns marked."""
    joined = pd.concat([rows.assign(**{SWEEP: name}) for name, rows in frames.items()], ignore_index=True)
    marked = dict.fromkeys(column for rows in frames.values() for column in parameter_columns(rows))
    return with_parameter_columns(joined, list(marked))


def shared_groups(frames: list[pd.DataFrame]) -> list[str]:
    """The algorithm and parameter columns every sweep has, with values they share and more than one of them."""
    candidates = ["algorithm", *dict.fromkeys(column for frame in frames for column in parameter_columns(frame))]
    shared = []
    for column in candidates:
        if not all(column in frame.columns for frame in frames):
            continue
        values = [set(frame[column].dropna().unique()) for frame in frames]
        if set.intersection(*values) and len(set.union(*values)) > 1:
            shared.append(column)
    return shared or ["algorithm"]


def _aligned(summary: pd.DataFrame, groups: list[str], names: list[str]) -> pd.DataFrame:
    """One row per group any sweep has: its common units, each sweep's jobs and compared metrics suffixed with its name."""
    table = summary.groupby(groups, dropna=False, sort=False)[["common", "shared", "units"]].max().reset_index()
    columns = {"jobs": "jobs", **{source: metric for metric, (source, _, _) in COMPARED.items()},
               **{own: f"{own} own" for own in OWN}}
    for name in names:
        part = summary.loc[summary[SWEEP] == name, groups + list(columns)].rename(
            columns={source: f"{shown} {name}" for source, shown in columns.items()}
        )
        table = table.merge(part, on=groups, how="left")
    return table.sort_values(groups, kind="stable", na_position="last").reset_index(drop=True)


def _keys(table: pd.DataFrame, groups: list[str]) -> list[tuple]:
    return list(table[groups].itertuples(index=False, name=None))


def _p_value(first: pd.Series, second: pd.Series, paired: bool) -> float:
    """The p-value of two sweeps' samples of a group (`_samples`): the paired t-test of their boards' means (`paired`,
    the boards both have a mean of), else Welch's t-test of their jobs' values."""
    if paired:
        both = pd.concat([first, second], axis=1, join="inner").dropna()
        return _quietly(scipy_stats().ttest_rel, both.iloc[:, 0], both.iloc[:, 1])
    return _quietly(partial(scipy_stats().ttest_ind, equal_var=False), first, second)


def _quietly(test, first: pd.Series, second: pd.Series) -> float:
    """The test's p-value, NaN for fewer than two values a side or values that do not vary (no warning)."""
    if min(len(first), len(second)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return float(test(first, second).pvalue)


def _done(rows: pd.DataFrame) -> pd.DataFrame:
    """The done jobs, with the solved share as 0/1 per job (unsolvable apart)."""
    return rows[rows["outcome"].notna()].assign(
        solved=lambda frame: frame["outcome"].eq("solved").astype(float).where(frame["outcome"].ne("unsolvable")))


def _samples(done: pd.DataFrame, groups: list[str], column: str) -> dict[tuple, pd.Series]:
    """Each group's sample of the metric (by `_key`), all groups at once: where the group spans boards, each board's
    mean (indexed by board, in board order), else its done jobs' values (missing ones left out)."""
    if "board" in groups:
        values = done.groupby(groups, dropna=False, sort=False)[column]
        return {_key(key if isinstance(key, tuple) else (key,)): part.dropna() for key, part in values}
    means = done.groupby([*groups, "board"], dropna=False, sort=False)[column].mean()
    if not groups:
        return {(): means.sort_index()}
    levels = list(range(len(groups)))
    return {_key(key if isinstance(key, tuple) else (key,)): part.droplevel(levels).sort_index()
            for key, part in means.groupby(level=levels, dropna=False, sort=False)}


def _key(values: tuple) -> tuple:
    """A group's key with its missing values as None, so that equal keys find each other."""
    return tuple(None if pd.isna(value) else value for value in values)


def _column_order(groups: list[str], names: list[str]) -> list[str]:
    others = names[1:]
    columns = [*groups, "common", "shared", "units", *(f"jobs {name}" for name in names)]
    for metric in COMPARED:
        columns += [f"{metric} {name}" for name in names]
        columns += [f"{metric} {kind} {name}" for name in others for kind in ("Δ", "×", "p", "q")]
    return columns + [f"{own} own {name}" for own in OWN for name in names]


def significant(q_value: float) -> bool:
    """True below the 5% level (of a p-value adjusted for the false discovery rate)."""
    return not math.isnan(q_value) and q_value < SIGNIFICANCE

