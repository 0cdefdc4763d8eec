"""The shapes of the HTTP answers (docs/protocol.md), as `response_model`s.

They describe what the hub already builds, so `/openapi.json` tells a client the real
fields; they also filter: a field the hub adds that is not declared here is not sent, so a
secret can only reach an answer by being named below. Routes serialize them with
`response_model_exclude_unset=True`, which keeps the answers exactly as the hub built them:
a seat's `autoplay` fields, for instance, are there only while a bot plays for the seat.

The rules of a table are shown as stored (a table created under older rules still
answers), with the engine's `Rules` schema as their description.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, WithJsonSchema

from server.engine import Rules

RulesShown = Annotated[
    dict[str, Any], WithJsonSchema(Rules.model_json_schema(mode="serialization"))
]
Bid = int | Literal["blind_nil"]
TableStatus = Literal["waiting", "playing", "over", "ended"]


class Standing(BaseModel):
    """One side's score and bags (docs/rules.md §8)."""

    score: int
    bags: int


class PublicSeat(BaseModel):
    seat: int
    name: str | None
    bot: str | None
    connected: bool
    # Only while a bot plays for the seat's player: "away" or "timer".
    autoplay: bool = False
    autoplay_reason: str | None = None


class PublicTable(BaseModel):
    """A table as anyone may see it: never a token, never a hidden card."""

    id: str
    name: str
    url: str
    rules: RulesShown
    status: TableStatus
    version: int
    game_number: int
    seats: list[PublicSeat]
    # One per side; empty before the first game starts.
    scores: list[Standing]
    winner: int | None
    hands_played: int
    created: str
    listed: bool
    host_seat: int | None
    turn_seconds: int | None
    deadline: str | None
    # Games won by each side at this table, across rematches.
    series: list[int]
    # Whether players may ask for a hint (the advanced bot's choice; never played).
    hints: bool


class CreatedTable(PublicTable):
    """The create answer: the only one that carries the table's secrets, once, to the host."""

    invite: str
    host_token: str
    invite_url: str


class SeatTaken(BaseModel):
    seat: int
    # The only proof of owning the seat.
    token: str


class BotSeated(BaseModel):
    seat: int
    bot: str


class SeatReissued(BaseModel):
    seat: int
    token: str
    continue_url: str


class NilResult(BaseModel):
    seat: int
    blind: bool
    made: bool
    points: int


class SideResult(BaseModel):
    """One side's hand: the engine's whole breakdown (docs/rules.md §8). Further fields
    the engine reports are kept."""

    model_config = ConfigDict(extra="allow")

    seats: list[int]
    contract: int
    taken: int
    points: int
    score: int
    bags: int
    bag_penalty: int
    nil: list[NilResult]
    all_tricks: bool


class PublicAction(BaseModel):
    """A move as everyone may see it: the cards of a pass, a draw's choice and a blind
    nil decision are private, so those moves show their type alone."""

    type: Literal["bid", "play", "pass", "draw", "blind_nil"]
    bid: Bid | None = None
    card: str | None = None


class TimerMove(BaseModel):
    """A move the turn timer made for a seat whose player did not act in time."""

    seat: int
    action: PublicAction


class PlayedCard(BaseModel):
    seat: int
    card: str


class PlayedTrick(BaseModel):
    """One trick of a finished hand: who led, the cards in play order, who took it."""

    leader: int
    cards: list[PlayedCard]
    winner: int


class FinishedHand(BaseModel):
    hand: int
    dealer: int | None
    bids: list[Bid]
    tricks: list[int]
    # The cards each seat was dealt: the hand is over, so nothing here is hidden any more.
    deal: list[list[str]]
    sides: list[SideResult]
    timer_moves: list[TimerMove]
    # Every trick in order, for the hand's replay; null for hands stored before it was kept.
    plays: list[PlayedTrick] | None


class History(BaseModel):
    id: str
    game_number: int
    hands: list[FinishedHand]


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    """`checks` names each dependency's state: "ok", "not configured" or "down: <why>"."""

    status: Literal["ready", "unavailable"]
    down: list[str] = []
    checks: dict[str, str]
