"""The WebSocket endpoint `/ws/tables/{id}` (docs/protocol.md).

It only parses and checks messages, then hands them to the hub. Outgoing messages go
through a per-socket queue drained by one writer task, so that a slow client never holds
a table's lock and every client receives its messages in version order.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import orjson
import structlog
from fastapi import APIRouter, WebSocket
from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.websockets import WebSocketState

from server.realtime.errors import TableError
from server.realtime.hub import Room, TableHub, error

log = structlog.get_logger(__name__)

router = APIRouter()

MAX_MESSAGE_BYTES = 8 * 1024
# A client that lets this many messages pile up unread is dropped.
MAX_QUEUED = 1000
CLOSE_NO_TABLE = 4404
CLOSE_TOO_SLOW = 1008


class SocketListener:
    """One WebSocket as the hub sees it: a seat and a mailbox."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.seat: int | None = None
        self.key = uuid.uuid4().hex
        self.queue: asyncio.Queue[dict[str, Any] | tuple[int, str]] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        if self.queue.qsize() >= MAX_QUEUED:
            self.queue.put_nowait((CLOSE_TOO_SLOW, "too slow"))
            return
        self.queue.put_nowait(message)

    async def close(self, code: int, reason: str) -> None:
        self.queue.put_nowait((code, reason))

    async def write(self) -> None:
        """Send queued messages in order until a close is queued or the socket dies."""
        while True:
            item = await self.queue.get()
            if isinstance(item, tuple):
                code, reason = item
                with contextlib.suppress(Exception):
                    await self.websocket.close(code, reason)
                return
            await self.websocket.send_text(orjson.dumps(item).decode())


class Limiter:
    """Per-connection message budget (settings.ws_rate_limit) with the `limits` library."""

    def __init__(self, rate: str) -> None:
        self.item: RateLimitItem = parse(rate)
        self.strategy = MovingWindowRateLimiter(MemoryStorage())

    def allow(self, key: str) -> bool:
        return self.strategy.hit(self.item, "ws", key)


def parse_message(raw: dict[str, Any]) -> dict[str, Any]:
    """The JSON object of one incoming frame; TableError('bad_message') otherwise."""
    data = raw.get("text")
    if data is None:
        data = raw.get("bytes") or b""
    if len(data) > MAX_MESSAGE_BYTES:
        raise TableError("bad_message", f"Messages are at most {MAX_MESSAGE_BYTES} bytes.")
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise TableError("bad_message", "Messages are JSON objects.") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise TableError("bad_message", 'Messages are JSON objects with a "type".')
    return message


def optional(message: dict[str, Any], key: str, kind: type) -> Any:
    value = message.get(key)
    if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
        raise TableError("bad_message", f"{key!r} must be a {kind.__name__} or null.")
    return value


async def handle(
    hub: TableHub, room: Room, socket: SocketListener, message: dict[str, Any], greeted: bool
) -> bool:
    """Dispatch one message; returns whether the socket has said hello."""
    kind = message["type"]
    if kind == "hello":
        token = optional(message, "token", str)
        host_token = optional(message, "host_token", str)
        optional(message, "version", int)
        await hub.join(room, socket, token, host_token)
        return True
    if kind == "ping":
        socket.send({"type": "pong"})
        return greeted
    if not greeted:
        raise TableError("bad_message", 'Say {"type": "hello"} first.')
    if kind == "act":
        action = message.get("action")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise TableError("bad_message", '"action" must be an action object with a "type".')
        act_id = message.get("id")
        if act_id is not None and not isinstance(act_id, str | int):
            raise TableError("bad_message", '"id" must be a string.')
        version = optional(message, "version", int)
        await hub.act(room, socket, action, act_id, version)
    elif kind == "chat":
        await hub.chat(room, socket, message.get("text"))
    elif kind == "back":
        await hub.take_back(room, socket)
    else:
        raise TableError("bad_message", f"Unknown message type {kind[:40]!r}.")
    return greeted


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    hub: TableHub = websocket.app.state.hub
    await websocket.accept()
    try:
        room = await hub.room(table_id)
    except TableError:
        await websocket.close(CLOSE_NO_TABLE, "no such table")
        return
    if hub.closing:
        await websocket.close(1012, "server restarting")
        return
    socket = SocketListener(websocket)
    writer = asyncio.create_task(socket.write())
    limiter: Limiter = websocket.app.state.ws_limiter
    greeted = False
    try:
        while True:
            raw = await websocket.receive()
            if raw["type"] == "websocket.disconnect":
                break
            message: dict[str, Any] = {}
            try:
                if not limiter.allow(socket.key):
                    raise TableError("rate_limited", "Too many messages; slow down.")
                message = parse_message(raw)
                greeted = await handle(hub, room, socket, message, greeted)
            except TableError as refusal:
                act_id = message.get("id")
                act_id = act_id if isinstance(act_id, str | int) else None
                socket.send(error(refusal.code, refusal.message, act_id))
    except Exception as problem:  # a dead socket ends the conversation, nothing else
        log.info("socket ended", table=room.id, error=type(problem).__name__)
    finally:
        if greeted:
            await hub.leave(room, socket)
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        if websocket.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await websocket.close()
