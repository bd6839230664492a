"""Leases: a running job names its worker and carries `lease_until`, which the worker's heartbeat renews.

`lost` counts the times a job's worker (or its job process) went away without
a result; a job lost `max_attempts` times is stored as an error.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("lost", sa.Integer(), nullable=False, server_default="0"))
        batch.create_index("ix_jobs_status_lease_until", ["status", "lease_until"])


def downgrade() -> None:
    # In place (ALTER TABLE ... DROP COLUMN, SQLite 3.35+): a copy of `jobs` would cascade-delete the results.
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.drop_index("ix_jobs_status_lease_until")
        batch.drop_column("lost")
        batch.drop_column("lease_until")
