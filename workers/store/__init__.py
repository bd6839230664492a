"""The storage layer: every table and every query of the results database, behind functions that speak the domain.

In the manner of Optuna's RDB storage, nothing outside this package builds
SQL. Hold a `Database` (`open_database(url)` to write, which creates or
migrates the schema; `open_existing(url)` to read, which changes nothing; or
`connect(url)` for a worker process, which only reads and writes rows; `database.open_read_only(url)` for the
dashboard, whose connections cannot write) and call:

- `states`: the two vocabularies, a job's lifecycle (`JobState`) and a done job's `Outcome`;
- `schema`: the tables (the results table derived from `records.JobResult`);
- `records`: `JobInput` and `JobResult`, what travels to and from job processes;
- `migrate`: the schema's history (Alembic), which `open_database` brings a database up to;
- `sweeps`: sweeps and their job rows;
- `jobs`: claiming jobs under leases, renewing and re-queueing lapsed leases, storing results once, giving jobs back;
- `boards`: boards, known optima and board sets;
- `progress`: counts, pace, hosts, listings and provenance for `status`, `sweeps`, `jobs`, `job`;
- `rows`: a sweep's jobs as flat rows for reports, exports, verification and spec files, its boards with their best solutions;
- `activity`: what goes on across sweeps, for the dashboard: jobs held, hosts, recent results.
"""

import importlib

__all__ = ["Database", "connect", "masked", "open_database", "open_existing"]


def __getattr__(name: str):
    """`Database`, `connect`, `masked`, `open_database` and `open_existing` of `workers.store.database`, imported on use.

    So a module that needs only the vocabularies (`workers.store.states`) does
    not load SQLAlchemy and Alembic.
    """
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module("workers.store.database"), name)
