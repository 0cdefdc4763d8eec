"""Every WebSocket message of `/ws/tables/{id}`, both ways, as types (docs/protocol.md),
and the generator that publishes the protocol.

What clients send is one pydantic model per `type` (`Hello`, `Act`, `Chat`, `Seed`,
`Back`, `Ping`, `Hint`, `Review`), a union discriminated on `type`, checked in one place:
`read_client_message`. A message it refuses becomes a `TableError` with the code and
words clients have always received (`bad_message`, `bad_chat`); the action inside an `act`
is left to the engine, which knows why a move is wrong.

What the server sends (`state`, `chat`, `error`, `pong`, `hint`) are TypedDicts whose home
is `server.protocol`, with the HTTP answers: the broadcast builds one plain dict per
socket, which orjson encodes as it is, so typing the hot path costs nothing.

`python -m server.realtime.messages` prints the JSON Schema of every message and answer;
`--write` puts it in docs/protocol.md (between marker comments) and its JSDoc typedefs in
web/protocol-types.js; `--check` fails when either is out of date.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, cast

import orjson
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
from pydantic.json_schema import JsonSchemaMode, JsonSchemaValue
from pydantic_core import PydanticCustomError

from server.engine import Action
from server.engine.actions import ACTION_FIELDS
from server.engine.fairness import SEED_MAX, checked_seed
from server.names import unprintable
from server.protocol import (
    ANSWERS,
    RULES_SCHEMA,
    ChatLine,
    ChatMessage,
    ErrorMessage,
    PongMessage,
    ServerMessage,
    StateMessage,
)
from server.realtime.errors import TableError

# Raised when a message changes in a way an existing client could not read.
PROTOCOL_VERSION = 1
# The keys an action may carry: its `type` and the field each type names (the engine's
# ACTION_FIELDS). Anything else is dropped before the engine sees it, so the action log
# stores only what the rules define.
ACTION_KEYS = frozenset({"type", *ACTION_FIELDS.values()})
# An `act` message's action, id and version (`plain_act`).
PlainAct = tuple[Action, str | int | None, int | None]
ROOT = Path(__file__).resolve().parents[2]
DOC_PATH = ROOT / "docs" / "protocol.md"
TYPEDEFS_PATH = ROOT / "web" / "protocol-types.js"
SCHEMA_BEGIN = "<!-- protocol schema: begin (python -m server.realtime.messages --write) -->"
SCHEMA_END = "<!-- protocol schema: end -->"


@dataclass(frozen=True, slots=True)
class Encoded:
    """A message and its JSON text, made once for all the sockets it goes to: the socket
    layer sends `text` as it is; a listener in the process reads `message`."""

    message: StateMessage
    text: str


def joined(first: bytes, second: bytes) -> orjson.Fragment:
    """Two JSON objects with no key in common, as one object's JSON (the first's members,
    then the second's), to embed in a message that `orjson.dumps` encodes.

    >>> orjson.dumps({"view": joined(b'{"a":1}', b'{"b":[2],"c":null}')})
    b'{"view":{"a":1,"b":[2],"c":null}}'
    >>> orjson.dumps({"view": joined(b'{}', b'{"b":2}')})
    b'{"view":{"b":2}}'
    """
    if first == b"{}":
        return orjson.Fragment(second)
    if second == b"{}":
        return orjson.Fragment(first)
    return orjson.Fragment(b"%s,%s" % (first[:-1], second[1:]))


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

    @property
    def move(self) -> Action:
        """The action, for the engine: as the client sent it (the engine checks it)."""
        return cast(Action, self.action)


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


class Seed(ClientMessage):
    """A seated player's own seed for the next deal (docs/fairness.md): 1 to 64 printable
    characters; the last one a seat sends counts."""

    type: Literal["seed"]
    value: str = Field(default="", validate_default=True)

    @field_validator("value", mode="before")
    @classmethod
    def _seed(cls, value: Any) -> str:
        try:
            return checked_seed(value)
        except ValueError:
            raise PydanticCustomError(
                "bad_seed", "A seed is 1 to {limit} printable characters.", {"limit": SEED_MAX}
            ) from None


class Back(ClientMessage):
    """A player on autoplay plays for themselves again."""

    type: Literal["back"]


class Ping(ClientMessage):
    """Keep-alive, answered with `pong` (also before `hello`)."""

    type: Literal["ping"]


class Hint(ClientMessage):
    """A player on turn asks what the expert bot would do; nothing is played."""

    type: Literal["hint"]
    id: StrictStr | StrictInt | None = None
    refusals: ClassVar[dict[str, str]] = {"id": '"id" must be a string.'}


class Review(ClientMessage):
    """A player asks what the expert bot would have chosen at each of their own bids and
    plays of a finished hand of this game; answered with `review`."""

    type: Literal["review"]
    hand: StrictInt
    id: StrictStr | StrictInt | None = None
    refusals: ClassVar[dict[str, str]] = {
        "hand": '"hand" must be a hand number.',
        "id": '"id" must be a string.',
    }


Command = Hello | Act | Chat | Seed | Back | Ping | Hint | Review
ClientCommand = Annotated[Command, Field(discriminator="type")]
CLIENT_MESSAGES: TypeAdapter[Command] = TypeAdapter(ClientCommand)
MODELS: dict[str, type[ClientMessage]] = {
    "hello": Hello,
    "act": Act,
    "chat": Chat,
    "seed": Seed,
    "back": Back,
    "ping": Ping,
    "hint": Hint,
    "review": Review,
}
# Refusal codes a validator may raise as its error type; any other error is a wrong type.
REFUSAL_CODES = frozenset(("bad_chat", "bad_message", "bad_seed"))


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
        return cast(Action, action), act_id, version  # as it came: the engine checks it
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


def protocol_schema() -> JsonSchemaValue:
    """The JSON Schema of both directions of the socket and of every HTTP answer (by the
    name docs/protocol.md gives it), their shapes once under `$defs`."""
    inputs: list[tuple[str, JsonSchemaMode, TypeAdapter[Any]]] = [
        ("client_to_server", "validation", CLIENT_MESSAGES),
        ("server_to_client", "serialization", SERVER_MESSAGES),
        *((name, "serialization", TypeAdapter(shape)) for name, shape in ANSWERS.items()),
    ]
    keyed, shared = TypeAdapter.json_schemas(inputs)
    schema: JsonSchemaValue = {
        "protocol": PROTOCOL_VERSION,
        "client_to_server": keyed[("client_to_server", "validation")],
        "server_to_client": keyed[("server_to_client", "serialization")],
        "http": {name: keyed[(name, "serialization")] for name in ANSWERS},
        "$defs": shared["$defs"],
    }
    # The rules are described inline wherever they are shown (`RulesShown`): once here.
    published: JsonSchemaValue = rules_referenced(schema, untitled(RULES_SCHEMA))
    published["$defs"]["Rules"] = RULES_SCHEMA
    return published


def rules_referenced(schema: Any, shown: str) -> Any:
    """`schema` with every inline copy of the rules' schema (`shown`, less its title,
    which pydantic leaves out of a dict's values) a reference to `$defs/Rules`."""
    if isinstance(schema, list):
        return [rules_referenced(part, shown) for part in schema]
    if not isinstance(schema, dict):
        return schema
    if schema.get("properties") and untitled(schema) == shown:
        return {"$ref": "#/$defs/Rules"}
    return {key: rules_referenced(part, shown) for key, part in schema.items()}


def untitled(schema: JsonSchemaValue) -> str:
    return json.dumps({key: part for key, part in schema.items() if key != "title"}, sort_keys=True)


def schema_block(schema: JsonSchemaValue) -> str:
    """The doc's generated part: the schema as a JSON code block between the markers."""
    text = json.dumps(schema, indent=2, sort_keys=True)
    return f"{SCHEMA_BEGIN}\n```json\n{text}\n```\n{SCHEMA_END}"


def with_schema(doc: str, schema: JsonSchemaValue | None = None) -> str:
    """`doc` with its generated part replaced by the current schema."""
    block = schema_block(schema if schema is not None else protocol_schema())
    start, end = doc.index(SCHEMA_BEGIN), doc.index(SCHEMA_END) + len(SCHEMA_END)
    return doc[:start] + block + doc[end:]


def typedefs_module(schema: JsonSchemaValue) -> str:
    """web/protocol-types.js: a JSDoc typedef for every shape of `$defs`, for both
    unions of socket messages and for each HTTP answer that is not a shape of its own;
    then the club figures' labels."""
    named = dict(schema["$defs"])
    named["ClientMessage"] = schema["client_to_server"]
    named["ServerMessage"] = schema["server_to_client"]
    for name, answer in schema["http"].items():
        if answer.get("$ref") != f"#/$defs/{name}":
            named[name] = answer
    blocks = [typedef(name, named[name]) for name in sorted(named)]
    return "\n".join([JS_HEADER, *blocks, club_figures(schema)])


def club_figures(schema: JsonSchemaValue) -> str:
    """The one constant of web/protocol-types.js: each club figure's name and label (its
    title in `ClubStats`), in the order of their declaration, for the club page."""
    shown = [
        [name, part["title"]] for name, part in schema["$defs"]["ClubStats"]["properties"].items()
    ]
    rows = "".join(f"  {json.dumps(row)},\n" for row in shown)
    return (
        "/**\n * Each club figure's name and label (`ClubStats`), in the order they are declared.\n"
        " * @type {Array<[keyof ClubStats, string]>}\n */\n"
        f"export const CLUB_FIGURES = [\n{rows}];\n"
    )


def typedef(name: str, schema: JsonSchemaValue) -> str:
    lines = schema.get("description", "").splitlines()
    if "properties" in schema:
        required = set(schema.get("required", []))
        lines.append(f"@typedef {{Object}} {name}")
        for key, part in schema["properties"].items():
            shown = key if key in required else f"[{key}]"
            lines.append(f"@property {{{js_type(part)}}} {shown}")
    else:
        lines.append(f"@typedef {{{js_type(schema)}}} {name}")
    # A comment ends at the first `*/`: none may come from a description.
    body = "".join(f" * {line}".rstrip().replace("*/", "*\\/") + "\n" for line in lines)
    return f"/**\n{body} */\n"


def js_type(schema: JsonSchemaValue) -> str:
    """The JSDoc type of one schema, as TypeScript reads JSDoc.

    >>> js_type({"anyOf": [{"items": {"$ref": "#/$defs/PublicSeat"}, "type": "array"},
    ...                    {"type": "null"}]})
    'Array<PublicSeat>|null'
    >>> js_type({"properties": {"to": {"type": "integer"}}, "required": [], "type": "object"})
    '{to?: number}'
    """
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[1]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return "|".join(json.dumps(value) for value in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return "|".join(js_type(part) for part in schema[key])
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            return "[" + ", ".join(js_type(part) for part in schema["prefixItems"]) + "]"
        return f"Array<{js_type(schema.get('items', {}))}>"
    if kind == "object" and "properties" in schema:
        required = set(schema.get("required", []))
        fields = (
            f"{key}{'' if key in required else '?'}: {js_type(part)}"
            for key, part in schema["properties"].items()
        )
        return "{" + ", ".join(fields) + "}"
    if kind == "object":
        values = schema.get("additionalProperties")
        return f"Object<string, {js_type(values) if isinstance(values, dict) else '*'}>"
    return JS_TYPES.get(kind, "*") if isinstance(kind, str) else "*"


JS_TYPES = {
    "integer": "number",
    "number": "number",
    "string": "string",
    "boolean": "boolean",
    "null": "null",
}
JS_HEADER = """\
// The shapes of what the server sends (WebSocket messages and HTTP answers) and of what a
// client may send, as JSDoc typedefs for editors and type checkers, and the club figures'
// labels (`CLUB_FIGURES`, the only code here).
// Generated from server/protocol.py and server/realtime/messages.py by
// `python -m server.realtime.messages --write`; a test fails when it is out of date.
"""


def published(
    schema: JsonSchemaValue | None = None,
    doc: Path = DOC_PATH,
    typedefs: Path = TYPEDEFS_PATH,
) -> dict[Path, str]:
    """What the generator writes: each file it owns with its up-to-date text."""
    schema = schema if schema is not None else protocol_schema()
    return {doc: with_schema(doc.read_text(), schema), typedefs: typedefs_module(schema)}


def outdated(files: dict[Path, str]) -> list[Path]:
    """The files whose text is not what the generator would write."""
    return [path for path, text in files.items() if not path.exists() or path.read_text() != text]


def main(argv: list[str]) -> int:
    """`--write`: bring docs/protocol.md and web/protocol-types.js up to date; `--check`:
    exit 1 naming those out of date; neither: print the schema."""
    if "--write" in argv or "--check" in argv:
        files = published()
        stale = outdated(files)
        if "--check" in argv:
            for path in stale:
                print(f"out of date: {path} (run: python -m server.realtime.messages --write)")
            return 1 if stale else 0
        for path in stale:
            path.write_text(files[path])
        print("updated" if stale else "up to date", *files)
        return 0
    print(json.dumps(protocol_schema(), indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
