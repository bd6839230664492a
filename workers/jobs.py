"""The job function: one search on one stored board, as plain data in and out.

`run_job` is what every execution mode calls, inside a `JobRunner` child that
caps its memory. It never raises for a search that goes wrong: a bad board, an
exception in the solver or an exhausted memory cap all come back as a
`JobResult`, so a worker records them and goes on. Every result carries its
provenance: the code and process that made it and the job as it ran.
"""

import os
import traceback
from functools import lru_cache
from typing import Any

from puzzles.domains import problem_for
from puzzles.problem import Problem
from puzzles.result import Limits
from puzzles.solver import solve
from workers import provenance
from workers.store.records import JobInput, JobResult, utc_now


def run_job(job: JobInput) -> JobResult:
    """Run one job in this process; every failure is a result, never an exception."""
    started = utc_now()
    params, seed = job.params, job.seed
    try:
        problem = _problem(job.domain, job.board_text, job.params.get("move_model"))
        limits = Limits(max_nodes=job.max_nodes, time_limit=job.time_limit)
        solved = solve(problem, job.algorithm, job.params, limits, seed=job.seed, planned=True)
        result, params, seed = JobResult.from_solve(solved), solved.params, solved.seed
    except MemoryError as err:
        detail = f": {err}" if str(err) else ""  # the raiser's words, e.g. how to build a pattern database beforehand
        result = JobResult.limit(f"out of memory (memory limit reached){detail}")
    except Exception as err:  # noqa: BLE001 - a job's failure is data; the worker goes on
        last = traceback.extract_tb(err.__traceback__)[-1]
        result = JobResult.failure(f"{type(err).__name__}: {err} ({last.filename}:{last.lineno})")
    result.started_at, result.finished_at = started, utc_now()
    return stamped(result, job, params, seed)


def stamped(result: JobResult, job: JobInput, params: dict[str, Any] | None = None, seed: int | None = None) -> JobResult:
    """`result` with the provenance of this process and of `job` as it ran (its own parameters by default).

    A result made outside the job process (killed, or the process died) has
    no start time: it ends when it is stamped.
    """
    result.provenance = {**provenance.process(), "spec": job.described(job.params if params is None else params, seed)}
    result.code_version = result.provenance["code_version"]
    result.finished_at = result.finished_at or utc_now()
    return result


def ran_by(result: JobResult, host: str) -> JobResult:
    """`result` with the worker host and the worker process that stored it."""
    result.host = host
    result.provenance = {**result.provenance, "host": host, "worker_pid": os.getpid()}
    return result


@lru_cache(maxsize=64)
def _problem(domain: str, text: str, move_model: str | None) -> Problem:
    """The problem of a board, parsed once per job process: a sweep runs many jobs on each board."""
    return problem_for(domain, text, move_model)
