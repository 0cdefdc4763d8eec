"""Database tables of the table server (SQLAlchemy 2 declarative models).

The Alembic migrations in `migrations/` must describe exactly these tables; a test
compares them (`alembic.autogenerate.compare_metadata`).

A table's `version` is the one counter every client sees; writers update it with
`WHERE version = :old` so that two server processes can never both apply a change
on top of the same state (optimistic locking, see `server.store.repository`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from server.clubs.figures import FIGURES, Figure
from server.engine import Action, Bid, GameState, HandClaim, SideResult, SideScore, TrickPlays
from server.engine.describe import RuleValues
from server.engine.fairness import HandFairness
from server.engine.rules import RuleFields
from server.protocol import ClubSide, DealSeeds, NightRound, TableStatus, TimerMove

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


def utc(moment: datetime) -> datetime:
    """A stored moment, timezone-aware (SQLite hands back naive ones: they are UTC)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


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
    # Players may ask for the expert bot's choice (never acted on); on at friends' tables.
    hints: Mapped[bool] = mapped_column(Boolean, default=False)
    # The first hand's server seed (hex, secret) until the table's first game starts, and
    # the players' seeds for the next deal with the commitment they answer.
    deal_key: Mapped[str | None] = mapped_column(String(64))
    deal_seeds: Mapped[DealSeeds | None] = mapped_column(JSON)


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
    # What proves the hand's deal: its server seed, revealed, and the seeds and deck
    # (None for a hand not dealt from seeds).
    fairness: Mapped[HandFairness | None] = mapped_column(JSON)
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


class ClubRow(Base):
    """A friends' club: its name, its usual house rules, its secrets as hashes."""

    __tablename__ = "clubs"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    invite_hash: Mapped[str] = mapped_column(String(64))
    host_hash: Mapped[str] = mapped_column(String(64))
    # The rules of the club's latest table, as its creator gave them (preset and changes).
    rules: Mapped[RuleFields | None] = mapped_column(JSON)
    # The house rules the host set for the club's new tables (preset and changes).
    house_rules: Mapped[RuleValues | None] = mapped_column(JSON, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClubMemberRow(Base):
    """A member of a club: a name, a token hash, a rating (Weng-Lin `mu`, `sigma`)."""

    __tablename__ = "club_members"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(32))
    token_hash: Mapped[str] = mapped_column(String(64), index=True)
    # Removed by the host: the token stops working, past games and stats stay.
    removed: Mapped[bool] = mapped_column(Boolean, default=False)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    joined: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClubTableRow(Base):
    """A table started for a club, and the preset its rules came from."""

    __tablename__ = "club_tables"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    preset: Mapped[str] = mapped_column(String(32))


class ClubSeatRow(Base):
    """A seat token given to a member at a club table: the seat whose token hash this is
    plays as that member."""

    __tablename__ = "club_seats"

    table_id: Mapped[str] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    member_id: Mapped[str] = mapped_column(ForeignKey("club_members.id", ondelete="CASCADE"))


class ClubGameRow(Base):
    """A finished club game's result, written in the transaction of its last action (one
    row a game: a second write of the same end finds it and changes nothing)."""

    __tablename__ = "club_games"

    game_id: Mapped[int] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    table_id: Mapped[str] = mapped_column(String(16))
    preset: Mapped[str] = mapped_column(String(32))
    ended: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    rated: Mapped[bool] = mapped_column(Boolean)
    # A bot (or a guest) played a seat: only the members were rated.
    bots: Mapped[bool] = mapped_column(Boolean)
    winner: Mapped[int | None] = mapped_column(Integer)
    # One entry a side: its members' ids and final score.
    sides: Mapped[list[ClubSide]] = mapped_column(JSON)
    # The member who played each seat (None: a bot or a guest).
    seats: Mapped[list[str | None]] = mapped_column(JSON)


def club_stats_table(metadata: MetaData, figures: Sequence[Figure]) -> Table:
    """`club_stats`: one member's totals over their rated club games, per preset and
    overall (`preset` "all"), a column per figure; sums of each game's figures from its
    stored hands, added in the game's end transaction."""
    return Table(
        "club_stats",
        metadata,
        Column(
            "member_id",
            String(16),
            ForeignKey("club_members.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        Column("preset", String(32), primary_key=True),
        *(Column(figure.name, Integer, nullable=False) for figure in figures),
    )


class ClubNightRow(Base):
    """A club night: its members, format, rounds and rules, the whole schedule made at
    its creation (rebuilt for the rounds to come when a member is added), and the round
    being played. The standings are read from its tables' stored hands."""

    __tablename__ = "club_nights"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    club_id: Mapped[str] = mapped_column(ForeignKey("clubs.id", ondelete="CASCADE"), index=True)
    format: Mapped[str] = mapped_column(String(16))
    # What fills the seats when the members are not a multiple of 4: "sit_out" or "bots".
    fill: Mapped[str] = mapped_column(String(16))
    rounds: Mapped[int] = mapped_column(Integer)
    # Hands a round's game lasts (None: it plays to the target score).
    hands: Mapped[int | None] = mapped_column(Integer)
    # Every round's rules (the night's, with each round's bidding format when given).
    rules: Mapped[list[RuleFields]] = mapped_column(JSON)
    members: Mapped[list[str]] = mapped_column(JSON)
    # One entry a round: {"tables": [[member id or None per seat]], "sitting_out": [...]}.
    schedule: Mapped[list[NightRound]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    turn_seconds: Mapped[int | None] = mapped_column(Integer)
    # The round being played (0 before the first); raised with `WHERE round = :old`.
    round: Mapped[int] = mapped_column(Integer, default=0)
    # When that round was started: a round not all made since then is being made by the
    # request that started it, unless that was long ago (its process stopped).
    round_started: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    paused: Mapped[bool] = mapped_column(Boolean, default=False)
    # Ended by the host before its last round was over.
    ended: Mapped[bool] = mapped_column(Boolean, default=False)
    # The watch link's secret: it shows only what spectators may see (standings, table
    # ids), and every member is shown it again, so it is kept as it is, not hashed.
    watch_token: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ClubNightTableRow(Base):
    """A table made for a round of a night: the `position`-th table of round `round`."""

    __tablename__ = "club_night_tables"

    night_id: Mapped[str] = mapped_column(
        ForeignKey("club_nights.id", ondelete="CASCADE"), primary_key=True
    )
    round: Mapped[int] = mapped_column(Integer, primary_key=True)
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[str] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), unique=True)


# The same tables as Core `Table`s, for the write path's statements
# (`server.store.action_writes`, `TableStore`'s version bump).
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
GAMES: Table = GameRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
HANDS: Table = HandRow.__table__  # type: ignore[assignment]
CLUBS: Table = ClubRow.__table__  # type: ignore[assignment]
CLUB_MEMBERS: Table = ClubMemberRow.__table__  # type: ignore[assignment]
CLUB_TABLES: Table = ClubTableRow.__table__  # type: ignore[assignment]
CLUB_SEATS: Table = ClubSeatRow.__table__  # type: ignore[assignment]
CLUB_GAMES: Table = ClubGameRow.__table__  # type: ignore[assignment]
CLUB_STATS: Table = club_stats_table(Base.metadata, FIGURES)
