"""Benchmark of the table server: four WebSocket players play whole games.

Starts a real uvicorn process (`uvicorn server.app:app --ws websockets-sansio`) on a
fresh SQLite file (or DATABASE_URL), plays `--games` games to `--target` points with
the basic bot choosing every move from each seat's own view, and prints the move
latency (act sent -> own new state received: validate, engine, commit, broadcast) and
the throughput.

    .venv/bin/python bench/server.py --games 2 --target 300
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server.engine import Rules  # noqa: E402
from server.engine.bots import choose_action  # noqa: E402
from tests.live_server import LiveServer  # noqa: E402


async def play_game(base: str, address: str, target: int, latencies: list[float]) -> int:
    """One game to `target`; returns the number of moves."""
    rules_json = {"preset": "standard", "target_score": target}
    rules = Rules.model_validate(rules_json)
    async with httpx.AsyncClient(base_url=base) as http:
        table = (await http.post("/api/tables", json={"rules": rules_json})).json()
        table_id, invite = table["id"], table["invite"]
        tokens = [
            (
                await http.post(
                    f"/api/tables/{table_id}/seats/{s}", json={"name": f"P{s}", "invite": invite}
                )
            ).json()["token"]
            for s in range(4)
        ]
    moves = 0

    async def player(token: str) -> None:
        nonlocal moves
        rng = random.Random(token)
        async with websockets.connect(f"ws://{address}/ws/tables/{table_id}") as socket:
            await socket.send(json.dumps({"type": "hello", "token": token, "version": None}))
            sent_at = None
            while True:
                message = json.loads(await socket.recv())
                if message["type"] != "state":
                    continue
                if sent_at is not None:
                    latencies.append(time.perf_counter() - sent_at)
                    sent_at = None
                if message["table"]["status"] == "over":
                    return
                view = message["state"]
                if view and message["seat"] in view["turn"] and view["legal"]:
                    action = choose_action(rules, view, rng=rng)
                    sent_at = time.perf_counter()
                    moves += 1
                    await socket.send(json.dumps({"type": "act", "action": action}))

    await asyncio.gather(*(player(token) for token in tokens))
    return moves


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--target", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        url = os.environ.get("DATABASE_URL", f"sqlite+aiosqlite:///{directory}/bench.db")
        # A benchmark client moves far faster than a person: lift the per-socket limit.
        server = LiveServer(url, env={"SPADES_WS_RATE_LIMIT": "100000/second"})
        started = time.perf_counter()
        await asyncio.to_thread(server.start)
        print(f"server start: {time.perf_counter() - started:.2f} s ({url.split(':')[0]})")
        latencies: list[float] = []
        started = time.perf_counter()
        try:
            moves = 0
            for _ in range(args.games):
                moves += await play_game(server.url, server.url[7:], args.target, latencies)
        finally:
            server.stop()
        elapsed = time.perf_counter() - started
    latencies.sort()
    ms = [1000 * value for value in latencies]
    print(f"games: {args.games} to {args.target}, moves: {moves}, wall: {elapsed:.1f} s")
    print(f"throughput: {moves / elapsed:.0f} moves/s (one table, moves in sequence)")
    print(
        f"move latency ms: median {statistics.median(ms):.1f}, "
        f"p95 {ms[int(len(ms) * 0.95)]:.1f}, max {ms[-1]:.1f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
