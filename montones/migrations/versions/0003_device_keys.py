"""The secrets a browser holds for a table (a seat's token, the host's secret) kept on the
server, under the hash of the opaque id its cookie carries (issue 38: a cookie read on the room's
Wi-Fi gives nothing away but that id). A database made before starts with none: a browser's
old cookie moves its secrets here on its next request.

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade():
    if sa.inspect(op.get_bind()).has_table("device_keys"):
        return  # made by the models before this migration was written
    op.create_table(
        "device_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("device_hash", sa.String(64), nullable=False),
        sa.Column("code", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("device_hash", "code", "kind"),
    )


def downgrade():
    op.drop_table("device_keys")
