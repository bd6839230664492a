"""Like with like: every comparative figure is over the units every compared side has a value for.

A mean of moves, states or time over the boards one row solved cannot be set
beside another row's over other boards, and a failed run's few hundred
expansions make a search look cheaper than one that solved the board. So a
table keeps two kinds of figures apart:

- **Own figures** of a group: its moves over its own solved runs, its states,
  time and memory over its own done runs. They describe the group alone.
- **Common figures** (`*_common`, ratios, differences, p and q, the best
  marks): over the *common units* of a *family*, the units solved by every
  side of the family that solved any. A side that solved nothing has no
  common figures and does not narrow the others' (it is named as not
  compared); where the solving sides share no unit, no common figure exists.

- **Family**: the groups compared with one another. A report grouped by
  `algo,k` compares every row; grouped by algorithm, parameters and board,
  the rows of one board; `compare` the sweeps' sides of one row.
- **Unit**: a board, or a (board, seed) pair where the family's seeded sides
  ran the same seeds (`--seeds`); a job without a seed (a deterministic
  algorithm) then stands for every one of those seeds. Seeds derived per job
  (`--repeat`) pair nothing, so there the unit is the board. A board some job
  proved unsolvable is no unit.
- **Shared units**: those every side of the family ran (a done job); a unit
  only some sides ran is *left out* of every comparison and named
  (`left_out`). The share solved of a comparison is over the shared units.
"""

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from puzzles.result import Outcome

UNIT = ("board", "seed")
SWEEP = "sweep"  # the column naming each row's sweep where sweeps' rows are joined to be compared


@dataclass(frozen=True)
class Job:
    """What a job brings to the units: its family and side, board, seed and outcome (None where it has none)."""

    family: tuple
    side: tuple
    board: str
    seed: int | None
    outcome: str | None


@dataclass
class Family:
    """One family's units: the columns they are of, the seeds that pair runs, and per side what it ran and solved."""

    unit: list[str]
    seeds: frozenset | None
    ran: dict[tuple, set] = field(default_factory=dict)
    solved: dict[tuple, set] = field(default_factory=dict)
    proven: set = field(default_factory=set)

    @classmethod
    def of(cls, members: list[Job], unit: list[str]) -> "Family":
        """The units each side of a family ran and solved (boards proved unsolvable left out)."""
        family = cls(unit, _shared_seeds(members) if "seed" in unit else None)
        done = [job for job in members if job.outcome is not None]
        if "board" in unit:
            family.proven = {job.board for job in done if job.outcome == Outcome.UNSOLVABLE}
        for job in members:
            family.ran.setdefault(job.side, set())
        for job in done:
            if job.board in family.proven:
                continue
            units = family.units_of(job)
            family.ran[job.side].update(units)
            if job.outcome == Outcome.SOLVED:
                family.solved.setdefault(job.side, set()).update(units)
        return family

    @property
    def every(self) -> set:
        """The units any side ran."""
        return set().union(*self.ran.values())

    @property
    def shared(self) -> set:
        """The units every side ran (of the sides that finished any job)."""
        ran = [units for units in self.ran.values() if units]
        return set.intersection(*ran) if ran else set()

    @property
    def common(self) -> set:
        """The shared units solved by every side that solved any."""
        return set.intersection(*self.solved.values()) & self.shared if self.solved else set()

    def left_out(self) -> dict[tuple, set]:
        """Per side, the units it ran that some other side did not (so no comparison includes them)."""
        shared = self.shared
        return {side: units - shared for side, units in self.ran.items() if units - shared}

    def units_of(self, job: Job) -> set:
        """The units a job stands for: its (board, seed), every shared seed for a job without one; its board alone
        when the family's seeds pair nothing."""
        board = (job.board,) if "board" in self.unit else ()
        if "seed" not in self.unit or self.seeds is None:
            return {board}
        if job.seed is None:
            return {(*board, seed) for seed in self.seeds}
        return {(*board, job.seed)} if job.seed in self.seeds else set()


@dataclass(frozen=True)
class Compared:
    """Rows marked for comparison (`like_with_like`), and each family's units by its key."""

    rows: pd.DataFrame
    families: dict[tuple, Family]
    noun: str


def like_with_like(rows: pd.DataFrame, family: list[str], sides: list[str]) -> Compared:
    """`rows` with per row `shared_run` and `common_run` (see the module docstring) and its family's counts: `common`
    (0 for a side that solved nothing), `shared` and `units` (the units any side ran).

    `family` are the columns whose values make a family; `sides` the columns
    that tell its compared groups apart.
    """
    unit = [column for column in UNIT if column not in (*family, *sides)]
    columns = list(dict.fromkeys([*family, *sides, "board", "seed", "outcome"]))
    codes = rows.groupby(columns, sort=False, dropna=False).ngroup().to_numpy()
    distinct = rows[columns].drop_duplicates()  # jobs alike in all these are alike here: each is worked on once
    seeds = [None if _missing(seed) else int(seed) for seed in distinct["seed"]]
    outcomes = [None if _missing(outcome) else outcome for outcome in distinct["outcome"]]
    jobs = [Job(*values) for values in zip(_keys(distinct, family), _keys(distinct, sides), distinct["board"], seeds,
                                           outcomes)]
    members: dict[tuple, list[Job]] = {}
    for job in jobs:
        members.setdefault(job.family, []).append(job)
    found = {key: Family.of(group, unit) for key, group in members.items()}
    shared = {key: each.shared for key, each in found.items()}
    common = {key: each.common for key, each in found.items()}
    every = {key: len(each.every) for key, each in found.items()}
    shared_run = [job.outcome is not None and bool(found[job.family].units_of(job) & shared[job.family]) for job in jobs]
    common_run = [job.outcome == Outcome.SOLVED and bool(found[job.family].units_of(job) & common[job.family])
                  for job in jobs]
    counts = {
        "common": [len(common[job.family]) if job.side in found[job.family].solved else 0 for job in jobs],
        "shared": [len(shared[job.family]) for job in jobs],
        "units": [every[job.family] for job in jobs],
    }
    marked = rows.assign(
        shared_run=np.array(shared_run, dtype=bool)[codes],
        common_run=np.array(common_run, dtype=bool)[codes],
        **{name: np.array(values, dtype=int)[codes] for name, values in counts.items()},
    )
    return Compared(marked, found, unit_noun(rows, family, sides))


def unit_noun(rows: pd.DataFrame, family: list[str], sides: list[str]) -> str:
    """What the counts of `like_with_like` count: `boards`, `board-seed pairs`, `seeds` or `runs`."""
    unit = [column for column in UNIT if column not in (*family, *sides)]
    seeded = "seed" in unit and rows["seed"].notna().any()
    if "board" in unit:
        return "board-seed pairs" if seeded else "boards"
    return "seeds" if seeded else "runs"


def unit_text(unit: tuple) -> str:
    """A unit as a note names it: `Rushhour6x6_3`, `Rushhour6x6_3 seed 2`, `seed 2`."""
    parts = [str(unit[0])] if unit and isinstance(unit[0], str) else []
    parts += [f"seed {value}" for value in unit[len(parts):] if value is not None]
    return " ".join(parts) or "the run"


def names_text(units: set, most: int = 5) -> str:
    """The first `most` units by name, then how many more: `Rushhour6x6_3, Rushhour9x9_4 and 3 more`."""
    named = sorted(unit_text(unit) for unit in units)
    shown = ", ".join(named[:most])
    return shown + (f" and {len(named) - most:,} more" if len(named) > most else "")


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
