"""Moves and games, as pure changes: a player's, a bot's or the turn timer's move, a new
game when the table is full, a rematch.

`play` advances the room's engine `Game` (the one thing a change may advance before its
write lands: a failed write reloads the room) and returns the `ActionWrite` that records
the move with whatever it finished (hands, the game) and the turn timer's next deadline.
"""

from __future__ import annotations

import secrets

import orjson
import structlog

from server.engine import Action, Game, HandResult, IllegalAction, TrickPlays
from server.engine.fairness import Deals, HandFairness, checked_seed, commitment, new_key
from server.observability import ERRORS
from server.protocol import StoredHand, TimerMove
from server.realtime import seats
from server.realtime.effects import NOTHING, Effects, GameStart
from server.realtime.errors import HalfDone, TableError
from server.realtime.room import Listener, Room
from server.realtime.timer import fresh_deadline, next_deadline, public_move, utcnow
from server.store.records import ActionWrite

log = structlog.get_logger(__name__)

# Engine refusals that clients have always seen as codes of their own, not `illegal`.
OWN_CODES = frozenset(("not_your_turn", "game_over"))


def hand_fields(
    result: HandResult,
    timer_moves: list[TimerMove],
    plays: list[TrickPlays] | None,
    fairness: HandFairness | None = None,
) -> StoredHand:
    """One engine hand summary as a `hands` row. `sides` keeps the engine's whole
    breakdown (points, score, bags after the hand, contract, taken, bag penalty, nils);
    `plays` every trick of the hand, for its replay; `fairness` what proves its deal;
    `claim` the claim that ended it."""
    return {
        "dealer": result.get("dealer"),
        "bids": result["bids"],
        "tricks": result["tricks"],
        "deal": result["deal"],
        "sides": result["sides"],
        "timer_moves": timer_moves,
        "plays": plays,
        "fairness": fairness,
        "claim": result.get("claim"),
    }


def player_move(room: Room, listener: Listener, action: Action, version: int | None) -> Effects:
    """A seated socket's move, made on `version` of the table when it names one."""
    if listener.seat is None:
        raise TableError("not_seated", "Spectators cannot play; take a seat first.")
    if version is not None and version != room.stored.version:
        raise TableError(
            "stale", f"The table moved on (version {room.stored.version}); look again."
        )
    return play(room, listener.seat, action)


def bot_move(room: Room, turn: tuple[int, str, str | None], seq: int, action: Action) -> Effects:
    """A bot's move, chosen for `turn` (seat, level, cause) after move `seq`: refused as
    `stale` when the table has moved on or the seat is no longer the bots' to play."""
    if room.stored.seq != seq or room.bot_seat() != turn:
        raise TableError("stale", "The table moved on while the bot was thinking.")
    seat, _level, cause = turn
    return play(room, seat, action, cause)


def play(room: Room, seat: int, action: Action, cause: str | None = None) -> Effects:
    """Apply `action` for `seat` to the room's game and record it. `cause`: who chose the
    move when not its player ("timer", "autoplay")."""
    game = room.stored.game
    seats.not_ended(room)
    if game is None or room.stored.status == "waiting":
        raise TableError("not_started", "The game has not started yet.")
    turn_before = game.turn  # a list of its own: `turn` makes one each time
    try:
        game.act(seat, action)
    except IllegalAction as refusal:
        # The engine's code is the reason; a few have always been codes of their own.
        code = refusal.code if refusal.code in OWN_CODES else "illegal"
        raise TableError(code, str(refusal), reason=refusal.code) from None
    except Exception:
        # The engine should only raise IllegalAction: the game may be half-advanced.
        ERRORS.labels(where="engine").inc()
        log.exception("engine failed", table=room.id, version=room.stored.version)
        raise HalfDone("illegal", "That action is not possible here.") from None
    return Effects(action=record(room, seat, action, cause, turn_before))


def record(
    room: Room, seat: int, action: Action, cause: str | None, turn_before: list[int]
) -> ActionWrite:
    """What the move just applied to the room's game writes."""
    game = room.stored.game
    assert game is not None and room.stored.game_id is not None
    results = game.hand_results[room.stored.hands_saved :]
    over = game.winner is not None or game.phase == "over"
    timer_moves = timer_moves_after(room.stored.timer_moves, seat, action, cause)
    changed = seats.after_move(room.stored.seats[seat], cause)
    hosting = room.stored.hosting
    deadline = (
        None
        if over or hosting.turn_seconds is None
        else next_deadline(
            hosting.turn_seconds, hosting.deadline, turn_before, seat, list(game.turn), utcnow()
        )
    )
    return ActionWrite(
        table_id=room.id,
        old_version=room.stored.version,
        status="over" if over else "playing",
        game_id=room.stored.game_id,
        seq=room.stored.seq + 1,
        seat=seat,
        action=action,
        # A snapshot after each finished hand; resuming replays the log after it. Its
        # JSON as made by the game (the JSON column writes a Fragment as it is).
        snapshot=orjson.Fragment(room.cache.state_encoder.json(game)) if results or over else None,
        new_hands=[
            hand_fields(
                result,
                timer_moves,
                game.plays_of(result["hand_number"]),
                game.deal_proof(result["hand_number"]),
            )
            for result in results
        ],
        first_hand_number=room.stored.hands_saved + 1,
        winner=game.winner,
        final_scores=game.scores if over else None,
        deadline=deadline,
        cause=cause if cause in ("timer", "autoplay") else None,
        seats=[changed] if changed is not None else [],
    )


def timer_moves_after(
    moves: list[TimerMove], seat: int, action: Action, cause: str | None
) -> list[TimerMove]:
    """The moves the turn timer made in the current hand, after this one."""
    return [*moves, public_move(seat, action)] if cause == "timer" else moves


def start(room: Room) -> Effects:
    """A new game, dealt from a fresh seed. A player who left before the start gets the
    same grace as one who leaves later."""
    seed = secrets.randbits(62)
    game = Game(room.stored.rules, seed=seed, deals=first_deals(room))
    deadline = fresh_deadline(room.stored.hosting.turn_seconds, game.turn, utcnow())
    away = frozenset(
        seat.seat
        for seat in room.stored.seats
        if seat.token_hash is not None and not seat.connected
    )
    return Effects(start=GameStart(game, room.stored.game_number + 1, seed, deadline), grace=away)


def first_deals(room: Room) -> Deals:
    """A new game's deals: from the next deal's server seed and seeds as shown (the
    table's, or those left by the game before), else a fresh server seed."""
    shown = room.deals()
    if shown is None:
        return Deals.fresh(room.id, new_key())
    return Deals.fresh(room.id, shown.keys[-1], shown.seeds[-1])


def seed(room: Room, listener: Listener, value: str) -> Effects:
    """A seated player's own seed for the next deal, shown to everyone at once; the seed
    the seat already has changes nothing (nothing written, nothing sent)."""
    if listener.seat is None:
        raise TableError("not_seated", "Only a seated player may add a seed to the deal.")
    seats.not_ended(room)
    deals = room.deals()
    if deals is None:
        raise TableError("no_deal", "This game's deals take no seeds; the next game's will.")
    try:
        value = checked_seed(value)
    except ValueError as refusal:
        raise TableError("bad_seed", f"{str(refusal).capitalize()}.") from None
    if deals.seeds[-1].get(listener.seat) == value:
        return NOTHING
    seeds = {**deals.seeds[-1], listener.seat: value}
    stored = {str(seat): seeds[seat] for seat in sorted(seeds)}
    return Effects(
        table={"deal_seeds": {"commitment": commitment(deals.keys[-1]), "seeds": stored}}
    )


def start_if_full(room: Room) -> Effects:
    if room.stored.status == "waiting" and all(seat.name is not None for seat in room.stored.seats):
        return start(room)
    return Effects()


def rematch(room: Room, token: str) -> Effects:
    refusal = TableError("bad_token", "Only a seated player may ask for a rematch.", 401)
    seats.holder(room, token, refusal)
    if room.stored.status != "over":
        raise TableError("not_over", "The game is not over yet.", 409)
    return start(room)
