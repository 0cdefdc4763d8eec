"""a club's house rules, set by its host for its new tables

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07 03:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("clubs", schema=None) as batch_op:
        # Clubs made before house rules have none: their tables keep the latest rules.
        batch_op.add_column(sa.Column("house_rules", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("clubs", schema=None) as batch_op:
        batch_op.drop_column("house_rules")
