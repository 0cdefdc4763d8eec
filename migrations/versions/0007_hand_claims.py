"""the claim that ended a hand early

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 11:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        # Hands stored before claims existed were all played to their last trick.
        batch_op.add_column(sa.Column("claim", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("hands", schema=None) as batch_op:
        batch_op.drop_column("claim")
