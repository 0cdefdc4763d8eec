"""Tables seated through a `TableHub` in this process, no sockets: `Mailbox`, a listener
as the hub sees a socket, and `seat_table`, a table whose seats are all taken and whose
players (and watchers) are listening. Its public methods only (create_table, take_seat,
join, act...), as the HTTP routes and the socket endpoint call them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from server.engine import Rules
from server.realtime.hub import TableHub
from server.realtime.messages import Encoded
from server.realtime.room import Room


class Mailbox:
    """A listener (`seat`, `send`, `close`) that keeps, as sent, the latest state it got
    and, with `keep_all` (the default), every message; `close` is kept as a message of
    type `closed`. A bench that sends thousands keeps the latest state only."""

    __slots__ = ("closed", "messages", "seat", "state")

    def __init__(self, keep_all: bool = True) -> None:
        self.seat: int | None = None
        self.state: Any = None  # the latest state: an Encoded, or a dict
        self.messages: list[Any] | None = [] if keep_all else None
        self.closed: int | None = None

    def send(self, message: Any) -> None:
        if isinstance(message, Encoded) or message.get("type") == "state":
            self.state = message
        if self.messages is not None:
            self.messages.append(message)

    async def close(self, code: int, reason: str) -> None:
        self.closed = code
        if self.messages is not None:
            self.messages.append({"type": "closed", "code": code})

    def view(self) -> dict[str, Any] | None:
        """The latest state's view, decoded from the text a socket would send."""
        message = self.state
        if isinstance(message, Encoded):
            message = message.message
        return message["state"] if message else None

    def plain(self) -> list[Any]:
        """Every message kept, an encoded one as its message."""
        return [
            message.message if isinstance(message, Encoded) else message
            for message in self.messages or ()
        ]

    def texts(self) -> list[str]:
        """Every state kept, as the text a socket sends: an encoded message's, or the
        message encoded by orjson."""
        return [
            message.text if isinstance(message, Encoded) else orjson.dumps(message).decode()
            for message in self.messages or ()
            if isinstance(message, Encoded) or message.get("type") == "state"
        ]


@dataclass
class SeatedTable:
    room: Room
    invite: str
    host_token: str
    tokens: list[str]
    players: list[Mailbox]  # seat by seat
    watchers: list[Mailbox] = field(default_factory=list)


async def seat_table(
    hub: TableHub,
    rules: Rules,
    name: str = "Bench",
    *,
    listed: bool = True,
    turn_seconds: int | None = None,
    watchers: int = 0,
    keep_all: bool = True,
) -> SeatedTable:
    """A new table, every seat taken by a person named P0, P1... (the game starts), each
    player's mailbox joined with their token, then `watchers` spectators' mailboxes."""
    room, invite, host_token = await hub.create_table(
        name, rules, listed=listed, turn_seconds=turn_seconds
    )
    tokens = [await hub.take_seat(room.id, seat, f"P{seat}") for seat in range(rules.players)]
    table = SeatedTable(room, invite, host_token, tokens, [Mailbox(keep_all) for _ in tokens])
    for player, token in zip(table.players, tokens, strict=True):
        await hub.join(room, player, token)
    for _ in range(watchers):
        table.watchers.append(Mailbox(keep_all))
        await hub.join(room, table.watchers[-1], None)
    return table
