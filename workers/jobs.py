"""The job function: one search on one stored board, as plain data in and out.

`run_job` is what every execution mode calls, inside a `JobRunner` child that
caps its memory. It never raises for a search that goes wrong: a bad board, an
exception in the solver or an exhausted memory cap all come back as a
`JobResult`, so a worker records them and goes on. Every result carries its
provenance: the code and process that made it and the job as it ran.
"""

import json
import os
import traceback
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from puzzles.domains import problem_for
from puzzles.problem import Problem
from puzzles.result import Limits, SolveResult, Status
from puzzles.solver import solve
from workers import provenance
from workers.db import utc_now

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
    board_id: str = ""

    def described(self, params: dict[str, Any], seed: int | None) -> dict[str, Any]:
        """The job as it ran: its board, algorithm, every parameter (defaults included), seed and limits."""
        limits = {"max_nodes": self.max_nodes, "time_limit": self.time_limit, "memory_limit": self.memory_limit}
        return {"board_id": self.board_id, "domain": self.domain, "algorithm": self.algorithm,
                "params": params, "seed": seed, "limits": limits}


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
    cpu_s: float = 0.0
    warmup_s: float = 0.0
    peak_mem_bytes: int = 0
    solution: str | None = None
    reason: str | None = None
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    started_at: datetime | None = None
    finished_at: datetime | None = None
    host: str | None = None
    code_version: str | None = None
    provenance: dict[str, Any] = field(default_factory=dict)

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
            cpu_s=result.cpu_s,
            warmup_s=result.warmup_s,
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

    def stamped(self, spec: JobSpec, params: dict[str, Any] | None = None, seed: int | None = None) -> "JobResult":
        """This result with the provenance of this process and of `spec` as it ran (its own parameters by default).

        A result made outside the job process (killed, or the process died) has
        no start time: it ends when it is stamped.
        """
        self.provenance = {**provenance.process(), "spec": spec.described(spec.params if params is None else params, seed)}
        self.code_version = self.provenance["code_version"]
        self.finished_at = self.finished_at or utc_now()
        return self

    def ran_by(self, host: str) -> "JobResult":
        """This result with the worker host and the worker process that stored it."""
        self.host = host
        self.provenance = {**self.provenance, "host": host, "worker_pid": os.getpid()}
        return self

    def to_row(self) -> dict[str, Any]:
        """The column values of its `results` row."""
        return dict(vars(self))


def run_job(spec: JobSpec) -> JobResult:
    """Run one job in this process; every failure is a result, never an exception."""
    started = utc_now()
    params, seed = spec.params, spec.seed
    try:
        problem = _problem(spec.domain, spec.board_text)
        limits = Limits(max_nodes=spec.max_nodes, time_limit=spec.time_limit)
        solved = solve(problem, spec.algorithm, spec.params, limits, seed=spec.seed)
        result, params, seed = JobResult.from_solve(solved), solved.params, solved.seed
    except MemoryError as err:
        detail = f": {err}" if str(err) else ""  # the raiser's words, e.g. how to build a pattern database beforehand
        result = JobResult.limit(f"out of memory (memory limit reached){detail}")
    except Exception as err:  # noqa: BLE001 - a job's failure is data; the worker goes on
        last = traceback.extract_tb(err.__traceback__)[-1]
        result = JobResult.failure(f"{type(err).__name__}: {err} ({last.filename}:{last.lineno})")
    result.started_at, result.finished_at = started, utc_now()
    return result.stamped(spec, params, seed)


@lru_cache(maxsize=64)
def _problem(domain: str, text: str) -> Problem:
    """The problem of a board, parsed once per job process: a sweep runs many jobs on each board."""
    return problem_for(domain, text)

