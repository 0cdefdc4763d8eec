"""`TableStore`: the one place that reads and writes tables, seats, games, hands, actions
and chat (a batch of accepted actions is written by `server.store.action_writes`, on the
store's group commit).

Every write that changes what clients see raises the table's version by one, here and in
`action_writes` and nowhere else: the caller names the version it changed, the write
answers the new one, with
`UPDATE tables SET version = :old + 1 WHERE id = :id AND version = :old`. When no row
matches, another server process got there first: `VersionConflict` is raised, the
transaction is rolled back, and the caller reloads the table and tries again (optimistic
locking).
"""

from __future__ import annotations

from collections.abc import Coroutine
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from typing_extensions import Unpack

from server.engine import GameState
from server.engine.rules import RuleFields
from server.protocol import ChatLine, FinishedHand
from server.store.action_writes import (
    WRITE_SEAT,
    PlainMoves,
    VersionConflict,
    seat_params,
    write_actions,
)
from server.store.batch import GroupCommit, Landed
from server.store.db import session_factory
from server.store.models import TABLES, ActionRow, ChatRow, GameRow, HandRow, SeatRow, TableRow
from server.store.records import (
    ActionWrite,
    GameRecord,
    Hosting,
    SeatRecord,
    TableRecord,
    TableSummary,
    TableUpdate,
    chat_line,
    hosting,
    seat_record,
    series,
    stored_fields,
    summary,
)


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
        # The group commit of accepted actions (`record_action`); its counters say how
        # their writes were batched.
        self.actions = GroupCommit(
            engine, write_actions, PlainMoves() if engine.dialect.name == "postgresql" else None
        )

    async def close(self) -> None:
        """Give back the connection the group commit keeps (at shutdown, before the engine
        is disposed)."""
        await self.actions.close()

    async def create_table(
        self,
        table_id: str,
        name: str,
        rules: RuleFields,
        players: int,
        hosts: Hosting | None = None,
        deal_key: str | None = None,
    ) -> None:
        """A new table with empty seats; `hosts` says how it is reached (listed, no
        secrets, when not given); `deal_key` its first hand's server seed (hex)."""
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
                    deal_key=deal_key,
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
            **vars(stored_fields(table, [seat_record(s) for s in seats])),
            hosting=hosting(table),
            deal_key=table.deal_key,
            deal_seeds=table.deal_seeds,
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
    async def _bump(session: AsyncSession, table_id: str, old: int, **fields: object) -> int:
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
        self, table_id: str, old: int, seats: list[SeatRecord], **table_fields: Unpack[TableUpdate]
    ) -> int:
        """Write seats' fields (taken, left, moved, bot, presence, autoplay) and any table
        fields (host, timer, status) with one version bump; the new version."""
        async with self.sessions.begin() as session:
            new = await self._bump(session, table_id, old, **table_fields)
            await self._write_seats(session, table_id, seats)
        return new

    async def change_rules(
        self,
        table_id: str,
        old: int,
        rules: RuleFields,
        players: int,
        seats: list[SeatRecord],
        **table_fields: Unpack[TableUpdate],
    ) -> int:
        """Before the table's first game: its new rules, with one version bump. The table
        gets `players` seats (those beyond are empty: they go; missing ones are added
        empty), then `seats`' fields and any table fields are written; the new version."""
        async with self.sessions.begin() as session:
            new = await self._bump(session, table_id, old, rules=rules, **table_fields)
            await session.execute(
                delete(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat >= players)
            )
            have = set(
                await session.scalars(select(SeatRow.seat).where(SeatRow.table_id == table_id))
            )
            session.add_all(
                SeatRow(table_id=table_id, seat=seat, connected=False, autoplay=False, timeouts=0)
                for seat in range(players)
                if seat not in have
            )
            await session.flush()
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
                # The first hand's server seed is the game's now, in its snapshot.
                deal_key=None,
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
        return self.actions.submit(write, landed)

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
                    fairness=row.fairness,
                    claim=row.claim,
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
