"""club nights: a night's schedule, rounds and rules; the tables of its rounds

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-07 04:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "club_nights",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("club_id", sa.String(length=16), nullable=False),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("fill", sa.String(length=16), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=True),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("members", sa.JSON(), nullable=False),
        sa.Column("schedule", sa.JSON(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("turn_seconds", sa.Integer(), nullable=True),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("ended", sa.Boolean(), nullable=False),
        sa.Column("watch_token", sa.String(length=64), nullable=False),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"],
            ["clubs.id"],
            name=op.f("fk_club_nights_club_id_clubs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_nights")),
    )
    op.create_index(op.f("ix_club_nights_club_id"), "club_nights", ["club_id"], unique=False)
    op.create_table(
        "club_night_tables",
        sa.Column("night_id", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["night_id"],
            ["club_nights.id"],
            name=op.f("fk_club_night_tables_night_id_club_nights"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_club_night_tables_table_id_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("night_id", "round", "position", name=op.f("pk_club_night_tables")),
        sa.UniqueConstraint("table_id", name=op.f("uq_club_night_tables_table_id")),
    )


def downgrade() -> None:
    op.drop_table("club_night_tables")
    op.drop_index(op.f("ix_club_nights_club_id"), table_name="club_nights")
    op.drop_table("club_nights")
