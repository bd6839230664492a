"""Read paths of large sweeps: a done job's outcome on its row, and indexes that count and list without a scan of rows.

`jobs.outcome` repeats the outcome of the job's result (None while it has
none), so that `status`, `sweeps` and the dashboard count states and
outcomes by one GROUP BY over an index of `jobs` instead of joining
`results`. The indexes: (sweep, state, outcome, host) for those counts;
(sweep, id) for `jobs --limit`; (sweep, started) and (sweep, finished) for a
sweep's first start, last finish and recent pace.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-05
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

INDEXES = {
    "ix_jobs_sweep_id_status_outcome": ["sweep_id", "status", "outcome", "worker_host"],
    "ix_jobs_sweep_id_id": ["sweep_id", "id"],
    "ix_jobs_sweep_id_started_at": ["sweep_id", "started_at"],
    "ix_jobs_sweep_id_finished_at": ["sweep_id", "finished_at"],
}


def upgrade() -> None:
    # In place (recreate="never"): a copy of `jobs` would cascade-delete the results.
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.add_column(sa.Column("outcome", sa.String(16), nullable=True))
    op.execute("UPDATE jobs SET outcome = (SELECT results.outcome FROM results WHERE results.job_id = jobs.id)")
    op.drop_index("ix_jobs_sweep_id_status", table_name="jobs")
    for name, columns in INDEXES.items():
        op.create_index(name, "jobs", columns)


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="jobs")
    op.create_index("ix_jobs_sweep_id_status", "jobs", ["sweep_id", "status"])
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.drop_column("outcome")
