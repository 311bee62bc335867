"""The ledger tells buy-ins apart (its ``kind``): a database made before gets the column, and
its buy-ins are marked, the entries of the actions that issued chips (joins and top-ups, the
only ones that may). The ledger's append-only triggers are lifted for this one update, inside
this migration's transaction, and put back before it ends: marking what an entry was is the
only change ever made to a row.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

BUY_IN = "buy_in"  # a buy-in's kind in the ledger, as it was at this revision


# The records the database refuses to change or remove, and the statements that make it
# refuse, as they stood at this revision: a copy frozen here, so that a later change to the
# models (or to a later migration) never changes what this one does.
APPEND_ONLY = ("ledger", "actions", "hands")


def append_only_triggers(dialect: str) -> list[str]:
    if dialect == "postgresql":
        return [
            "CREATE OR REPLACE FUNCTION montones_append_only() RETURNS trigger AS $$ "
            "BEGIN RAISE EXCEPTION '%% is append-only: %% refused', TG_TABLE_NAME, TG_OP; "
            "END $$ LANGUAGE plpgsql",
            *(
                f"CREATE OR REPLACE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE "
                f"ON {table} FOR EACH ROW EXECUTE FUNCTION montones_append_only()"
                for table in APPEND_ONLY
            ),
        ]
    if dialect == "sqlite":
        return [
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END"
            for table in APPEND_ONLY
            for op in ("UPDATE", "DELETE")
        ]
    return []


def drop_append_only_triggers(dialect: str, table: str) -> list[str]:
    """The statements that lift :func:`append_only_triggers` from one table."""
    if dialect == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"]
    if dialect == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {table}_no_{op}" for op in ("update", "delete")]
    return []


def upgrade():
    bind = op.get_bind()
    if "kind" in {c["name"] for c in sa.inspect(bind).get_columns("ledger")}:
        return  # made after the ledger had it, before migrations
    for statement in drop_append_only_triggers(bind.dialect.name, "ledger"):
        bind.exec_driver_sql(statement)
    op.add_column("ledger", sa.Column("kind", sa.String(8), nullable=True))
    op.execute(
        f"UPDATE ledger SET kind = '{BUY_IN}' WHERE EXISTS (SELECT 1 FROM actions "
        "WHERE actions.table_id = ledger.table_id AND actions.version = ledger.version "
        "AND actions.kind IN ('join', 'top_up'))"
    )
    for statement in append_only_triggers(bind.dialect.name):
        bind.exec_driver_sql(statement)  # as written: no parameters, "%%" read as "%"


def downgrade():
    op.drop_column("ledger", "kind")
