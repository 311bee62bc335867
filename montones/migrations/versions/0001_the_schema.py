"""The schema as it stood when migrations began: the tables, where a database made before
then does not have them already, the columns added to it since (the TV's language, the next
night), and the database's refusal to change or remove a record's row.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


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


def upgrade():
    bind = op.get_bind()
    if sa.inspect(bind).has_table("game_tables"):
        columns = {c["name"] for c in sa.inspect(bind).get_columns("game_tables")}
        for name in ("tv_language", "next_code"):
            if name not in columns:
                op.add_column("game_tables", sa.Column(name, sa.String(8), nullable=True))
    else:
        create_tables()
    for statement in append_only_triggers(bind.dialect.name):
        bind.exec_driver_sql(statement)  # as written: no parameters, "%%" read as "%"


def create_tables():
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(length=8), nullable=False),
        sa.Column("game", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=60), nullable=False),
        sa.Column("host_hash", sa.String(length=64), nullable=False),
        sa.Column("starting_chips", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("ended_at", sa.DateTime(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("tv_language", sa.String(length=8), nullable=True),
        sa.Column("next_code", sa.String(length=8), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("code"),
    )
    op.create_table(
        "actions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(length=12), nullable=False),
        sa.Column("kind", sa.String(length=24), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("nonce", sa.String(length=80), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "nonce"),
        sa.UniqueConstraint("table_id", "version"),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "number"),
    )
    # The ledger as it was before it told buy-ins apart: 0002 adds its kind.
    op.create_table(
        "ledger",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(length=32), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_ledger_table_version", "ledger", ["table_id", "version"])
    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(length=12), nullable=False),
        sa.Column("name", sa.String(length=24), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("rejoin_code", sa.String(length=8), nullable=False),
        sa.Column("joined_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["game_tables.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("table_id", "rejoin_code"),
        sa.UniqueConstraint("table_id", "seat"),
        sa.UniqueConstraint("token_hash"),
    )


def downgrade():
    for table in ("players", *APPEND_ONLY, "game_tables"):
        op.drop_table(table)
