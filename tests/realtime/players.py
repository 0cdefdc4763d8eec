"""A WebSocket client of the table protocol for tests, and players driven by the bot.

Every message a client receives is kept (`messages`), so that tests can assert on all of
them (a spectator never receives a hand).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from typing import Any

import httpx
import websockets

from bench.harness import tables
from bench.harness.server import LiveServer
from server.engine import Rules
from server.engine.bots import choose_action

WAIT = 20.0


class TableClient:
    """One socket at a table: say hello, keep every message, wait for conditions."""

    def __init__(
        self,
        address: str,
        table_id: str,
        token: str | None = None,
        host_token: str | None = None,
    ) -> None:
        self.address = address
        self.table_id = table_id
        self.token = token
        self.host_token = host_token
        self.messages: list[dict[str, Any]] = []
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.state: dict[str, Any] | None = None
        self.socket: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.close_code: int | None = None

    @property
    def version(self) -> int:
        return self.state["version"] if self.state else 0

    @property
    def view(self) -> dict[str, Any]:
        assert self.state is not None
        return self.state["state"]

    async def connect(self, version: int | None = None) -> dict[str, Any]:
        """Open the socket, say hello, return the first state."""
        self.socket = await websockets.connect(
            f"ws://{self.address}/ws/tables/{self.table_id}", max_size=2**22
        )
        self.close_code = None
        self.read_from(self.socket)
        hello = {"type": "hello", "token": self.token, "version": version}
        if self.host_token is not None:
            hello["host_token"] = self.host_token
        await self.send(hello)
        return await self.until(lambda m: m["type"] == "state" and "chat" in m)

    def read_from(self, socket: Any) -> None:
        """Read `socket`'s messages from now on, in the background (``connect`` opens and
        reads its own; a test may hand over one it opened itself)."""
        self.socket = socket
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for raw in self.socket:
                message = json.loads(raw)
                self.messages.append(message)
                if message["type"] == "state":
                    assert message["version"] >= self.version, "versions went backwards"
                    self.state = message
                await self.inbox.put(message)
        except websockets.ConnectionClosed:
            pass
        finally:
            self.close_code = self.socket.close_code

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.socket.send(message if isinstance(message, str) else json.dumps(message))

    async def until(self, wanted: Any, timeout: float = WAIT) -> dict[str, Any]:
        """The next message (read from now on) for which `wanted(message)` is true."""
        async with asyncio.timeout(timeout):
            while True:
                message = await self.inbox.get()
                if wanted(message):
                    return message

    def drain(self) -> list[dict[str, Any]]:
        """Messages received but not yet waited for."""
        pending = []
        while not self.inbox.empty():
            pending.append(self.inbox.get_nowait())
        return pending

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            with contextlib.suppress(Exception):
                await self.reader


async def create_table(http: httpx.AsyncClient, rules: dict[str, Any]) -> str:
    """A listed table's id."""
    table_id: str = (await tables.create_table(http, rules, "test"))["id"]
    return table_id


async def seat_players(
    http: httpx.AsyncClient, address: str, table_id: str, players: int
) -> list[TableClient]:
    """Seat `players` people, connect each one before the next sits down; the game starts
    with the last seat."""
    clients = []
    for seat in range(players):
        [token] = await tables.take_seats(http, table_id, [seat])
        client = TableClient(address, table_id, token)
        await client.connect()
        clients.append(client)
    return clients


async def play_turns(
    clients: list[TableClient],
    rules: Rules,
    done: Any,
    rng: random.Random | None = None,
    timeout: float = 120,
) -> None:
    """Each client acts, from its own latest view, with the basic bot's choice, until
    `done(state message)` is true for every client. Every act must be accepted, except
    one that raced a presence change (`stale`: the client then acts on the newer state)."""
    rng = rng or random.Random(7)

    async def drive(client: TableClient) -> None:
        acted_on = -1
        while True:
            client.drain()
            message = client.state
            assert message is not None
            if done(message):
                return
            view = message["state"]
            if (
                message["version"] != acted_on
                and view is not None
                and message["seat"] in view["turn"]
                and view["legal"]
            ):
                acted_on = message["version"]
                action = choose_action(rules, view, rng=rng)
                await client.send(
                    {"type": "act", "action": action, "id": f"v{acted_on}", "version": acted_on}
                )
            reply = await client.until(lambda m: m["type"] in ("state", "error"))
            assert reply["type"] == "state" or reply["code"] == "stale", reply

    async with asyncio.timeout(timeout):
        await asyncio.gather(*(drive(client) for client in clients))


async def crash_and_restart(server: LiveServer, players: list[TableClient]) -> None:
    """`server` killed outright (no shutdown), its players' sockets closed, and started
    again on the same port and database."""
    server.kill()
    for player in players:
        await player.close()
    await asyncio.to_thread(server.start)
