"""What one seat may see: the view a player or a spectator gets (docs/protocol.md).

Built only from the game's public reading (``ViewReading``, which ``Game`` matches), so
that nothing hidden can slip in: the seat's own hand (once it has seen its cards), never
another's, the stock, or the passed cards before the exchange.

>>> from server.engine import Game, Rules
>>> view = seat_view(Game(Rules.preset("standard"), seed=7), None)
>>> view["hand"], view["contracts"], len(view["hand_sizes"])
(None, None, 4)
"""

from __future__ import annotations

from collections.abc import Sequence

from server.engine.actions import pass_choice
from server.engine.cards import CODES
from server.engine.reading import ViewReading
from server.engine.shapes import (
    Action,
    HandResult,
    Last,
    LastTrick,
    MovingView,
    PassChoice,
    Plays,
    PublicView,
    SeatCard,
    SeatPart,
    SteadyView,
    View,
)

# The keys of a view that differ from seat to seat; `public_view` holds all the others.
SEAT_KEYS = ("seat", "hand", "legal", "draw_card")


def seat_view(game: ViewReading, seat: int | None) -> View:
    """``game.view(seat)`` for a checked seat (None: a spectator); see ``Game.view``."""
    return {**public_view(game), **seat_part(game, seat)}


def public_view(game: ViewReading) -> PublicView:
    """The part of every seat's view that is the same for all of them (and a spectator's):
    a server building the views of a whole table builds it once per change and adds each
    seat's `seat_part` (``SEAT_KEYS``).

    >>> from server.engine import Game, Rules
    >>> game = Game(Rules.preset("standard"), seed=7)
    >>> all(game.view(seat) == public_view(game) | seat_part(game, seat) for seat in (0, None))
    True
    >>> sorted(set(game.view(0)) - set(public_view(game))) == sorted(SEAT_KEYS)
    True
    """
    last = game.last_trick
    results = game.hand_results
    last_trick: LastTrick | None = (
        None if last is None else {"cards": seat_cards(last[0]), "winner": last[1]}
    )
    return {
        **moving_view(game, seat_cards(game.played), last_trick),
        **steady_view(game, copy_result(results[-1]) if results else None),
    }


def moving_view(game: ViewReading, played: Plays, last_trick: Last) -> MovingView[Plays, Last]:
    """The keys of the public view that may change with any move, with the played cards
    and the last trick as given (a caller that encodes views may pass them encoded)."""
    return {
        "phase": game.phase,
        "turn": game.turn,
        "hand_sizes": game.hand_sizes,
        "trick": seat_cards(game.trick),
        "last_trick": last_trick,
        "played": played,
        "tricks_won": list(game.tricks_won),
        "spades_broken": game.spades_broken,
        "pending": game.pending,
        "stock_size": game.stock_size,
    }


def steady_view(game: ViewReading, last_hand: HandResult | None) -> SteadyView:
    """The keys of the public view that change only with the phase, a bid, a finished
    hand or the end, with ``last_hand`` as given (the last of ``game.hand_results``, or
    a copy of it): a caller that encodes views may keep their encoding until then."""
    return {
        "players": game.rules.players,
        "sides": game.sides,
        "dealer": game.dealer,
        "bids": list(game.bids),
        "contracts": game.contracts,
        "scores": game.scores,
        "target_score": game.rules.target_score,
        "bidding": game.bidding,
        "hand_number": game.hand_number,
        "last_hand": last_hand,
        "winner": game.winner,
    }


def seat_part(game: ViewReading, seat: int | None) -> SeatPart:
    """What only ``seat`` sees (None: a spectator): its hand (once it has seen its cards),
    its legal actions and its draw card; the keys ``SEAT_KEYS``."""
    hand = None
    if seat is not None and not (game.phase == "blind" and seat in game.pending):
        hand = game.card_order.sorted_codes(game.hand(seat))
    return {
        "seat": seat,
        "hand": hand,
        "legal": _legal(game, seat),
        "draw_card": game.draw_card(seat),
    }


def _legal(game: ViewReading, seat: int | None) -> list[Action] | list[PassChoice]:
    """``game.legal(seat)``, but the pass as its constraint (one entry, not thousands)."""
    if seat is None:
        return []
    if game.phase == "pass" and seat in game.turn:
        return [pass_choice(game.pass_count)]
    return game.legal(seat)


def seat_cards(cards: Sequence[tuple[int, int]]) -> list[SeatCard]:
    """``(seat, card)`` plays as the protocol's ``{"seat", "card"}`` dicts."""
    return [{"seat": seat, "card": CODES[card]} for seat, card in cards]


def copy_result(result: HandResult) -> HandResult:
    """A copy of a hand summary that shares nothing mutable with the original."""
    copy: HandResult = {
        **result,
        "bids": list(result["bids"]),
        "tricks": list(result["tricks"]),
        "sides": [
            {**side, "seats": list(side["seats"]), "nil": [nil.copy() for nil in side["nil"]]}
            for side in result["sides"]
        ],
        "deal": [list(cards) for cards in result["deal"]],
    }
    claim = result.get("claim")
    if claim is not None:
        copy["claim"] = {**claim, "cards": list(claim["cards"])}
    return copy
