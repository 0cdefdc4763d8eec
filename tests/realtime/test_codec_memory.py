"""A room keeps its game's snapshot encoder for as long as it is in memory: what the encoder
keeps must be about the JSON it stands for, not a buffer per log entry (each result of
`orjson.dumps` kept alone holds about 4 KB, which made a finished room hold 440 KB)."""

from __future__ import annotations

import gc
import random
import tracemalloc

import orjson

from server.engine import Game, Rules
from server.realtime import codec
from server.realtime.codec import StateEncoder


def long_game(seed: int, actions: int = 300) -> Game:
    """A game `actions` moves long (or over sooner): several hands' log to keep."""
    game = Game(Rules.preset("standard", target_score=500), seed=seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if game.winner is not None or game.phase == "over" or not game.turn:
            break
        seat = game.turn[0]
        game.act(seat, rng.choice(game.legal(seat)))
    return game


def test_the_snapshot_encoder_keeps_about_its_json_however_long_the_log():
    game = long_game(11)
    gc.collect()
    tracemalloc.start()
    try:
        encoder = StateEncoder()
        snapshot = encoder.json(game)
        assert snapshot == orjson.dumps(game.to_state())
        del snapshot
        gc.collect()
        # What is still held of what the encoder's own module allocated (other threads of
        # the process may allocate meanwhile: they are not counted).
        held = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, codec.__file__)])
        kept = sum(stat.size for stat in held.statistics("filename"))
    finally:
        tracemalloc.stop()
    log_json = len(orjson.dumps(game.to_state()["log"]))
    entries = len(game.to_state()["log"])
    assert entries > 100
    # One buffer of the log's JSON (and a little more), not about 4 KB for each entry.
    assert kept < 2 * log_json + 16_384, (kept, log_json, entries)
