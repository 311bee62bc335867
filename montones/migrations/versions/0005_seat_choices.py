"""Each seat's chosen stake and mode on its phone's bar (``players.choices``, JSON), kept on the
server rather than in one worker's memory: a redraw of the bar by any worker, or after a restart,
keeps them (issue 37). A seat made before has chosen nothing yet.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade():
    if "choices" in {c["name"] for c in sa.inspect(op.get_bind()).get_columns("players")}:
        return
    op.add_column("players", sa.Column("choices", sa.JSON(), nullable=True))


def downgrade():
    op.drop_column("players", "choices")
