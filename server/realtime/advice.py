"""The expert at a player's side after a hand: at each of the asking seat's own bids and
plays of a finished hand, what the expert bot would have chosen there, from that seat's
view at that moment (never from cards it could not see then).

Asked with `review` on a seated socket and answered to that socket alone. The hand is
replayed off the event loop, then each choice is thought out in the bots' decision pool,
one at a time, so that bots of other tables slip in between; the answer is kept on the
room by game, hand and seat, so asking again (or from another device) thinks nothing
again. Only the hands of the room's current game can be reviewed.
"""

from __future__ import annotations

import asyncio

import structlog

from server.engine import Action
from server.engine.replay import Decision, Start, decisions, replay_start
from server.observability import ERRORS
from server.protocol import ReviewChoice, ReviewMessage
from server.realtime.bots import bot_decision
from server.realtime.errors import TableError
from server.realtime.messages import error
from server.realtime.room import Listener, Room
from server.settings import Settings

log = structlog.get_logger(__name__)

# The bot level whose choices a review shows.
ADVISER = "expert"
ReviewKey = tuple[int, int, int]  # game number, hand number, seat


def refusal(room: Room, seat: int | None, hand: int) -> TableError | None:
    """Why `seat` may not have hand `hand` reviewed now; None when it may."""
    if seat is None:
        return TableError("not_seated", "Only a player of the hand can have it reviewed.")
    game = room.stored.game
    if game is None:
        return TableError("not_started", "The game has not started yet.")
    if not 1 <= hand <= len(game.hand_results):
        return TableError("unknown_hand", f"Hand {hand} of this game is not over.")
    return None


async def review(
    settings: Settings, room: Room, listener: Listener, hand: int, review_id: str | int | None
) -> None:
    """Answer a socket's `review` of `hand` (or refuse it) on that socket alone. Returns
    at once: the answer is sent when it is thought out."""
    seat = listener.seat
    refused = refusal(room, seat, hand)
    if refused is not None or seat is None or room.stored.game is None:
        assert refused is not None
        listener.send(error(refused.code, refused.message, review_id))
        return
    key: ReviewKey = (room.stored.game_number, hand, seat)
    for old in [old for old in room.tasks.reviews if old[0] != room.stored.game_number]:
        room.tasks.reviews.pop(old).cancel()  # a new game: the last one's reviews go
    thinking = room.tasks.reviews.get(key)
    if thinking is None:
        game = room.stored.game
        start, log_so_far = replay_start(game), game.log
        thinking = room.tasks.reviews[key] = asyncio.ensure_future(
            choices(settings, room, start, log_so_far, seat, hand)
        )
    thinking.add_done_callback(lambda done: answer(room, listener, key, done, review_id))


async def choices(
    settings: Settings,
    room: Room,
    start: Start,
    log_so_far: list[tuple[int, Action]],
    seat: int,
    hand: int,
) -> list[ReviewChoice]:
    """Each reviewed choice of `seat` in `hand`, with the adviser's choice beside it."""
    seen: list[Decision] = await asyncio.to_thread(
        decisions, room.stored.rules, start, log_so_far, seat, hand
    )
    made: list[ReviewChoice] = []
    for decision in seen:
        expert = await bot_decision(
            settings.bot_processes, room.stored.rules, decision.view, ADVISER, room.rng
        )
        made.append({"trick": decision.trick, "action": decision.action, "expert": expert})
    return made


def answer(
    room: Room,
    listener: Listener,
    key: ReviewKey,
    thinking: asyncio.Future[list[ReviewChoice]],
    review_id: str | int | None,
) -> None:
    """Send a review thought out (or say it failed) to the socket that asked."""
    game_number, hand, seat = key
    if thinking.cancelled():
        return
    failed = thinking.exception()
    if failed is not None:
        if room.tasks.reviews.get(key) is thinking:  # the next ask thinks again
            del room.tasks.reviews[key]
        ERRORS.labels(where="review").inc()
        log.error("review failed", table=room.id, hand=hand, seat=seat, exc_info=failed)
        listener.send(error("unavailable", "No review right now; try again.", review_id))
        return
    listener.send(
        ReviewMessage(
            type="review",
            id=review_id,
            game_number=game_number,
            hand=hand,
            seat=seat,
            choices=thinking.result(),
        )
    )
