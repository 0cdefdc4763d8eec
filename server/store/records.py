"""The store's records: what it hands out and takes in, and their builders from rows.

Other layers hold these plain records (seats, hosting, a table with its game and chat, a
lobby row, an accepted action to write), never the ORM rows of `server.store.models`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TypedDict

import orjson

from server.engine import Action, GameState, Rules, SideResult, SideScore
from server.engine.rules import RuleFields
from server.protocol import ChatLine, DealSeeds, StoredHand, TableStatus
from server.store.models import ChatRow, SeatRow, TableRow, utc


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
    # Players may ask for a hint (the expert bot's choice from their own view).
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
    rules: RuleFields
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
    # The first hand's server seed (hex) until the first game starts, and the players'
    # seeds for the next deal (docs/fairness.md).
    deal_key: str | None = None
    deal_seeds: DealSeeds | None = None


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
    final_scores: list[SideScore] | None
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
        deadline=None if table.deadline is None else utc(table.deadline),
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


def stored_fields(table: TableRow, seats: list[SeatRecord]) -> TableFields:
    """The fields every stored view of a table starts with, from its row and seats."""
    return TableFields(
        id=table.id,
        name=table.name,
        rules=table.rules,
        status=table.status,
        version=table.version,
        game_number=table.game_number,
        created=table.created,
        seats=seats,
    )


def table_summary(
    table: TableFields,
    scores: list[SideScore],
    winner: int | None,
    hands_played: int,
    hosting: Hosting,
    series: list[int],
) -> TableSummary:
    """The one builder of a lobby row, whether from stored rows or a live room: `table`
    (a `TableFields` itself, not a larger record) and what the lobby adds to it."""
    return TableSummary(
        **vars(table),
        scores=scores,
        winner=winner,
        hands_played=hands_played,
        hosting=hosting,
        series=series,
    )


def summary(
    table: TableRow,
    seats: list[SeatRecord],
    game_id: int | None,
    winner: int | None,
    final_scores: list[SideScore] | None,
    last_hands: dict[int, tuple[int, list[SideResult]]],
    wins: dict[str, dict[int, int]],
) -> TableSummary:
    """One lobby row from stored rows: scores are the final ones of a finished game, else
    those after the latest saved hand (hands are numbered from 1, so its number counts
    them), else 0."""
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
    return table_summary(
        stored_fields(table, seats),
        scores,
        winner,
        number,
        hosting(table),
        series(table, wins.get(table.id, {})),
    )


def series(table: TableRow, wins: dict[int, int]) -> list[int]:
    """Games won by each side, from the winners of the table's finished games."""
    return [wins.get(side, 0) for side in range(len(Rules.model_validate(table.rules).sides))]


class TableUpdate(TypedDict, total=False):
    """Table fields a change writes beside its seats: its status, or its hosting."""

    status: str
    host_seat: int | None
    host_hash: str | None
    turn_seconds: int | None
    deadline: datetime | None
    deal_seeds: DealSeeds
