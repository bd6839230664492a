"""Like with like: a table's measures of runs are over the boards (and seeds) solved by every group it compares.

A mean of moves over the boards one row solved cannot be set beside another
row's over other boards. So every measure of a solution (`MEASURES`: moves,
steps, the gap) is kept only for the solved runs on the *common units*: the
units solved by every group of a *family* that solved any. Counts, the share
solved and the outcomes stay over all done jobs, and so do the measures of
effort (states, time, memory): every group of a family ran the same boards
and seeds, solved or not, so their costs already compare like with like.

- **Family**: the groups compared with one another. A report grouped by
  `algo,k` compares every row; grouped by algorithm, parameters and board,
  the rows of one board; `compare` the sweeps' sides of one row.
- **Unit**: a board, or a (board, seed) pair where the family's seeded groups
  ran the same seeds (`--seeds`); a job without a seed (a deterministic
  algorithm) then stands for every one of those seeds. Seeds derived per job
  (`--repeat`) pair nothing, so there the unit is the board. A board some job
  proved unsolvable is no unit.
- A group that solved nothing has no measures and does not narrow the others'
  units; where the groups that solved something share no unit, there is no
  common subset and no measure (`common` is 0).
"""

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from puzzles.result import Outcome

UNIT = ("board", "seed")
MEASURES = ("moves", "steps", "gap", "gap_moves")


def like_with_like(rows: pd.DataFrame, family: list[str], sides: list[str]) -> pd.DataFrame:
    """`rows` with their measures kept only on common units, and per row `common` and `units`, its family's counts.

    `family` are the columns whose values make a family; `sides` the columns
    that tell its compared groups apart. `common` is 0 for a row of a group
    that solved nothing.
    """
    unit = [column for column in UNIT if column not in (*family, *sides)]
    columns = list(dict.fromkeys([*family, *sides, "board", "seed", "outcome"]))
    codes = rows.groupby(columns, sort=False, dropna=False).ngroup().to_numpy()
    distinct = rows[columns].drop_duplicates()  # jobs alike in all these are alike here: each is worked on once
    seeds = [None if _missing(seed) else int(seed) for seed in distinct["seed"]]
    outcomes = [None if _missing(outcome) else outcome for outcome in distinct["outcome"]]
    jobs = [Job(*values) for values in zip(_keys(distinct, family), _keys(distinct, sides), distinct["board"], seeds,
                                           outcomes)]
    families: dict[Hashable, list[Job]] = {}
    for job in jobs:
        families.setdefault(job.family, []).append(job)
    found = {key: Family.of(members, unit) for key, members in families.items()}
    compared = [job.outcome == Outcome.SOLVED and bool(found[job.family].units_of(job) & found[job.family].common)
                for job in jobs]
    kept = pd.Series(np.array(compared, dtype=bool)[codes], index=rows.index)
    common = [len(found[job.family].common) if job.side in found[job.family].solving else 0 for job in jobs]
    return rows.assign(
        **{column: rows[column].where(kept) for column in MEASURES if column in rows.columns},
        common=np.array(common, dtype=int)[codes],
        units=np.array([found[job.family].count for job in jobs], dtype=int)[codes],
    )


def unit_noun(rows: pd.DataFrame, family: list[str], sides: list[str]) -> str:
    """What the counts of `like_with_like` count: `boards`, `board-seed pairs`, `seeds` or `runs`."""
    unit = [column for column in UNIT if column not in (*family, *sides)]
    seeded = "seed" in unit and rows["seed"].notna().any()
    if "board" in unit:
        return "board-seed pairs" if seeded else "boards"
    return "seeds" if seeded else "runs"


def footnote(noun: str, whom: str) -> str:
    """The note that says which runs a table's measures are over, and what its share solved counts."""
    return (f"moves, steps and gap: over the solved runs on the {noun} solved by {whom} (of those that solved any; "
            f"compared: how many of how many, none in common: no figure); states, time and memory: over all done jobs "
            f"(each ran the same boards); solved: of the done jobs, those proved unsolvable apart")


@dataclass(frozen=True)
class Job:
    """What a job brings to the units: its family and side, board, seed and outcome (None where it has none)."""

    family: tuple
    side: tuple
    board: str
    seed: int | None
    outcome: str | None


@dataclass(frozen=True)
class Family:
    """One family's units: the columns they are of, the seeds that pair runs, the common ones, how many, who solved."""

    unit: list[str]
    seeds: frozenset | None
    common: set
    count: int
    solving: set

    @classmethod
    def of(cls, members: list[Job], unit: list[str]) -> "Family":
        """The units solved by every side that solved any, and how many units its done jobs (on solvable boards) cover."""
        seeds = _shared_seeds(members) if "seed" in unit else None
        done = [job for job in members if job.outcome is not None]
        proven = {job.board for job in done if job.outcome == Outcome.UNSOLVABLE} if "board" in unit else set()
        family = cls(unit, seeds, set(), 0, {job.side for job in done if job.outcome == Outcome.SOLVED})
        every = set().union(*(family.units_of(job) for job in done if job.board not in proven))
        per_side: dict[tuple, set] = {}
        for job in done:
            if job.outcome == Outcome.SOLVED:
                per_side.setdefault(job.side, set()).update(family.units_of(job))
        common = set.intersection(*per_side.values()) & every if per_side else set()
        return replace(family, common=common, count=len(every))

    def units_of(self, job: Job) -> set:
        """The units a job stands for: its (board, seed), every shared seed for a job without one; its board alone
        when the family's seeds pair nothing."""
        board = (job.board,) if "board" in self.unit else ()
        if "seed" not in self.unit or self.seeds is None:
            return {board}
        if job.seed is None:
            return {(*board, seed) for seed in self.seeds}
        return {(*board, job.seed)} if job.seed in self.seeds else set()


def _shared_seeds(members: list[Job]) -> frozenset | None:
    """The seeds every seeded side of a family ran (`--seeds`), or None where they share none (derived seeds)."""
    seeds: dict[tuple, set] = {}
    for job in members:
        if job.seed is not None:
            seeds.setdefault(job.side, set()).add(job.seed)
    shared = frozenset(set.intersection(*seeds.values())) if seeds else frozenset()
    return shared or None


def _keys(rows: pd.DataFrame, columns: list[str]) -> list[tuple]:
    """Each row's values of `columns` as a tuple, missing values as None (so that equal keys compare equal)."""
    if not columns:
        return [()] * len(rows)
    return [tuple(None if _missing(value) else value for value in values)
            for values in rows[columns].itertuples(index=False, name=None)]


def _missing(value) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))
