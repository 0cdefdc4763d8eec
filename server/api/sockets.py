"""The WebSocket endpoint `/ws/tables/{id}` (docs/protocol.md).

It only reads frames (`parse_message`), has `server.realtime.messages` check them, and
hands them to the hub. An outgoing message to an idle socket is written at once, as a bare
relay would; one whose write has to wait (the peer's buffers are full), and everything
after it, goes through a per-socket queue drained by one writer task (which exists only
while the queue holds something), so that a slow client never holds a table's lock and
every client receives its messages in version order.

Before a conversation starts the socket must pass its guard (`server.api.guards`: an allowed
`Origin`, its address within its caps and its budget of new sockets); otherwise it is
accepted and closed at once with a code and reason a client can read (1008 "origin not
allowed", 1013 "too many ... from your address").

A socket that reads nothing: see docs/protocol.md ("A client that stops reading").
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import types
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from typing import Any

import orjson
import structlog
from fastapi import WebSocket, WebSocketDisconnect
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketState

from server.api.guards import ORIGIN_NOT_ALLOWED, Limiter, Refusal, SocketGuard
from server.api.wire import FramePath, write_text
from server.observability import ERRORS, SOCKETS_DROPPED
from server.protocol import ServerMessage
from server.realtime.errors import TableError
from server.realtime.hub import Room, TableHub
from server.realtime.messages import (
    PONG,
    Act,
    Back,
    Chat,
    Hello,
    Hint,
    Ping,
    Review,
    Seed,
    error,
    plain_act,
    read_client_message,
)
from server.realtime.views import Frame

log = structlog.get_logger(__name__)

TABLE_SOCKET_PATH = "/ws/tables/{table_id}"

# The largest incoming message, in bytes (UTF-8 for text frames). `spades serve` gives it
# to uvicorn as `ws_max_size`, so a bigger frame is refused (1009) before it is read whole.
MAX_MESSAGE_BYTES = 8 * 1024
# A client that lets this many messages pile up unread is dropped.
MAX_QUEUED = 1000
# How long a close may wait for the socket to take its frame before the connection is cut.
CLOSE_TIMEOUT_SECONDS = 1.0
CLOSE_NO_TABLE = 4404
CLOSE_TOO_SLOW = 1008
CLOSE_SERVER_ERROR = 1011


def server_transport(asgi_callable: object) -> asyncio.Transport | None:
    """The asyncio transport under a connection's ASGI `send` or `receive`, or None.

    ASGI tells an app neither that the server has begun closing a connection (uvicorn does
    so by itself on a frame over the limit, invalid UTF-8 or an unanswered ping) nor how to
    drop a peer that reads nothing. uvicorn's WebSocket protocols (websockets-sansio,
    websockets, wsproto) hand the app their bound methods, whose object holds the
    transport: `is_closing()` answers the first and `abort()` does the second.
    """
    transport = getattr(getattr(asgi_callable, "__self__", None), "transport", None)
    return transport if isinstance(transport, asyncio.Transport) else None


async def close_socket(
    websocket: WebSocket, code: int, reason: str, transport: asyncio.Transport | None
) -> None:
    """Send the close frame if the socket takes it within CLOSE_TIMEOUT_SECONDS, else cut the
    connection (`transport`): a peer that reads nothing would never receive the frame. A
    socket already closed or closing (its peer left, or the server closed it) is left to
    end as it is: that is no failure of ours."""
    try:
        await asyncio.wait_for(websocket.close(code, reason), CLOSE_TIMEOUT_SECONDS)
    except TimeoutError:
        if transport is None:
            log.warning("socket could not be cut: no transport")
        else:
            transport.abort()
    except Exception:  # already closed or closing: nothing left to do
        return


@types.coroutine
def resumed(send: Coroutine[Any, Any, None], waiting: Any) -> Generator[Any, Any, None]:
    """Finish, in the awaiting task, a send begun outside any task's await: `waiting` is
    what `send` gave up control on (a future), handed on to the event loop as if the
    awaiting task had been running `send` from its start; cancelling that task cancels
    the send."""
    while True:
        try:
            answer = yield waiting
        except BaseException as problem:  # a cancellation: the send decides what it means
            try:
                waiting = send.throw(problem)
            except StopIteration:
                return
        else:
            try:
                waiting = send.send(answer)
            except StopIteration:
                return


class SocketListener:
    """One WebSocket as the hub sees it: a seat and a mailbox."""

    __slots__ = (
        "closer",
        "direct",
        "dropped",
        "key",
        "queue",
        "seat",
        "send_asgi",
        "table_id",
        "transport",
        "websocket",
        "writer",
    )

    def __init__(
        self,
        websocket: WebSocket,
        table_id: str,
        send_asgi: Send | None = None,
        frames: FramePath | None = None,
    ) -> None:
        self.websocket = websocket
        # The connection's ASGI `send`, when it is an async function (its sends are then
        # coroutines, begun here as `_send_now` does): a state's text goes to it as it is
        # (the WebSocket's send_text only checks the state and calls it); else send_text.
        self.send_asgi: Callable[[Message], Coroutine[Any, Any, None]] | None = (
            send_asgi if send_asgi is not None and inspect.iscoroutinefunction(send_asgi) else None
        )
        # uvicorn's sans-I/O protocol object behind that `send`, whose text frames
        # `send` writes itself when nothing stands in the way (`server.api.wire`); None
        # when `frames` says every frame goes through uvicorn's `send`.
        self.direct = frames.protocol(send_asgi) if frames is not None else None
        # The connection's transport: whether the server is closing it, and cutting it.
        self.transport = server_transport(send_asgi)
        self.table_id = table_id
        self.seat: int | None = None
        self.key = uuid.uuid4().hex
        # The mailbox (messages, then perhaps a close: code, reason) and the task sending
        # it exist only while it holds something: an idle socket has neither, so a table
        # waiting for its next move costs no task, future or deque per socket.
        self.queue: deque[ServerMessage | tuple[int, str]] | None = None
        self.writer: asyncio.Task[None] | None = None
        self.closer: asyncio.Task[None] | None = None
        # Set once the socket is closing or being dropped: nothing more is queued for it.
        self.dropped = False

    def send(self, message: ServerMessage) -> None:
        if self.dropped:
            return
        if self.writer is None:
            # Nothing queued and nothing being sent: write it now (almost always done at
            # once; a write that must wait is finished by a writer, before anything after it).
            # A state goes straight to the transport when it can, in this call.
            direct = self.direct
            if (
                direct is not None
                and isinstance(message, Frame)
                and write_text(direct, message.payload)
            ):
                return
            self._send_now(message)
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

    def _put(self, item: ServerMessage | tuple[int, str]) -> None:
        if self.queue is None:
            self.queue = deque()
        self.queue.append(item)
        # One writer at a time, so messages leave in the order they were queued.
        if self.writer is None:
            self.writer = asyncio.create_task(self.write())

    def _send_now(self, item: ServerMessage) -> None:
        """Run the socket's send of `item` up to its first wait: a send that completes at
        once costs no task; one that waits goes on in a new writer, which the queue is
        behind. A failure ends the socket as in `write`. (`send` has written a state it
        could straight to the transport already.)"""
        text = self._text(item)
        if text is None:
            self.writer = asyncio.create_task(self.close_now(CLOSE_SERVER_ERROR, "server error"))
            return
        send_asgi = self.send_asgi  # as `_send_text`, without a call more per socket
        send = (
            self.websocket.send_text(text)
            if send_asgi is None
            else send_asgi({"type": "websocket.send", "text": text})
        )
        try:
            waiting = send.send(None)
        except StopIteration:
            return
        except Exception as problem:
            if self._not_sent(item, problem):
                self.writer = asyncio.create_task(
                    self.close_now(CLOSE_SERVER_ERROR, "server error")
                )
            return
        self.queue = deque()
        self.writer = asyncio.create_task(self.write(send, waiting, item))

    def _send_text(self, text: str) -> Coroutine[Any, Any, None]:
        if self.send_asgi is None:
            return self.websocket.send_text(text)
        return self.send_asgi({"type": "websocket.send", "text": text})

    def _text(self, item: ServerMessage) -> str | None:
        """The JSON text of a message (a `Frame` is one already); None, logged, if it
        cannot be encoded."""
        if isinstance(item, Frame):
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
        """Close with `code`, or cut the connection if the close frame cannot go."""
        await close_socket(self.websocket, code, reason, self.transport)

    async def write(
        self,
        begun: Coroutine[Any, Any, None] | None = None,
        waiting: Any = None,
        item: ServerMessage | None = None,
    ) -> None:
        """Finish the send `begun` (of `item`, suspended on `waiting`) if any, then send
        queued messages in order until the mailbox is empty (the writer then ends, and the
        next message is sent at once or starts another), a close is sent, or the socket dies.

        A message that cannot be encoded, or a send that fails while the socket is not
        closing (`_not_sent`), is logged (the table and the kind of failure, never the message)
        and closes the socket with 1011 "server error"; the reader then ends as on any close.
        """
        if (
            begun is not None
            and item is not None
            and not await self._sent(resumed(begun, waiting), item)
        ):
            return
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
            if not await self._sent(self._send_text(text), queued):
                return

    async def _sent(self, sending: Awaitable[None], item: ServerMessage) -> bool:
        """Await one send; False once the socket has ended (closing, or the send failed:
        then logged and closed with 1011)."""
        try:
            await sending
        except Exception as problem:
            if self._not_sent(item, problem):
                await self.close_now(CLOSE_SERVER_ERROR, "server error")
            return False
        return True

    def _not_sent(self, item: ServerMessage, problem: Exception) -> bool:
        """A send of `item` raised `problem`; True if that is the server's own failure (logged
        and counted: the caller closes with 1011).

        A send to a socket that is closing is an ordinary end, whoever began it: the peer
        (ASGI raises OSError, Starlette WebSocketDisconnect), or uvicorn itself, which closes
        a connection on a frame over the limit, invalid UTF-8 or an unanswered ping, and
        raises RuntimeError at a send in the gap before the reader hears of it. Anyone can
        cause that; it is counted as `closed` and logged at DEBUG, never as an error.
        """
        self.dropped = True
        if isinstance(problem, WebSocketDisconnect | OSError) or (
            self.transport is not None and self.transport.is_closing()
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

    def _failed(self, event: str, item: ServerMessage, problem: Exception) -> None:
        self.dropped = True
        ERRORS.labels(where="socket").inc()
        SOCKETS_DROPPED.labels(reason="server_error").inc()
        log.error(
            event,
            table=self.table_id,
            message_type=str(item.get("type"))[:40],
            error=type(problem).__name__,
            # orjson's and the websocket's reasons name a kind of failure, not the content.
            reason=str(problem)[:200],
        )

    async def stop(self) -> None:
        """Stop the writer (and a close in progress) once the conversation has ended."""
        self.dropped = True
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


async def refuse(
    websocket: WebSocket, refusal: Refusal, transport: asyncio.Transport | None
) -> None:
    """Accept, then close with a code and reason the client's script can read (a refused
    handshake shows a browser's script only 1006)."""
    SOCKETS_DROPPED.labels(reason=refusal.why).inc()
    await websocket.accept()
    await close_socket(websocket, refusal.code, refusal.reason, transport)


# Where `KeepServerSend` leaves a WebSocket's ASGI `send` as the server gave it.
SERVER_SEND = "spades.server_send"


class KeepServerSend:
    """Middleware that leaves a WebSocket's ASGI `send`, as the server hands it to the app,
    in its scope (`SERVER_SEND`), for `TableSocketEndpoint` to send states on. Starlette's
    exception middleware, further in, wraps `send` in a coroutine of its own that only
    notes that a response has started: a state sent through it runs one coroutine more
    per socket, five a move at a table with one spectator. Added with `add_middleware`,
    this sits outside that middleware and inside Starlette's outermost one, which leaves
    a WebSocket's `send` as it is. Not a coroutine itself: a WebSocket keeps no frame of it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        if scope["type"] == "websocket":
            scope[SERVER_SEND] = send
        return self.app(scope, receive, send)


class TableSocketEndpoint:
    """The endpoint at TABLE_SOCKET_PATH as a plain ASGI app (an object, so that
    Starlette's WebSocketRoute serves it as one): states are sent to the server's own
    ASGI `send` (`KeepServerSend`; the one given here when that is not in the app),
    frames are read from `receive` itself, and the conversation's coroutine sits under
    fewer frames than a FastAPI WebSocket route's, whose session wrappers it passes
    through at every message."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive=receive, send=send)
        await table_socket(
            websocket, scope["path_params"]["table_id"], scope.get(SERVER_SEND, send), receive
        )


async def table_socket(
    websocket: WebSocket,
    table_id: str,
    send: Send | None = None,
    receive: Receive | None = None,
) -> None:
    """One WebSocket's conversation; `send`: its ASGI send, for the states; `receive`:
    its ASGI receive, read directly once the socket is accepted (`websocket.receive`
    checks the socket's state and calls it, a coroutine more per message)."""
    # One coroutine for the whole conversation, not one for the checks awaiting another:
    # each socket holds its frames for as long as it is open.
    guard: SocketGuard = websocket.app.state.socket_guard
    transport = server_transport(send)
    if not guard.origin_allowed(websocket):
        log.info("socket refused: origin not allowed", table=table_id)
        await refuse(websocket, ORIGIN_NOT_ALLOWED, transport)
        return
    address = websocket.client.host if websocket.client is not None else "unknown"
    over = guard.take(address, table_id)
    if over is not None:
        log.info("socket refused", table=table_id, reason=over.why)
        await refuse(websocket, over, transport)
        return
    try:
        hub: TableHub = websocket.app.state.hub
        await websocket.accept()
        try:
            room = await hub.room(table_id)
        except TableError:
            await close_socket(websocket, CLOSE_NO_TABLE, "no such table", transport)
            return
        if hub.closing:
            await close_socket(websocket, 1012, "server restarting", transport)
            return
        socket = SocketListener(websocket, room.id, send, websocket.app.state.frame_path)
        limiter: Limiter = websocket.app.state.ws_limiter
        chat_limiter: Limiter = websocket.app.state.chat_limiter
        hint_limiters: tuple[Limiter, Limiter] = websocket.app.state.hint_limiters
        hint_limiter, hint_address_limiter = hint_limiters
        seed_limiters: tuple[Limiter, Limiter] = websocket.app.state.seed_limiters
        seed_limiter, seed_address_limiter = seed_limiters
        greeted = False

        def budget(kind: str) -> bool:
            """Chat: the address's budget. Hints: the player's (this socket's), then the
            address's (a classroom behind one NAT shares it). Seeds: the seat's, over all
            its sockets, then the address's."""
            if kind == "chat":
                return chat_limiter.allow(address)
            if kind == "seed":
                seat = f"{room.id}/{socket.seat}" if socket.seat is not None else socket.key
                return seed_limiter.allow(seat) and seed_address_limiter.allow(address)
            return hint_limiter.allow(socket.key) and hint_address_limiter.allow(address)

        try:
            while True:
                raw = await (websocket.receive() if receive is None else receive())
                if raw["type"] != "websocket.receive":
                    # A disconnect, as `websocket.receive` would have marked it (an
                    # accepted socket's receive gives nothing else).
                    websocket.client_state = WebSocketState.DISCONNECTED
                    break
                # Parse first (cheap: at most MAX_MESSAGE_BYTES), so that a refusal echoes the
                # act's id; a frame that is not even a message spends the budget all the same.
                message: dict[str, Any] = {}
                refusal: TableError | None = None
                try:
                    message = parse_message(raw)
                except TableError as bad:
                    refusal = bad
                if not limiter.allow(socket.key):
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
        except Exception as problem:  # a dead socket ends the conversation, nothing else
            log.info("socket ended", table=room.id, error=type(problem).__name__)
        finally:
            limiter.forget(socket.key)
            hint_limiter.forget(socket.key)
            if greeted:
                await hub.leave(room, socket)
            await socket.stop()
            if websocket.application_state != WebSocketState.DISCONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close()
    finally:
        guard.release(address, table_id)
