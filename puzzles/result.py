"""What a search returns, and the limits it runs under."""

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """How a search ended."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"  # proven by exhausting the state space
    FAILED = "failed"  # an incomplete algorithm gave up (empty beam, no run reached the goal)
    LIMIT = "limit"  # a node, time or memory limit was hit


@dataclass(frozen=True)
class Limits:
    """Resource limits of one search; None means unlimited."""

    max_nodes: int | None = None
    time_limit: float | None = None


@dataclass
class SolveResult:
    """The outcome of one search with its counters.

    `solution` holds moves in the domain's notation (Rush Hour `X+3`); `moves` is
    its length and `steps` the cells moved (Rush Hour) or the moves (elsewhere).
    `expanded` counts states whose successors were generated, `generated` the
    successors, `stored` the states held at the end, `max_frontier` the largest
    open list. `elapsed_s` is the wall time of the search alone, `cpu_s` the
process's CPU time over it, `warmup_s` the time spent before it compiling or
loading the kernels. `peak_mem_bytes` is the peak resident memory of the process.
    """

    status: Status
    algorithm: str
    params: dict[str, Any]
    solution: list[str] = field(default_factory=list)
    moves: int | None = None
    steps: int | None = None
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    stored: int = 0
    elapsed_s: float = 0.0
    cpu_s: float = 0.0
    warmup_s: float = 0.0
    peak_mem_bytes: int = 0
    seed: int | None = None
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    move_codes: list[int] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data."""
        data = asdict(self)
        data["status"] = str(self.status)
        del data["move_codes"]
        return data


@dataclass
class Outcome:
    """What an algorithm module returns: the solver turns it into a `SolveResult`.

    `moves` are the domain's move codes; `reason` says which limit was hit.
    """

    status: Status
    moves: list[int] = field(default_factory=list)
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    stored: int = 0
    reason: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
