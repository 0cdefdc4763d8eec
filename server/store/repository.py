"""The one place that reads and writes tables, seats, games, hands, actions and chat.

Every write that changes what clients see raises the table's version by one, here and
nowhere else: the caller names the version it changed, the write answers the new one, with
`UPDATE tables SET version = :old + 1 WHERE id = :id AND version = :old`. When no row
matches, another server process got there first: `VersionConflict` is raised, the
transaction is rolled back, and the caller reloads the table and tries again (optimistic
locking).
"""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import (
    CursorResult,
    Table,
    bindparam,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from server.engine import Action, GameState, Rules, SideScore
from server.protocol import ChatLine as ChatLine
from server.protocol import FinishedHand, StoredHand, TableStatus
from server.store.batch import Ambiguous, GroupCommit, Landed, Outcomes
from server.store.db import session_factory
from server.store.models import (
    ActionRow,
    ChatRow,
    GameRow,
    HandRow,
    SeatRow,
    TableRow,
    utcnow,
)
from server.store.statements import Writer


class VersionConflict(Exception):
    """The table changed under us (another process wrote first)."""


# The write path uses Core statements on the tables themselves: no unit of work, no
# identity map, no evaluation of an UPDATE against loaded objects.
TABLES: Table = TableRow.__table__  # type: ignore[assignment]
SEATS: Table = SeatRow.__table__  # type: ignore[assignment]
GAMES: Table = GameRow.__table__  # type: ignore[assignment]
ACTIONS: Table = ActionRow.__table__  # type: ignore[assignment]
HANDS: Table = HandRow.__table__  # type: ignore[assignment]

# The bump leaves the status alone: the action that ends a game sets it (`END_GAME_STATUS`).
# On SQLite, setting an indexed column rewrites its index entry even to the same value: a
# status in every bump cost each commit a WAL page (4.1 -> 3.1 pages a transaction).
BUMP_ACTION = (
    update(TABLES)
    .where(TABLES.c.id == bindparam("b_id"), TABLES.c.version == bindparam("b_old"))
    .values(version=bindparam("b_new"), deadline=bindparam("b_deadline"))
)
END_GAME_STATUS = (
    update(TABLES).where(TABLES.c.id == bindparam("b_id")).values(status=bindparam("b_status"))
)
# `_bump_versions` on PostgreSQL: the batch's bumps as arrays, one row each through
# unnest. One statement text whatever the batch's size, so SQLAlchemy compiles it and
# asyncpg prepares it once (a VALUES list of n rows is a new statement for each n, and
# every one of them filled the compiled cache with objects for the collector to walk).
BUMP_UNNEST = text(
    "UPDATE tables SET version = bumps.old + 1, deadline = bumps.deadline"
    " FROM unnest(CAST(:ids AS text[]), CAST(:olds AS integer[]),"
    " CAST(:deadlines AS timestamptz[])) AS bumps (id, old, deadline)"
    " WHERE tables.id = bumps.id AND tables.version = bumps.old"
    " RETURNING tables.id"
)
# Built once: a statement object made per batch is also keyed for the compiled cache per
# batch (a fifth of the log row's cost under load).
INSERT_ACTION = insert(ACTIONS)
INSERT_HAND = insert(HANDS)
SNAPSHOT_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_game"))
    .values(snapshot=bindparam("b_snapshot"), snapshot_seq=bindparam("b_seq"))
)
FINISH_GAME = (
    update(GAMES)
    .where(GAMES.c.id == bindparam("b_game"))
    .values(
        winner=bindparam("b_winner"), final_scores=bindparam("b_scores"), finished=bindparam("b_at")
    )
)
WRITE_SEAT = (
    update(SEATS)
    .where(SEATS.c.table_id == bindparam("b_table"), SEATS.c.seat == bindparam("b_seat"))
    .values(
        name=bindparam("b_name"),
        token_hash=bindparam("b_token_hash"),
        bot=bindparam("b_bot"),
        connected=bindparam("b_connected"),
        autoplay=bindparam("b_autoplay"),
        autoplay_reason=bindparam("b_autoplay_reason"),
        timeouts=bindparam("b_timeouts"),
    )
)


# Records are replaced, never changed in place: a room's caches of what it sends (its
# public table) can tell by identity whether a seat or its hosting has changed.
@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    name: str | None = None
    token_hash: str | None = None
    bot: str | None = None
    connected: bool = False
    autoplay: bool = False
    # Why a bot plays for the player: "away" or "timer" (None when `autoplay` is off).
    autoplay_reason: str | None = None
    # Moves in a row the turn timer made for this seat.
    timeouts: int = 0


def seat_record(row: SeatRow) -> SeatRecord:
    return SeatRecord(
        row.seat,
        row.name,
        row.token_hash,
        row.bot,
        row.connected,
        row.autoplay,
        row.autoplay_reason,
        row.timeouts,
    )


@dataclass(frozen=True, slots=True)
class Hosting:
    """Who may use a table's host controls and join it: secrets as hashes, the host's
    seat, the listing and the turn timer."""

    listed: bool = True
    invite_hash: str | None = None
    host_hash: str | None = None
    host_seat: int | None = None
    turn_seconds: int | None = None
    deadline: datetime | None = None
    # Players may ask for a hint (the advanced bot's choice from their own view).
    hints: bool = False


@dataclass
class GameRecord:
    id: int
    number: int
    seed: int
    snapshot: GameState
    snapshot_seq: int
    # Actions logged after the snapshot, in order: (seq, seat, action).
    later_actions: list[tuple[int, int, Action]]
    hands_saved: int
    # The seats and actions of the later actions the turn timer made (this hand's).
    timer_actions: list[tuple[int, Action]] = field(default_factory=list)


@dataclass
class TableFields:
    """What every stored view of a table starts with."""

    id: str
    name: str
    rules: dict[str, Any]
    status: TableStatus
    version: int
    game_number: int
    created: datetime
    seats: list[SeatRecord]


@dataclass
class TableRecord(TableFields):
    """A table as loaded to play it: its current game, chat and tally with it."""

    hosting: Hosting = field(default_factory=Hosting)
    game: GameRecord | None = None
    chat: list[ChatLine] = field(default_factory=list)
    # Games won by each side at this table, across rematches.
    series: list[int] = field(default_factory=list)


@dataclass
class TableSummary(TableFields):
    """What the lobby shows of a table, read without loading its game: the seats, and
    each side's score and bags after the current game's latest finished hand."""

    # One per side; [] before the first game starts.
    scores: list[SideScore]
    winner: int | None
    hands_played: int
    hosting: Hosting = field(default_factory=Hosting)
    # Games won by each side at this table, across rematches.
    series: list[int] = field(default_factory=list)


@dataclass
class ActionWrite:
    """Everything one accepted action changes, written in one transaction."""

    table_id: str
    # The version the action was made on; the write raises it by one.
    old_version: int
    # "playing", or "over" for the action that ends the game (only that one writes it).
    status: TableStatus
    game_id: int
    seq: int
    seat: int
    action: Action
    # `Game.to_state()`, or its JSON as an orjson.Fragment (the JSON column writes it as is).
    snapshot: GameState | orjson.Fragment | None
    new_hands: list[StoredHand]
    first_hand_number: int
    winner: int | None
    final_scores: list[Any] | None
    # The turn timer's new deadline (None: none), who chose the move when not its player
    # ("timer"), and seats whose record changes with the move (timeouts, autoplay).
    deadline: datetime | None = None
    cause: str | None = None
    seats: list[SeatRecord] = field(default_factory=list)


def hosting(table: TableRow) -> Hosting:
    return Hosting(
        listed=table.listed,
        invite_hash=table.invite_hash,
        host_hash=table.host_hash,
        host_seat=table.host_seat,
        turn_seconds=table.turn_seconds,
        hints=table.hints,
        # SQLite hands back naive datetimes: they are UTC.
        deadline=table.deadline.replace(tzinfo=table.deadline.tzinfo or UTC)
        if table.deadline is not None
        else None,
    )


def chat_line(row: ChatRow) -> ChatLine:
    return {
        "version": row.version,
        "seat": row.seat,
        "name": row.name,
        "text": row.text,
        "at": iso(row.at),
    }


def iso(moment: datetime) -> str:
    """UTC ISO-8601 with a Z (SQLite hands back naive datetimes: they are UTC).

    >>> iso(datetime(2026, 11, 29, 15, 4, 5, 123, tzinfo=UTC))
    '2026-11-29T15:04:05Z'
    """
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"


def summary(
    table: TableRow,
    seats: list[SeatRecord],
    game_id: int | None,
    winner: int | None,
    final_scores: list[Any] | None,
    last_hands: dict[int, tuple[int, list[Any]]],
    wins: dict[str, dict[int, int]],
) -> TableSummary:
    """One lobby row: scores are the final ones of a finished game, else those after the
    latest saved hand (hands are numbered from 1, so its number counts them), else 0."""
    scores: list[SideScore] = []
    number = 0
    if game_id is not None:
        number, sides = last_hands.get(game_id, (0, None))
        if final_scores is not None:
            scores = final_scores
        elif sides is not None:
            scores = [{"score": side["score"], "bags": side["bags"]} for side in sides]
        else:
            scores = [{"score": 0, "bags": 0} for _ in Rules.model_validate(table.rules).sides]
    return TableSummary(
        id=table.id,
        name=table.name,
        rules=table.rules,
        status=table.status,
        version=table.version,
        game_number=table.game_number,
        created=table.created,
        seats=seats,
        scores=scores,
        winner=winner,
        hands_played=number,
        hosting=hosting(table),
        series=series(table, wins.get(table.id, {})),
    )


def series(table: TableRow, wins: dict[int, int]) -> list[int]:
    """Games won by each side, from the winners of the table's finished games."""
    return [wins.get(side, 0) for side in range(len(Rules.model_validate(table.rules).sides))]


def wins_query(table_ids: list[str]) -> Any:
    """(table id, winning side, games) for every finished game of these tables."""
    return (
        select(GameRow.table_id, GameRow.winner, func.count())
        .where(GameRow.table_id.in_(table_ids), GameRow.winner.is_not(None))
        .group_by(GameRow.table_id, GameRow.winner)
    )


class TableStore:
    """Repository over one database (SQLite or PostgreSQL)."""

    def __init__(self, engine: AsyncEngine, chat_history: int = 100) -> None:
        self.engine = engine
        self.sessions = session_factory(engine)
        self.chat_history = chat_history
        self._actions = GroupCommit(engine, write_actions)

    async def create_table(
        self,
        table_id: str,
        name: str,
        rules: dict[str, Any],
        players: int,
        hosts: Hosting | None = None,
    ) -> None:
        """A new table with empty seats; `hosts` says how it is reached (listed, no
        secrets, when not given)."""
        hosts = hosts or Hosting()
        async with self.sessions.begin() as session:
            session.add(
                TableRow(
                    id=table_id,
                    name=name,
                    rules=rules,
                    status="waiting",
                    version=1,
                    game_number=0,
                    listed=hosts.listed,
                    invite_hash=hosts.invite_hash,
                    host_hash=hosts.host_hash,
                    host_seat=hosts.host_seat,
                    turn_seconds=hosts.turn_seconds,
                    hints=hosts.hints,
                )
            )
            await session.flush()
            session.add_all(
                SeatRow(table_id=table_id, seat=seat, connected=False, autoplay=False, timeouts=0)
                for seat in range(players)
            )

    async def _one_snapshot(self, session: AsyncSession) -> None:
        """Let every query of this read see the same moment of the database.

        PostgreSQL's default (READ COMMITTED) gives each statement its own snapshot: a
        table's row could be read before another process's commit and its actions or
        chat after it, a version that does not match its game. SQLite serves a single
        process, whose writes to a table wait for that table's lock."""
        if self.engine.dialect.name == "postgresql":
            await session.connection(execution_options={"isolation_level": "REPEATABLE READ"})

    async def load(self, table_id: str) -> TableRecord | None:
        async with self.sessions() as session:
            await self._one_snapshot(session)
            table = await session.get(TableRow, table_id)
            if table is None:
                return None
            return await self._record(session, table)

    async def _record(self, session: AsyncSession, table: TableRow) -> TableRecord:
        seats = (
            await session.scalars(
                select(SeatRow).where(SeatRow.table_id == table.id).order_by(SeatRow.seat)
            )
        ).all()
        record = TableRecord(
            id=table.id,
            name=table.name,
            rules=table.rules,
            status=table.status,
            version=table.version,
            game_number=table.game_number,
            created=table.created,
            seats=[seat_record(s) for s in seats],
            hosting=hosting(table),
        )
        wins = {
            winner: games for _id, winner, games in await session.execute(wins_query([table.id]))
        }
        record.series = series(table, wins)
        game = await session.scalar(
            select(GameRow).where(GameRow.table_id == table.id, GameRow.number == table.game_number)
        )
        if game is not None:
            later = (
                await session.execute(
                    select(ActionRow.seq, ActionRow.seat, ActionRow.action, ActionRow.cause)
                    .where(ActionRow.game_id == game.id, ActionRow.seq > game.snapshot_seq)
                    .order_by(ActionRow.seq)
                )
            ).all()
            hands = await session.scalar(
                select(func.count()).select_from(HandRow).where(HandRow.game_id == game.id)
            )
            record.game = GameRecord(
                id=game.id,
                number=game.number,
                seed=game.seed,
                snapshot=game.snapshot,
                snapshot_seq=game.snapshot_seq,
                later_actions=[(seq, seat, action) for seq, seat, action, _cause in later],
                hands_saved=hands or 0,
                timer_actions=[
                    (seat, action) for _seq, seat, action, cause in later if cause == "timer"
                ],
            )
        chat = (
            await session.scalars(
                select(ChatRow)
                .where(ChatRow.table_id == table.id)
                .order_by(ChatRow.id.desc())
                .limit(self.chat_history)
            )
        ).all()
        record.chat = [chat_line(row) for row in reversed(chat)]
        return record

    async def table_ids(
        self, statuses: tuple[str, ...], limit: int = 100, with_bots: bool = False
    ) -> list[str]:
        """Ids of tables in these statuses, newest first; `with_bots`: only tables where a
        bot plays a seat (a bot's own, or an absent player's on autoplay) or a turn timer
        runs (it makes a bot's move when it passes)."""
        query = select(TableRow.id).where(TableRow.status.in_(statuses))
        if with_bots:
            botted = select(SeatRow.table_id).where(
                SeatRow.bot.is_not(None) | SeatRow.autoplay.is_(True)
            )
            query = query.where(TableRow.id.in_(botted) | TableRow.deadline.is_not(None))
        async with self.sessions() as session:
            rows = await session.scalars(
                query.order_by(TableRow.created.desc(), TableRow.id).limit(limit)
            )
            return list(rows)

    async def seat_of_token(self, table_id: str, token_hash: str) -> int | None:
        """The seat whose token hashes to `token_hash`, as stored (one indexed read)."""
        async with self.sessions() as session:
            seat: int | None = await session.scalar(
                select(SeatRow.seat).where(
                    SeatRow.table_id == table_id, SeatRow.token_hash == token_hash
                )
            )
            return seat

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        """The stored version of each of these tables (one query)."""
        async with self.sessions() as session:
            rows = await session.execute(
                select(TableRow.id, TableRow.version).where(TableRow.id.in_(table_ids))
            )
            return {table_id: version for table_id, version in rows}

    async def count_tables(self, statuses: tuple[str, ...]) -> int:
        async with self.sessions() as session:
            count = await session.scalar(
                select(func.count()).select_from(TableRow).where(TableRow.status.in_(statuses))
            )
            return count or 0

    async def summaries(self, statuses: tuple[str, ...], limit: int = 100) -> list[TableSummary]:
        """Listed tables in these statuses, newest first, as the lobby lists them: four
        queries whatever the number of tables (tables with their current game, seats, the
        latest hand of each of those games, the games each side won), and no game is replayed."""
        async with self.sessions() as session:
            await self._one_snapshot(session)
            rows = (
                await session.execute(
                    select(TableRow, GameRow.id, GameRow.winner, GameRow.final_scores)
                    .outerjoin(
                        GameRow,
                        (GameRow.table_id == TableRow.id)
                        & (GameRow.number == TableRow.game_number),
                    )
                    .where(TableRow.status.in_(statuses), TableRow.listed.is_(True))
                    .order_by(TableRow.created.desc(), TableRow.id)
                    .limit(limit)
                )
            ).all()
            ids = [table.id for table, *_ in rows]
            seats: dict[str, list[SeatRecord]] = {table_id: [] for table_id in ids}
            for s in await session.scalars(
                select(SeatRow).where(SeatRow.table_id.in_(ids)).order_by(SeatRow.seat)
            ):
                seats[s.table_id].append(seat_record(s))
            game_ids = [game_id for _table, game_id, *_ in rows if game_id is not None]
            latest = (
                select(HandRow.game_id, func.max(HandRow.number).label("number"))
                .where(HandRow.game_id.in_(game_ids))
                .group_by(HandRow.game_id)
                .subquery()
            )
            last_hands = {
                game_id: (number, sides)
                for game_id, number, sides in await session.execute(
                    select(HandRow.game_id, HandRow.number, HandRow.sides).join(
                        latest,
                        (HandRow.game_id == latest.c.game_id) & (HandRow.number == latest.c.number),
                    )
                )
            }
            wins: dict[str, dict[int, int]] = {}
            for table_id, winner, games in await session.execute(wins_query(ids)):
                wins.setdefault(table_id, {})[winner] = games
        return [
            summary(table, seats[table.id], game_id, winner, final_scores, last_hands, wins)
            for table, game_id, winner, final_scores in rows
        ]

    @staticmethod
    async def _bump(session: AsyncSession, table_id: str, old: int, **fields: Any) -> int:
        """Raise the table's version from `old` by one; the new version."""
        new = old + 1
        result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
            update(TABLES)
            .where(TABLES.c.id == table_id, TABLES.c.version == old)
            .values(version=new, **fields)
        )
        if result.rowcount != 1:
            raise VersionConflict(table_id)
        return new

    async def update_seats(
        self, table_id: str, old: int, seats: list[SeatRecord], **table_fields: Any
    ) -> int:
        """Write seats' fields (taken, left, moved, bot, presence, autoplay) and any table
        fields (host, timer, status) with one version bump; the new version."""
        async with self.sessions.begin() as session:
            new = await self._bump(session, table_id, old, **table_fields)
            await self._write_seats(session, table_id, seats)
        return new

    @staticmethod
    async def _write_seats(session: AsyncSession, table_id: str, seats: list[SeatRecord]) -> None:
        if seats:
            await session.execute(WRITE_SEAT, [seat_params(table_id, seat) for seat in seats])

    async def start_game(
        self,
        table_id: str,
        old: int,
        number: int,
        seed: int,
        snapshot: GameState,
        deadline: datetime | None = None,
    ) -> tuple[int, int]:
        """Record a new game (first game or rematch) and make it the table's current game;
        (the game's id, the table's new version)."""
        async with self.sessions.begin() as session:
            new = await self._bump(
                session,
                table_id,
                old,
                status="playing",
                game_number=number,
                deadline=deadline,
            )
            game = GameRow(
                table_id=table_id,
                number=number,
                seed=seed,
                dealer=snapshot.get("dealer") if isinstance(snapshot, dict) else None,
                snapshot=snapshot,
                snapshot_seq=0,
            )
            session.add(game)
            await session.flush()
            return game.id, new

    def record_action(
        self, write: ActionWrite, landed: Landed | None = None
    ) -> Coroutine[Any, Any, int]:
        """Append one accepted action, its snapshot and any finished hands, atomically;
        the table's new version. Committed together with the actions of other tables
        that arrive meanwhile (`server.store.batch`), answered once committed; `landed`
        is called with the new version as soon as it has landed (`GroupCommit.submit`).
        (The group commit's own coroutine, not one awaiting it: it is on every move's
        path.)"""
        return self._actions.submit(write, landed)

    async def add_chat(
        self, table_id: str, old: int, seat: int | None, name: str, text: str
    ) -> ChatLine:
        """Store one chat line with a version bump; the line, carrying the new version."""
        async with self.sessions.begin() as session:
            new = await self._bump(session, table_id, old)
            row = ChatRow(table_id=table_id, version=new, seat=seat, name=name, text=text)
            session.add(row)
            await session.flush()
            return chat_line(row)

    async def hands(self, table_id: str, game_number: int) -> list[FinishedHand]:
        """Finished hands of one game, in order."""
        async with self.sessions() as session:
            rows = await session.scalars(
                select(HandRow)
                .join(GameRow, GameRow.id == HandRow.game_id)
                .where(GameRow.table_id == table_id, GameRow.number == game_number)
                .order_by(HandRow.number)
            )
            return [
                FinishedHand(
                    hand=row.number,
                    dealer=row.dealer,
                    bids=row.bids,
                    tricks=row.tricks,
                    deal=row.deal,
                    sides=row.sides,
                    timer_moves=row.timer_moves or [],
                    plays=row.plays,
                )
                for row in rows
            ]

    async def forget_presence(self) -> None:
        """Mark every seat disconnected: used at start-up of a single-process server,
        whose sockets all died with the previous process."""
        async with self.sessions.begin() as session:
            present = select(SeatRow.table_id).where(SeatRow.connected.is_(True))
            await session.execute(
                update(TableRow)
                .where(TableRow.id.in_(present))
                .values(version=TableRow.version + 1)
            )
            await session.execute(
                update(SeatRow).where(SeatRow.connected.is_(True)).values(connected=False)
            )


def seat_params(table_id: str, seat: SeatRecord) -> dict[str, Any]:
    return {
        "b_table": table_id,
        "b_seat": seat.seat,
        "b_name": seat.name,
        "b_token_hash": seat.token_hash,
        "b_bot": seat.bot,
        "b_connected": seat.connected,
        "b_autoplay": seat.autoplay,
        "b_autoplay_reason": seat.autoplay_reason,
        "b_timeouts": seat.timeouts,
    }


def write_actions(writer: Writer, writes: list[ActionWrite]) -> Outcomes:
    """Write a batch of accepted actions of different tables on one open transaction: each
    its table's version bump, its seats, its log row, its snapshot and finished hands; the
    new version of each, or VersionConflict for one whose table moved on (it writes
    nothing else). A handful of statements whatever the batch's size: one executemany per
    kind of row. Synchronous: on SQLite it runs whole on sqlite3 (on the loop, or in the
    writer thread), on PostgreSQL in `run_sync` (`server.store.batch`)."""
    landed = _bump_versions(writer, writes)
    # The rows of each kind, gathered in one pass over the writes that landed.
    seats: list[dict[str, Any]] = []
    logs: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    finished: list[dict[str, Any]] = []
    ended: list[dict[str, Any]] = []
    hands: list[dict[str, Any]] = []
    for w, version in zip(writes, landed, strict=True):
        if version is None:
            continue
        for seat in w.seats:
            seats.append(seat_params(w.table_id, seat))
        logs.append(_log_row(w))
        if w.snapshot is not None:
            snapshots.append({"b_game": w.game_id, "b_snapshot": w.snapshot, "b_seq": w.seq})
        if w.winner is not None or w.status == "over":
            finished.append(
                {
                    "b_game": w.game_id,
                    "b_winner": w.winner,
                    "b_scores": w.final_scores,
                    "b_at": utcnow(),
                }
            )
        if w.status != "playing":
            ended.append({"b_id": w.table_id, "b_status": w.status})
        for offset, hand in enumerate(w.new_hands):
            hands.append({"game_id": w.game_id, "number": w.first_hand_number + offset, **hand})
    if seats:
        writer.many(WRITE_SEAT, seats)
    if logs:
        writer.many(INSERT_ACTION, logs)
    if snapshots:
        writer.many(SNAPSHOT_GAME, snapshots)
    if finished:
        writer.many(FINISH_GAME, finished)
    if ended:
        writer.many(END_GAME_STATUS, ended)
    if hands:
        writer.many(INSERT_HAND, hands)
    return [
        VersionConflict(write.table_id) if version is None else version
        for write, version in zip(writes, landed, strict=True)
    ]


def _bump_versions(writer: Writer, writes: list[ActionWrite]) -> list[int | None]:
    """Raise each write's table version by one where it still is the write's old version;
    the new versions (None where the table moved on). One executemany on SQLite (which
    counts its rows), one UPDATE from arrays on PostgreSQL (whose executemany does not
    count), one UPDATE a write for a single write."""
    if len(writes) > 1 and writer.dialect_name == "postgresql":
        return _bump_by_values(writer, writes)
    params = [_bump_row(write) for write in writes] if len(writes) > 1 else [_bump_row(writes[0])]
    if len(writes) > 1:
        if writer.many(BUMP_ACTION, params) != len(writes):
            raise Ambiguous()
        return [write.old_version + 1 for write in writes]
    landed = writer.many(BUMP_ACTION, params) == 1
    return [writes[0].old_version + 1 if landed else None]


def _bump_row(write: ActionWrite) -> dict[str, Any]:
    return {
        "b_id": write.table_id,
        "b_old": write.old_version,
        "b_new": write.old_version + 1,
        "b_deadline": write.deadline,
    }


def _bump_by_values(writer: Writer, writes: list[ActionWrite]) -> list[int | None]:
    """`_bump_versions` in one PostgreSQL statement (`BUMP_UNNEST`): the ids of the tables
    that were still at their write's old version come back."""
    bumped = set(
        writer.scalars(
            BUMP_UNNEST,
            {
                "ids": [w.table_id for w in writes],
                "olds": [w.old_version for w in writes],
                "deadlines": [w.deadline for w in writes],
            },
        )
    )
    return [w.old_version + 1 if w.table_id in bumped else None for w in writes]


def _log_row(write: ActionWrite) -> dict[str, Any]:
    return {
        "game_id": write.game_id,
        "seq": write.seq,
        "seat": write.seat,
        "action": write.action,
        "version": write.old_version + 1,
        "cause": write.cause,
        "at": utcnow(),
    }
