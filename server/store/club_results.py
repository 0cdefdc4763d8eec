"""A finished club game's result, stats and ratings, written on the transaction that
stores the game's last action (`write_actions` calls `write_club_results` for the writes
that end a game), so that a game is rated exactly once: with its end, or not at all.

Only those writes do anything here: one read tells whether the table is a club's. A
game already in `club_games` is left alone, so writing the same end again changes
nothing. The figures come from the game's stored hands (`server.clubs.stats`), the new
ratings from the members' stored ones (`server.clubs.ratings`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import orjson
from sqlalchemy import Text, and_, bindparam, cast, insert, select, update
from typing_extensions import TypedDict

from server.clubs.figures import STORED
from server.clubs.ratings import Rating, rate
from server.clubs.stats import OVERALL, HandFacts, Tally, tally_game
from server.engine import Rules
from server.protocol import ClubSide
from server.store.models import (
    CLUB_GAMES,
    CLUB_MEMBERS,
    CLUB_SEATS,
    CLUB_STATS,
    CLUB_TABLES,
    HANDS,
    SEATS,
    TABLES,
    utcnow,
)
from server.store.records import ActionWrite
from server.store.statements import Writer

CLUB_OF_TABLE = (
    select(CLUB_TABLES.c.club_id, CLUB_TABLES.c.preset, cast(TABLES.c.rules, Text))
    .join(TABLES, TABLES.c.id == CLUB_TABLES.c.table_id)
    .where(CLUB_TABLES.c.table_id == bindparam("c_table"))
)
GAME_KEPT = select(CLUB_GAMES.c.game_id).where(CLUB_GAMES.c.game_id == bindparam("c_game"))
SEAT_MEMBERS = (
    select(SEATS.c.seat, SEATS.c.name, CLUB_SEATS.c.member_id)
    .select_from(
        SEATS.outerjoin(
            CLUB_SEATS,
            and_(
                CLUB_SEATS.c.table_id == SEATS.c.table_id,
                CLUB_SEATS.c.token_hash == SEATS.c.token_hash,
            ),
        )
    )
    .where(SEATS.c.table_id == bindparam("c_table"))
)
GAME_HANDS = (
    select(cast(HANDS.c.bids, Text), cast(HANDS.c.tricks, Text), cast(HANDS.c.sides, Text))
    .where(HANDS.c.game_id == bindparam("c_game"))
    .order_by(HANDS.c.number)
)
# Locked on PostgreSQL (SQLite renders no FOR UPDATE; its writes are serial anyway): two
# games of one club ending at once in two processes rate and add up one after the other.
CLUB_RATINGS = (
    select(CLUB_MEMBERS.c.id, CLUB_MEMBERS.c.mu, CLUB_MEMBERS.c.sigma)
    .where(CLUB_MEMBERS.c.club_id == bindparam("c_club"))
    .with_for_update()
)
SET_RATING = (
    update(CLUB_MEMBERS)
    .where(CLUB_MEMBERS.c.id == bindparam("c_member"))
    .values(mu=bindparam("c_mu"), sigma=bindparam("c_sigma"))
)
KEPT_STATS = (
    select(CLUB_STATS.c.member_id, CLUB_STATS.c.preset)
    .join(CLUB_MEMBERS, CLUB_MEMBERS.c.id == CLUB_STATS.c.member_id)
    .where(CLUB_MEMBERS.c.club_id == bindparam("c_club"))
)
ADD_STATS = (
    update(CLUB_STATS)
    .where(
        CLUB_STATS.c.member_id == bindparam("c_member"),
        CLUB_STATS.c.preset == bindparam("c_preset"),
    )
    .values({name: CLUB_STATS.c[name] + bindparam(f"c_{name}") for name in STORED})
)
INSERT_STATS = insert(CLUB_STATS)
INSERT_GAME = insert(CLUB_GAMES)


# The rows the statements above bind, one TypedDict a statement (as in `action_writes`).


class GameInsert(TypedDict):
    """`INSERT_GAME`: one `club_games` row."""

    game_id: int
    club_id: str
    table_id: str
    preset: str
    ended: datetime
    rated: bool
    bots: bool
    winner: int | None
    sides: list[ClubSide]
    seats: list[str | None]


class RatingRow(TypedDict):
    """`SET_RATING`: a member's new rating."""

    c_member: str
    c_mu: float
    c_sigma: float


# `INSERT_STATS`: a member's first figures for a preset (or overall): `member_id`,
# `preset` and a count per stored figure. `ADD_STATS`: one game's figures added to a
# member's row for a preset: `c_member`, `c_preset` and `c_<figure>` per stored figure.
# Keyed by the figures' names, so typed as mappings.
StatsRow = dict[str, str | int]


def stats_insert(member: str, preset: str, tally: Tally) -> StatsRow:
    return {"member_id": member, "preset": preset, **{name: tally[name] for name in STORED}}


def stats_add(member: str, preset: str, tally: Tally) -> StatsRow:
    return {"c_member": member, "c_preset": preset, **{f"c_{n}": tally[n] for n in STORED}}


def stored_hands(writer: Writer, game_id: int) -> list[HandFacts]:
    """The game's stored hands, as the figures read them (this transaction's included)."""
    return [
        HandFacts(orjson.loads(bids), orjson.loads(tricks), orjson.loads(sides))
        for bids, tricks, sides in writer.rows(GAME_HANDS, {"c_game": game_id})
    ]


def write_club_results(writer: Writer, writes: Sequence[ActionWrite]) -> None:
    """For each write that ends a game at a club's table: the game's result, its members'
    figures and ratings, unless that game is already stored."""
    for write in writes:
        found = writer.rows(CLUB_OF_TABLE, {"c_table": write.table_id})
        if not found:
            continue
        club_id, preset, rules_json = found[0]
        if writer.scalars(GAME_KEPT, {"c_game": write.game_id}):
            continue
        rules = Rules.model_validate(orjson.loads(rules_json))
        _write_game(writer, write, club_id, preset, rules)


def _write_game(
    writer: Writer, write: ActionWrite, club_id: str, preset: str, rules: Rules
) -> None:
    members: dict[int, str] = {}
    for seat, _name, member in writer.rows(SEAT_MEMBERS, {"c_table": write.table_id}):
        if member is not None:
            members[seat] = member
    scores = [side["score"] for side in write.final_scores or []]
    teams = [[members[seat] for seat in side if seat in members] for side in rules.sides]
    sides: list[ClubSide] = [
        {"members": team, "score": score} for team, score in zip(teams, scores, strict=True)
    ]
    ratings = {
        member: Rating(mu, sigma)
        for member, mu, sigma in writer.rows(CLUB_RATINGS, {"c_club": club_id})
    }
    new = rate(teams, ratings, scores, write.winner)
    game: GameInsert = {
        "game_id": write.game_id,
        "club_id": club_id,
        "table_id": write.table_id,
        "preset": preset,
        "ended": utcnow(),
        "rated": bool(new),
        "bots": len(members) < rules.players,
        "winner": write.winner,
        "sides": sides,
        "seats": [members.get(seat) for seat in range(rules.players)],
    }
    writer.many(INSERT_GAME, [game])
    if not new:
        return
    ratings_after: list[RatingRow] = [
        {"c_member": member, "c_mu": rating.mu, "c_sigma": rating.sigma}
        for member, rating in sorted(new.items())
    ]
    writer.many(SET_RATING, ratings_after)
    tallies = tally_game(rules, stored_hands(writer, write.game_id), members, write.winner)
    add_tallies(writer, club_id, preset, tallies)


def add_tallies(writer: Writer, club_id: str, preset: str, tallies: dict[str, Tally]) -> None:
    """Add each member's figures of one game to their totals for `preset` and overall."""
    kept = {(member, kind) for member, kind in writer.rows(KEPT_STATS, {"c_club": club_id})}
    updates: list[StatsRow] = []
    inserts: list[StatsRow] = []
    for member, tally in sorted(tallies.items()):
        for kind in (preset, OVERALL):
            if (member, kind) in kept:
                updates.append(stats_add(member, kind, tally))
            else:
                inserts.append(stats_insert(member, kind, tally))
    if updates:
        writer.many(ADD_STATS, updates)
    if inserts:
        writer.many(INSERT_STATS, inserts)
