"""`--bot-tables N`: on our server only, N tables of four bots playing at bot delay 0
beside the measured tables, each replaced by a new one when its game ends; what they
played, and the bots' decision times from the server's `spades_bot_decision_seconds`
(the decision pool's answer time, waiting included)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib

import httpx

from bench.harness import metrics, tables
from bench.harness.stats import bucket_bound

DECISION_HISTOGRAM = "spades_bot_decision_seconds"


async def bot_table(http: httpx.AsyncClient, args: argparse.Namespace) -> tuple[str, int]:
    """A listed table with a bot in every seat (it starts at once and plays by itself),
    and its version once seated."""
    rules = {"preset": args.bot_preset or args.preset, "target_score": args.target}
    table = await tables.create_table(http, rules, "Bots")
    await tables.add_bots(http, table["id"], len(table["seats"]), level=args.bot_level)
    return table["id"], (await http.get(f"/api/tables/{table['id']}")).json()["version"]


async def bots_beside(
    http: httpx.AsyncClient, args: argparse.Namespace, stop: asyncio.Event
) -> dict[str, object]:
    """`--bot-tables` bot-only tables until `stop`, each finished game's table replaced by
    a new one; their games finished and their versions advanced (about one per move)."""
    playing = dict([await bot_table(http, args) for _ in range(args.bot_tables)])
    games = moves = 0
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 1.0)
        for table_id, seen in list(playing.items()):
            info = (await http.get(f"/api/tables/{table_id}")).json()
            moves += info["version"] - seen
            playing[table_id] = info["version"]
            if info["status"] == "over" and not stop.is_set():
                games += 1
                del playing[table_id]
                new_id, version = await bot_table(http, args)
                playing[new_id] = version
        if stop.is_set():
            return {
                "bot_tables": args.bot_tables,
                "bot_games": games,
                "bot_versions": moves,
                "decisions": decision_figures(await metrics.scrape(http) or []),
            }


def decision_figures(samples: list[metrics.Sample]) -> dict[str, str]:
    """The server's bot decisions by level and phase: how many, their mean, and the
    bucket bound that holds their 99th percentile."""
    found = metrics.histograms(samples, DECISION_HISTOGRAM, by=("level", "phase"))
    figures = {}
    for (level, phase), decided in sorted(found.items()):
        if decided.count <= 0:
            continue
        bound = bucket_bound(decided.buckets.items(), decided.count, 0.99)
        p99 = "over 2.5 s" if bound is None or bound == float("inf") else f"<= {bound * 1000:g} ms"
        mean = 1000 * decided.total / decided.count
        figures[f"{level}/{phase}"] = f"{int(decided.count)}, mean {mean:.0f} ms, p99 {p99}"
    return figures
