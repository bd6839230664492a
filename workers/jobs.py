"""The job function: one search on one stored board, as plain data in and out.

`run_job` is what every execution mode calls, inside a `JobRunner` child that
caps its memory. It never raises for a search that goes wrong: a bad board, an
exception in the solver or an exhausted memory cap all come back as a
`JobResult`, so a worker records them and goes on.
"""

import json
import traceback
from dataclasses import dataclass, field
from typing import Any

from puzzles.domains import problem_for
from puzzles.result import Limits, SolveResult, Status
from puzzles.solver import solve

ERROR = "error"  # a result status of its own: the job raised, it did not search


@dataclass(frozen=True)
class JobSpec:
    """Everything a job needs, as primitives that travel through a pipe or a message."""

    job_id: int
    domain: str
    board_text: str
    algorithm: str
    params: dict[str, Any]
    seed: int | None = None
    max_nodes: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None  # bytes the job may add to its process's address space


@dataclass
class JobResult:
    """A job's outcome, shaped like a row of the `results` table."""

    status: str
    moves: int | None = None
    steps: int | None = None
    expanded: int = 0
    generated: int = 0
    max_frontier: int = 0
    stored: int = 0
    elapsed_s: float = 0.0
    peak_mem_bytes: int = 0
    solution: str | None = None
    reason: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_solve(cls, result: SolveResult) -> "JobResult":
        """The row of a finished search; the solution as space-separated moves."""
        return cls(
            status=str(result.status),
            moves=result.moves,
            steps=result.steps,
            expanded=result.expanded,
            generated=result.generated,
            max_frontier=result.max_frontier,
            stored=result.stored,
            elapsed_s=result.elapsed_s,
            peak_mem_bytes=result.peak_mem_bytes,
            solution=" ".join(result.solution) if result.solution else None,
            reason=result.reason,
            extra=json.loads(json.dumps(result.extra)),
        )

    @classmethod
    def limit(cls, reason: str, elapsed_s: float = 0.0) -> "JobResult":
        """A job stopped from outside: killed past its deadline or its memory cap."""
        return cls(status=str(Status.LIMIT), reason=reason, elapsed_s=elapsed_s)

    @classmethod
    def failure(cls, error: str) -> "JobResult":
        """A job that raised instead of searching."""
        return cls(status=ERROR, error=error)

    def to_row(self) -> dict[str, Any]:
        """The column values of its `results` row."""
        return dict(vars(self))


def run_job(spec: JobSpec) -> JobResult:
    """Run one job in this process; every failure is a result, never an exception."""
    try:
        problem = problem_for(spec.domain, spec.board_text)
        limits = Limits(max_nodes=spec.max_nodes, time_limit=spec.time_limit)
        return JobResult.from_solve(solve(problem, spec.algorithm, spec.params, limits, seed=spec.seed))
    except MemoryError:
        return JobResult.limit("out of memory (memory limit reached)")
    except Exception as err:  # noqa: BLE001 - a job's failure is data; the worker goes on
        last = traceback.extract_tb(err.__traceback__)[-1]
        return JobResult.failure(f"{type(err).__name__}: {err} ({last.filename}:{last.lineno})")
