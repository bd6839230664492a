"""Plugins: the plugins a job runs, the plugins a worker has, and algorithm names as long as a plugin file's path.

`jobs.plugins` holds the keys (`distribution==version#source-hash`) of the
plugins a job was planned with, its algorithm's and its heuristic's, space
separated; NULL for a job of slidelab's own. `workers.plugins` is the list of
keys a worker advertises: only a worker that has a job's plugins runs it.
`jobs.algorithm` grows from 32 characters to 255 (a plugin file's name is its
path); SQLite does not enforce the length, so only PostgreSQL's column changes.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.add_column(sa.Column("plugins", sa.Text(), nullable=True))
    with op.batch_alter_table("workers", recreate="never") as batch:
        batch.add_column(sa.Column("plugins", sa.JSON(), nullable=True))
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("jobs", "algorithm", type_=sa.String(255), existing_type=sa.String(32), existing_nullable=False)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.alter_column("jobs", "algorithm", type_=sa.String(32), existing_type=sa.String(255), existing_nullable=False)
    with op.batch_alter_table("workers", recreate="never") as batch:
        batch.drop_column("plugins")
    with op.batch_alter_table("jobs", recreate="never") as batch:
        batch.drop_column("plugins")
