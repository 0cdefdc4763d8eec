"""hints at the table, every trick of a finished hand

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 13:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tables", schema=None) as batch_op:
        # Tables made before hints existed go on without them.
        batch_op.add_column(
            sa.Column("hints", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.alter_column("hints", server_default=None)
    with op.batch_alter_table("hands", schema=None) as batch_op:
        # Hands stored before this revision keep no plays: they cannot be replayed.
        batch_op.add_column(sa.Column("plays", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_column("plays")
    with op.batch_alter_table("tables", schema=None) as batch_op:
        batch_op.drop_column("hints")
