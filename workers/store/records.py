"""What travels between the storage and the rest: a job's input in, its result out, a planned job, a stored job.

All are plain data (primitives through a pipe or a message). `JobResult`'s
fields are `puzzles.result.Findings` plus what only a stored result has; the
`results` table is derived from them (`workers.store.schema`).
"""

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any, NamedTuple

from puzzles.result import Findings, Outcome, SolveResult, findings_of
from workers.store.states import JobState


def utc_now() -> datetime:
    """The current time, in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class JobInput:
    """A job's input: everything its process needs to run it, as primitives that travel through a pipe or a message."""

    job_id: int
    domain: str
    board_text: str
    algorithm: str
    params: dict[str, Any]
    seed: int | None = None
    max_nodes: int | None = None
    time_limit: float | None = None
    memory_limit: int | None = None  # bytes the job may add to its process's address space
    board_id: str = ""
    plugins: str | None = None  # the plugins it was planned with (`puzzles.plugins.plugins_key`); None for slidelab's own

    def described(self, params: dict[str, Any], seed: int | None) -> dict[str, Any]:
        """The job as it ran: its board, algorithm, every parameter (defaults included), seed and limits.

        A result's provenance keeps it under the key `spec` (the name it was stored under first).
        """
        limits = {"max_nodes": self.max_nodes, "time_limit": self.time_limit, "memory_limit": self.memory_limit}
        return {"board_id": self.board_id, "domain": self.domain, "algorithm": self.algorithm,
                "params": params, "seed": seed, "limits": limits}


@dataclass(kw_only=True)
class JobResult(Findings):
    """A job's result as the `results` table stores it: the search's findings and where they came from.

    `solution` is the moves in the domain's notation, space-separated; `error`
    says why a job raised (outcome `error`); `started_at`/`finished_at`
    bracket the job in its process; `host`, `code_version` and `provenance`
    name the worker, the code and the machine (`workers.provenance`).
    """

    solution: str | None = None
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    host: str | None = None
    code_version: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_solve(cls, result: SolveResult) -> "JobResult":
        """The result of a finished search; the solution as space-separated moves."""
        plain = findings_of(result) | {"extra": json.loads(json.dumps(result.extra))}  # JSON types only
        return cls(**plain, solution=" ".join(result.solution) or None)

    @classmethod
    def limit(cls, reason: str, elapsed_s: float = 0.0) -> "JobResult":
        """A job stopped from outside: killed past its deadline or its memory cap."""
        return cls(outcome=Outcome.LIMIT, reason=reason, elapsed_s=elapsed_s)

    @classmethod
    def failure(cls, error: str) -> "JobResult":
        """A job that raised, or whose process died, instead of searching."""
        return cls(outcome=Outcome.ERROR, error=error)

    def run_seconds(self) -> float:
        """How long the job took in its process, less its warm-up (compiling or loading kernels, once a process): what
        a job of its kind costs a worker. Its search time if it has no start (stopped or made outside its process)."""
        if self.started_at is None or self.finished_at is None:
            return self.elapsed_s
        return max(0.0, (self.finished_at - self.started_at).total_seconds() - (self.warmup_s or 0.0))

    def to_row(self) -> dict[str, Any]:
        """The column values of its `results` row."""
        return {item.name: getattr(self, item.name) for item in fields(self)}


class PlannedJob(NamedTuple):
    """A job as a plan makes it and the store writes it: its board, algorithm, parameters, seed, repeat index, its
    key (a digest of all these and the sweep's name), which a job already stored is recognised by, and the plugins it
    runs (`puzzles.plugins.plugins_key`: None for slidelab's own), which the key leaves out.

    A named tuple rather than a frozen dataclass: a plan makes up to a million, and a frozen dataclass is made three
    times slower (its `__init__` sets each field through `object.__setattr__`).
    """

    board_id: str
    algorithm: str
    params: dict[str, Any]
    seed: int | None
    repeat: int
    job_key: str
    plugins: str | None = None


@dataclass(frozen=True, slots=True)
class JobRow:
    """A stored job: what it runs, its state, the worker that holds or last held it, its result (None until it
    has one), and the plugins it was planned with (None for slidelab's own)."""

    job_id: int
    board_id: str
    algorithm: str
    params: dict[str, Any]
    seed: int | None
    repeat: int
    state: JobState
    worker_host: str | None
    result: JobResult | None
    plugins: str | None = None

    @property
    def outcome(self) -> Outcome | None:
        """Its result's outcome, None without a result."""
        return self.result.outcome if self.result is not None else None
