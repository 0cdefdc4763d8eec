"""Every WebSocket message of `/ws/tables/{id}`, both ways, as types (docs/protocol.md).

What clients send is one pydantic model per `type` (`Hello`, `Act`, `Chat`, `Back`,
`Ping`), a union discriminated on `type`, checked in one place: `read_client_message`.
A message it refuses becomes a `TableError` with the code and words clients have always
received (`bad_message`, `bad_chat`); the action inside an `act` is left to the engine,
which knows why a move is wrong.

What the server sends (`state`, `chat`, `error`, `pong`) is typed with TypedDicts that
pydantic validates and describes like models: the broadcast builds one plain dict per
socket, which orjson encodes as it is, so typing the hot path costs nothing.

`python -m server.realtime.messages` prints the protocol's JSON Schema; docs/protocol.md
carries it between marker comments (`write_protocol_doc` keeps it current).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, NotRequired

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError
from typing_extensions import TypedDict

from server.engine.actions import ACTION_FIELDS
from server.names import unprintable
from server.realtime.errors import TableError
from server.store.repository import ChatLine

# Raised when a message changes in a way an existing client could not read.
PROTOCOL_VERSION = 1
# The keys an action may carry: its `type` and the field each type names (the engine's
# ACTION_FIELDS). Anything else is dropped before the engine sees it, so the action log
# stores only what the rules define.
ACTION_KEYS = frozenset({"type", *ACTION_FIELDS.values()})
# An `act` message's action, id and version (`plain_act`).
PlainAct = tuple[dict[str, Any], str | int | None, int | None]
DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SCHEMA_BEGIN = "<!-- protocol schema: begin (python -m server.realtime.messages --write) -->"
SCHEMA_END = "<!-- protocol schema: end -->"


# -- client -> server ------------------------------------------------------------------


class ClientMessage(BaseModel):
    """Unknown fields are ignored, as they always were: a newer client still talks to us."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    # The words of a refusal, per field whose type is wrong.
    refusals: ClassVar[dict[str, str]] = {}


class Hello(ClientMessage):
    """First message: a seat token (none: watch), the host token, the last version seen."""

    type: Literal["hello"]
    token: StrictStr | None = None
    host_token: StrictStr | None = None
    version: StrictInt | None = None
    refusals: ClassVar[dict[str, str]] = {
        "token": "'token' must be a str or null.",
        "host_token": "'host_token' must be a str or null.",
        "version": "'version' must be a int or null.",
    }


class Act(ClientMessage):
    """A move: an action dict for the engine (docs/rules.md §5), an id echoed in a
    refusal, and the version the client acted on (older than the table's: `stale`)."""

    type: Literal["act"]
    action: dict[str, Any]
    id: StrictStr | StrictInt | None = None
    version: StrictInt | None = None
    refusals: ClassVar[dict[str, str]] = {
        "action": '"action" must be an action object with a "type".',
        "id": '"id" must be a string.',
        "version": "'version' must be a int or null.",
    }

    @field_validator("action")
    @classmethod
    def _only_action_keys(cls, action: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(action.get("type"), str):
            raise ValueError("an action has a type")
        return {key: value for key, value in action.items() if key in ACTION_KEYS}


class Chat(ClientMessage):
    """A chat line, trimmed: 1 to `chat_max_length` printable characters."""

    type: Literal["chat"]
    text: str = Field(default="", validate_default=True)

    @field_validator("text", mode="before")
    @classmethod
    def _sayable(cls, text: Any, info: ValidationInfo) -> str:
        if not isinstance(text, str) or not text.strip():
            raise PydanticCustomError("bad_chat", "Say something: the message is empty.")
        said: str = text.strip()
        limit: int | None = (info.context or {}).get("chat_max_length")
        if limit is not None and len(said) > limit:
            raise PydanticCustomError(
                "bad_chat", "Chat messages are at most {limit} characters.", {"limit": limit}
            )
        refused = unprintable(said)
        if refused is not None:
            raise PydanticCustomError(
                "bad_message",
                "Chat may not contain control characters ({refused}).",
                {"refused": refused},
            )
        return said


class Back(ClientMessage):
    """A player on autoplay plays for themselves again."""

    type: Literal["back"]


class Ping(ClientMessage):
    """Keep-alive, answered with `pong` (also before `hello`)."""

    type: Literal["ping"]


class Hint(ClientMessage):
    """A player on turn asks what the advanced bot would do; nothing is played."""

    type: Literal["hint"]
    id: StrictStr | StrictInt | None = None
    refusals: ClassVar[dict[str, str]] = {"id": '"id" must be a string.'}


Command = Hello | Act | Chat | Back | Ping | Hint
ClientCommand = Annotated[Command, Field(discriminator="type")]
CLIENT_MESSAGES: TypeAdapter[Command] = TypeAdapter(ClientCommand)
MODELS: dict[str, type[ClientMessage]] = {
    "hello": Hello,
    "act": Act,
    "chat": Chat,
    "back": Back,
    "ping": Ping,
    "hint": Hint,
}
# Refusal codes a validator may raise as its error type; any other error is a wrong type.
REFUSAL_CODES = frozenset(("bad_chat", "bad_message"))


def read_client_message(message: dict[str, Any], chat_max_length: int | None = None) -> Command:
    """The typed form of one decoded client message (a JSON object with a string `type`),
    or TableError with the code and words of docs/protocol.md."""
    kind = message["type"]
    if kind not in MODELS:
        raise TableError("bad_message", f"Unknown message type {kind[:40]!r}.")
    try:
        return CLIENT_MESSAGES.validate_python(
            message, context={"chat_max_length": chat_max_length}
        )
    except ValidationError as invalid:
        raise refusal(kind, invalid) from None


def plain_act(message: dict[str, Any]) -> PlainAct | None:
    """An `act` message's action, id and version, read without the general validator when
    the message is plainly well formed: what `read_client_message` would give (its `Act`'s
    fields), or None for it to judge (a refusal, or an action with keys it drops). The
    hot path's check: a seat sends one every few seconds, a table one a second.

    >>> plain_act({"type": "act", "action": {"type": "bid", "bid": 3}, "id": "a1", "version": 7})
    ({'type': 'bid', 'bid': 3}, 'a1', 7)
    >>> plain_act({"type": "act", "action": {"type": "bid", "bid": 3}, "version": True}) is None
    True
    """
    action = message.get("action")
    act_id = message.get("id")
    version = message.get("version")
    if (
        type(action) is dict
        and type(action.get("type")) is str
        and action.keys() <= ACTION_KEYS
        and (act_id is None or type(act_id) is str or type(act_id) is int)
        and (version is None or type(version) is int)
    ):
        return action, act_id, version
    return None


def refusal(kind: str, invalid: ValidationError) -> TableError:
    """The refusal a client gets for the first thing wrong with its message."""
    problem = invalid.errors(include_url=False)[0]
    if problem["type"] in REFUSAL_CODES:
        return TableError(problem["type"], problem["msg"])
    field = str(problem["loc"][1]) if len(problem["loc"]) > 1 else ""
    words = MODELS[kind].refusals.get(field, f"{field!r} is not valid.")
    return TableError("bad_message", words)


# -- server -> client ------------------------------------------------------------------


class PublicSeat(TypedDict):
    """One seat as everyone may see it: never a token."""

    seat: int
    name: str | None
    bot: str | None
    connected: bool
    autoplay: NotRequired[bool]
    autoplay_reason: NotRequired[str]


class PublicTable(TypedDict):
    """The `table` object: what anyone may know of a table, never a secret."""

    id: str
    name: str
    url: str
    rules: dict[str, Any]
    status: str
    version: int
    game_number: int
    seats: list[PublicSeat]
    scores: list[dict[str, int]]
    winner: int | None
    hands_played: int
    created: str
    listed: bool
    host_seat: int | None
    turn_seconds: int | None
    deadline: str | None
    # Games won by each side at this table, across rematches; whether hints are on.
    series: list[int]
    hints: bool


class TimerMove(TypedDict):
    """A move the turn timer made (a pass, draw or blind nil shows only its type)."""

    seat: int
    action: dict[str, Any]


class StateMessage(TypedDict):
    """One socket's view of the table after `hello` and after every change. The answer to
    `hello` alone carries `chat` and `protocol`."""

    type: Literal["state"]
    version: int
    seat: int | None
    state: dict[str, Any] | None
    table: PublicTable
    host: bool
    deadline: str | None
    server_time: str | None
    timer_moves: list[TimerMove]
    chat: NotRequired[list[ChatLine]]
    protocol: NotRequired[int]


class ChatMessage(ChatLine):
    type: Literal["chat"]


class ErrorMessage(TypedDict):
    """A refusal, to the socket that asked only; `reason` is the engine's own code."""

    type: Literal["error"]
    id: str | int | None
    code: str
    message: str
    reason: NotRequired[str]


class PongMessage(TypedDict):
    type: Literal["pong"]


class HintMessage(TypedDict):
    """The answer to `hint`, to the asking socket only: the advanced bot's choice from
    that seat's view at `version`."""

    type: Literal["hint"]
    id: str | int | None
    version: int
    action: dict[str, Any]


ServerMessage = StateMessage | ChatMessage | ErrorMessage | PongMessage | HintMessage
SERVER_MESSAGES: TypeAdapter[ServerMessage] = TypeAdapter(
    Annotated[ServerMessage, Field(discriminator="type")]
)


def error(
    code: str, message: str, act_id: str | int | None = None, reason: str | None = None
) -> ErrorMessage:
    """An `error` message; `reason` (the engine's refusal code) only when there is one."""
    refused = ErrorMessage(type="error", id=act_id, code=code, message=message)
    if reason is not None:
        refused["reason"] = reason
    return refused


def chat_message(line: ChatLine) -> ChatMessage:
    return ChatMessage(type="chat", **line)


PONG = PongMessage(type="pong")


# -- the published schema ----------------------------------------------------------------


def protocol_schema() -> dict[str, Any]:
    """The JSON Schema of both directions, as docs/protocol.md shows it."""
    return {
        "protocol": PROTOCOL_VERSION,
        "client_to_server": CLIENT_MESSAGES.json_schema(),
        "server_to_client": SERVER_MESSAGES.json_schema(),
    }


def schema_block() -> str:
    """The doc's generated part: the schema as a JSON code block between the markers."""
    schema = json.dumps(protocol_schema(), indent=2, sort_keys=True)
    return f"{SCHEMA_BEGIN}\n```json\n{schema}\n```\n{SCHEMA_END}"


def with_schema(doc: str) -> str:
    """`doc` with its generated part replaced by the current schema."""
    start, end = doc.index(SCHEMA_BEGIN), doc.index(SCHEMA_END) + len(SCHEMA_END)
    return doc[:start] + schema_block() + doc[end:]


def write_protocol_doc(path: Path = DOC_PATH) -> bool:
    """Bring the schema in docs/protocol.md up to date; whether the file changed."""
    doc = path.read_text()
    current = with_schema(doc)
    if current == doc:
        return False
    path.write_text(current)
    return True


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        print("updated" if write_protocol_doc() else "up to date", DOC_PATH)
    else:
        print(json.dumps(protocol_schema(), indent=2, sort_keys=True))
