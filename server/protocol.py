"""Every shape the server shows its clients, described once (docs/protocol.md).

The WebSocket messages the server sends and the answers of the HTTP routes are TypedDicts:
the hub builds plain dicts of these shapes (orjson encodes them as they are, so typing the
hot path costs nothing), FastAPI takes them as `response_model`s, and pydantic describes
them for `/openapi.json`, the JSON Schema in docs/protocol.md and the web client's JSDoc
typedefs (`python -m server.realtime.messages --write`). A response model also filters: a
key the hub adds that is not declared here is not sent, so a secret can only reach an
answer by being named below. What clients send is validated, so it stays pydantic models
(`server.realtime.messages`, the bodies in `server.api.tables`).

The game's own data (a view, an action, a hand's score) are the engine's types
(`server.engine.shapes`), used here as they are. The rules of a table are shown as stored
(a table created under older rules still answers), with the engine's `Rules` schema as
their description.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired

from pydantic import WithJsonSchema
from typing_extensions import TypedDict

from server.engine import (
    Action,
    Bid,
    BidAction,
    HandClaim,
    PlayAction,
    Rules,
    SideResult,
    SideScore,
    TrickPlays,
    View,
)

RULES_SCHEMA = Rules.model_json_schema(mode="serialization")
RulesShown = Annotated[dict[str, Any], WithJsonSchema(RULES_SCHEMA)]
# "ended": the host ended the table; nothing more can change.
TableStatus = Literal["waiting", "playing", "over", "ended"]


# -- a table -----------------------------------------------------------------------------


class PublicSeat(TypedDict):
    """One seat as everyone may see it: never a token. `autoplay` and its reason ("away"
    or "timer") are there only while a bot plays for the seat's player."""

    seat: int
    name: str | None
    bot: str | None
    connected: bool
    autoplay: NotRequired[bool]
    autoplay_reason: NotRequired[str]


class PublicTable(TypedDict):
    """The `table` object: what anyone may know of a table, never a secret, never a
    hidden card. `scores` has one entry per side, none before the first game starts;
    `series` the games each side won at this table, across rematches; `hints` whether
    players may ask for the advanced bot's choice."""

    id: str
    name: str
    url: str
    rules: RulesShown
    status: TableStatus
    version: int
    game_number: int
    seats: list[PublicSeat]
    scores: list[SideScore]
    winner: int | None
    hands_played: int
    created: str
    listed: bool
    host_seat: int | None
    turn_seconds: int | None
    deadline: str | None
    series: list[int]
    hints: bool


class HiddenMove(TypedDict):
    """A pass, a draw or a blind nil decision as everyone may see it: its cards, choice
    or decision are private, so it shows its type alone."""

    type: Literal["pass", "draw", "blind_nil"]


# A move as everyone may see it.
PublicAction = BidAction | PlayAction | HiddenMove


class TimerMove(TypedDict):
    """A move the turn timer made for a seat whose player did not act in time."""

    seat: int
    action: PublicAction


class ChatLine(TypedDict):
    """One stored chat line (`seat` null for a spectator), as clients receive it."""

    version: int
    seat: int | None
    name: str
    text: str
    at: str


# -- WebSocket: server -> client ---------------------------------------------------------


class StateMessage(TypedDict):
    """One socket's view of the table after `hello` and after every change. The answer to
    `hello` alone carries `chat` (the lines so far) and `protocol` (its version)."""

    type: Literal["state"]
    version: int
    seat: int | None
    state: View | None
    table: PublicTable
    host: bool
    deadline: str | None
    server_time: str | None
    timer_moves: list[TimerMove]
    chat: NotRequired[list[ChatLine]]
    protocol: NotRequired[int]


class ChatMessage(ChatLine):
    """A chat line, to every socket of the table."""

    type: Literal["chat"]


class ErrorMessage(TypedDict):
    """A refusal, to the socket that asked only; `reason` is the engine's own code."""

    type: Literal["error"]
    id: str | int | None
    code: str
    message: str
    reason: NotRequired[str]


class PongMessage(TypedDict):
    """The answer to `ping`."""

    type: Literal["pong"]


class HintMessage(TypedDict):
    """The answer to `hint`, to the asking socket only: the advanced bot's choice from
    that seat's view at `version`."""

    type: Literal["hint"]
    id: str | int | None
    version: int
    action: Action


ServerMessage = StateMessage | ChatMessage | ErrorMessage | PongMessage | HintMessage


# -- HTTP answers ------------------------------------------------------------------------


class CreatedTable(PublicTable):
    """The create answer: the only one that carries the table's secrets, once, to the host."""

    invite: str
    host_token: str
    invite_url: str


class SeatTaken(TypedDict):
    """A seat taken; `token` is the only proof of owning it, shown this once."""

    seat: int
    token: str


class BotSeated(TypedDict):
    seat: int
    bot: str


class SeatReissued(TypedDict):
    """A seat given to someone new: its fresh token and the link that carries it."""

    seat: int
    token: str
    continue_url: str


class StoredHand(TypedDict):
    """A finished hand as stored: the engine's `HandResult` (`deal` is each seat's dealt
    cards: the hand is over, so nothing here is hidden any more; `sides` each side's
    whole breakdown, docs/rules.md §8), the moves the turn timer made in it, and `plays`
    every trick in order, for the hand's replay (null for hands stored before it was kept);
    `claim` the claim that ended the hand early (its tricks are not in `plays`), else null."""

    dealer: int | None
    bids: list[Bid | None]
    tricks: list[int]
    deal: list[list[str]]
    sides: list[SideResult]
    timer_moves: list[TimerMove]
    plays: list[TrickPlays] | None
    claim: HandClaim | None


class FinishedHand(StoredHand):
    """A row of the history: a stored hand and its number in the game (from 1)."""

    hand: int


class History(TypedDict):
    """The finished hands of the table's current game, in order."""

    id: str
    game_number: int
    hands: list[FinishedHand]


class Health(TypedDict):
    status: Literal["ok"]


class Readiness(TypedDict):
    """`checks` names each dependency's state: "ok", "not configured" or "down: <why>"."""

    status: Literal["ready", "unavailable"]
    down: NotRequired[list[str]]
    checks: dict[str, str]


# Every preset's full rules, by name.
Presets = dict[str, RulesShown]
# The lobby: listed tables that are waiting or playing, newest first.
Lobby = list[PublicTable]
# The HTTP answers, by name, as docs/protocol.md publishes them.
ANSWERS: dict[str, Any] = {
    "Presets": Presets,
    "Lobby": Lobby,
    "PublicTable": PublicTable,
    "CreatedTable": CreatedTable,
    "SeatTaken": SeatTaken,
    "BotSeated": BotSeated,
    "SeatReissued": SeatReissued,
    "History": History,
    "Health": Health,
    "Readiness": Readiness,
}
