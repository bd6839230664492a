"""The job function: one search on one stored board, as plain data in and out.

`run_job` is what every execution mode calls, inside a `JobRunner` child that
caps its memory. It never raises for a search that goes wrong: a bad board, an
exception in the solver or an exhausted memory cap all come back as a
`JobResult`, so a worker records them and goes on. A job of plugins runs only
with exactly the plugins it was planned with (their distributions, versions and
sources): a worker that lacks them, or has another version, fails the job in one
line naming both. Every result carries its provenance: the code, the plugins
and the process that made it, and the job as it ran.
"""

import os
import traceback
from functools import lru_cache
from typing import Any

from puzzles.domains import problem_for
from puzzles.errors import PuzzleError
from puzzles.plugins import Origin, installed_keys, origins, plugins_key
from puzzles.problem import Problem
from puzzles.registry import ALGORITHMS
from puzzles.result import Limits
from puzzles.solver import solve
from workers import provenance
from workers.provenance import plugin_keys
from workers.store.records import JobInput, JobResult, utc_now


def run_job(job: JobInput) -> JobResult:
    """Run one job in this process; every failure is a result, never an exception."""
    started = utc_now()
    params, seed = job.params, job.seed
    try:
        lacking = lacking_plugins(job)
        if lacking is not None:
            result = JobResult.failure(lacking)
        else:
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


def lacking_plugins(job: JobInput) -> str | None:
    """None if this process has exactly the plugins `job` was planned with (or it runs none), else why it cannot run
    it: `needs plugin greedy-search 0.2.0 (source 3f2a9c1b07de); this worker has greedy-search 0.1.0`."""
    if job.plugins is None or _plugins_here(job) is not None:
        return None
    here = plugin_keys(" ".join(_keys_here()))
    needed = plugin_keys(job.plugins)
    lacked = [key for key in needed if key not in here] or needed
    return "; ".join(f"needs plugin {key.text}; this worker has {_alike(key, here)}" for key in lacked)


def _alike(needed: provenance.PluginKey, here: list[provenance.PluginKey]) -> str:
    """What this worker has of the distribution `needed` comes from: its versions (with their sources where the version
    is the same), or `no greedy-search`."""
    same = [key.text if key.version == needed.version else key.label for key in here
            if key.distribution == needed.distribution]
    return " and ".join(same) or f"no {needed.distribution}"


def _plugins_here(job: JobInput) -> tuple[Origin, ...] | None:
    """The plugins of the job's algorithm and heuristic in this process, if they are those it was planned with."""
    try:
        found = origins(job.domain, job.algorithm, job.params)
    except PuzzleError:  # its algorithm or heuristic is not here at all
        return None
    return found if plugins_key(found) == job.plugins else None


def _keys_here() -> list[str]:
    """The keys of every plugin this process has: those installed, and the files it loaded."""
    files = {entry.origin.key for entry in ALGORITHMS.values() if entry.origin is not None and entry.origin.local}
    return [*installed_keys(), *sorted(files)]


def stamped(result: JobResult, job: JobInput, params: dict[str, Any] | None = None, seed: int | None = None) -> JobResult:
    """`result` with the provenance of this process and of `job` as it ran (its own parameters by default), and the
    origins of the plugins that made it (`plugins`: none if it did not run them).

    A result made outside the job process (killed, or the process died) has
    no start time: it ends when it is stamped.
    """
    result.provenance = {**provenance.process(), "spec": job.described(job.params if params is None else params, seed)}
    if job.plugins is not None:
        result.provenance["plugins"] = [origin.as_dict() for origin in _plugins_here(job) or ()]
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
