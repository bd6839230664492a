"""The storage layer: every table and every query of the results database, behind functions that speak the domain.

In the manner of Optuna's RDB storage, nothing outside this package builds
SQL. Hold a `Database` (`open_database(url)`, or `connect(url)` for a process
that only reads and writes rows) and call:

- `states`: the two vocabularies, a job's lifecycle (`JobState`) and a done job's `Outcome`;
- `schema`: the tables (the results table derived from `records.JobResult`);
- `records`: `JobSpec` and `JobResult`, what travels to and from job processes;
- `sweeps`: sweeps and their job rows;
- `jobs`: claiming jobs, storing results once, giving jobs back, marking them queued;
- `boards`: boards, known optima and board sets;
- `progress`: counts, pace, hosts, listings and provenance for `status`, `sweeps`, `jobs`, `job`;
- `rows`: a sweep's jobs as flat rows for reports, exports, verification and specs.
"""

from workers.store.database import Database, connect, masked, open_database

__all__ = ["Database", "connect", "masked", "open_database"]
