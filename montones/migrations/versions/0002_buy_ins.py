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

from montones.data.models import BUY_IN, append_only_triggers, drop_append_only_triggers

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


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
