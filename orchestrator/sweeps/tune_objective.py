"""A study's objectives: which result column, aggregated how over the boards, minimized or maximized, and what an
unsolved job counts as.

A trial's value is worked out from its stored jobs alone (`trial_value`), so a
report recomputes it from the database as `tune` told it to Optuna. Each board's
value is the mean over its runs (seeds, repeats); the boards' values are then
aggregated: `mean`, `max`, or `gmean-ratio` (the geometric mean of each board's
value over its known optimum, for moves). An unsolved job's value is the
`--unsolved` penalty, or it fails the trial (`fail`); for `solved` (the share
solved) an unsolved job is a 0.
"""

import math
from dataclasses import dataclass
from typing import Any

from puzzles.errors import PuzzleError
from puzzles.result import Outcome
from puzzles.textio import quote
from workers.store.records import JobRow
from workers.store.states import JobState

COLUMNS = ("moves", "steps", "expanded", "generated", "elapsed_s", "peak_mem_bytes", "solved")
AGGREGATES = ("mean", "gmean-ratio", "max")
DIRECTIONS = {"min": "minimize", "max": "maximize"}
SOLVED = "solved"
FAIL = "fail"


@dataclass(frozen=True)
class Objective:
    """One objective: a result column (or `solved`) and its direction (`minimize`, `maximize`)."""

    column: str
    direction: str

    def text(self) -> str:
        """As the command line writes it: `moves:min`."""
        return f"{self.column}:{self.direction[:3]}"


@dataclass(frozen=True)
class Scoring:
    """How a trial's jobs become its values: the objectives, the aggregate over boards, and the unsolved rule."""

    objectives: tuple[Objective, ...]
    aggregate: str = "mean"
    penalty: float | None = None  # None: an unsolved job fails the trial

    def to_json(self) -> dict[str, Any]:
        """As a study's stored spec keeps it."""
        return {"objectives": [o.text() for o in self.objectives], "aggregate": self.aggregate, "unsolved": self.unsolved_text()}

    def unsolved_text(self) -> str:
        """`penalty:VALUE` or `fail`, as given."""
        return FAIL if self.penalty is None else f"penalty:{self.penalty:g}"


class TrialFailed(Exception):
    """A trial without a value: an unsolved job under `--unsolved fail`, or a job that raised."""


def parse_scoring(objectives: str, aggregate: str, unsolved: str) -> Scoring:
    """The scoring of the command line's texts (`moves,elapsed_s:min`, `mean`, `penalty:100`); PuzzleError if bad."""
    parsed = tuple(_objective(item.strip()) for item in objectives.split(","))
    if len({o.column for o in parsed}) != len(parsed):
        raise PuzzleError(f"--objective: a column named twice in {quote(objectives)}")
    if aggregate not in AGGREGATES:
        raise PuzzleError(f"--aggregate: {quote(aggregate)} is not one of {', '.join(AGGREGATES)}")
    if aggregate == "gmean-ratio" and any(o.column != "moves" for o in parsed):
        raise PuzzleError("--aggregate gmean-ratio: ratios are to the known optimum in moves, so the objective is moves")
    return Scoring(parsed, aggregate, _penalty(unsolved))


def _objective(item: str) -> Objective:
    column, _, direction = item.partition(":")
    if column not in COLUMNS:
        raise PuzzleError(f"--objective: {quote(column)} is not a result column (choose from {', '.join(COLUMNS)})")
    if direction and direction not in DIRECTIONS:
        raise PuzzleError(f"--objective: {quote(item)}: the direction is min or max")
    default = "max" if column == SOLVED else "min"
    return Objective(column, DIRECTIONS[direction or default])


def _penalty(text: str) -> float | None:
    if text == FAIL:
        return None
    word, _, value = text.partition(":")
    try:
        penalty = float(value)
    except ValueError:
        penalty = math.nan
    if word != "penalty" or not math.isfinite(penalty):
        raise PuzzleError(f"--unsolved: {quote(text)} is neither fail nor penalty:VALUE (e.g. penalty:100)")
    return penalty


def job_value(job: JobRow, column: str, penalty: float | None) -> float:
    """A done job's value in `column`, a field of its result; TrialFailed if it may not count."""
    solved = job.outcome == Outcome.SOLVED
    if column == SOLVED:
        return 1.0 if solved else 0.0
    if job.result is not None and job.result.outcome == Outcome.ERROR:
        raise TrialFailed(f"job {job.job_id} raised: {job.result.error or 'no message'}")
    value = getattr(job.result, column, None)
    if solved and value is not None:
        return float(value)
    if penalty is None:
        raise TrialFailed(f"job {job.job_id} ended {job.outcome} (--unsolved fail)")
    return penalty


def board_values(jobs: list[JobRow], boards: list[str], column: str, penalty: float | None) -> list[float]:
    """Each board's value, in the order of `boards` (ids), over those boards whose runs are all done."""
    values = []
    for board in boards:
        runs = [job for job in jobs if job.board_id == board]
        if not runs or any(job.state != JobState.DONE for job in runs):
            break
        values.append(sum(job_value(job, column, penalty) for job in runs) / len(runs))
    return values


def aggregate(values: list[float], how: str, optima: list[int | None]) -> float:
    """The boards' values aggregated: mean, max, or the geometric mean of the ratios to the boards' optima."""
    if how == "max":
        return max(values)
    if how == "mean":
        return sum(values) / len(values)
    ratios = [value / optimum if optimum else math.nan for value, optimum in zip(values, optima)]
    return math.exp(sum(math.log(ratio) if ratio > 0 else -math.inf for ratio in ratios) / len(ratios))


def trial_values(scoring: Scoring, jobs: list[JobRow], boards: list[str], optima: list[int | None]) -> list[float]:
    """A finished trial's values, one per objective; TrialFailed if a job may not count."""
    return [aggregate(board_values(jobs, boards, o.column, scoring.penalty), scoring.aggregate, optima)
            for o in scoring.objectives]


def step_value(scoring: Scoring, jobs: list[JobRow], boards: list[str], optima: list[int | None]) -> tuple[int, float] | None:
    """The pruning step a running trial reached (boards fully done, less one) and its value over those boards; None
    before the first board is done. TrialFailed if a job may not count."""
    values = board_values(jobs, boards, scoring.objectives[0].column, scoring.penalty)
    if not values:
        return None
    return len(values) - 1, aggregate(values, scoring.aggregate, optima)
