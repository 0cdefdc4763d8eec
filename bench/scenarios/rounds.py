"""Both servers measured `--rounds` times, each time afresh (ours, then the relay; from
the second round on the one measured first alternates, so that a machine growing busier
or quieter weighs on both alike), and what the rounds say together: the median of their
ratios to the relay, how many meet the targets, and a 95 % interval of the median."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import os
import statistics
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

from bench.harness.server import (
    RELAY_APP,
    LiveServer,
    database,
    redis_pid,
    serve_options,
    served,
)
from bench.harness.stats import median_interval, ratio
from bench.scenarios.bots_beside import bots_beside
from bench.scenarios.search import search
from bench.scenarios.side import HTTP_LIMITS, Say, Side, close_sockets, set_up
from bench.scenarios.steady import number, play, row

# Issue #11's targets against the relay: CPU per action at most 2x, the highest rate at
# least 40 % (the rounds that meet them are counted).
CPU_RATIO_TARGET = 2.0
RATE_RATIO_TARGET = 0.4
DEFAULT_STATE_BYTES = 2000  # the relay's state size before ours has been measured
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"  # several processes' unless --redis-url


async def measure(side: Side, say: Say) -> dict[str, Any]:
    """Set up the tables, then play the rate (or search), and close every socket."""
    args = side.args
    async with httpx.AsyncClient(base_url=side.url, limits=HTTP_LIMITS, timeout=60) as http:
        await set_up(side, http, say)
        # The client is the instrument: what set-up made (5,000 sockets at 1,000 tables)
        # leaves its collector, so its own pauses stay out of the figures.
        gc.collect()
        gc.freeze()
        sockets = (4 + args.spectators) * args.tables
        took = side.setup_seconds
        say(f"{side.name}: {args.tables} tables, {sockets} sockets in {took:.1f} s")
        result: dict[str, Any] = {"setup_seconds": side.setup_seconds}
        stop = asyncio.Event()
        beside = (
            asyncio.create_task(bots_beside(http, args, stop))
            if args.bot_tables and side.name == "spades"
            else None
        )
        if args.search:
            best, steps = await search(side, http, args.rate, say)
            result |= {"search_best_rate": best, "search_steps": [asdict(s) for s in steps]}
        else:
            figures = await play(side, http, args.rate, args.seconds)
            say(f"  {side.name}: {row(figures)}")
            result["run"] = asdict(figures)
        if beside is not None:
            stop.set()
            result["bots"] = await beside
            say(f"  {side.name}: bots beside: {result['bots']}")
        side.rss_mb["end"] = side.rss()
        await close_sockets(side)
    grown = side.rss_mb["connected"] - side.rss_mb["first_table"]
    per_table = 1024 * grown / (args.tables - 1) if args.tables > 1 else None
    result |= {"rss_mb": side.rss_mb, "rss_kib_per_table": per_table if side.pid else None}
    return result


def spades_env(args: argparse.Namespace) -> dict[str, str]:
    sockets = (4 + args.spectators) * args.tables
    return {
        # Every socket and every set-up request comes from 127.0.0.1: lift those limits.
        # The per-socket message limit stays as in production (20/s: a seat at a person's
        # pace sends far fewer) unless --message-limit says otherwise.
        "SPADES_WS_RATE_LIMIT": args.message_limit,
        "SPADES_WS_PER_ADDRESS": str(sockets + 16),
        "SPADES_WS_NEW_PER_ADDRESS": f"{sockets + 16}/second",
        "SPADES_WS_PER_TABLE_PER_ADDRESS": str(args.spectators + 16),
        "SPADES_SPECTATORS_PER_TABLE": str(max(200, args.spectators)),
    }


async def measure_ours(
    args: argparse.Namespace, report: dict[str, Any], say: Say
) -> dict[str, Any]:
    """One measurement of our server: the one at --url, or one served for it."""
    if args.url:
        report["backend"] = "given --url"
        return await measure(Side("spades", args.url, args.pid, args), say)
    several = args.processes > 1
    async with database(args.database_url, args.postgres or several, "spades_load") as url:
        report["backend"] = url.split(":")[0].split("+")[0]
        if several and report["backend"] == "sqlite":
            raise SystemExit("--processes N shares one database: --postgres or a PostgreSQL URL")
        redis_url = args.redis_url or (DEFAULT_REDIS if several else None)
        profile = Path(args.profile).resolve() if args.profile else None
        options = serve_options(args.deflate == "on")
        env = spades_env(args)
        servers = [LiveServer(url, redis_url=redis_url, env=env, options=options, profile=profile)]
        servers += [
            LiveServer(url, redis_url=redis_url, env=env, options=options)
            for _ in range(args.processes - 1)
        ]
        with contextlib.ExitStack() as stack:
            for server in servers:  # one after another: the first migrates
                stack.enter_context(served(server))
            pids = [server.pid for server in servers if server.pid is not None]
            side = Side("spades", servers[0].url, servers[0].pid, args)
            side.urls, side.pids = [server.url for server in servers], pids
            if redis_url is not None:
                side.redis_pid = redis_pid(redis_url)
            placed = f", affinity {args.affinity}" if several else ""
            say(f"spades server pids {pids} on {report['backend']}{placed}")
            result = await measure(side, say)
        if profile is not None:
            report["profile"] = str(profile)
            say(f"profile written: {profile}")
    return result


async def measure_relay(args: argparse.Namespace, state_bytes: int, say: Say) -> dict[str, Any]:
    """One measurement of the relay, its state messages of `state_bytes`."""
    env = {"RELAY_STATE_BYTES": str(state_bytes), "RELAY_STATE": args.relay_state}
    relay = LiveServer(app=RELAY_APP, env=env, options=serve_options(args.deflate == "on"))
    with served(relay):
        say(f"relay pid {relay.pid}, state messages of {state_bytes} bytes")
        return await measure(Side("relay", relay.url, relay.pid, args), say)


async def run(args: argparse.Namespace, say: Say) -> dict[str, Any]:
    """Every round, both servers each (the relay left out with --no-relay); the report."""
    report: dict[str, Any] = {
        "tables": args.tables,
        "spectators": args.spectators,
        "sockets": (4 + args.spectators) * args.tables,
        "rate": args.rate,
        "seconds": args.step_seconds if args.search else args.seconds,
        "search": args.search,
        "cores": os.cpu_count(),
        "load_average_before": os.getloadavg(),
    }
    rounds: list[dict[str, Any]] = []
    state_bytes = DEFAULT_STATE_BYTES
    for count in range(args.rounds):
        relay_first = count % 2 == 1 and not args.no_relay
        pair: dict[str, Any] = {"first": "relay" if relay_first else "spades"}
        if relay_first:
            pair["relay"] = await measure_relay(args, state_bytes, say)
        pair["spades"] = await measure_ours(args, report, say)
        state_bytes = state_size(pair["spades"])
        pair["relay_state_bytes"] = state_bytes
        if not relay_first and not args.no_relay:
            pair["relay"] = await measure_relay(args, state_bytes, say)
        rounds.append(pair)
        if args.rounds > 1:
            say(f"round {count + 1} of {args.rounds}: {round_line(pair)}")
    report |= {
        key: rounds[0][key] for key in ("spades", "relay", "relay_state_bytes") if key in rounds[0]
    }
    if args.rounds > 1:
        report["rounds"] = rounds
    report["load_average_after"] = os.getloadavg()
    return report


def state_size(result: dict[str, Any]) -> int:
    """The mean size of our state messages in a measurement (the relay's next size)."""
    runs = result["search_steps"] if "search_steps" in result else [result["run"]]
    sizes = [r["state_bytes"] for r in runs if r["state_bytes"]]
    return round(sum(sizes) / len(sizes)) if sizes else DEFAULT_STATE_BYTES


def rate_ratio(pair: dict[str, Any]) -> float | None:
    """Our highest passing rate over the relay's, in one search round (None without both)."""
    ours = pair["spades"].get("search_best_rate")
    return ratio(ours, pair.get("relay", {}).get("search_best_rate"))


def cpu_ratio(pair: dict[str, Any]) -> float | None:
    """Our server CPU per action over the relay's, in one round (None without both)."""
    if "relay" not in pair or "run" not in pair["spades"]:
        return None
    ours = pair["spades"]["run"]["server_cpu_ms_per_action"]
    return ratio(ours, pair["relay"]["run"]["server_cpu_ms_per_action"])


def round_line(pair: dict[str, Any]) -> str:
    ours, theirs = pair["spades"].get("run"), pair.get("relay", {}).get("run")
    if ours is None:
        best = pair["spades"].get("search_best_rate")
        line = f"{pair['first']} first, highest rate {number(best, 0)}/s"
        if (found := rate_ratio(pair)) is not None:
            line += f" (relay {number(pair['relay']['search_best_rate'], 0)}/s, {found:.2f}x)"
        return line
    line = (
        f"{pair['first']} first, server CPU ms/action {number(ours['server_cpu_ms_per_action'], 2)}"
    )
    if theirs is not None:
        line += (
            f" (relay {number(theirs['server_cpu_ms_per_action'], 2)}, "
            f"{number(cpu_ratio(pair), 2)}x), p99 ms {number(ours['p99_ms'])} "
            f"(relay {number(theirs['p99_ms'])})"
        )
    return line


def print_rounds(rounds: list[dict[str, Any]]) -> None:
    """Each round in a line (the table above is the first round's), and the median of the
    rounds' CPU ratios (or, searching, of their highest rates' ratios); then how many
    rounds meet the target (`CPU_RATIO_TARGET`, `RATE_RATIO_TARGET`) and, from 6 rounds
    on, a 95 % interval of the median (`median_interval`): single rounds swing widely on
    a small shared machine, and the interval says how far the median itself may be off."""
    for index, pair in enumerate(rounds, 1):
        print(f"round {index}: {round_line(pair)}")
    targets = (
        ("server CPU ratio", cpu_ratio, CPU_RATIO_TARGET, -1),
        ("highest rate's ratio", rate_ratio, RATE_RATIO_TARGET, 1),
    )
    for what, of_round, target, direction in targets:
        ratios = sorted(r for r in map(of_round, rounds) if r is not None)
        if ratios:
            shown = ", ".join(f"{r:.2f}" for r in ratios)
            print(
                f"{what} to the relay, median of {len(ratios)} rounds: "
                f"{statistics.median(ratios):.2f}x ({shown})"
            )
            interval = median_interval(ratios)
            spread = (
                f"; 95 % interval of the median {interval[0]:.2f}-{interval[1]:.2f}x"
                if interval is not None
                else ""
            )
            # direction -1: at the target or under it meets it; 1: at it or over it.
            meeting = sum(1 for r in ratios if (r - target) * direction >= 0)
            side = "or less" if direction < 0 else "or more"
            print(f"  {meeting} of {len(ratios)} rounds at {target:g}x {side}{spread}")
