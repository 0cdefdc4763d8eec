"""friends' clubs: clubs, members, club tables and seats, club games, member figures

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05 11:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STAT_COLUMNS = (
    "games",
    "wins",
    "hands",
    "contracts",
    "contracts_made",
    "sets",
    "nils",
    "nils_made",
    "blind_nils",
    "blind_nils_made",
    "bags",
    "ten_for_two_hundreds",
    "points",
)


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("invite_hash", sa.String(length=64), nullable=False),
        sa.Column("host_hash", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_clubs")),
    )
    op.create_table(
        "club_members",
        sa.Column("id", sa.String(length=16), nullable=False),
        sa.Column("club_id", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("removed", sa.Boolean(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("joined", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"],
            ["clubs.id"],
            name=op.f("fk_club_members_club_id_clubs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_club_members")),
    )
    op.create_index(op.f("ix_club_members_club_id"), "club_members", ["club_id"])
    op.create_index(op.f("ix_club_members_token_hash"), "club_members", ["token_hash"])
    op.create_table(
        "club_tables",
        sa.Column("table_id", sa.String(length=16), nullable=False),
        sa.Column("club_id", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=32), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_tables_club_id_clubs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_club_tables_table_id_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_club_tables")),
    )
    op.create_index(op.f("ix_club_tables_club_id"), "club_tables", ["club_id"])
    op.create_table(
        "club_seats",
        sa.Column("table_id", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("member_id", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(
            ["member_id"],
            ["club_members.id"],
            name=op.f("fk_club_seats_member_id_club_members"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["tables.id"],
            name=op.f("fk_club_seats_table_id_tables"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "token_hash", name=op.f("pk_club_seats")),
    )
    op.create_table(
        "club_games",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("club_id", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=32), nullable=False),
        sa.Column("ended", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("bots", sa.Boolean(), nullable=False),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("sides", sa.JSON(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["club_id"], ["clubs.id"], name=op.f("fk_club_games_club_id_clubs"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_club_games_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_club_games")),
    )
    op.create_index(op.f("ix_club_games_club_id"), "club_games", ["club_id"])
    op.create_table(
        "club_stats",
        sa.Column("member_id", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=32), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in STAT_COLUMNS),
        sa.ForeignKeyConstraint(
            ["member_id"],
            ["club_members.id"],
            name=op.f("fk_club_stats_member_id_club_members"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("member_id", "preset", name=op.f("pk_club_stats")),
    )


def downgrade() -> None:
    op.drop_table("club_stats")
    op.drop_index(op.f("ix_club_games_club_id"), table_name="club_games")
    op.drop_table("club_games")
    op.drop_table("club_seats")
    op.drop_index(op.f("ix_club_tables_club_id"), table_name="club_tables")
    op.drop_table("club_tables")
    op.drop_index(op.f("ix_club_members_token_hash"), table_name="club_members")
    op.drop_index(op.f("ix_club_members_club_id"), table_name="club_members")
    op.drop_table("club_members")
    op.drop_table("clubs")
