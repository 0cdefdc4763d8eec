"""The bare relay that bench/load.py measures the table server against.

A minimal FastAPI app with just enough of the table protocol (docs/protocol.md) for the
load client: `POST /api/tables`, `POST /api/tables/{id}/seats/{seat}` (a token per seat),
and the WebSocket `/ws/tables/{id}` (`hello`, `act`). It has no rules, no database and no
views: each `act` raises the table's version, passes the turn to the next seat and sends
one state message, encoded once, to every socket of the table. The message is padded to
`RELAY_STATE_BYTES` (bench/load.py sets it to the mean size of the table server's own
state messages), so the relay pays for the same bytes on the wire and nothing else.

bench/load.py serves it with the same uvicorn command line as the table server:

    uvicorn --app-dir bench relay:app --ws websockets-sansio --ws-max-size 8192 ...
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from typing import Any

import orjson
from fastapi import FastAPI, WebSocket, WebSocketDisconnect

SEATS = 4
# The one card every seat holds: the client picks its action from `legal`, as at our tables.
CARD = "AS"
STATE_BYTES = int(os.environ.get("RELAY_STATE_BYTES", "2000"))


@dataclass
class RelayTable:
    id: str
    version: int = 0
    turn: int = 0
    tokens: dict[str, int] = field(default_factory=dict)
    sockets: set[WebSocket] = field(default_factory=set)

    def state(self) -> str:
        """The state message of the current version, padded to the target size."""
        message: dict[str, Any] = {
            "type": "state",
            "version": self.version,
            "seat": None,
            "state": {
                "phase": "play",
                "turn": [self.turn],
                "hand": [CARD],
                "legal": [{"type": "play", "card": CARD}],
            },
            "table": {"id": self.id, "status": "playing", "version": self.version},
            "pad": "",
        }
        bare = len(orjson.dumps(message))
        message["pad"] = "x" * max(0, STATE_BYTES - bare)
        return orjson.dumps(message).decode()


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
