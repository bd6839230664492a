"""What a search returns, the limits it runs under, and the outcome vocabulary every layer shares.

A result's fields are declared once, in `Findings`: what a search found and
measured. The solver's `SolveResult`, an algorithm's `SearchReport`, the
runner's job result and the results table all derive theirs from it.
"""

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any, get_type_hints


class Outcome(StrEnum):
    """How a search, or a finished job, ended: one vocabulary from the kernels to the reports.

    A search ends SOLVED, UNSOLVABLE, FAILED or LIMIT. ERROR is never a
    search's own: the runner records it for a job that raised or whose process
    died. (A job's lifecycle, pending to done, is a separate vocabulary:
    `workers.store.states.JobState`.)
    """

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"  # proven by exhausting the state space (or by the N-puzzle's parity)
    FAILED = "failed"  # an incomplete algorithm gave up (empty beam, no run reached the goal)
    LIMIT = "limit"  # a node, time or memory limit was hit
    ERROR = "error"  # the job raised, or its process died


@dataclass(frozen=True)
class Limits:
    """Resource limits of one search; None means unlimited."""

    max_nodes: int | None = None
    time_limit: float | None = None


@dataclass(kw_only=True)
class Findings:
    """What a search found and measured.

    `moves` is the solution's length and `steps` the cells moved (Rush Hour) or
    the moves (elsewhere). `expanded` counts states whose successors were
    generated, `generated` the successors, `stored` the states held at the end,
    `max_frontier` the largest open list. `elapsed_s` is the wall time of the
    search alone, `cpu_s` the process's CPU time over it, `warmup_s` the time
    spent before it compiling or loading the kernels and tables (both None when
    not measured: a job stopped from outside its process). `peak_mem_bytes` is
    the peak resident memory of the process. `reason` says which limit was hit
    or why an incomplete algorithm gave up; `extra` holds an algorithm's own
    figures (BFS's counts per depth, IDA*'s last bound).
    """

    outcome: Outcome
    moves: int | None = None
    steps: int | None = None
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    stored: int = 0
    elapsed_s: float = 0.0
    cpu_s: float | None = None
    warmup_s: float | None = None
    peak_mem_bytes: int = 0
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def findings_of(result: Findings) -> dict[str, Any]:
    """The `Findings` fields of any result, by name: to build another kind of result from it."""
    return {item.name: getattr(result, item.name) for item in fields(Findings)}


def measures() -> tuple[str, ...]:
    """The numeric fields of `Findings`, in order: the counts and times a report aggregates."""
    hints = get_type_hints(Findings)
    return tuple(item.name for item in fields(Findings) if hints[item.name] in (int, float, int | None, float | None))


@dataclass(kw_only=True)
class SearchReport(Findings):
    """What an algorithm module returns: its findings and the path as the domain's move codes.

    The solver fills in what the algorithm does not know (the solution's
    length and steps, the times, the memory) and makes a `SolveResult`.
    """

    path: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class SolveResult(Findings):
    """The result of one search: the findings, the solution in the domain's notation (Rush Hour `X+3`), and what ran."""

    algorithm: str
    params: dict[str, Any]
    solution: list[str] = field(default_factory=list)
    seed: int | None = None
    move_codes: list[int] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data."""
        data = asdict(self)
        data["outcome"] = str(self.outcome)
        del data["move_codes"]
        return data
