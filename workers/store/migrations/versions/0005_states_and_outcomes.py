"""One status vocabulary: a job's lifecycle in `jobs.status`, a done job's outcome in `results.outcome`.

A job that raised was `failed`; it is now `done`, its result's outcome
`error` (which it already was). `results.status` becomes `results.outcome`.
The result columns take the types the fields of `JobResult` give them: the
solution's moves and steps as 64-bit integers, host and code version as text.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

RETYPED = (  # (column, type before, type after)
    ("moves", sa.Integer(), sa.BigInteger()),
    ("steps", sa.Integer(), sa.BigInteger()),
    ("host", sa.String(200), sa.Text()),
    ("code_version", sa.String(120), sa.Text()),
)


def upgrade() -> None:
    with op.batch_alter_table("results") as batch:
        batch.alter_column("status", new_column_name="outcome", existing_type=sa.String(16), existing_nullable=False)
        for name, before, after in RETYPED:
            batch.alter_column(name, type_=after, existing_type=before, existing_nullable=True)
    has_result = sa.text("EXISTS (SELECT 1 FROM results WHERE results.job_id = jobs.id)")
    op.execute(sa.text(f"UPDATE jobs SET status = 'done' WHERE status = 'failed' AND {has_result}"))
    op.execute(sa.text(f"UPDATE jobs SET status = 'pending' WHERE status = 'failed' AND NOT {has_result}"))


def downgrade() -> None:
    raised = sa.text("EXISTS (SELECT 1 FROM results WHERE results.job_id = jobs.id AND results.outcome = 'error')")
    op.execute(sa.text(f"UPDATE jobs SET status = 'failed' WHERE status = 'done' AND {raised}"))
    with op.batch_alter_table("results") as batch:
        for name, before, after in reversed(RETYPED):
            batch.alter_column(name, type_=before, existing_type=after, existing_nullable=True)
        batch.alter_column("outcome", new_column_name="status", existing_type=sa.String(16), existing_nullable=False)
