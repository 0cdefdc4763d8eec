"""What a table's sockets receive: the one builder of the `state` message.

Every `state` (docs/protocol.md) is made here, whatever the path: after a change, each
socket's frame (`state_frames`), and the answer to a hello (`welcome`: the same frame
with the chat so far and the protocol version). JSON is made once per change for the
public part (the table, the timer), once per seat for its view, and spliced; sockets of
the same seat and host role share one frame. The public table (`public_table`) is the
one the HTTP answers and the lobby give: never a token, never a hidden card.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, cast

import orjson

from server.engine.describe import summary
from server.protocol import PublicSeat, PublicTable, StateMessage
from server.realtime.messages import PROTOCOL_VERSION
from server.realtime.room import Listener, Room
from server.realtime.timer import iso_ms, now_iso_ms
from server.rulelinks import rules_link
from server.store.records import SeatRecord, TableSummary, iso

# The public table's keys that change with every move, spliced in by `table_json`.
MOVING = frozenset(("version", "deadline"))


class Frame(Mapping[str, Any]):
    """A message as the JSON made once for all the sockets it goes to: the socket layer
    sends `payload` (UTF-8) as it is. Read as a mapping (a listener in the process that
    looks into it), it is that JSON decoded, on first use: exactly what a socket receives."""

    __slots__ = ("_message", "_text", "payload")

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self._message: dict[str, Any] | None = None
        self._text: str | None = None

    @property
    def text(self) -> str:
        """`payload` as text, decoded on first use (a socket written to directly never
        needs it)."""
        if self._text is None:
            self._text = self.payload.decode()
        return self._text

    def _decoded(self) -> dict[str, Any]:
        if self._message is None:
            self._message = orjson.loads(self.payload)
        return self._message

    def __getitem__(self, key: str) -> Any:
        return self._decoded()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._decoded())

    def __len__(self) -> int:
        return len(self._decoded())


def public_table(table: TableSummary) -> PublicTable:
    """The `table` object of docs/protocol.md, from memory (a room) or the database
    (the lobby): never a token, never a hidden card."""
    return {
        "id": table.id,
        "name": table.name,
        "url": f"/t/{table.id}",
        "rules": table.rules,
        "summary": summary(table.rules),
        "rules_link": rules_link(table.rules),
        "status": table.status,
        "version": table.version,
        "game_number": table.game_number,
        "seats": [public_seat(seat) for seat in table.seats],
        "scores": table.scores,
        "winner": table.winner,
        "hands_played": table.hands_played,
        "created": iso(table.created),
        "listed": table.hosting.listed,
        "host_seat": table.hosting.host_seat,
        "turn_seconds": table.hosting.turn_seconds,
        "deadline": iso_ms(table.hosting.deadline),
        "series": table.series,
        "hints": table.hosting.hints,
    }


def public_seat(seat: SeatRecord) -> PublicSeat:
    info: PublicSeat = {
        "seat": seat.seat,
        "name": seat.name,
        "bot": seat.bot,
        "connected": seat.connected or seat.bot is not None,
    }
    if seat.autoplay:
        info["autoplay"] = True
        info["autoplay_reason"] = seat.autoplay_reason or "away"
    return info


def room_table(room: Room) -> PublicTable:
    """A room's public table, as the HTTP answers give it."""
    return public_table(room.summary())


def table_json(room: Room, deadline: str | None) -> bytes:
    """`room_table(room)` as JSON (the same object; its keys in another order). Only what
    changes with every move, the version and `deadline` (as `iso_ms` gives it), is spliced
    into the rest, which is kept on the room until the pipeline applies any other change."""
    rest = room.table_rest
    if rest is None:
        table = room_table(room).items()
        rest = orjson.dumps({key: value for key, value in table if key not in MOVING})[1:]
        room.table_rest = rest
    return b'{"version":%d,"deadline":%s,%s' % (
        room.version,
        b"null" if deadline is None else b'"%s"' % deadline.encode(),
        rest,
    )


def fairness_json(room: Room) -> bytes:
    """The next deal (`Room.next_deal`) as JSON, made again only once it has changed: a
    deal, a seed, the game's end or a new game."""
    deals = room.deals()
    game = room.game
    over = game is not None and game.phase == "over"
    key = (deals, None if deals is None else deals.changes, game, over)
    kept = room.fairness_json
    if kept is None or kept[0] != key:
        kept = room.fairness_json = (key, orjson.dumps(room.next_deal()))
    return kept[1]


def state_frames(room: Room, listeners: list[Listener]) -> list[StateMessage]:
    """The `state` of each of `listeners`, each as a `Frame`, in their order."""
    server_time = now_iso_ms()
    deadline = iso_ms(room.hosting.deadline)
    # The message's keys after the view (the table, the timer), its braces dropped but
    # the last, spliced in from their JSON.
    shared = b"".join(
        (
            b'"table":',
            table_json(room, deadline),
            orjson.dumps(
                {"deadline": deadline, "server_time": server_time, "timer_moves": room.timer_moves}
            ).replace(b"{", b",", 1)[:-1],
            b',"fairness":',
            fairness_json(room),
            b"}",
        )
    )
    head = b'{"type":"state","version":%d,"seat":' % room.version
    game = room.game
    # The part of the view every seat shares, made and encoded once per change (the keys
    # that move, braces dropped, and the steady ones); each seat's own part (kept by the
    # room's `SeatEncoder` while it cannot change) goes in front of it.
    public: tuple[bytes | memoryview, ...] = ()
    if game is not None:
        moving, steady = room.public_encoder.parts(game)
        public = (b",", memoryview(moving)[1:-1], b",", steady)
    # What follows a seat's part, the same for every socket but for its host flag.
    tails: dict[bool, bytes] = {}
    # A Frame stands for its StateMessage: a mapping of the same keys, read lazily.
    frames: dict[tuple[int | None, bool], Frame] = {}
    answer: list[Any] = []
    host_listeners, host_seat = room.controls()
    for listener in listeners:
        seat = listener.seat
        host = listener in host_listeners or (seat is not None and seat == host_seat)
        frame = frames.get((seat, host))
        if frame is None:
            tail = tails.get(host)
            if tail is None:
                host_json = b',"host":true,' if host else b',"host":false,'
                tail = tails[host] = b"".join((*public, host_json, shared))
            seat_json = b"null" if seat is None else b"%d" % seat
            view = b"null" if game is None else room.seat_encoder.open_json(game, seat)
            frame = frames[(seat, host)] = Frame(
                b"".join((head, seat_json, b',"state":', view, tail))
            )
        answer.append(frame)
    return answer


def welcome(room: Room, listener: Listener) -> StateMessage:
    """The answer to a socket's `hello`: its `state`, the chat so far, the protocol."""
    (frame,) = state_frames(room, [listener])
    payload = cast(Frame, frame).payload
    extra = b',"chat":%s,"protocol":%d}' % (orjson.dumps(list(room.chat)), PROTOCOL_VERSION)
    return cast(StateMessage, Frame(payload[:-1] + extra))


def broadcast(room: Room) -> None:
    """Each of the room's sockets gets its own `state`, made now."""
    listeners = list(room.listeners)
    for listener, frame in zip(listeners, state_frames(room, listeners), strict=True):
        listener.send(frame)


def tell(room: Room, message: Any) -> None:
    """The same message to every socket of the room."""
    for listener in room.listeners:
        listener.send(message)
