"""`ClubStore`: the one place that reads and writes clubs, their members, tables and
games outside a game's end (which `server.store.club_results` writes with the game's last
action). Secrets are kept as SHA-256 hashes; the caller hashes what it is shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from server.clubs.figures import STORED
from server.clubs.ratings import Rating, fresh, one_seat_each
from server.clubs.stats import OVERALL, HandFacts, Tally, tally_game
from server.engine import Rules
from server.engine.describe import RuleValues, summary
from server.engine.rules import RuleFields
from server.protocol import (
    ClubGame,
    ClubMember,
    ClubMemberFields,
    ClubPage,
    ClubStats,
    ClubTable,
    club_member,
)
from server.rulelinks import rules_link
from server.store.db import session_factory
from server.store.models import (
    CLUB_STATS,
    ClubGameRow,
    ClubMemberRow,
    ClubRow,
    ClubSeatRow,
    ClubTableRow,
    GameRow,
    HandRow,
    SeatRow,
    TableRow,
)
from server.store.records import iso

LIVE = ("waiting", "playing")
# The finished games the club page lists (newest first); older ones are read by page.
GAMES_SHOWN = 100


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who holds a token of a club: its host, or one of its members (`member` their id)."""

    club_id: str
    host: bool
    member: str | None = None
    name: str | None = None


class ClubStore:
    """Clubs on the app's database (SQLite or PostgreSQL)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.sessions = session_factory(engine)

    async def create(self, club_id: str, name: str, invite_hash: str, host_hash: str) -> None:
        async with self.sessions.begin() as session:
            session.add(
                ClubRow(id=club_id, name=name, invite_hash=invite_hash, host_hash=host_hash)
            )

    async def invite_hash(self, club_id: str) -> str | None:
        async with self.sessions() as session:
            found: str | None = await session.scalar(
                select(ClubRow.invite_hash).where(ClubRow.id == club_id)
            )
            return found

    async def join(self, club_id: str, member_id: str, name: str, token_hash: str) -> None:
        rating = fresh()
        async with self.sessions.begin() as session:
            session.add(
                ClubMemberRow(
                    id=member_id,
                    club_id=club_id,
                    name=name,
                    token_hash=token_hash,
                    removed=False,
                    mu=rating.mu,
                    sigma=rating.sigma,
                )
            )

    async def viewer(self, club_id: str, token_hash: str) -> Viewer | None:
        """The host or the (not removed) member whose token hashes to `token_hash`."""
        async with self.sessions() as session:
            host = await session.scalar(
                select(ClubRow.id).where(ClubRow.id == club_id, ClubRow.host_hash == token_hash)
            )
            if host is not None:
                return Viewer(club_id, host=True)
            member = (
                await session.execute(
                    select(ClubMemberRow.id, ClubMemberRow.name).where(
                        ClubMemberRow.club_id == club_id,
                        ClubMemberRow.token_hash == token_hash,
                        ClubMemberRow.removed.is_(False),
                    )
                )
            ).first()
            if member is None:
                return None
            return Viewer(club_id, host=False, member=member[0], name=member[1])

    async def rename(self, club_id: str, name: str) -> None:
        async with self.sessions.begin() as session:
            await session.execute(update(ClubRow).where(ClubRow.id == club_id).values(name=name))

    async def reinvite(self, club_id: str, invite_hash: str) -> None:
        async with self.sessions.begin() as session:
            await session.execute(
                update(ClubRow).where(ClubRow.id == club_id).values(invite_hash=invite_hash)
            )

    async def remove(self, club_id: str, member_id: str) -> bool:
        """The member's token stops working; their games and figures stay. Whether there
        was such a member."""
        async with self.sessions.begin() as session:
            result = await session.execute(
                update(ClubMemberRow)
                .where(ClubMemberRow.club_id == club_id, ClubMemberRow.id == member_id)
                .values(removed=True)
            )
            return bool(getattr(result, "rowcount", 0))

    async def attach_table(
        self, club_id: str, table_id: str, preset: str, rules: RuleFields, usual: bool = True
    ) -> None:
        """`table_id` belongs to the club; `usual`: its rules become the club's usual ones
        (not a club night's, whose rounds last a set number of hands)."""
        async with self.sessions.begin() as session:
            session.add(ClubTableRow(table_id=table_id, club_id=club_id, preset=preset))
            if usual:
                await session.execute(
                    update(ClubRow).where(ClubRow.id == club_id).values(rules=rules)
                )

    async def retag_table(self, table_id: str, preset: str, rules: RuleFields) -> None:
        """The table's host changed its rules before its first game: its games count
        under `preset` from now on, and its rules become its club's latest (nothing when
        the table is no club's)."""
        async with self.sessions.begin() as session:
            club_id = await session.scalar(
                select(ClubTableRow.club_id).where(ClubTableRow.table_id == table_id)
            )
            if club_id is None:
                return
            await session.execute(
                update(ClubTableRow).where(ClubTableRow.table_id == table_id).values(preset=preset)
            )
            await session.execute(update(ClubRow).where(ClubRow.id == club_id).values(rules=rules))

    async def usual_rules(self, club_id: str) -> RuleValues | None:
        """The rules of a new club table given none: the house rules the host set, else
        those of the club's latest table."""
        async with self.sessions() as session:
            row = (
                await session.execute(
                    select(ClubRow.house_rules, ClubRow.rules).where(ClubRow.id == club_id)
                )
            ).first()
            if row is None:
                return None
            house, latest = row
            if house:
                return dict(house)
            return dict(latest) if latest else None

    async def set_house_rules(self, club_id: str, rules: RuleValues | None) -> None:
        """The club's house rules (a preset and changes, already checked), or none."""
        async with self.sessions.begin() as session:
            await session.execute(
                update(ClubRow).where(ClubRow.id == club_id).values(house_rules=rules)
            )

    async def club_of_table(self, table_id: str) -> str | None:
        async with self.sessions() as session:
            club: str | None = await session.scalar(
                select(ClubTableRow.club_id).where(ClubTableRow.table_id == table_id)
            )
            return club

    async def seat_member(self, table_id: str, member_id: str, token_hash: str) -> None:
        """The seat token hashing to `token_hash` at `table_id` plays as `member_id`."""
        async with self.sessions.begin() as session:
            session.add(ClubSeatRow(table_id=table_id, token_hash=token_hash, member_id=member_id))

    async def member_seat_hashes(self, table_id: str, member_id: str) -> frozenset[str]:
        """The hashes of every seat token given to `member_id` at `table_id`: the seat
        holding one of them is the member's."""
        async with self.sessions() as session:
            found = await session.scalars(
                select(ClubSeatRow.token_hash).where(
                    ClubSeatRow.table_id == table_id, ClubSeatRow.member_id == member_id
                )
            )
            return frozenset(found)

    async def unseat_member(self, table_id: str, token_hash: str) -> None:
        async with self.sessions.begin() as session:
            await session.execute(
                delete(ClubSeatRow).where(
                    ClubSeatRow.table_id == table_id, ClubSeatRow.token_hash == token_hash
                )
            )

    # -- reading -----------------------------------------------------------------------------

    async def page(self, viewer: Viewer) -> ClubPage | None:
        """Everything the club page shows, in a handful of queries whatever the number of
        games (the figures are the stored totals, never a recount)."""
        club_id = viewer.club_id
        async with self.sessions() as session:
            club = await session.get(ClubRow, club_id)
            if club is None:
                return None
            rows = (
                await session.scalars(
                    select(ClubMemberRow)
                    .where(ClubMemberRow.club_id == club_id)
                    .order_by(ClubMemberRow.joined, ClubMemberRow.id)
                )
            ).all()
            stats: dict[str, dict[str, ClubStats]] = {row.id: {} for row in rows}
            for row in (
                await session.execute(
                    select(CLUB_STATS)
                    .join(ClubMemberRow, ClubMemberRow.id == CLUB_STATS.c.member_id)
                    .where(ClubMemberRow.club_id == club_id)
                )
            ).mappings():
                counts = {name: row[name] for name in STORED}
                stats[row["member_id"]][row["preset"]] = Tally(**counts).shown()
            members = [member_entry(row, stats[row.id]) for row in rows]
            games = await self._games(session, club_id, 0, GAMES_SHOWN)
            total = len(games)
            if total == GAMES_SHOWN:
                total = (
                    await session.scalar(
                        select(func.count())
                        .select_from(ClubGameRow)
                        .where(ClubGameRow.club_id == club_id)
                    )
                    or 0
                )
            tables, abandoned = await self._tables(session, club_id)
        leaderboard = [
            m["id"] for m in sorted(members, key=lambda m: -m["rating"]) if not m["removed"]
        ]
        return ClubPage(
            id=club.id,
            name=club.name,
            rules=club.rules,
            house_rules=club.house_rules,
            house_summary=summary(club.house_rules) if club.house_rules else None,
            members=members,
            leaderboard=leaderboard,
            tables=tables,
            games=abandoned + games,
            games_total=total + len(abandoned),
            you=viewer.member,
            host=viewer.host,
        )

    async def games(self, club_id: str, offset: int, limit: int) -> list[ClubGame]:
        """Finished club games, newest first, from `offset` (for the page's older games)."""
        async with self.sessions() as session:
            return await self._games(session, club_id, offset, limit)

    @staticmethod
    async def _games(
        session: AsyncSession, club_id: str, offset: int, limit: int
    ) -> list[ClubGame]:
        return [
            ClubGame(
                table=table_id,
                ended=iso(ended),
                rated=rated,
                winner=winner,
                sides=sides,
                preset=preset,
                bots=bots,
                abandoned=False,
                rules_link=rules_link(rules),
            )
            for table_id, ended, rated, winner, sides, preset, bots, rules in await session.execute(
                select(
                    ClubGameRow.table_id,
                    ClubGameRow.ended,
                    ClubGameRow.rated,
                    ClubGameRow.winner,
                    ClubGameRow.sides,
                    ClubGameRow.preset,
                    ClubGameRow.bots,
                    TableRow.rules,
                )
                .join(TableRow, TableRow.id == ClubGameRow.table_id)
                .where(ClubGameRow.club_id == club_id)
                .order_by(ClubGameRow.ended.desc(), ClubGameRow.game_id.desc())
                .offset(offset)
                .limit(limit)
            )
        ]

    async def _tables(
        self, session: AsyncSession, club_id: str
    ) -> tuple[list[ClubTable], list[ClubGame]]:
        """The club's live tables, and its abandoned games: ended by the host, or left
        unfinished when the table moved on to another game."""
        live_rows = (
            await session.execute(
                select(TableRow.id, TableRow.name, TableRow.status)
                .join(ClubTableRow, ClubTableRow.table_id == TableRow.id)
                .where(ClubTableRow.club_id == club_id, TableRow.status.in_(LIVE))
                .order_by(TableRow.created.desc(), TableRow.id)
            )
        ).all()
        live_ids = [table_id for table_id, _name, _status in live_rows]
        seats: dict[str, list[str | None]] = {table_id: [] for table_id in live_ids}
        if live_ids:
            for table_id, name in await session.execute(
                select(SeatRow.table_id, SeatRow.name)
                .where(SeatRow.table_id.in_(live_ids))
                .order_by(SeatRow.table_id, SeatRow.seat)
            ):
                seats[table_id].append(name)
        live = [
            ClubTable(id=table_id, name=name, status=status, seats=seats[table_id])
            for table_id, name, status in live_rows
        ]
        unfinished = (
            await session.execute(
                select(GameRow.table_id, ClubTableRow.preset, TableRow.rules)
                .join(ClubTableRow, ClubTableRow.table_id == GameRow.table_id)
                .join(TableRow, TableRow.id == GameRow.table_id)
                .where(
                    ClubTableRow.club_id == club_id,
                    GameRow.finished.is_(None),
                    (TableRow.status == "ended") | (GameRow.number < TableRow.game_number),
                )
                .order_by(GameRow.id.desc())
            )
        ).all()
        abandoned = [
            ClubGame(
                table=table_id,
                ended=None,
                rated=False,
                winner=None,
                sides=[],
                preset=preset,
                bots=False,
                abandoned=True,
                rules_link=rules_link(rules),
            )
            for table_id, preset, rules in unfinished
        ]
        return live, abandoned

    async def recount(self, club_id: str) -> dict[str, dict[str, Tally]]:
        """Every member's figures summed again from the stored hands of every rated club
        game (a check of the stored totals; the page never calls it)."""
        totals: dict[str, dict[str, Tally]] = {}
        async with self.sessions() as session:
            games = (
                await session.execute(
                    select(
                        ClubGameRow.game_id,
                        ClubGameRow.preset,
                        TableRow.rules,
                        GameRow.winner,
                        ClubGameRow.seats,
                    )
                    .join(GameRow, GameRow.id == ClubGameRow.game_id)
                    .join(TableRow, TableRow.id == ClubGameRow.table_id)
                    .where(ClubGameRow.club_id == club_id, ClubGameRow.rated.is_(True))
                )
            ).all()
            for game_id, preset, rules, winner, seats in games:
                members = {seat: m for seat, m in enumerate(seats) if m is not None}
                if not one_seat_each(members.values()):
                    continue
                hands = [
                    HandFacts(row.bids, row.tricks, row.sides)
                    for row in await session.scalars(
                        select(HandRow).where(HandRow.game_id == game_id).order_by(HandRow.number)
                    )
                ]
                game = tally_game(Rules.model_validate(rules), hands, members, winner)
                for member, tally in game.items():
                    for kind in (preset, OVERALL):
                        totals.setdefault(member, {}).setdefault(kind, Tally()).add(tally)
        return totals


def member_entry(row: ClubMemberRow, stats: dict[str, ClubStats]) -> ClubMember:
    overall = stats.get(OVERALL) or Tally().shown()
    rating = Rating(row.mu, row.sigma)
    own = ClubMemberFields(
        id=row.id,
        name=row.name,
        removed=row.removed,
        rating=round(rating.ordinal, 3),
        mu=round(row.mu, 3),
        sigma=round(row.sigma, 3),
        presets={kind: figures for kind, figures in stats.items() if kind != OVERALL},
    )
    return club_member(own, overall)
