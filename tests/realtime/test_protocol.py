"""The protocol as types: the published schema and typedefs, the protocol version, and
the messages and answers of a real table matching them."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.engine import Rules
from server.realtime.errors import TableError
from server.realtime.messages import (
    ACTION_KEYS,
    DOC_PATH,
    PROTOCOL_VERSION,
    SCHEMA_BEGIN,
    SCHEMA_END,
    SERVER_MESSAGES,
    TYPEDEFS_PATH,
    Act,
    main,
    outdated,
    plain_act,
    published,
    read_client_message,
    with_schema,
)
from tests.realtime.players import TableClient, create_table, play_turns, seat_players

FAST_RULES = {"preset": "standard", "target_score": 100}


def test_the_generator_in_check_mode_finds_docs_and_typedefs_up_to_date(capsys) -> None:
    assert main(["--check"]) == 0, capsys.readouterr().out
    doc = DOC_PATH.read_text()
    assert with_schema(doc) == doc, "run: python -m server.realtime.messages --write"


def test_the_generator_in_check_mode_names_files_out_of_date(tmp_path) -> None:
    doc, typedefs = tmp_path / "protocol.md", tmp_path / "protocol-types.js"
    stale = DOC_PATH.read_text().replace('"protocol": 1,', '"protocol": 0,')
    doc.write_text(stale)
    typedefs.write_text(TYPEDEFS_PATH.read_text().replace("PublicTable", "Table"))
    files = published(doc=doc, typedefs=typedefs)
    assert outdated(files) == [doc, typedefs]
    for path, text in files.items():
        path.write_text(text)
    assert outdated(published(doc=doc, typedefs=typedefs)) == []


def published_schema() -> dict[str, Any]:
    """The JSON Schema as docs/protocol.md shows it."""
    doc = DOC_PATH.read_text()
    block = doc[doc.index(SCHEMA_BEGIN) : doc.index(SCHEMA_END)]
    return json.loads(block[block.index("```json") + len("```json") : block.rindex("```")])


def check(instance: Any, schema: dict[str, Any], published: dict[str, Any]) -> None:
    """Raise unless `instance` matches `schema` (a part of the published schema)."""
    jsonschema.Draft202012Validator({**schema, "$defs": published["$defs"]}).validate(instance)


def test_every_typedef_the_web_client_names_is_generated() -> None:
    typedefs = TYPEDEFS_PATH.read_text()
    defined = set(re.findall(r"@typedef \{.*\} (\w+)", typedefs))
    assert {"StateMessage", "PublicTable", "History", "ServerMessage", "View"} <= defined
    reference = re.compile(r"import\(.\./protocol-types\.js.\)\.(\w+)")
    named = set()
    for module in TYPEDEFS_PATH.parent.glob("*.js"):
        named |= set(reference.findall(module.read_text()))
    assert named, "the client's modules refer to the typedefs"
    assert named <= defined, named - defined
    used = set(re.findall(r"\b([A-Z]\w+)\b", " ".join(re.findall(r"\{([^}]*)\}", typedefs))))
    assert used - {"Array", "Object"} <= defined


async def test_real_messages_and_answers_match_the_published_schema(served, http) -> None:
    _app, address = served
    schema = published_schema()
    created = await http.post(
        "/api/tables", json={"name": "schema", "rules": FAST_RULES, "listed": True, "hints": True}
    )
    check(created.json(), schema["http"]["CreatedTable"], schema)
    table_id = created.json()["id"]
    players = await seat_players(http, address, table_id, 4)
    # This test's table, playing: others in the database may hold rules written by hand.
    lobby = [table for table in (await http.get("/api/tables")).json() if table["id"] == table_id]
    assert lobby
    check(lobby, schema["http"]["Lobby"], schema)
    watcher = TableClient(address, table_id)
    await watcher.connect()
    on_turn = players[players[0].view["turn"][0]]
    await on_turn.send({"type": "hint", "id": "h"})
    await on_turn.until(lambda m: m["type"] == "hint")
    await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 99}, "id": 3})
    await on_turn.until(lambda m: m["type"] == "error")
    rules = Rules.model_validate(FAST_RULES)
    await play_turns(players, rules, lambda m: m["table"]["hands_played"] >= 1)
    await watcher.until(lambda m: m["type"] == "state" and m["table"]["hands_played"] >= 1)
    await watcher.send({"type": "chat", "text": "well played"})
    await watcher.send({"type": "ping"})
    await watcher.until(lambda _m: {"chat", "pong"} <= {m["type"] for m in watcher.messages})

    received = [*watcher.messages, *on_turn.messages]
    assert {m["type"] for m in received} == {"state", "chat", "error", "pong", "hint"}
    for message in received:
        check(message, schema["server_to_client"], schema)
    history = (await http.get(f"/api/tables/{table_id}/history")).json()
    assert history["hands"] and history["hands"][0]["plays"]
    check(history, schema["http"]["History"], schema)
    check((await http.get("/api/presets")).json(), schema["http"]["Presets"], schema)

    # The schema says something: a state without its table, a hand without its sides fail.
    state = next(m for m in received if m["type"] == "state" and m["state"] is not None)
    messages = schema["server_to_client"]
    with pytest.raises(jsonschema.ValidationError):
        check({**state, "table": None}, messages, schema)
    with pytest.raises(jsonschema.ValidationError):
        check({**state, "state": {**state["state"], "turn": "0"}}, messages, schema)
    with pytest.raises(jsonschema.ValidationError):
        hand = {key: value for key, value in history["hands"][0].items() if key != "sides"}
        check({**history, "hands": [hand]}, schema["http"]["History"], schema)
    for client in [*players, watcher]:
        await client.close()


def test_an_act_keeps_only_the_fields_actions_have() -> None:
    command = read_client_message(
        {"type": "act", "action": {"type": "bid", "bid": 3, "note": "x"}, "id": 7}
    )
    assert isinstance(command, Act)
    assert command.action == {"type": "bid", "bid": 3} and command.id == 7


# What a client could put in an `act` message: JSON values of every kind, action keys the
# engine knows and some it does not.
JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
# Mostly well formed, so that the fast path answers for many of them.
IDS = st.none() | st.integers() | st.text(max_size=4) | JSON_SCALARS
ACTION_DICTS = st.fixed_dictionaries(
    {"type": st.sampled_from(["bid", "play", "pass"]) | JSON_SCALARS},
    optional={key: JSON_VALUES for key in sorted(ACTION_KEYS - {"type"})},
) | st.fixed_dictionaries({"type": st.text(max_size=3), "note": JSON_VALUES})
ACT_MESSAGES = st.fixed_dictionaries(
    {"type": st.just("act"), "action": ACTION_DICTS},
    optional={"id": IDS, "version": st.none() | st.integers() | JSON_SCALARS, "x": JSON_VALUES},
) | st.fixed_dictionaries({"type": st.just("act")}, optional={"action": JSON_VALUES})


@settings(max_examples=300, deadline=None)
@given(ACT_MESSAGES)
def test_an_act_read_on_the_fast_path_is_what_the_validator_reads(message) -> None:
    """`plain_act` answers only for messages the validator takes, with its fields."""
    move = plain_act(message)
    if move is None:
        return
    command = read_client_message(message)
    assert isinstance(command, Act)
    assert move == (command.action, command.id, command.version)
    assert [type(value) for value in move[1:]] == [type(command.id), type(command.version)]


def test_the_fast_path_answers_for_the_acts_a_client_sends() -> None:
    sent = {"type": "act", "action": {"type": "play", "card": "AS"}, "id": 3, "version": 12}
    assert plain_act(sent) == ({"type": "play", "card": "AS"}, 3, 12)
    assert plain_act({"type": "act", "action": {"type": "bid", "bid": 0}}) == (
        {"type": "bid", "bid": 0},
        None,
        None,
    )
    # Left to the validator: a refusal, or keys it drops.
    assert plain_act({"type": "act", "action": {"type": "bid"}, "id": True}) is None
    assert plain_act({"type": "act", "action": {"type": "bid", "note": 1}}) is None


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ({"type": "hello", "token": 5}, "bad_message", "'token' must be a str or null."),
        ({"type": "act", "action": {"bid": 3}}, "bad_message", '"action" must be an action'),
        ({"type": "act", "action": {"type": "bid"}, "id": 1.5}, "bad_message", '"id" must'),
        ({"type": "chat", "text": "   "}, "bad_chat", "Say something"),
        ({"type": "chat", "text": "x" * 11}, "bad_chat", "at most 10 characters"),
        ({"type": "fly"}, "bad_message", "Unknown message type 'fly'."),
    ],
)
def test_a_bad_message_is_refused_with_its_code(message, code, words) -> None:
    with pytest.raises(TableError) as refused:
        read_client_message(message, chat_max_length=10)
    assert refused.value.code == code and words in refused.value.message


async def test_the_answer_to_hello_says_the_protocol_version_and_matches_the_models(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    watcher = TableClient(address, table_id)
    welcome = await watcher.connect()
    assert welcome["protocol"] == PROTOCOL_VERSION
    on_turn = players[players[0].view["turn"][0]]
    await on_turn.send({"type": "chat", "text": "good luck"})
    await on_turn.send({"type": "act", "action": {"type": "bid", "bid": 99}, "id": "x"})
    await on_turn.until(lambda m: m["type"] == "error")
    await watcher.until(lambda m: m["type"] == "chat")
    for message in [*watcher.messages, *on_turn.messages]:
        SERVER_MESSAGES.validate_python(message)
    for client in [*players, watcher]:
        await client.close()


async def test_whose_turn_it_is_the_engine_decides_and_its_code_is_the_reason(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    waiting = next(p for p in players if p.state["seat"] not in players[0].view["turn"])
    await waiting.send({"type": "act", "action": {"type": "bid", "bid": 3}})
    refusal = await waiting.until(lambda m: m["type"] == "error")
    assert refusal["code"] == "not_your_turn" and refusal["reason"] == "not_your_turn"
    for client in players:
        await client.close()
