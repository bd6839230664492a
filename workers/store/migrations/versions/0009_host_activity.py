"""The dashboard's hosts without a scan of every result: an index of `results` on (host, finished_at).

A host's results and its last one are counted from the index alone, and its
results of the last half hour are a range of it. Every result now says when
it finished: one that did not is given its job's finish (what the dashboard
read in its place before).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE results SET finished_at = (SELECT jobs.finished_at FROM jobs WHERE jobs.id = results.job_id)"
               " WHERE finished_at IS NULL")
    op.create_index("ix_results_host_finished_at", "results", ["host", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_results_host_finished_at", table_name="results")
