"""Verifying a sweep: its finished jobs run again, each result compared with the one stored.

Every job runs again as a worker runs it: its input read from the database,
under the sweep's limits, in a `JobRunner` child. Nothing is written. The
searches are deterministic (the randomized ones given their stored seed), so a
result that differs from the stored one means the code, or the database,
changed. A result stopped by a time or memory limit depends on the machine
and its load, not on the code: a stored one is skipped, a fresh one is
inconclusive. Node limits are deterministic and compared. A result that
another version of its plugins made than the one installed here is not run
again (a worker would refuse it): it is listed as of another plugin version.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestrator.sweeps.plan import PluginKeys
from orchestrator.sweeps.running import run_pool
from puzzles.errors import PuzzleError
from puzzles.result import Outcome
from workers.provenance import environment, plugins_text
from workers.runner import JobRunner, Lost
from workers.store import Database
from workers.store.jobs import job_inputs
from workers.store.records import JobInput, JobResult
from workers.store.rows import job_rows
from workers.store.sweeps import SweepRow

FIELDS = ("outcome", "moves", "steps", "expanded", "generated", "max_frontier", "stored", "solution")
MACHINE_BOUND = ("time limit", "memory")  # words of the reasons of limits that depend on the machine, not the code
IDENTICAL, DIFFERING, SKIPPED, INCONCLUSIVE = "identical", "differing", "skipped", "inconclusive"
OTHER_PLUGIN = "other plugin version"  # made by other plugins than those installed here: not run again
Progress = Callable[[int, int], None]  # (jobs run again so far, jobs to run)


@dataclass(frozen=True)
class StoredJob:
    """A finished job: what identifies it and the stored result a run again must reproduce."""

    job_id: int
    board: str
    algorithm: str
    params: dict[str, Any]
    seed: int | None
    code_version: str | None  # None for results stored before provenance
    result: dict[str, Any]  # the FIELDS of the stored result
    reason: str | None
    domain: str = ""
    plugins: str | None = None  # the key of the plugins that made it (None: slidelab's own)

    @property
    def reproducible(self) -> bool:
        """False for a result stopped by a time or memory limit."""
        return not machine_bound(self.result["outcome"], self.reason)


@dataclass(frozen=True)
class Difference:
    """One field whose value now is not the stored one."""

    field: str
    stored: Any
    now: Any


@dataclass(frozen=True)
class Check:
    """How one job's stored result compares with a run now."""

    job: StoredJob
    outcome: str  # IDENTICAL, DIFFERING, SKIPPED, INCONCLUSIVE or OTHER_PLUGIN
    differences: list[Difference] = field(default_factory=list)
    note: str | None = None  # why it was skipped or is inconclusive; the plugins installed, for OTHER_PLUGIN


@dataclass(frozen=True)
class Verification:
    """Every check of a sweep, against the code version running now."""

    sweep: str
    code_version: str
    finished: int  # the sweep's finished jobs, of which `checks` are all or a sample
    checks: list[Check]

    @property
    def other_versions(self) -> list[Check]:
        """The checks of jobs whose result another code version (or an unknown one) produced."""
        return [check for check in self.checks if check.job.code_version != self.code_version]

    @property
    def ok(self) -> bool:
        """True when no result differs and every job checked came from this code version and the plugins installed."""
        return not self.count(DIFFERING) and not self.other_versions and not self.count(OTHER_PLUGIN)

    def count(self, outcome: str) -> int:
        """How many checks had this outcome."""
        return sum(check.outcome == outcome for check in self.checks)

    def summary(self) -> dict[str, int]:
        """The counts: checked, identical, differing, other code version, other plugin version, skipped, inconclusive."""
        return {"checked": len(self.checks), IDENTICAL: self.count(IDENTICAL), DIFFERING: self.count(DIFFERING),
                "other_code_version": len(self.other_versions), "other_plugin_version": self.count(OTHER_PLUGIN),
                SKIPPED: self.count(SKIPPED), INCONCLUSIVE: self.count(INCONCLUSIVE)}

    def to_dict(self) -> dict[str, Any]:
        """The verification as plain JSON-ready data."""
        return {
            "sweep": self.sweep,
            "code_version": self.code_version,
            "finished": self.finished,
            "ok": self.ok,
            "summary": self.summary(),
            "differences": [
                {**_identity(check.job), "field": d.field, "stored": d.stored, "now": d.now}
                for check in self.checks for d in check.differences
            ],
            "other_code_version": [{**_identity(c.job), "code_version": c.job.code_version} for c in self.other_versions],
            "other_plugin_version": [{**_identity(c.job), "plugins": c.job.plugins, "installed": c.note}
                                     for c in self.checks if c.outcome == OTHER_PLUGIN],
            "not_compared": [
                {**_identity(c.job), "outcome": c.outcome, "reason": c.note}
                for c in self.checks if c.outcome in (SKIPPED, INCONCLUSIVE)
            ],
        }


@dataclass(frozen=True)
class Selection:
    """The finished jobs of a sweep chosen for verification."""

    sweep: str
    finished: int  # the sweep's finished jobs, of which `jobs` are all or a sample
    jobs: list[StoredJob]


def select_jobs(db: Database, sweep: SweepRow, *, sample: int | None = None, sample_seed: int = 0) -> Selection:
    """The sweep's finished jobs, or `sample` of them drawn with `sample_seed`; PuzzleError if there is nothing to check."""
    if sample is not None and sample < 1:
        raise PuzzleError(f"--sample must be at least 1, not {sample}")
    stored = finished_jobs(db, sweep)
    if not stored:
        raise PuzzleError(f"sweep {sweep.name!r} has no finished jobs to verify")
    return Selection(sweep.name, len(stored), sampled(stored, sample, sample_seed))


def verify(db: Database, selection: Selection, *, workers: int = 1, progress: Progress | None = None) -> Verification:
    """Run the selected jobs again, `workers` at once, and compare each result with the stored one; writes nothing.

    A job whose plugins are installed here in another version is not run: its check says which (OTHER_PLUGIN).
    """
    others = other_plugins(selection.jobs)
    reproducible = [job.job_id for job in selection.jobs if job.reproducible and job.job_id not in others]
    runs = rerun(job_inputs(db, reproducible), workers, progress)
    checks = [Check(job, OTHER_PLUGIN, note=others[job.job_id]) if job.job_id in others
              else compare(job, runs.get(job.job_id)) for job in selection.jobs]
    return Verification(selection.sweep, environment()["code_version"], selection.finished, checks)


def other_plugins(jobs: list[StoredJob]) -> dict[int, str]:
    """The jobs among `jobs` whose plugins differ from those installed here: what is installed (`greedy-search 0.2.0
    (source ...)`, `none` where the plugin is not), by job id."""
    installed = PluginKeys()
    found: dict[int, str] = {}
    for job in jobs:
        if job.plugins is None:
            continue
        try:
            now = installed(job.domain, job.algorithm, job.params)
        except PuzzleError:
            found[job.job_id] = "none"
            continue
        if now != job.plugins:
            found[job.job_id] = plugins_text(now)
    return found


def finished_jobs(db: Database, sweep: SweepRow) -> list[StoredJob]:
    """The sweep's jobs that have a result, in id order."""
    return [
        StoredJob(job.job_id, board.name or board.id[:12], job.algorithm, job.params, job.seed,
                  job.result.code_version, {name: getattr(job.result, name) for name in FIELDS}, job.result.reason,
                  board.domain, job.plugins)
        for job, board in job_rows(db, sweep)
        if job.result is not None
    ]


def sampled(jobs: list[StoredJob], size: int | None, seed: int) -> list[StoredJob]:
    """`size` of the jobs drawn at random (the same ones for the same seed), in id order; all of them without a size."""
    if size is None or size >= len(jobs):
        return jobs
    return sorted(random.Random(seed).sample(jobs, size), key=lambda job: job.job_id)


def rerun(jobs: list[JobInput], workers: int, progress: Progress | None = None) -> dict[int, JobResult | Lost]:
    """Each job run again in a `JobRunner`, `workers` at once: its result (or how its process was lost) by job id."""
    results: dict[int, JobResult | Lost] = {}

    def run(runner: JobRunner, job: JobInput) -> None:
        results.update((done.job_id, result) for done, result in runner.run([job]))

    def report() -> None:
        if progress:
            progress(len(results), len(jobs))

    run_pool(jobs, workers, run, report)
    report()
    return results


def compare(job: StoredJob, now: JobResult | Lost | None) -> Check:
    """The check of one job given its result now (None: not run again, as its stored result is not reproducible;
    Lost: its process died under it, so nothing says whether it would run alike)."""
    if not job.reproducible or now is None:
        return Check(job, SKIPPED, note=job.reason)
    if isinstance(now, Lost):
        return Check(job, INCONCLUSIVE, note=now.cause)
    if machine_bound(now.outcome, now.reason):
        return Check(job, INCONCLUSIVE, note=now.reason)
    differences = [
        Difference(name, job.result[name], getattr(now, name)) for name in FIELDS if job.result[name] != getattr(now, name)
    ]
    return Check(job, DIFFERING if differences else IDENTICAL, differences)


def machine_bound(outcome: str, reason: str | None) -> bool:
    """True for a result stopped by a time or memory limit, which a run elsewhere need not repeat."""
    return outcome == Outcome.LIMIT and any(word in (reason or "") for word in MACHINE_BOUND)


def _identity(job: StoredJob) -> dict[str, Any]:
    return {"job_id": job.job_id, "board": job.board, "algorithm": job.algorithm, "params": job.params,
            "seed": job.seed}
