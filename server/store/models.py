"""Database tables of the table server (SQLAlchemy 2 declarative models).

The Alembic migrations in `migrations/` must describe exactly these tables; a test
compares them (`alembic.autogenerate.compare_metadata`).

A table's `version` is the one counter every client sees; writers update it with
`WHERE version = :old` so that two server processes can never both apply a change
on top of the same state (optimistic locking, see `server.store.repository`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from server.engine import Action, Bid, GameState, HandClaim, SideResult, SideScore, TrickPlays
from server.engine.rules import RuleFields
from server.protocol import TableStatus, TimerMove

# Stable constraint names, so that migrations can refer to them on every database.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """Now, timezone-aware (stored as UTC)."""
    return datetime.now(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class TableRow(Base):
    """A table: its rules, status and version counter."""

    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    rules: Mapped[RuleFields] = mapped_column(JSON)
    # "ended": the host closed the table.
    status: Mapped[TableStatus] = mapped_column(String(16), index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    game_number: Mapped[int] = mapped_column(Integer, default=0)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Shown in the lobby; an unlisted table is reached by its link, seats by its invite.
    listed: Mapped[bool] = mapped_column(Boolean, default=False)
    # SHA-256 hex of the invite and of the host token; the secrets themselves are not stored.
    invite_hash: Mapped[str | None] = mapped_column(String(64))
    host_hash: Mapped[str | None] = mapped_column(String(64))
    # The seat whose player holds the host's controls (None until the host sits down).
    host_seat: Mapped[int | None] = mapped_column(Integer)
    # The turn timer: seconds per move (None: no timer), and the moment the seats on turn
    # must act by; stored so that a restart neither resets nor forgets a countdown.
    turn_seconds: Mapped[int | None] = mapped_column(Integer)
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Players may ask for the advanced bot's choice (never acted on); on at friends' tables.
    hints: Mapped[bool] = mapped_column(Boolean, default=False)


class SeatRow(Base):
    """One seat of a table: empty, a person (token hash) or a bot."""

    __tablename__ = "seats"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str | None] = mapped_column(String(32))
    # SHA-256 hex of the seat token; the token itself is never stored.
    token_hash: Mapped[str | None] = mapped_column(String(64))
    bot: Mapped[str | None] = mapped_column(String(32))
    connected: Mapped[bool] = mapped_column(Boolean, default=False)
    # A bot plays for the player until they return: "away" (grace time passed, or the
    # host handed the seat to a bot) or "timer" (two moves in a row timed out); None: no.
    autoplay: Mapped[bool] = mapped_column(Boolean, default=False)
    autoplay_reason: Mapped[str | None] = mapped_column(String(16))
    # Moves in a row the turn timer made for this seat.
    timeouts: Mapped[int] = mapped_column(Integer, default=0)


class GameRow(Base):
    """One game at a table; `snapshot` is `Game.to_state()` after action `snapshot_seq`."""

    __tablename__ = "games"
    __table_args__ = (UniqueConstraint("table_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    # Stacked decks, card codes in deal order (`Game`'s `decks`).
    decks: Mapped[list[list[str]] | None] = mapped_column(JSON)
    dealer: Mapped[int | None] = mapped_column(Integer)
    snapshot: Mapped[GameState] = mapped_column(JSON)
    snapshot_seq: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[int | None] = mapped_column(Integer)
    final_scores: Mapped[list[SideScore] | None] = mapped_column(JSON)
    started: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class HandRow(Base):
    """A finished hand: bids, tricks per seat, the deal, each side after the hand."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    dealer: Mapped[int | None] = mapped_column(Integer)
    bids: Mapped[list[Bid | None]] = mapped_column(JSON)
    tricks: Mapped[list[int]] = mapped_column(JSON)
    deal: Mapped[list[list[str]]] = mapped_column(JSON)
    # Each side's breakdown of the hand (points, score and bags after it, ...).
    sides: Mapped[list[SideResult]] = mapped_column(JSON)
    # The moves the turn timer made in this hand.
    timer_moves: Mapped[list[TimerMove] | None] = mapped_column(JSON)
    # Every trick of the hand in order, for the hand's replay (None for hands stored
    # before it was kept).
    plays: Mapped[list[TrickPlays] | None] = mapped_column(JSON)
    # The claim that ended the hand early, if one did.
    claim: Mapped[HandClaim | None] = mapped_column(JSON)


class ActionRow(Base):
    """Append-only log of accepted actions of a game, in order."""

    __tablename__ = "actions"
    # On SQLite one B-tree ordered by (game_id, seq), not rows under a rowid beside the
    # primary key's index: an insert touches one tree (migration 0004).
    __table_args__ = ({"sqlite_with_rowid": False},)

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[Action] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer)
    # Who chose the move when not its player: "timer" (the turn timer ran out); None.
    cause: Mapped[str | None] = mapped_column(String(16))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatRow(Base):
    """A table chat line (kept so that history survives restarts and spans processes)."""

    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    seat: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(32))
    text: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# The same tables as Core `Table`s, for the write path's statements
# (`server.store.action_writes`, `TableStore`'s version bump).
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
GAMES: Table = GameRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
HANDS: Table = HandRow.__table__  # type: ignore[assignment]
