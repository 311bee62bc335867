"""A table's party: each seat's face (an avatar and a colour chosen on the phone when sitting
down) and the host's party switches (the lobby started, reactions off, music on), in one JSON
column of the table's row, so that every screen drawn from the table at a version has them
without another read. A table made before has none: every seat shows its colour's first face.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade():
    if "party" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("game_tables")}:
        return
    op.add_column("game_tables", sa.Column("party", sa.JSON(), nullable=True))


def downgrade():
    op.drop_column("game_tables", "party")
