"""The ETA from the durations of a sweep's jobs by kind: a done job's seconds on its row, and an index to sum them by.

`jobs.seconds` repeats how long the job took in its process, less its
warm-up (`JobResult.run_seconds`), so that a sweep's remaining time is one
GROUP BY over an index of `jobs` (sweep, board, algorithm, parameters, state,
seconds) rather than a join with `results`. Results stored before have their
search time: their start and finish are datetimes, whose difference no SQL
both SQLite and PostgreSQL speak gives.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

INDEX = "ix_jobs_sweep_id_board_id"
COLUMNS = ["sweep_id", "board_id", "algorithm", "params", "status", "seconds"]


def upgrade() -> None:
    # In place (recreate="never"): a copy of `jobs` would cascade-delete the results.
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.add_column(sa.Column("seconds", sa.Float(), nullable=True))
    op.execute("UPDATE jobs SET seconds = (SELECT results.elapsed_s FROM results WHERE results.job_id = jobs.id)")
    op.create_index(INDEX, "jobs", COLUMNS)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="jobs")
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.drop_column("seconds")
