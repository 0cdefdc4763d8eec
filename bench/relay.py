"""The bare relay that bench/load.py measures the table server against.

A minimal FastAPI app with just enough of the table protocol (docs/protocol.md) for the
load client: `POST /api/tables`, `POST /api/tables/{id}/seats/{seat}` (a token per seat),
and the WebSocket `/ws/tables/{id}` (`hello`, `act`). It has no rules, no database and no
views: each `act` raises the table's version, passes the turn to the next seat and sends
one state message, encoded once, to every socket of the table. The message is one of the
table server's own states (`bench/relay_state.json`, recorded in the middle of a hand),
its version and turn the relay's, cut or padded to `RELAY_STATE_BYTES` (bench/load.py sets
it to the mean size of the table server's state messages): the relay pays for the same
bytes on the wire and nothing else, and a client that decodes a state spends on it what
it spends on one of the table server's. The recorded state's table and rules stay
whatever the size: it is never under about 1.6 KB. `RELAY_STATE=padding` sends instead
a few keys and a string of padding, as the relay did before: a decoder spends a sixth of
that on it.

bench/load.py serves it with the same uvicorn command line as the table server
(bench/harness/server.py):

    uvicorn bench.relay:app --ws websockets-sansio --ws-max-size 8192 ...
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

SEATS = 4
STATE_BYTES = int(os.environ.get("RELAY_STATE_BYTES", "2000"))
# A state of the table server's: what the relay's states hold besides version and turn.
RECORDED: dict[str, Any] = orjson.loads((Path(__file__).parent / "relay_state.json").read_bytes())
# Left in the state whatever its size: the client's action is picked from them.
KEPT = ("turn", "hand", "legal")


def filling(size: int) -> dict[str, Any]:
    """The recorded state cut under `size` bytes: its plays first, then its largest parts."""
    state = {**RECORDED, "seat": None, "state": {**RECORDED["state"]}}
    inner = state["state"]
    inner["played"] = list(inner["played"])
    while len(orjson.dumps(state)) > size:
        if inner.get("played"):
            inner["played"].pop()
            continue
        cuttable = [key for key in inner if key not in KEPT]
        if not cuttable:
            break
        del inner[max(cuttable, key=lambda key: len(orjson.dumps(inner[key])))]
    return state


def template(size: int) -> str:
    """The state message with `%d` where a table's version (twice) and turn go and `%s`
    where its id goes, encoded once for every table: each action only formats them into
    it, as the table server keeps the steady parts of its own states encoded between
    moves."""
    state = filling(size - 20)
    steady = {key: value for key, value in state["state"].items() if key != "turn"}
    table = {key: value for key, value in state["table"].items() if key not in ("id", "version")}
    rest = {
        key: value
        for key, value in state.items()
        if key not in ("type", "version", "seat", "state", "table")
    }

    def inside(part: dict[str, Any]) -> str:  # a JSON object's members, without braces
        return orjson.dumps(part).decode()[1:-1].replace("%", "%%")

    return pad(
        '{"type":"state","version":%d,"seat":null,'
        f'"state":{{"turn":[%d],{inside(steady)}}},'
        f'"table":{{"version":%d,"id":"%s",{inside(table)}}},'
        f'{inside(rest)},"pad":""}}',
        size,
    )


def padded(size: int) -> str:
    """`template` as the relay's message was before: the keys the client reads, and a
    string of padding."""
    return pad(
        '{"type":"state","version":%d,"seat":null,'
        '"state":{"turn":[%d],"hand":["AS"],"legal":[{"type":"play","card":"AS"}]},'
        '"table":{"version":%d,"id":"%s","status":"playing"},"pad":""}',
        size,
    )


def pad(text: str, size: int) -> str:
    """`text`, ending in an empty `"pad"`, padded to `size` bytes once formatted (for a
    table id of 8 characters, as `create_table` makes, at version 100)."""
    padding = max(0, size - len(text % (100, 0, 100, "x" * 8)))
    return text[:-2] + "x" * padding + '"}'


TEMPLATE = (padded if os.environ.get("RELAY_STATE") == "padding" else template)(STATE_BYTES)


@dataclass
class RelayTable:
    id: str
    version: int = 0
    turn: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    sockets: set[WebSocket] = field(default_factory=set)

    def state(self, text: str = TEMPLATE) -> str:
        """The state message of the current version (`text`: another template)."""
        return text % (self.version, self.turn, self.version, self.id)


TABLES: dict[str, RelayTable] = {}
app = FastAPI()


@app.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@app.post("/api/tables", status_code=201)
async def create_table() -> dict[str, Any]:
    table = RelayTable(secrets.token_urlsafe(6))
    TABLES[table.id] = table
    return {"id": table.id, "version": table.version, "status": "playing"}


@app.post("/api/tables/{table_id}/seats/{seat}", status_code=201)
async def take_seat(table_id: str, seat: int) -> dict[str, Any]:
    token = secrets.token_urlsafe(16)
    TABLES[table_id].tokens[token] = seat
    return {"seat": seat, "token": token}


@app.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    await websocket.accept()
    table = TABLES[table_id]
    table.sockets.add(websocket)
    try:
        while True:
            message = orjson.loads(await websocket.receive_text())
            if message["type"] == "hello":
                await websocket.send_text(table.state())
            elif message["type"] == "act":
                await relay_action(table)
    except WebSocketDisconnect:
        pass
    finally:
        table.sockets.discard(websocket)


async def relay_action(table: RelayTable) -> None:
    """Every action is accepted: the next version goes to every socket of the table."""
    table.version += 1
    table.turn = (table.turn + 1) % SEATS
    text = table.state()
    for socket in list(table.sockets):
        try:
            await socket.send_text(text)
        except (WebSocketDisconnect, RuntimeError):
            table.sockets.discard(socket)
