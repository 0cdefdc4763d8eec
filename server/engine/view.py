"""What one seat may see: the view a player or a spectator gets (docs/protocol.md).

Built only from the game's public reading, so that nothing hidden can slip in: the seat's
own hand (once it has seen its cards), never another's, the stock, or the passed cards
before the exchange.

>>> from server.engine import Game, Rules
>>> view = seat_view(Game(Rules.preset("standard"), seed=7), None)
>>> view["hand"], view["contracts"], len(view["hand_sizes"])
(None, None, 4)
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import orjson

from server.engine.actions import pass_actions
from server.engine.cards import CODES

if TYPE_CHECKING:
    from server.engine.game import Game


# The keys of a view that differ from seat to seat; `public_view` holds all the others.
SEAT_KEYS = ("seat", "hand", "legal", "draw_card")


def seat_view(game: Game, seat: int | None) -> dict[str, Any]:
    """``game.view(seat)`` for a checked seat (None: a spectator); see ``Game.view``."""
    return {**public_view(game), **seat_part(game, seat)}


def public_view(game: Game) -> dict[str, Any]:
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
    return {
        **_moving(
            game,
            seat_cards(game.played),
            None if last is None else {"cards": seat_cards(last[0]), "winner": last[1]},
        ),
        **_steady(game, copy_result(results[-1]) if results else None),
    }


def _moving(game: Game, played: Any, last_trick: Any) -> dict[str, Any]:
    """The keys of the public view that may change with any move."""
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


def _steady(game: Game, last_hand: Any) -> dict[str, Any]:
    """The keys that change only with the phase, a bid, a finished hand or the end (the
    key `PublicEncoder` keeps them under)."""
    return {
        "players": game.rules.players,
        "sides": game.sides,
        "dealer": game.dealer,
        "bids": list(game.bids),
        "contracts": game.contracts,
        "scores": game.scores,
        "target_score": game.rules.target_score,
        "hand_number": game.hand_number,
        "last_hand": last_hand,
        "winner": game.winner,
    }


class PublicEncoder:
    """`public_view(game)` as JSON, for one table's game after each of its changes: the
    same bytes as ``orjson.dumps(public_view(game))``. What changes only now and then is
    kept as JSON and made again only when it has changed, instead of at every move: the
    hand's played cards, the last trick, and the `_steady` keys (the sides, bids,
    contracts, scores, the last hand's summary...).

    >>> from server.engine import Game, Rules
    >>> game, encoder = Game(Rules.preset("standard"), seed=7), PublicEncoder()
    >>> encoder.json(game) == orjson.dumps(public_view(game))
    True
    """

    __slots__ = (
        "_game",
        "_last",
        "_last_json",
        "_played",
        "_played_json",
        "_size",
        "_steady_json",
        "_steady_key",
    )

    def __init__(self) -> None:
        # The objects the JSON was made from, held (so that `is` cannot be fooled by a new
        # object at a freed one's address), and the played list's length then.
        self._played: list[tuple[int, int]] | None = None
        self._size = 0
        self._played_json = b"[]"
        self._last: Any = None
        self._last_json = b"null"
        self._game: Game | None = None
        self._steady_key: tuple[Any, ...] = ()
        self._steady_json = b"}"

    def json(self, game: Game) -> bytes:
        moving, steady = self.parts(game)
        return b"%s,%s" % (moving[:-1], steady)

    def parts(self, game: Game) -> tuple[bytes, bytes]:
        """The view's JSON in two parts: the keys that may change with any move (a whole
        object, `_moving`), and the others (`_steady`) without their opening brace."""
        # The game extends one list of played cards per hand and makes a new one for the
        # next hand; it replaces the last trick and appends hand results, never edits them.
        played = game.played
        if played is not self._played or len(played) != self._size:
            self._played, self._size, self._played_json = played, len(played), plays_json(played)
        last = game.last_trick
        if last is not self._last:
            self._last = last
            self._last_json = (
                b"null"
                if last is None
                else b'{"cards":%s,"winner":%d}' % (plays_json(last[0]), last[1])
            )
        results = game.hand_results
        key = (game.phase, game.hand_number, tuple(game.bids), len(results), game.winner)
        if game is not self._game or key != self._steady_key:
            self._game, self._steady_key = game, key
            # Kept without its opening brace, sliced: a copy of its own size (what
            # orjson.dumps returns holds a buffer of about 4 KB however short the JSON).
            self._steady_json = orjson.dumps(_steady(game, results[-1] if results else None))[1:]
        moving = orjson.dumps(
            _moving(game, orjson.Fragment(self._played_json), orjson.Fragment(self._last_json))
        )
        return moving, self._steady_json


# A spectator's own part of a view (no hand, nothing to do, ever), as `SeatEncoder` gives it.
SPECTATOR_PART_OPEN = b'{"seat":null,"hand":null,"legal":[],"draw_card":null'


class SeatEncoder:
    """``seat_part(game, seat)`` as JSON without its closing brace (a view's other keys
    follow it), for the seats of one table's game after each of its changes: the bytes of
    ``orjson.dumps(seat_part(game, seat))`` but the last. During play a seat that is not on
    turn has no legal action and no draw card, and its hand changes only when it plays a
    card: its JSON is kept, under its hand's size, until then (and until the next hand).
    The seat on turn, and every seat in any other phase, is encoded afresh.

    >>> from server.engine import Game, Rules
    >>> game, encoder = Game(Rules.preset("standard"), seed=7), SeatEncoder()
    >>> encoder.open_json(game, 2) + b"}" == orjson.dumps(seat_part(game, 2))
    True
    """

    __slots__ = ("_game", "_hand_number", "_kept")

    def __init__(self) -> None:
        # The game and hand the kept JSON belongs to (the game held, so that `is` cannot
        # be fooled by a new one at a freed one's address); each seat's (hand size, JSON).
        self._game: Game | None = None
        self._hand_number = 0
        self._kept: dict[int, tuple[int, bytes]] = {}

    def open_json(self, game: Game, seat: int | None) -> bytes:
        if seat is None:
            return SPECTATOR_PART_OPEN
        # During play the seat on turn is `seat_to_play` (`game.turn` is a list made anew).
        if game.phase != "play" or seat == game.seat_to_play:
            return orjson.dumps(seat_part(game, seat))[:-1]
        if game is not self._game or game.hand_number != self._hand_number:
            self._game, self._hand_number, self._kept = game, game.hand_number, {}
        size = game.hand_size(seat)
        kept = self._kept.get(seat)
        if kept is None or kept[0] != size:
            # Sliced, so a copy of its own size: what orjson.dumps returns holds a buffer
            # of about 4 KB however short the JSON.
            kept = self._kept[seat] = (size, orjson.dumps(seat_part(game, seat))[:-1])
        return kept[1]


@functools.cache
def _play_json(seat: int, card: int) -> bytes:
    # Formatted, not orjson.dumps'd: that holds a buffer of about 4 KB, for every entry.
    return b'{"seat":%d,"card":"%s"}' % (seat, CODES[card].encode())


def plays_json(plays: Sequence[tuple[int, int]]) -> bytes:
    """``orjson.dumps(seat_cards(plays))``, each play's JSON made once per process.

    >>> plays_json([(0, 12), (1, 0)]) == orjson.dumps(seat_cards([(0, 12), (1, 0)]))
    True
    """
    return b"[%s]" % b",".join([_play_json(seat, card) for seat, card in plays])


def seat_part(game: Game, seat: int | None) -> dict[str, Any]:
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


def _legal(game: Game, seat: int | None) -> list[dict[str, Any]]:
    """``game.legal(seat)``, but the pass as its constraint (one entry, not thousands)."""
    if seat is None:
        return []
    if game.phase == "pass" and seat in game.turn:
        return pass_actions(
            game.card_order.sorted_codes(game.hand(seat)), game.rules.blind_nil_pass, compact=True
        )
    return game.legal(seat)


def seat_cards(cards: Sequence[tuple[int, int]]) -> list[dict[str, Any]]:
    """``(seat, card)`` plays as the protocol's ``{"seat", "card"}`` dicts."""
    return [{"seat": seat, "card": CODES[card]} for seat, card in cards]


def copy_result(result: dict[str, Any]) -> dict[str, Any]:
    """A copy of a hand summary that shares nothing mutable with the original."""
    return {
        **result,
        "bids": list(result["bids"]),
        "tricks": list(result["tricks"]),
        "sides": [
            {**side, "seats": list(side["seats"]), "nil": [dict(nil) for nil in side["nil"]]}
            for side in result["sides"]
        ],
        "deal": [list(cards) for cards in result["deal"]],
    }
