"""friends' tables: listed, invite and host, turn timer, timed-out moves

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01 09:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        # Tables made before invites existed were all public: they stay in the lobby.
        batch_op.add_column(
            sa.Column("listed", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(sa.Column("invite_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("host_hash", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("host_seat", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("turn_seconds", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("deadline", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.alter_column("listed", server_default=None)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("autoplay_reason", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("timeouts", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.alter_column("timeouts", server_default=None)
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.add_column(sa.Column("timer_moves", sa.JSON(), nullable=True))
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("cause", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("actions", schema=None) as batch_op:
        batch_op.drop_column("cause")
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_column("timer_moves")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("timeouts")
        batch_op.drop_column("autoplay_reason")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("deadline")
        batch_op.drop_column("turn_seconds")
        batch_op.drop_column("host_seat")
        batch_op.drop_column("host_hash")
        batch_op.drop_column("invite_hash")
        batch_op.drop_column("listed")
