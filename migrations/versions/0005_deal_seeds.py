"""verifiable deals: the next deal's seeds on the table, each hand's proof

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-05 11:00:00

A table keeps its first hand's server seed until its game starts (`deal_key`, secret)
and the players' seeds for the next deal, tagged with the commitment they answer
(`deal_seeds`); a finished hand keeps what proves its deal (`hands.fairness`). Tables
still waiting get a server seed of their own here, so that they show a commitment too.
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tables", sa.Column("deal_key", sa.String(length=64), nullable=True))
    op.add_column("tables", sa.Column("deal_seeds", sa.JSON(), nullable=True))
    op.add_column("hands", sa.Column("fairness", sa.JSON(), nullable=True))
    bind = op.get_bind()
    waiting = bind.execute(sa.text("SELECT id FROM tables WHERE status = 'waiting'")).scalars()
    for table_id in list(waiting):
        bind.execute(
            sa.text("UPDATE tables SET deal_key = :key WHERE id = :id"),
            {"key": secrets.token_hex(32), "id": table_id},
        )


def downgrade() -> None:
    # Dropped in place (SQLite 3.35 and later can): a batch would make `tables` anew, and
    # dropping the old one would cascade to every game.
    for table, column in (("hands", "fairness"), ("tables", "deal_seeds"), ("tables", "deal_key")):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
