"""Results record their provenance: code version, host, process, timings and the job as it ran.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = (
    ("cpu_s", sa.Float()),
    ("warmup_s", sa.Float()),
    ("started_at", sa.DateTime(timezone=True)),
    ("finished_at", sa.DateTime(timezone=True)),
    ("host", sa.String(200)),
    ("code_version", sa.String(120)),
    ("provenance", sa.JSON()),
)


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        for name, kind in COLUMNS:
            batch.add_column(sa.Column(name, kind, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("results") as batch:
        for name, _ in reversed(COLUMNS):
            batch.drop_column(name)
