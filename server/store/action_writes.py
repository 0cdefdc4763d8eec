"""What a batch of accepted actions writes, on the group commit's open transaction.

`write_actions` is the group commit's `write_all` for `ActionWrite`s (`server.store.batch`
runs it, on sqlite3 or on SQLAlchemy, through a `Writer`): each table's version bump, its
seats, its log row, its snapshot and finished hands, one executemany per kind of row. Its
statements are built once here, as Core statements on the tables themselves: no unit of
work, no identity map, no evaluation of an UPDATE against loaded objects.

`PlainMoves` is its `OneStatement` on PostgreSQL: a batch of moves that only bump their
table's version and log the action (nearly every move: no hand ends, no seat changes) is
one statement there.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import orjson
from sqlalchemy import bindparam, insert, text, update
from typing_extensions import TypedDict

from server.engine import Action, GameState, SideScore
from server.protocol import StoredHand, TableStatus
from server.store.batch import Ambiguous, Outcomes
from server.store.club_results import write_club_results
from server.store.db import json_text
from server.store.models import ACTIONS, GAMES, HANDS, SEATS, TABLES, utcnow
from server.store.records import ActionWrite, SeatRecord
from server.store.statements import Statement, Writer


class VersionConflict(Exception):
    """The table changed under us (another process wrote first)."""


# The bump leaves the status alone: the action that ends a game sets it (`END_GAME_STATUS`).
# On SQLite, setting an indexed column rewrites its index entry even to the same value: a
# status in every bump would cost each commit one more WAL page.
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
# batch.
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


# The rows the statements above bind, one TypedDict a statement: each key is a bind
# parameter (or, for an INSERT, a column), in the order the rows are built.


class BumpRow(TypedDict):
    """`BUMP_ACTION`: a table raised from `b_old` to `b_new`, its timer's new deadline."""

    b_id: str
    b_old: int
    b_new: int
    b_deadline: datetime | None


class BumpArrays(TypedDict):
    """`BUMP_UNNEST`: the batch's bumps, one array a field."""

    ids: list[str]
    olds: list[int]
    deadlines: list[datetime | None]


class StatusRow(TypedDict):
    """`END_GAME_STATUS`: the status the action that ends a game writes."""

    b_id: str
    b_status: TableStatus


class SeatParams(TypedDict):
    """`WRITE_SEAT`: one seat's fields, as its `SeatRecord` has them."""

    b_table: str
    b_seat: int
    b_name: str | None
    b_token_hash: str | None
    b_bot: str | None
    b_connected: bool
    b_autoplay: bool
    b_autoplay_reason: str | None
    b_timeouts: int


class LogRow(TypedDict):
    """`INSERT_ACTION`: one `actions` row."""

    game_id: int
    seq: int
    seat: int
    action: Action
    version: int
    cause: str | None
    at: datetime


class SnapshotRow(TypedDict):
    """`SNAPSHOT_GAME`: the game's snapshot after action `b_seq` (or its JSON as is)."""

    b_game: int
    b_snapshot: GameState | orjson.Fragment
    b_seq: int


class FinishRow(TypedDict):
    """`FINISH_GAME`: a finished game's winner and final scores."""

    b_game: int
    b_winner: int | None
    b_scores: list[SideScore] | None
    b_at: datetime


class HandInsert(StoredHand):
    """`INSERT_HAND`: one `hands` row, a stored hand with its game and number."""

    game_id: int
    number: int


def seat_params(table_id: str, seat: SeatRecord) -> SeatParams:
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
    its table's version bump, its seats, its log row, its snapshot and finished hands (and,
    for a club game's last action, the club's result: `write_club_results`); the
    new version of each, or VersionConflict for one whose table moved on (it writes
    nothing else). A handful of statements whatever the batch's size: one executemany per
    kind of row. Synchronous: on SQLite it runs whole on sqlite3 (on the loop, or in the
    writer thread), on PostgreSQL in `run_sync` (`server.store.batch`)."""
    landed = _bump_versions(writer, writes)
    # The rows of each kind, gathered in one pass over the writes that landed.
    seats: list[SeatParams] = []
    logs: list[LogRow] = []
    snapshots: list[SnapshotRow] = []
    finished: list[FinishRow] = []
    ended: list[StatusRow] = []
    hands: list[HandInsert] = []
    games_over: list[ActionWrite] = []
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
        if w.status == "over":
            games_over.append(w)
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
    if games_over:
        # Last: a club game's result reads the hands this batch wrote.
        write_club_results(writer, games_over)
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


def _bump_row(write: ActionWrite) -> BumpRow:
    return {
        "b_id": write.table_id,
        "b_old": write.old_version,
        "b_new": write.old_version + 1,
        "b_deadline": write.deadline,
    }


def _bump_by_values(writer: Writer, writes: list[ActionWrite]) -> list[int | None]:
    """`_bump_versions` in one PostgreSQL statement (`BUMP_UNNEST`): the ids of the tables
    that were still at their write's old version come back."""
    arrays: BumpArrays = {
        "ids": [w.table_id for w in writes],
        "olds": [w.old_version for w in writes],
        "deadlines": [w.deadline for w in writes],
    }
    bumped = set(writer.scalars(BUMP_UNNEST, arrays))
    return [w.old_version + 1 if w.table_id in bumped else None for w in writes]


def _log_row(write: ActionWrite) -> LogRow:
    return {
        "game_id": write.game_id,
        "seq": write.seq,
        "seat": write.seat,
        "action": write.action,
        "version": write.old_version + 1,
        "cause": write.cause,
        "at": utcnow(),
    }


# `PlainMoves`' statement: the batch as arrays, one row a move through unnest; the bumps
# that found their table at the move's old version, and the log rows of those alone. One
# statement text whatever the batch's size (asyncpg prepares it once per connection).
PLAIN_MOVES = (
    "WITH moves AS (SELECT * FROM unnest($1::text[], $2::integer[], $3::timestamptz[],"
    " $4::integer[], $5::integer[], $6::integer[], $7::text[], $8::text[], $9::timestamptz[])"
    " AS m (id, old, deadline, game_id, seq, seat, action, cause, at)),"
    " bumped AS (UPDATE tables SET version = moves.old + 1, deadline = moves.deadline"
    " FROM moves WHERE tables.id = moves.id AND tables.version = moves.old"
    " RETURNING tables.id),"
    " logged AS (INSERT INTO actions (game_id, seq, seat, action, version, cause, at)"
    " SELECT moves.game_id, moves.seq, moves.seat, moves.action::json, moves.old + 1,"
    " moves.cause, moves.at FROM moves JOIN bumped ON bumped.id = moves.id)"
    " SELECT id FROM bumped"
)


def plain(write: ActionWrite) -> bool:
    """Whether `write` only bumps its table's version and logs its action."""
    return (
        write.status == "playing"
        and write.snapshot is None
        and not write.new_hands
        and not write.seats
        and write.winner is None
    )


class PlainMoves:
    """`write_actions` for a batch of plain moves, as one PostgreSQL statement
    (`PLAIN_MOVES`); any other batch (a hand ends, a seat changes, two moves of one table)
    goes through `write_actions` in a transaction."""

    def statement(self, writes: Sequence[ActionWrite]) -> Statement | None:
        if not all(plain(write) for write in writes):
            return None
        ids = [write.table_id for write in writes]
        if len(set(ids)) != len(ids):
            return None
        at = utcnow()
        return Statement(
            PLAIN_MOVES,
            (
                ids,
                [write.old_version for write in writes],
                [write.deadline for write in writes],
                [write.game_id for write in writes],
                [write.seq for write in writes],
                [write.seat for write in writes],
                [json_text(write.action) for write in writes],
                [write.cause for write in writes],
                [at] * len(writes),
            ),
        )

    def outcomes(self, writes: Sequence[ActionWrite], returned: list[object]) -> Outcomes:
        bumped = set(returned)
        return [
            write.old_version + 1 if write.table_id in bumped else VersionConflict(write.table_id)
            for write in writes
        ]
