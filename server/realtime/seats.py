"""Who sits where, and how: every change of a seat's record, as pure functions.

Each function reads a room and returns the `Effects` of one change (or refuses with a
`TableError`); the change pipeline writes and applies them. Seats change when a person
sits down or leaves, a bot is added, a player comes and goes (presence), a bot stands in
for an away player, and with each move (`after_move`: the turn timer's count).
"""

from __future__ import annotations

from dataclasses import replace

from server.names import bot_name
from server.protocol import ErrorMessage
from server.realtime.effects import NOTHING, Effects, SocketStep
from server.realtime.errors import TableError, Unsure, ended, no_such_seat
from server.realtime.hosting import after_leaving, hash_token, matches
from server.realtime.room import Room
from server.realtime.timer import TIMEOUTS_TO_AUTOPLAY
from server.store.records import SeatRecord

# -- checks ------------------------------------------------------------------------------


def not_ended(room: Room) -> None:
    if room.stored.status == "ended":
        raise ended()


def in_range(room: Room, seat: int) -> SeatRecord:
    """The record of `seat`, which must be one of the table's."""
    if not 0 <= seat < len(room.stored.seats):
        raise no_such_seat()
    return room.stored.seats[seat]


def empty(room: Room, seat: int) -> SeatRecord:
    """The record of `seat`, which must be free at a table still open."""
    not_ended(room)
    current = in_range(room, seat)
    if current.name is not None:
        raise TableError("seat_taken", "That seat is taken.", 409)
    return current


def check_invite(room: Room, invite: str | None, host_token: str | None) -> None:
    if not room.invited(invite, host_token):
        raise TableError(
            "no_invite",
            "This table is private: open the invite link from its host to sit down.",
            403,
        )


def holder(room: Room, token: str | None, refusal: TableError) -> int:
    """The seat `token` holds; a token unknown here may be one another process just gave
    out (`Unsure`: the pipeline reloads and asks again), then `refusal`."""
    seat = room.seat_for_token(token) if token else None
    if seat is None:
        raise Unsure(refusal.code, refusal.message, refusal.status)
    return seat


# -- sitting down and leaving ----------------------------------------------------------


def take(
    room: Room,
    seat: int,
    name: str,
    token: str,
    invite: str | None,
    host_token: str | None,
    admitted: bool = False,
    theirs: frozenset[str] = frozenset(),
) -> Effects:
    """A person sits down with a fresh `token`; the host's token makes it the host's seat.
    `admitted`: let in without the invite (a member of the table's club, checked by the
    caller); `theirs`: the hashes of the seat tokens that person was given here before
    (a member's), none of which may still hold a seat: a member plays one seat."""
    if not admitted:
        check_invite(room, invite, host_token)
    current = empty(room, seat)
    if any(other.token_hash in theirs for other in room.stored.seats if other.token_hash):
        raise TableError(
            "already_seated",
            "You already sit at this table: a member plays one seat (leave it to move).",
            409,
        )
    taken = SeatRecord(current.seat, name=name, token_hash=hash_token(token))
    if matches(host_token, room.stored.hosting.host_hash):
        return Effects(seats=(taken,), table={"host_seat": seat})
    return Effects(seats=(taken,))


def add_bot(
    room: Room,
    seat: int,
    level: str,
    invite: str | None,
    host_token: str | None,
    admitted: bool = False,
) -> Effects:
    """A bot in an empty seat; `admitted`: without the invite (a club night's table,
    checked by the caller)."""
    if not admitted:
        check_invite(room, invite, host_token)
    current = empty(room, seat)
    name = bot_name(current.seat, room.stored.rules.players)
    return Effects(seats=(SeatRecord(current.seat, name=name, bot=level, connected=True),))


def reserve(room: Room, seat: int, name: str, token: str) -> Effects:
    """A club night's seat kept for its member (`token` known only to the night, until
    the member claims the seat): a bot plays for them until they come."""
    current = empty(room, seat)
    return Effects(
        seats=(
            SeatRecord(
                current.seat,
                name=name,
                token_hash=hash_token(token),
                autoplay=True,
                autoplay_reason="away",
            ),
        )
    )


def leave(room: Room, seat: int, token: str) -> Effects:
    """Before the game starts, the seat's player leaves, or the host empties the seat."""
    in_range(room, seat)
    if not room.is_host(token):
        refusal = TableError(
            "bad_token", "Only the seat's player or the host can empty this seat.", 401
        )
        if holder(room, token, refusal) != seat:
            raise refusal
    if room.stored.status != "waiting":
        raise TableError("started", "The game has started; the seat is kept.", 409)
    if room.stored.seats[seat].name is None:
        raise TableError("seat_empty", "That seat is already empty.", 409)
    host = after_leaving(room.stored.hosting, room.stored.seats, seat)
    held = {seat} & room.held_seats()
    return Effects(
        seats=(SeatRecord(seat),),
        table=host or None,
        sockets=unseat(held),
        recount=frozenset(held),
    )


def seated_at(occupant: SeatRecord, seat: int, players: int) -> SeatRecord:
    """`occupant` (or an empty seat) in `seat`; a bot takes the name of its new place."""
    name = bot_name(seat, players) if occupant.bot is not None else occupant.name
    return replace(occupant, seat=seat, name=name)


def unseat(seats: set[int], farewell: ErrorMessage | None = None) -> SocketStep:
    """The sockets on these seats watch from now on (told `farewell` first, if any)."""

    def step(room: Room) -> None:
        for listener in room.sockets.listeners:
            if listener.seat in seats:
                if farewell is not None:
                    listener.send(farewell)
                listener.seat = None
                room.sockets.holders.pop(listener, None)

    return step


def reissued(current: SeatRecord, name: str | None, token_hash: str, playing: bool) -> SeatRecord:
    """The seat given to a new person (`name`, or the old one) holding `token_hash`; a
    bot's seat during a game keeps a bot playing for them until they arrive."""
    was_bot = current.bot is not None
    return replace(
        current,
        name=name or (f"Player {current.seat + 1}" if was_bot else current.name),
        token_hash=token_hash,
        bot=None,
        connected=False,
        autoplay=current.autoplay or (playing and was_bot),
        autoplay_reason=current.autoplay_reason or ("away" if playing and was_bot else None),
        timeouts=0,
    )


# -- playing for oneself, or not -------------------------------------------------------


def playing_again(current: SeatRecord) -> SeatRecord:
    """The seat's player plays for themselves: no bot, no timed-out moves counted."""
    return replace(current, timeouts=0, autoplay=False, autoplay_reason=None)


def after_move(current: SeatRecord, cause: str | None) -> SeatRecord | None:
    """The seat's record after a move (None: unchanged): a timed-out move counts, and the
    second in a row puts the seat on autoplay; the player's own move clears both."""
    if current.bot is not None or cause == "autoplay":
        return None
    if cause == "timer":
        timeouts = current.timeouts + 1
        if timeouts >= TIMEOUTS_TO_AUTOPLAY:
            return replace(current, timeouts=timeouts, autoplay=True, autoplay_reason="timer")
        return replace(current, timeouts=timeouts)
    if current.timeouts or current.autoplay:
        return playing_again(current)
    return None


def take_back(room: Room, seat: int | None) -> Effects:
    """`back`: a player on autoplay plays for themselves again."""
    if seat is None:
        raise TableError("not_seated", "Spectators have no seat to take back.")
    current = room.stored.seats[seat]
    if not current.autoplay:
        raise TableError("not_autoplay", "No bot is playing for you; play on.")
    return Effects(seats=(playing_again(current),))


def stand_in(current: SeatRecord) -> SeatRecord:
    """A bot plays for the away player of this seat until they return."""
    return replace(current, autoplay=True, autoplay_reason="away")


# -- presence ----------------------------------------------------------------------------


def present(room: Room, seat: int, returning: bool = True) -> Effects:
    """The seat's player is here. `returning` (their hello): any bot playing for them
    stops; otherwise (a presence repair) only the stand-in for an away player."""
    current = room.stored.seats[seat]
    stand_in = current.autoplay and (returning or current.autoplay_reason != "timer")
    if current.connected and not stand_in:
        return Effects(ungrace=frozenset((seat,)))
    here = replace(current, connected=True)
    return Effects(seats=(playing_again(here) if stand_in else here,), ungrace=frozenset((seat,)))


def away(room: Room, seat: int, note: str | None = None) -> Effects:
    """No socket holds the seat any more (here, nor in another live process): away, and
    its grace time starts. Nothing while one of ours holds it again."""
    current = room.stored.seats[seat]
    if seat in room.held_seats() or current.token_hash is None:
        return NOTHING
    if not current.connected:
        return Effects(grace=frozenset((seat,)))
    return Effects(seats=(replace(current, connected=False),), grace=frozenset((seat,)), note=note)


def needs_stand_in(current: SeatRecord, status: str) -> bool:
    """Whether an away player's grace time, once over, hands the seat to a bot."""
    return (
        not current.connected
        and not current.autoplay
        and current.token_hash is not None
        and status == "playing"
    )


def grace_over(room: Room, seat: int) -> Effects:
    """The grace time of an away player is over (no socket holds the seat anywhere): a
    bot plays for them until they return."""
    current = room.stored.seats[seat]
    if not needs_stand_in(current, room.stored.status) or seat in room.held_seats():
        return NOTHING
    return Effects(seats=(stand_in(current),))


def away_unless_held(room: Room) -> Effects:
    """Seats shown present that no socket of this (only) process holds: away, with their
    grace time started."""
    held = room.held_seats()
    gone = tuple(
        replace(seat, connected=False)
        for seat in room.stored.seats
        if seat.connected and seat.token_hash is not None and seat.seat not in held
    )
    return Effects(seats=gone, grace=frozenset(seat.seat for seat in gone))
