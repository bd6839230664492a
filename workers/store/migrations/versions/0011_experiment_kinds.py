"""Experiment kinds: each row of `sweeps` says its kind (grid, study, split, optimum) and keeps its kind's definition.

`sweeps.spec` held three shapes told apart by their keys: a grid, `{"optimum":
[grids]}` (the optima sweep, planned in parts) and `{"study": {...}}`. The
column is renamed `definition` and holds the kind's own definition; `kind`
says which. A grid sweep's definition is its grid, unchanged; a study's is
what was under "study"; an optimum proof's is `{"parts": [grids]}` (the optima
sweep of one part was stored as a plain grid under the name `optimum` or
`optimum-<digest>`). The subtree sweeps of earlier split searches (one per
bound) stay grid sweeps. `cancelled_at` marks an experiment cancelled, so that
its driver proposes no more jobs until it is resumed.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

import json
import re

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

OPTIMUM_NAME = re.compile(r"optimum(-[0-9a-f]{8})?")  # the names orchestrator.sweeps.optima gives its sweeps
_DEFINITION = sa.bindparam("definition", type_=sa.JSON())  # a dict, written as each dialect writes JSON
_UPDATE_KIND = sa.text("UPDATE sweeps SET kind = :kind, definition = :definition WHERE id = :id").bindparams(_DEFINITION)
_UPDATE = sa.text("UPDATE sweeps SET definition = :definition WHERE id = :id").bindparams(_DEFINITION)


def upgrade() -> None:
    # In place (recreate="never"): a copy of `sweeps` would cascade-delete the jobs.
    with op.batch_alter_table("sweeps", recreate="never") as batch:
        batch.alter_column("spec", new_column_name="definition", existing_type=sa.JSON(), existing_nullable=False)
        batch.add_column(sa.Column("kind", sa.String(16), nullable=False, server_default="grid"))
        batch.add_column(sa.Column("cancelled_at", sa.DateTime(timezone=True), nullable=True))
    connection = op.get_bind()
    for sweep_id, name, stored in connection.execute(sa.text("SELECT id, name, definition FROM sweeps")).all():
        kind, definition = _kind_of(name, _loaded(stored))
        if kind != "grid":
            connection.execute(_UPDATE_KIND, {"kind": kind, "definition": definition, "id": sweep_id})


def downgrade() -> None:
    connection = op.get_bind()
    for sweep_id, kind, stored in connection.execute(sa.text("SELECT id, kind, definition FROM sweeps")).all():
        definition = _loaded(stored)
        if kind == "study":
            connection.execute(_UPDATE, {"definition": {"study": definition}, "id": sweep_id})
        elif kind == "optimum":
            parts = definition["parts"]
            old = parts[0] if len(parts) == 1 else {"optimum": parts}
            connection.execute(_UPDATE, {"definition": old, "id": sweep_id})
    with op.batch_alter_table("sweeps", recreate="never") as batch:
        batch.drop_column("cancelled_at")
        batch.drop_column("kind")
        batch.alter_column("definition", new_column_name="spec", existing_type=sa.JSON(), existing_nullable=False)


def _kind_of(name: str, stored: dict) -> tuple[str, dict]:
    """The kind of a sweep row of the old shapes, and its definition."""
    if "study" in stored:
        return "study", stored["study"]
    if "optimum" in stored:
        return "optimum", {"parts": stored["optimum"]}
    if "algorithms" in stored and OPTIMUM_NAME.fullmatch(name):
        return "optimum", {"parts": [stored]}
    return "grid", stored


def _loaded(stored: object) -> dict:
    """A JSON column's value as read by plain SQL: text on SQLite, already decoded by psycopg on PostgreSQL."""
    return json.loads(stored) if isinstance(stored, str) else dict(stored)  # type: ignore[call-overload]
