"""Board sets: named, ordered groups of boards (`--boards set:NAME`).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-07
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "board_sets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_board_sets")),
        sa.UniqueConstraint("name", name=op.f("uq_board_sets_name")),
    )
    op.create_table(
        "board_set_members",
        sa.Column("set_id", sa.Integer(), nullable=False),
        sa.Column("board_id", sa.String(64), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["set_id"], ["board_sets.id"], name=op.f("fk_board_set_members_set_id_board_sets"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], name=op.f("fk_board_set_members_board_id_boards")),
        sa.PrimaryKeyConstraint("set_id", "board_id", name=op.f("pk_board_set_members")),
    )


def downgrade() -> None:
    op.drop_table("board_set_members")
    op.drop_table("board_sets")
