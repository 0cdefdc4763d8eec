"""The host's controls, as pure changes: move players before the start, let a bot stand in
for an away player, give a seat to someone new, change the rules before the first game,
set the turn timer, end the table; and the host role passing on while the host is away.

Each function checks that the token carries the host's controls (`host`) and returns the
`Effects` of one change; the change pipeline writes and applies them.
"""

from __future__ import annotations

from dataclasses import replace

from server.engine import Rules
from server.realtime import seats
from server.realtime.effects import NOTHING, Effects
from server.realtime.errors import TableError, Unsure
from server.realtime.hosting import hash_token, host_away
from server.realtime.messages import error
from server.realtime.room import Room
from server.realtime.timer import fresh_deadline, utcnow


def host(room: Room, token: str | None, what: str) -> None:
    """Refuse (403) unless `token` carries the host's controls; an unknown token may be
    one another process just gave out (`Unsure`)."""
    if not room.is_host(token):
        raise Unsure("not_host", f"Only the host can {what}.", 403)


def move(room: Room, token: str, seat: int, to: int) -> Effects:
    """Before the game: the occupant of `seat` moves to `to`; an occupant there swaps.
    The sockets follow their players, so that the broadcast shows each its seat."""
    host(room, token, "move players")
    first, second = seats.in_range(room, seat), seats.in_range(room, to)
    if room.stored.status != "waiting":
        raise TableError("started", "Players can only move before the game starts.", 409)
    if first.name is None:
        raise TableError("seat_empty", "Nobody sits in that seat.", 409)
    if seat == to:
        raise TableError("same_seat", "Choose another seat to move to.", 409)
    swap = {seat: to, to: seat}
    host_seat = room.stored.hosting.host_seat
    players = room.stored.rules.players

    def follow(room: Room) -> None:
        for listener in room.sockets.listeners:
            if listener.seat is not None and listener.seat in swap:
                listener.seat = swap[listener.seat]

    return Effects(
        seats=(seats.seated_at(second, seat, players), seats.seated_at(first, to, players)),
        table={"host_seat": swap.get(host_seat, host_seat) if host_seat is not None else None},
        sockets=follow,
        recount=frozenset(swap),
    )


def stand_in(room: Room, token: str, seat: int) -> Effects:
    """During a game: a bot plays for the away player of `seat` until they return."""
    host(room, token, "hand a seat to a bot")
    current = seats.in_range(room, seat)
    if room.stored.status != "playing":
        raise TableError("not_playing", "A bot can stand in only during a game.", 409)
    if current.token_hash is None:
        raise TableError("not_a_person", "No player sits in that seat.", 409)
    if current.connected:
        raise TableError(
            "present",
            f"{current.name} is at the table; a bot only plays for a player who is away.",
            409,
        )
    if current.autoplay:
        raise TableError("autoplay", "A bot already plays for that seat.", 409)
    return Effects(
        seats=(seats.stand_in(current),),
        ungrace=frozenset((seat,)),
        note="host handed a seat to a bot",
    )


def reissue(room: Room, token: str, seat: int, name: str | None, fresh: str) -> Effects:
    """Give a seat to a new person with the token `fresh`: the old one stops working, and
    its sockets watch from now on. A bot's seat becomes a person's, the bot playing for
    them until they arrive."""
    host(room, token, "give a seat to someone new")
    seats.not_ended(room)
    current = seats.in_range(room, seat)
    if current.name is None:
        raise TableError(
            "seat_empty", "That seat is empty: anyone with the invite can take it.", 409
        )
    given = seats.reissued(current, name, hash_token(fresh), room.stored.status == "playing")
    farewell = error("bad_token", "The host gave your seat to someone else; watching.")
    return Effects(
        seats=(given,),
        sockets=seats.unseat({seat}, farewell),
        recount=frozenset((seat,)),
        note="seat re-issued",
    )


def hand_over(room: Room, seat: int, name: str, fresh: str) -> Effects:
    """A club night's seat given to its member (or to the member substituted in) with
    the token `fresh`, the night's host controls checked by the caller: the old token
    stops working, its sockets watch from now on, and a bot plays for the seat until
    its member arrives."""
    seats.not_ended(room)
    current = seats.in_range(room, seat)
    if current.name is None:
        raise TableError("seat_empty", "That seat is empty.", 409)
    given = seats.reissued(current, name, hash_token(fresh), room.stored.status == "playing")
    if room.stored.status == "playing" and not given.autoplay:
        given = seats.stand_in(given)
    farewell = error("bad_token", "This seat was given to its member again; watching.")
    return Effects(
        seats=(given,),
        sockets=seats.unseat({seat}, farewell),
        recount=frozenset((seat,)),
        note="seat handed over",
    )


def set_timer(room: Room, token: str, turn_seconds: int | None) -> Effects:
    """Change the turn timer; a running countdown starts again from now."""
    host(room, token, "change the turn timer")
    seats.not_ended(room)
    turn = (
        room.stored.game.turn
        if room.stored.game is not None and room.stored.status == "playing"
        else []
    )
    deadline = fresh_deadline(turn_seconds, turn, utcnow())
    return Effects(table={"turn_seconds": turn_seconds, "deadline": deadline})


def set_rules(room: Room, token: str, rules: Rules) -> Effects:
    """Before the table's first game: it plays `rules`. A seat the new number of players
    leaves out must be empty; bots take the names of their places."""
    host(room, token, "change the rules")
    seats.not_ended(room)
    if room.stored.status != "waiting":
        raise TableError("started", "The rules can only change before the game starts.", 409)
    players = rules.players
    left_out = [seat.name for seat in room.stored.seats[players:] if seat.name is not None]
    if left_out:
        raise TableError(
            "seats_taken",
            f"A game for {players} players has {players} seats; {', '.join(left_out)} "
            f"{'sits' if len(left_out) == 1 else 'sit'} in a seat it leaves out: move or "
            "remove them first.",
            409,
        )
    renamed = tuple(
        seats.seated_at(seat, seat.seat, players)
        for seat in room.stored.seats[:players]
        if seat.bot is not None
    )
    return Effects(rules=rules, seats=renamed, note="rules changed by the host")


def change(
    room: Room, token: str, rules: Rules | None, timer: bool, turn_seconds: int | None
) -> Effects:
    """The host's settings in one write: new rules (`set_rules`) when given, and the turn
    timer (`set_timer`) when `timer`."""
    effects = set_rules(room, token, rules) if rules is not None else NOTHING
    if timer:
        effects = replace(effects, table=set_timer(room, token, turn_seconds).table)
    return effects


def end(room: Room, token: str) -> Effects:
    """The host closes the table: the game stops, nothing more can be changed."""
    host(room, token, "end the table")
    return close(room)


def close(room: Room) -> Effects:
    """The table closes (its host's controls, or a club night's, checked by the caller)."""
    seats.not_ended(room)
    return Effects(
        table={"status": "ended", "deadline": None},
        ungrace=frozenset(range(len(room.stored.seats))),
        note="table ended by its host",
    )


def pass_host(room: Room) -> Effects:
    """The host has been away while another player is here: the role passes on (the
    host token stops working)."""
    successor = host_away(room.stored.hosting, room.stored.seats, room.stored.status)
    if successor is None:
        return Effects()
    return Effects(table={"host_seat": successor, "host_hash": None}, note="host role passed on")
