"""A table's game as the JSON bytes of the snapshot the store keeps.

The engine gives plain data (``Game.current_state``); `StateEncoder` turns it into the
same bytes as ``orjson.dumps`` of the whole, while keeping the JSON of the log instead of
making it again at every hand. A `Room` holds one for its game (`RoomCache`).
"""

from __future__ import annotations

import orjson

from server.engine import Game


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
