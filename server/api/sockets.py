"""The WebSocket endpoint `/ws/tables/{id}` (docs/protocol.md).

A FastAPI WebSocket route: it only reads frames (`parse_message`), has
`server.realtime.messages` check them, and hands them to the hub. Outgoing messages go
through a per-socket queue drained by one writer task (which exists only while the queue
holds something) through the WebSocket's `send_text`, so that a slow client never holds
a table's lock and every client receives its messages in version order.

Before a conversation starts the socket must pass its guard (`server.api.guards`: an allowed
`Origin`, its address within its caps and its budget of new sockets); otherwise it is
accepted and closed at once with a code and reason a client can read (1008 "origin not
allowed", 1013 "too many ... from your address").

A socket that reads nothing: see docs/protocol.md ("A client that stops reading").
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

import orjson
import structlog
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from starlette.websockets import WebSocketState

from server.api.guards import ORIGIN_NOT_ALLOWED, Refusal
from server.api.services import AppServices, Services
from server.observability import ERRORS, SOCKETS_DROPPED
from server.protocol import ServerMessage
from server.realtime.errors import TableError
from server.realtime.hub import Room, TableHub
from server.realtime.messages import (
    PONG,
    Act,
    Back,
    Chat,
    Encoded,
    Hello,
    Hint,
    Ping,
    Review,
    Seed,
    error,
    plain_act,
    read_client_message,
)

log = structlog.get_logger(__name__)

TABLE_SOCKET_PATH = "/ws/tables/{table_id}"

# The largest incoming message, in bytes (UTF-8 for text frames). `spades serve` gives it
# to uvicorn as `ws_max_size`, so a bigger frame is refused (1009) before it is read whole.
MAX_MESSAGE_BYTES = 8 * 1024
# A client that lets this many messages pile up unread is dropped.
MAX_QUEUED = 1000
# How long a close may wait for the socket to take its frame before the socket is let go.
CLOSE_TIMEOUT_SECONDS = 1.0
CLOSE_NO_TABLE = 4404
CLOSE_TOO_SLOW = 1008
CLOSE_SERVER_ERROR = 1011


async def close_socket(websocket: WebSocket, code: int, reason: str) -> bool:
    """Send the close frame if the socket takes it within CLOSE_TIMEOUT_SECONDS; False if it
    did not (a peer that reads nothing, whose buffers are full). A socket already closed or
    closing (its peer left, or the server closed it) is left to end as it is: that is no
    failure of ours."""
    try:
        await asyncio.wait_for(websocket.close(code, reason), CLOSE_TIMEOUT_SECONDS)
    except TimeoutError:
        return False
    except Exception:  # already closed or closing: nothing left to do
        return True
    return True


class SocketListener:
    """One WebSocket as the hub sees it: a seat and a mailbox.

    `send` never waits: it queues the message and, if no writer is running, starts one
    (a task that sends the queue in order through the WebSocket's `send_text`, then
    ends), so a slow client never holds a table's lock and an idle socket costs no task.
    """

    __slots__ = (
        "closer",
        "conversation",
        "cut",
        "dropped",
        "key",
        "queue",
        "reading",
        "seat",
        "table_id",
        "websocket",
        "writer",
    )

    def __init__(self, websocket: WebSocket, table_id: str) -> None:
        self.websocket = websocket
        self.table_id = table_id
        self.seat: int | None = None
        self.key = uuid.uuid4().hex
        # The task reading this socket, whether it is waiting for a frame, and whether
        # it is to end (`cut`): a peer that reads nothing and cannot even take its close
        # frame is let go at once, not when its connection ends.
        self.conversation = asyncio.current_task()
        self.reading = False
        self.cut = False
        # The mailbox (messages, then perhaps a close: code, reason) and the task sending
        # it exist only while it holds something: an idle socket has neither, so a table
        # waiting for its next move costs no task or deque per socket.
        self.queue: deque[ServerMessage | Encoded | tuple[int, str]] | None = None
        self.writer: asyncio.Task[None] | None = None
        self.closer: asyncio.Task[None] | None = None
        # Set once the socket is closing or being dropped: nothing more is queued for it.
        self.dropped = False

    def send(self, message: ServerMessage | Encoded) -> None:
        if self.dropped:
            return
        if self.queue is not None and len(self.queue) >= MAX_QUEUED:
            log.warning("socket dropped: client reads too slowly", table=self.table_id)
            SOCKETS_DROPPED.labels(reason="too_slow").inc()
            self.drop(CLOSE_TOO_SLOW, "too slow")
            return
        self._put(message)

    async def close(self, code: int, reason: str) -> None:
        """Close after every message queued so far (a restart, a table reloading)."""
        if self.dropped:
            return
        self._put((code, reason))
        # Anything queued behind the close would never be sent.
        self.dropped = True

    def _put(self, item: ServerMessage | Encoded | tuple[int, str]) -> None:
        if self.queue is None:
            self.queue = deque()
        self.queue.append(item)
        # One writer at a time, so messages leave in the order they were queued.
        if self.writer is None:
            self.writer = asyncio.create_task(self.write())

    def _text(self, item: ServerMessage | Encoded) -> str | None:
        """The JSON text of a message (an `Encoded` one has it already); None, logged, if
        it cannot be encoded."""
        if isinstance(item, Encoded):
            return item.text
        try:
            return orjson.dumps(item).decode()
        except TypeError as problem:  # orjson.JSONEncodeError is a TypeError
            self._failed("socket message could not be encoded", item, problem)
            return None

    def drop(self, code: int, reason: str) -> None:
        """Close now: forget what is queued and stop the writer wherever it waits (a send
        blocked on a peer that reads nothing), then close with `code`."""
        self.dropped = True
        self.queue = None
        if self.writer is not None:
            self.writer.cancel()
        self.closer = asyncio.create_task(self._close_after_writer(code, reason))

    async def _close_after_writer(self, code: int, reason: str) -> None:
        if self.writer is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
        await self.close_now(code, reason)

    async def close_now(self, code: int, reason: str) -> None:
        """Close with `code`; if the close frame cannot go (the peer reads nothing), end the
        conversation (cancelled while it waits for a frame, else after the message it is
        handling), so that the hub lets the socket go at once."""
        if await close_socket(self.websocket, code, reason):
            return
        self.cut = True
        if self.reading and self.conversation is not None:
            self.conversation.cancel()

    async def write(self) -> None:
        """Send queued messages in order until the mailbox is empty (the writer then ends,
        and the next message starts another), a close is sent, or the socket dies.

        A message that cannot be encoded, or a send that fails while the socket is not
        closing (`_not_sent`), is logged (the table and the kind of failure, never the message)
        and closes the socket with 1011 "server error"; the reader then ends as on any close.
        """
        while True:
            if not self.queue:
                # Nothing left: no await between this check and the next `_put`'s, so a
                # message queued from now on starts a new writer.
                self.queue = self.writer = None
                return
            queued = self.queue.popleft()
            if isinstance(queued, tuple):
                await self.close_now(*queued)
                return
            text = self._text(queued)
            if text is None:
                await self.close_now(CLOSE_SERVER_ERROR, "server error")
                return
            try:
                await self.websocket.send_text(text)
            except Exception as problem:
                if self._not_sent(queued, problem):
                    await self.close_now(CLOSE_SERVER_ERROR, "server error")
                return

    def _not_sent(self, item: ServerMessage | Encoded, problem: Exception) -> bool:
        """A send of `item` raised `problem`; True if that is the server's own failure (logged
        and counted: the caller closes with 1011).

        A send to a socket that is closing is an ordinary end, whoever began it: the peer
        (ASGI raises OSError, Starlette WebSocketDisconnect), or the server itself, which
        closes a connection on a frame over the limit, invalid UTF-8 or an unanswered ping,
        and raises RuntimeError ("after sending 'websocket.close'") at a send in the gap
        before the reader hears of it. Anyone can cause that; it is counted as `closed`
        and logged at DEBUG, never as an error.
        """
        self.dropped = True
        if isinstance(problem, WebSocketDisconnect | OSError) or (
            isinstance(problem, RuntimeError) and "websocket.close" in str(problem)
        ):
            SOCKETS_DROPPED.labels(reason="closed").inc()
            log.debug(
                "socket message not sent: the socket is closing",
                table=self.table_id,
                error=type(problem).__name__,
            )
            return False
        self._failed("socket message could not be sent", item, problem)
        return True

    def _failed(self, event: str, item: ServerMessage | Encoded, problem: Exception) -> None:
        self.dropped = True
        ERRORS.labels(where="socket").inc()
        SOCKETS_DROPPED.labels(reason="server_error").inc()
        kind = item.message["type"] if isinstance(item, Encoded) else item.get("type")
        log.error(
            event,
            table=self.table_id,
            message_type=str(kind)[:40],
            error=type(problem).__name__,
            # orjson's and the websocket's reasons name a kind of failure, not the content.
            reason=str(problem)[:200],
        )

    async def stop(self) -> None:
        """Stop the writer (and a close in progress) once the conversation has ended."""
        self.dropped = True
        self.conversation = None
        if self.writer is not None:
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
        if self.closer is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.closer


def parse_message(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON object of one incoming frame, with a string `type`; TableError('bad_message')
    otherwise. What the object must hold is `read_client_message`'s to check.

    The size limit counts bytes: a text frame's UTF-8 length, as uvicorn's `ws_max_size`.
    """
    data: str | bytes | None = raw.get("text")
    if data is None:
        data = raw.get("bytes") or b""
    # A character is at least one byte: a text longer than the limit needs no encoding.
    if len(data) > MAX_MESSAGE_BYTES or (
        isinstance(data, str) and len(data := data.encode()) > MAX_MESSAGE_BYTES
    ):
        raise TableError("bad_message", f"Messages are at most {MAX_MESSAGE_BYTES} bytes.")
    try:
        message = orjson.loads(data)
    except orjson.JSONDecodeError:
        raise TableError("bad_message", "Messages are JSON objects.") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise TableError("bad_message", 'Messages are JSON objects with a "type".')
    return message


async def handle(
    hub: TableHub,
    room: Room,
    socket: SocketListener,
    message: dict[str, Any],
    greeted: bool,
    budget: Callable[[str], bool] = lambda kind: True,
) -> bool:
    """Dispatch one message; returns whether the socket has said hello. `budget(kind)`
    spends one chat line or hint of the budgets it has (False: over one of them)."""
    kind = message["type"]
    if not greeted and kind not in ("hello", "ping"):
        raise TableError("bad_message", 'Say {"type": "hello"} first.')
    if kind == "chat" and not budget(kind):
        raise TableError("rate_limited", "Too many chat lines from your address; wait a little.")
    if kind in ("hint", "review") and not budget("hint"):
        raise TableError("rate_limited", "Too many hints; wait a little.")
    if kind == "seed" and not budget(kind):
        raise TableError("rate_limited", "Too many seeds from your seat or address; wait a little.")
    if kind == "act" and (move := plain_act(message)) is not None:
        await hub.act(room, socket, *move)
        return greeted
    command = read_client_message(message, hub.settings.chat_max_length)
    if isinstance(command, Hello):
        await hub.join(room, socket, command.token, command.host_token)
        return True
    if isinstance(command, Ping):
        socket.send(PONG)
    elif isinstance(command, Act):
        await hub.act(room, socket, command.move, command.id, command.version)
    elif isinstance(command, Chat):
        await hub.chat(room, socket, command.text)
    elif isinstance(command, Seed):
        await hub.seed(room, socket, command.value)
    elif isinstance(command, Back):
        await hub.take_back(room, socket)
    elif isinstance(command, Hint):
        await hub.hint(room, socket, command.id)
    elif isinstance(command, Review):
        await hub.review(room, socket, command.hand, command.id)
    return greeted


async def refuse(websocket: WebSocket, refusal: Refusal) -> None:
    """Accept, then close with a code and reason the client's script can read (a refused
    handshake shows a browser's script only 1006)."""
    SOCKETS_DROPPED.labels(reason=refusal.why).inc()
    await websocket.accept()
    await close_socket(websocket, refusal.code, refusal.reason)


router = APIRouter()


@router.websocket(TABLE_SOCKET_PATH)
async def table_socket(websocket: WebSocket, table_id: str, found: AppServices) -> None:
    """One WebSocket's conversation (docs/protocol.md)."""
    guard = found.socket_guard
    if not guard.origin_allowed(websocket):
        log.info("socket refused: origin not allowed", table=table_id)
        await refuse(websocket, ORIGIN_NOT_ALLOWED)
        return
    address = websocket.client.host if websocket.client is not None else "unknown"
    over = guard.take(address, table_id)
    if over is not None:
        log.info("socket refused", table=table_id, reason=over.why)
        await refuse(websocket, over)
        return
    try:
        await converse(websocket, table_id, address, found)
    finally:
        guard.release(address, table_id)


async def converse(websocket: WebSocket, table_id: str, address: str, found: Services) -> None:
    """The conversation of an accepted socket: read, check, hand to the hub, until it
    closes or is dropped (`SocketListener.close_now` ends it: a cancellation, caught here)."""
    hub = found.hub
    await websocket.accept()
    try:
        room = await hub.room(table_id)
    except TableError:
        await close_socket(websocket, CLOSE_NO_TABLE, "no such table")
        return
    if hub.closing:
        await close_socket(websocket, 1012, "server restarting")
        return
    socket = SocketListener(websocket, room.id)
    limits = found.socket_limits
    greeted = False

    def budget(kind: str) -> bool:
        """Chat: the address's budget. Hints: the player's (this socket's), then the
        address's (a classroom behind one NAT shares it). Seeds: the seat's, over all
        its sockets, then the address's."""
        if kind == "chat":
            return limits.chat.allow(address)
        if kind == "seed":
            seat = f"{room.id}/{socket.seat}" if socket.seat is not None else socket.key
            return limits.seeds.allow(seat) and limits.seeds_by_address.allow(address)
        return limits.hints.allow(socket.key) and limits.hints_by_address.allow(address)

    try:
        while True:
            socket.reading = True
            raw = await websocket.receive()
            socket.reading = False
            if raw["type"] != "websocket.receive" or socket.cut:
                break
            # Parse first (cheap: at most MAX_MESSAGE_BYTES), so that a refusal echoes the
            # act's id; a frame that is not even a message spends the budget all the same.
            message: dict[str, Any] = {}
            refusal: TableError | None = None
            try:
                message = parse_message(raw)
            except TableError as bad:
                refusal = bad
            if not limits.messages.allow(socket.key):
                refusal = TableError("rate_limited", "Too many messages; slow down.")
            if refusal is None:
                try:
                    greeted = await handle(hub, room, socket, message, greeted, budget)
                except TableError as refused:
                    refusal = refused
            if refusal is not None:
                act_id = message.get("id")
                act_id = act_id if isinstance(act_id, str | int) else None
                socket.send(error(refusal.code, refusal.message, act_id))
            # Nothing of this message stays while the socket waits for the next one.
            del raw, message, refusal
    except asyncio.CancelledError:
        # Dropped, its close frame not taken: the hub lets it go now (below); uvicorn
        # closes the connection once this returns and what it holds has been read.
        task = asyncio.current_task()
        if task is None or not socket.cut:
            raise
        task.uncancel()
    except Exception as problem:  # a dead socket ends the conversation, nothing else
        log.info("socket ended", table=room.id, error=type(problem).__name__)
    finally:
        limits.messages.forget(socket.key)
        limits.hints.forget(socket.key)
        if greeted:
            await hub.leave(room, socket)
        await socket.stop()
        if websocket.application_state != WebSocketState.DISCONNECTED:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(websocket.close(), CLOSE_TIMEOUT_SECONDS)
