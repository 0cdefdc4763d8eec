"""The one table client of the benchmarks (and of the tests' HTTP set-ups): tables
created and seated over HTTP (docs/protocol.md), their sockets connected and read, a
legal action picked from a seat's own view, a rematch.

A `Table`'s sockets do no more with a state than a measurement needs, the same on the
table server and on the relay: each state's version is read from its first bytes
(`STATE_HEAD`: `"type"`, then `"version"`, as both servers write them; any other message
is decoded whole), and a player's state is decoded only when something looks at it.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
import websockets

# A state message's first bytes, as both servers write them: its version.
STATE_HEAD = re.compile(r'\{"type":"state","version":(\d+),')
ACT_TIMEOUT = 10.0  # seconds an action may wait for every socket's new state
SETTLE_STALL = 30.0  # seconds a table being opened may wait while no socket gets a state


async def post(http: httpx.AsyncClient, path: str, **options: Any) -> httpx.Response:
    """POST, once more if the connection broke: uvicorn closes a keep-alive connection
    idle for 5 s, and a request sent on it just then is lost unread (httpx.ReadError)."""
    try:
        return await http.post(path, **options)
    except httpx.TransportError:
        return await http.post(path, **options)


def created(answer: httpx.Response) -> Any:
    """The JSON of a 201 answer; any other status raises, with the answer's text."""
    if answer.status_code != 201:
        raise AssertionError(f"{answer.request.url}: {answer.status_code} {answer.text}")
    return answer.json()


async def create_table(
    http: httpx.AsyncClient,
    rules: dict[str, Any] | None = None,
    name: str = "Bench",
    listed: bool = True,
) -> dict[str, Any]:
    """A new table (its id, invite, seats...): listed, unless `listed` is False."""
    body: dict[str, Any] = {"name": name, "listed": listed}
    if rules is not None:
        body["rules"] = rules
    table: dict[str, Any] = created(await post(http, "/api/tables", json=body))
    return table


async def take_seats(
    http: httpx.AsyncClient,
    table_id: str,
    seats: int | Iterable[int] = 4,
    *,
    invite: str | None = None,
) -> list[str]:
    """People named P0, P1... take `seats` (a count from seat 0, or the seats); their
    tokens. The game starts once the last seat is taken."""
    tokens = []
    for seat in range(seats) if isinstance(seats, int) else seats:
        body = {"name": f"P{seat}"} | ({"invite": invite} if invite else {})
        tokens.append(
            created(await post(http, f"/api/tables/{table_id}/seats/{seat}", json=body))["token"]
        )
    return tokens


async def add_bots(
    http: httpx.AsyncClient,
    table_id: str,
    seats: int | Iterable[int] = 4,
    *,
    level: str | None = None,
    invite: str | None = None,
) -> None:
    """Bots (of `level`, the server's default level if None) take `seats` (a count from
    seat 0, or the seats); once every seat is filled they play by themselves."""
    body = ({"level": level} if level else {}) | ({"invite": invite} if invite else {})
    for seat in range(seats) if isinstance(seats, int) else seats:
        created(await post(http, f"/api/tables/{table_id}/seats/{seat}/bot", json=body))


async def connect(ws_url: str, table_id: str, token: str | None, **options: Any) -> Any:
    """A socket at a table that has said hello (as a spectator without `token`);
    `options` go to `websockets.connect`."""
    url = f"{ws_url}/ws/tables/{table_id}"
    ws = await websockets.connect(url, max_size=2**22, open_timeout=60, **options)
    await ws.send(orjson.dumps({"type": "hello", "token": token, "version": None}).decode())
    return ws


def pick(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A legal action. Bids stay near a real player's (so games reach the target), one in
    five allowed blind nils is declared (so cards get passed), cards are random."""
    legal = view["legal"]
    kind = legal[0]["type"]
    if kind == "pass" and "count" in legal[0]:  # the compact form: choose the cards
        return {"type": "pass", "cards": rng.sample(view["hand"], legal[0]["count"])}
    if kind == "bid":
        likely = [a for a in legal if isinstance(a["bid"], int) and 2 <= a["bid"] <= 4]
        return rng.choice(likely or legal)
    if kind == "blind_nil":
        return {"type": "blind_nil", "declare": rng.random() < 0.2}
    return rng.choice(legal)


@dataclass
class Received:
    """What the sockets of some tables received: state messages and their bytes."""

    state_bytes: int = 0
    states: int = 0


@dataclass
class Socket:
    table: Table
    seat: int | None  # None: a spectator
    token: str | None
    ws: Any = None
    version: int | None = None
    raw: str | None = None  # the latest state as received (players only)
    decoded: dict[str, Any] | None = None  # `raw` decoded, once something looked at it
    reader: asyncio.Task[None] | None = None  # held, so that the task is not collected
    where: str = ""  # the URL it connected to

    @property
    def message(self) -> dict[str, Any] | None:
        """The latest state (players only), decoded on first look."""
        if self.decoded is None and self.raw is not None:
            self.decoded = orjson.loads(self.raw)
        return self.decoded

    def received(self, raw: str) -> None:
        self.raw, self.decoded = raw, None


@dataclass
class Table:
    id: str
    tokens: list[str]
    rng: random.Random
    sockets: list[Socket] = field(default_factory=list)
    awaited: int | None = None  # waiting until every socket has a version above this
    done: asyncio.Event = field(default_factory=asyncio.Event)
    completed_at: float = 0.0
    refused: str | None = None  # the error code the acting socket received
    dead: str | None = None  # why this table stopped (a socket closed, a timeout)

    @property
    def players(self) -> list[Socket]:
        return [socket for socket in self.sockets if socket.seat is not None]

    def versions(self) -> list[int]:
        return [-1 if s.version is None else s.version for s in self.sockets]

    def seen(self) -> None:
        """A socket received a state: the awaited version may now be everywhere."""
        if self.awaited is not None and min(self.versions()) > self.awaited:
            self.completed_at = time.perf_counter()
            self.awaited = None
            self.done.set()

    def expect(self, version: int) -> None:
        """`wait` will wait for every socket to hold a version above `version`."""
        self.awaited, self.refused = version, None
        self.done.clear()

    async def wait(self) -> bool:
        """Until every socket has the awaited version (or an error, or a socket closed);
        False, `dead` saying why, if it did not come within ACT_TIMEOUT."""
        try:
            await asyncio.wait_for(self.done.wait(), ACT_TIMEOUT)
        except TimeoutError:
            self.dead = "timeout"
            return False
        return self.dead is None

    def latest(self) -> dict[str, Any] | None:
        """The state of the player who received the highest version (an action's turn and
        the game's status are in every seat's state of a version alike)."""
        players = [socket for socket in self.players if socket.raw is not None]
        if not players:
            return None
        return max(players, key=lambda socket: socket.version or 0).message

    def over(self) -> bool:
        message = self.latest()
        return message is not None and message["table"]["status"] == "over"

    def choose(self) -> tuple[Socket, dict[str, Any]] | None:
        """A seat whose own view lets it act now, and its action."""
        message = self.latest()
        turn = message["state"]["turn"] if message and message["state"] else []
        for socket in self.players:
            if socket.seat not in turn:
                continue
            view = socket.message["state"] if socket.message else None
            if view and socket.seat in view["turn"] and view["legal"]:
                return socket, pick(view, self.rng)
        return None

    async def settled(self, received: Received, stall: float = SETTLE_STALL) -> None:
        """Until every socket holds the same version for a moment (presence changes done).

        A server opening many tables at once greets each socket late, the later the more
        it has to do: with each socket at a process drawn at random, every arrival is
        also reloaded by the table's other process. So a slow greeting is waited for as
        long as the server is busy: this gives up only once no socket of any table
        (`received`, what they all received) got a state for `stall` seconds, saying
        where this table's sockets stand (a notice lost, a socket never answered)."""
        steady = 0
        seen, moved = (received.states, self.versions()), time.perf_counter()
        while steady < 5:
            versions = self.versions()
            if (received.states, versions) != seen:
                seen, moved = (received.states, versions), time.perf_counter()
            elif time.perf_counter() - moved > stall:
                standing = self.standing()
                raise TimeoutError(f"table {self.id}: {stall:g} s without a state; {standing}")
            steady = steady + 1 if min(versions) == max(versions) >= 0 else 0
            await asyncio.sleep(0.02)

    def standing(self) -> str:
        """Each socket: where it connected, whose it is, the version it holds."""
        return ", ".join(
            f"{socket.where} {'spectator' if socket.seat is None else f'seat {socket.seat}'}"
            f" at {'nothing' if socket.version is None else socket.version}"
            for socket in self.sockets
        )

    async def rematch(self, http: httpx.AsyncClient) -> None:
        """A new game at this table (asked by seat 0), once every socket has its state."""
        self.expect(max(self.versions()))
        answer = await post(
            http,
            f"/api/tables/{self.id}/rematch",
            headers={"Authorization": f"Bearer {self.tokens[0]}"},
        )
        if answer.status_code != 201:
            self.dead = f"rematch {answer.status_code}"
            return
        await self.wait()

    async def close(self) -> None:
        await asyncio.gather(*(socket.ws.close() for socket in self.sockets))


async def read(socket: Socket, received: Received) -> None:
    """Every message of one socket, until it closes."""
    table = socket.table
    try:
        async for raw in socket.ws:
            state = STATE_HEAD.match(raw)
            if state is None:
                message = orjson.loads(raw)
                if message["type"] == "error":
                    table.refused = message["code"]
                    table.done.set()
                if message["type"] != "state":
                    continue
                version = message["version"]
            else:
                version = int(state[1])
            received.state_bytes += len(raw)
            received.states += 1
            socket.version = version
            if socket.seat is not None:
                socket.received(raw)
            table.seen()
    except websockets.ConnectionClosed:
        pass
    finally:
        table.dead = table.dead or f"closed {socket.ws.close_code or 1006}"
        table.done.set()


async def open_table(
    http: httpx.AsyncClient,
    ws_url: str | Callable[[int], str],
    rules: dict[str, Any],
    name: str,
    spectators: int,
    rng: random.Random,
    received: Received,
) -> Table:
    """A listed table, its four seats taken by name, every socket connected and read,
    once they all hold the same version. `ws_url`: the server's, or where each socket
    (by its index: the four players, then the spectators) connects."""
    table_id = (await create_table(http, rules, name))["id"]
    tokens = await take_seats(http, table_id)
    table = Table(table_id, tokens, rng)
    table.sockets = [Socket(table, seat, token) for seat, token in enumerate(tokens)]
    table.sockets += [Socket(table, None, None) for _ in range(spectators)]
    for index, socket in enumerate(table.sockets):
        where = ws_url if isinstance(ws_url, str) else ws_url(index)
        socket.ws = await connect(where, table_id, socket.token)
        socket.where = where
        socket.reader = asyncio.create_task(read(socket, received))
    await table.settled(received)
    return table
