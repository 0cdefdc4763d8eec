"""What a table's sockets receive: the one builder of the `state` message.

Every `state` (docs/protocol.md) is made here, whatever the path: after a change, each
socket's message (`state_frames`), and the answer to a hello (`welcome`: the same message
with the chat so far and the protocol version). Each is a typed `StateMessage`, encoded
once: the public parts (the table, the shared view) are made once per change, and
sockets of the same seat and host role share one `Encoded` message. The public table
(`public_table`) is the one the HTTP answers and the lobby give: never a token, never a
hidden card.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import orjson

from server.engine import Game
from server.engine.cards import CODES
from server.engine.describe import summary
from server.engine.fairness import NextDeal
from server.engine.shapes import LastTrick, PublicView, SeatCard, SeatPart, View
from server.engine.view import copy_result, moving_view, seat_part, steady_view
from server.protocol import PublicSeat, PublicTable, StateMessage
from server.realtime.messages import PROTOCOL_VERSION, Encoded, joined
from server.realtime.room import Listener, Room
from server.realtime.timer import iso_ms, now_iso_ms
from server.rulelinks import rules_link
from server.store.records import SeatRecord, TableSummary, iso


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


def table_now(room: Room, deadline: str | None) -> PublicTable:
    """`room_table(room)`, its version and `deadline` (as `iso_ms` gives it) put in the
    rest, which is kept on the room until the pipeline applies any other change."""
    rest = room.cache.table_rest
    if rest is None:
        rest = room.cache.table_rest = room_table(room)
    return {**rest, "version": room.stored.version, "deadline": deadline}


def next_deal(room: Room) -> NextDeal | None:
    """The next deal (`Room.next_deal`), made again only once it has changed: a deal, a
    seed, the game's end or a new game."""
    deals = room.deals()
    game = room.stored.game
    over = game is not None and game.phase == "over"
    key = (deals, None if deals is None else deals.changes, game, over)
    kept = room.cache.fairness
    if kept is None or kept[0] != key:
        kept = room.cache.fairness = (key, room.next_deal())
    return kept[1]


@functools.cache
def seat_card(seat: int, card: int) -> SeatCard:
    """One play as a view shows it, made once per process and shared (never changed)."""
    return {"seat": seat, "card": CODES[card]}


def seat_cards(plays: Sequence[tuple[int, int]]) -> list[SeatCard]:
    """``server.engine.view.seat_cards(plays)``, of the shared `seat_card`s.

    >>> from server.engine import view
    >>> seat_cards([(0, 12), (1, 0)]) == view.seat_cards([(0, 12), (1, 0)])
    True
    """
    return [seat_card(seat, card) for seat, card in plays]


def shared_view(room: Room, game: Game) -> PublicView:
    """`public_view(game)`, from the parts kept on the room (`RoomCache`) while they
    cannot have changed: the played cards (a list the game extends within a hand), the
    last trick (replaced, never edited) and the steady keys."""
    cache = room.cache
    played = game.played
    kept_played = cache.played
    if kept_played is None or kept_played[0] is not played:
        kept_played = cache.played = (played, len(played), seat_cards(played))
    elif kept_played[1] != len(played):
        made = kept_played[2] + seat_cards(played[kept_played[1] :])
        kept_played = cache.played = (played, len(played), made)
    last = game.last_trick
    kept_last = cache.last_trick
    if kept_last is None or kept_last[0] is not last:
        shown: LastTrick | None = (
            None if last is None else {"cards": seat_cards(last[0]), "winner": last[1]}
        )
        kept_last = cache.last_trick = (last, shown)
    results = game.hand_results
    key = (game, game.phase, game.hand_number, tuple(game.bids), len(results), game.winner)
    steady = cache.steady
    if steady is None or steady[0] != key:
        last_hand = copy_result(results[-1]) if results else None
        steady = cache.steady = (key, steady_view(game, last_hand))
    return {**moving_view(game, kept_played[2], kept_last[1]), **steady[1]}


def own_part(room: Room, game: Game, seat: int | None) -> tuple[SeatPart, bytes]:
    """`seat_part(game, seat)` and its JSON; during play, a seat not on turn has no legal
    action and no draw card, and its hand changes only when it plays a card: its part is
    kept (under its hand's size, until the next hand) until then."""
    if seat is None or game.phase != "play" or seat == game.seat_to_play:
        part = seat_part(game, seat)
        return part, orjson.dumps(part)
    cache = room.cache
    kept = cache.seat_parts
    if kept is None or kept[0] is not game or kept[1] != game.hand_number:
        kept = cache.seat_parts = (game, game.hand_number, {})
    size = game.hand_size(seat)
    held = kept[2].get(seat)
    if held is None or held[0] != size:
        part = seat_part(game, seat)
        held = kept[2][seat] = (size, part, orjson.dumps(part))
    return held[1], held[2]


def state_frames(room: Room, listeners: list[Listener]) -> list[Encoded]:
    """The `state` of each of `listeners`, encoded, in their order: each distinct one
    (a seat and whether it holds the host controls) made and encoded once. The parts
    every socket shares (the table, the public view, the next deal) are encoded once per
    change and embedded in each text as `orjson.Fragment`s."""
    deadline = iso_ms(room.stored.hosting.deadline)
    table = table_now(room, deadline)
    fairness = next_deal(room)
    game = room.stored.game
    # The part of the view every seat shares, made once per change.
    public = None if game is None else shared_view(room, game)
    public_json = b"" if public is None else orjson.dumps(public)
    server_time = now_iso_ms()
    common: dict[str, object] = {
        "type": "state",
        "version": room.stored.version,
        "table": orjson.Fragment(orjson.dumps(table)),
        "deadline": deadline,
        "server_time": server_time,
        "timer_moves": room.stored.timer_moves,
        "fairness": orjson.Fragment(orjson.dumps(fairness)),
    }
    frames: dict[tuple[int | None, bool], Encoded] = {}
    answer: list[Encoded] = []
    host_listeners, host_seat = room.controls()
    for listener in listeners:
        seat = listener.seat
        host = listener in host_listeners or (seat is not None and seat == host_seat)
        frame = frames.get((seat, host))
        if frame is None:
            view: View | None = None
            view_json: orjson.Fragment | None = None
            if game is not None and public is not None:
                own, own_json = own_part(room, game, seat)
                view = {**own, **public}
                view_json = joined(own_json, public_json)
            message: StateMessage = {
                "type": "state",
                "version": room.stored.version,
                "seat": seat,
                "state": view,
                "host": host,
                "table": table,
                "deadline": deadline,
                "server_time": server_time,
                "timer_moves": room.stored.timer_moves,
                "fairness": fairness,
            }
            wire = {**common, "seat": seat, "state": view_json, "host": host}
            frame = frames[(seat, host)] = Encoded(message, orjson.dumps(wire).decode())
        answer.append(frame)
    return answer


def welcome(room: Room, listener: Listener) -> Encoded:
    """The answer to a socket's `hello`: its `state`, the chat so far, the protocol."""
    (frame,) = state_frames(room, [listener])
    message: StateMessage = {
        **frame.message,
        "chat": list(room.stored.chat),
        "protocol": PROTOCOL_VERSION,
    }
    return Encoded(message, orjson.dumps(message).decode())


def broadcast(room: Room) -> None:
    """Each of the room's sockets gets its own `state`, made now."""
    listeners = list(room.sockets.listeners)
    for listener, frame in zip(listeners, state_frames(room, listeners), strict=True):
        listener.send(frame)


def tell(room: Room, message: Any) -> None:
    """The same message to every socket of the room."""
    for listener in room.sockets.listeners:
        listener.send(message)
