"""`NightStore`: club nights in the database, the one home of their state (several server
processes share it): a night's schedule and round, the tables made for its rounds, and
what its standings are read from (the stored hands of each table's game).

A round is started by raising `round` with `WHERE round = :old`, so that of two
requests at once (in one process or two) exactly one starts it; the tables of a round
are recorded one row a table, so that starting a round again finds what was made.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from server.clubs.standings import NightGame
from server.clubs.stats import HandFacts
from server.engine.rules import RuleFields
from server.protocol import NightRound
from server.store.db import session_factory
from server.store.models import (
    ClubMemberRow,
    ClubNightRow,
    ClubNightTableRow,
    ClubRow,
    GameRow,
    HandRow,
    TableRow,
    utc,
    utcnow,
)

# A night's tables play one game each: a rematch at such a table is not the night's.
NIGHT_GAME = 1


@dataclass(frozen=True, slots=True)
class NightRecord:
    id: str
    club_id: str
    format: str
    fill: str
    rounds: int
    hands: int | None
    rules: list[RuleFields]
    members: list[str]
    schedule: list[NightRound]
    seed: int
    turn_seconds: int | None
    round: int
    paused: bool
    ended: bool
    watch_token: str
    created: datetime
    # When the round being played was started (None before the first), in UTC.
    round_started: datetime | None = None


def night_record(row: ClubNightRow) -> NightRecord:
    return NightRecord(
        id=row.id,
        club_id=row.club_id,
        format=row.format,
        fill=row.fill,
        rounds=row.rounds,
        hands=row.hands,
        rules=row.rules,
        members=row.members,
        schedule=row.schedule,
        seed=row.seed,
        turn_seconds=row.turn_seconds,
        round=row.round,
        paused=row.paused,
        ended=row.ended,
        watch_token=row.watch_token,
        created=row.created,
        round_started=None if row.round_started is None else utc(row.round_started),
    )


class NightStore:
    """Club nights on the app's database (SQLite or PostgreSQL)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sessions = session_factory(engine)

    async def create(self, night: NightRecord) -> None:
        async with self.sessions.begin() as session:
            session.add(
                ClubNightRow(
                    id=night.id,
                    club_id=night.club_id,
                    format=night.format,
                    fill=night.fill,
                    rounds=night.rounds,
                    hands=night.hands,
                    rules=night.rules,
                    members=night.members,
                    schedule=night.schedule,
                    seed=night.seed,
                    turn_seconds=night.turn_seconds,
                    round=0,
                    paused=False,
                    ended=False,
                    watch_token=night.watch_token,
                    created=night.created,
                )
            )

    async def get(self, club_id: str, night_id: str) -> NightRecord | None:
        async with self.sessions() as session:
            row = await session.get(ClubNightRow, night_id)
            if row is None or row.club_id != club_id:
                return None
            return night_record(row)

    async def latest(self, club_id: str, limit: int) -> list[NightRecord]:
        """The club's nights, newest first."""
        async with self.sessions() as session:
            rows = await session.scalars(
                select(ClubNightRow)
                .where(ClubNightRow.club_id == club_id)
                .order_by(ClubNightRow.created.desc(), ClubNightRow.id)
                .limit(limit)
            )
            return [night_record(row) for row in rows]

    async def by_id(self, night_id: str) -> NightRecord | None:
        async with self.sessions() as session:
            row = await session.get(ClubNightRow, night_id)
            return None if row is None else night_record(row)

    async def names(self, club_id: str) -> tuple[str, dict[str, str], set[str]]:
        """The club's name, its members' names by id, and the ids of those removed."""
        async with self.sessions() as session:
            club = await session.scalar(select(ClubRow.name).where(ClubRow.id == club_id))
            rows = (
                await session.execute(
                    select(ClubMemberRow.id, ClubMemberRow.name, ClubMemberRow.removed).where(
                        ClubMemberRow.club_id == club_id
                    )
                )
            ).all()
        return (
            club or "",
            {member: name for member, name, _removed in rows},
            {member for member, _name, removed in rows if removed},
        )

    async def start_round(self, night_id: str, old: int) -> bool:
        """Round `old` + 1 starts: whether this call started it (another may have)."""
        async with self.sessions.begin() as session:
            result = await session.execute(
                update(ClubNightRow)
                .where(
                    ClubNightRow.id == night_id,
                    ClubNightRow.round == old,
                    ClubNightRow.ended.is_(False),
                    ClubNightRow.paused.is_(False),
                )
                .values(round=old + 1, round_started=utcnow())
            )
            return bool(getattr(result, "rowcount", 0))

    async def reschedule(
        self, night_id: str, at_round: int, members: list[str], schedule: list[NightRound]
    ) -> bool:
        """New members and schedule, unless a round has started since `at_round` was read."""
        async with self.sessions.begin() as session:
            result = await session.execute(
                update(ClubNightRow)
                .where(
                    ClubNightRow.id == night_id,
                    ClubNightRow.round == at_round,
                    ClubNightRow.ended.is_(False),
                )
                .values(members=members, schedule=schedule)
            )
            return bool(getattr(result, "rowcount", 0))

    async def set_paused(self, night_id: str, paused: bool) -> None:
        async with self.sessions.begin() as session:
            await session.execute(
                update(ClubNightRow).where(ClubNightRow.id == night_id).values(paused=paused)
            )

    async def end(self, night_id: str) -> None:
        async with self.sessions.begin() as session:
            await session.execute(
                update(ClubNightRow).where(ClubNightRow.id == night_id).values(ended=True)
            )

    async def add_table(self, night_id: str, round: int, position: int, table_id: str) -> bool:
        """Record a round's table; False when that place already has one."""
        try:
            async with self.sessions.begin() as session:
                session.add(
                    ClubNightTableRow(
                        night_id=night_id, round=round, position=position, table_id=table_id
                    )
                )
        except IntegrityError:
            return False
        return True

    async def tables(self, night_id: str) -> dict[tuple[int, int], str]:
        """The night's tables by (round, position)."""
        async with self.sessions() as session:
            rows = await session.execute(
                select(
                    ClubNightTableRow.round, ClubNightTableRow.position, ClubNightTableRow.table_id
                ).where(ClubNightTableRow.night_id == night_id)
            )
            return {(r, p): table_id for r, p, table_id in rows}

    async def night_of_table(self, table_id: str) -> tuple[NightRecord, int, int] | None:
        """The night a table was made for, with its round and position."""
        async with self.sessions() as session:
            found = (
                await session.execute(
                    select(ClubNightRow, ClubNightTableRow.round, ClubNightTableRow.position)
                    .join(ClubNightTableRow, ClubNightTableRow.night_id == ClubNightRow.id)
                    .where(ClubNightTableRow.table_id == table_id)
                )
            ).first()
            if found is None:
                return None
            row, round, position = found
            return night_record(row), round, position

    async def games(self, night_id: str) -> list[NightGame]:
        """Every table of the night with its game's state and stored hands."""
        async with self.sessions() as session:
            rows = (
                await session.execute(
                    select(
                        ClubNightTableRow.table_id,
                        ClubNightTableRow.round,
                        ClubNightTableRow.position,
                        TableRow.status,
                        GameRow.id,
                        GameRow.finished,
                        GameRow.winner,
                    )
                    .join(TableRow, TableRow.id == ClubNightTableRow.table_id)
                    .outerjoin(
                        GameRow,
                        (GameRow.table_id == ClubNightTableRow.table_id)
                        & (GameRow.number == NIGHT_GAME),
                    )
                    .where(ClubNightTableRow.night_id == night_id)
                    .order_by(ClubNightTableRow.round, ClubNightTableRow.position)
                )
            ).all()
            game_ids = [game_id for *_rest, game_id, _f, _w in rows if game_id is not None]
            hands: dict[int, list[HandFacts]] = {game_id: [] for game_id in game_ids}
            if game_ids:
                for game_id, bids, tricks, sides in await session.execute(
                    select(HandRow.game_id, HandRow.bids, HandRow.tricks, HandRow.sides)
                    .where(HandRow.game_id.in_(game_ids))
                    .order_by(HandRow.game_id, HandRow.number)
                ):
                    hands[game_id].append(HandFacts(bids, tricks, sides))
        return [
            NightGame(
                table_id=table_id,
                round=round,
                position=position,
                status=status,
                finished=finished is not None,
                winner=winner,
                hands=hands.get(game_id, []) if game_id is not None else [],
            )
            for table_id, round, position, status, game_id, finished, winner in rows
        ]
