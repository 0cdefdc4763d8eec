"""A table's game as JSON bytes: the views its sockets get and the snapshot the store keeps.

The engine gives plain data (``server.engine.view``, ``Game.current_state``); these
encoders turn it into the same bytes as ``orjson.dumps`` of the whole, while keeping the
JSON of what changes only now and then instead of making it again at every move. A
`Room` holds one of each for its game.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import orjson

from server.engine import Game
from server.engine.cards import CODES
from server.engine.view import moving_view, seat_part, steady_view


class PublicEncoder:
    """`public_view(game)` as JSON, for one table's game after each of its changes: the
    same bytes as ``orjson.dumps(public_view(game))``. What changes only now and then is
    kept as JSON and made again only when it has changed, instead of at every move: the
    hand's played cards, the last trick, and the `steady_view` keys (the sides, bids,
    contracts, scores, the last hand's summary...).

    >>> from server.engine import Rules
    >>> from server.engine.view import public_view
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
        object, `moving_view`), and the others (`steady_view`) without their opening brace."""
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
            last_hand = results[-1] if results else None
            self._steady_json = orjson.dumps(steady_view(game, last_hand))[1:]
        moving = orjson.dumps(
            moving_view(game, orjson.Fragment(self._played_json), orjson.Fragment(self._last_json))
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

    >>> from server.engine import Rules
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

    >>> from server.engine.view import seat_cards
    >>> plays_json([(0, 12), (1, 0)]) == orjson.dumps(seat_cards([(0, 12), (1, 0)]))
    True
    """
    return b"[%s]" % b",".join([_play_json(seat, card) for seat, card in plays])


class StateEncoder:
    """``game.to_state()`` as JSON, for one table's game (the store's snapshot after a
    hand): the same bytes as ``orjson.dumps(game.to_state())``, made without copying what
    it encodes. The finished hands are read as they are, and each log entry's JSON is
    made once per game, so that a snapshot after every hand costs the hand's new entries,
    not the whole log again. The same secrets as ``to_state()``: never send it.

    >>> from server.engine import Rules
    >>> game, encoder = Game(Rules.preset("standard"), seed=4), StateEncoder()
    >>> _ = game.act(game.turn[0], game.legal(game.turn[0])[0])
    >>> encoder.json(game) == orjson.dumps(game.to_state())
    True
    """

    __slots__ = ("_entries", "_game", "_log_json")

    def __init__(self) -> None:
        # The game the kept JSON belongs to (held, so that `is` cannot be fooled by a new
        # one at a freed one's address), the JSON of its log so far, comma-separated (one
        # buffer: each `orjson.dumps` result kept alone would hold about 4 KB), and how
        # many entries that is.
        self._game: Game | None = None
        self._log_json = bytearray()
        self._entries = 0

    def json(self, game: Game) -> bytes:
        if game is not self._game:
            self._game, self._log_json, self._entries = game, bytearray(), 0
        log_json = self._log_json
        for entry in game.log_since(self._entries):
            if self._entries:
                log_json += b","
            log_json += orjson.dumps(entry)
            self._entries += 1
        state = {
            **game.current_state(),
            "hand_results": game.hand_results,
            "log": orjson.Fragment(b"[%s]" % log_json),
        }
        return orjson.dumps(state)
