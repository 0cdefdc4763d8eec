"""A room keeps its game's snapshot encoder for as long as it is in memory: what the encoder
keeps must be about the JSON it stands for, not a buffer per log entry (each result of
`orjson.dumps` kept alone holds about 4 KB, which made a finished room hold 440 KB)."""

from __future__ import annotations

import gc
import random
import tracemalloc

import orjson

from server.engine import Game, Rules
from server.realtime.codec import StateEncoder


def finished_game(seed: int) -> Game:
    game = Game(Rules.preset("standard", target_score=200), seed=seed)
    rng = random.Random(seed)
    while game.winner is None and game.phase != "over":
        seat = game.turn[0]
        legal = game.legal(seat)
        bids = [a for a in legal if a["type"] == "bid" and a["bid"] in (3, 4)]
        game.act(seat, rng.choice(bids or legal))
    return game


def test_the_snapshot_encoder_keeps_about_its_json_however_long_the_log():
    game = finished_game(11)
    gc.collect()
    tracemalloc.start()
    try:
        encoder = StateEncoder()
        snapshot = encoder.json(game)
        assert snapshot == orjson.dumps(game.to_state())
        del snapshot
        gc.collect()
        kept, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    log_json = len(orjson.dumps(game.to_state()["log"]))
    entries = len(game.to_state()["log"])
    assert entries > 100
    # One buffer of the log's JSON (and a little more), not about 4 KB for each entry.
    assert kept < 2 * log_json + 16_384, (kept, log_json, entries)
