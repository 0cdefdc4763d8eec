"""One server process against several (`--compare`): the same tables at the same offered
rate, on a scratch PostgreSQL database each, measured as one process alone (no Redis),
as N processes with affinity (a table's sockets all on one process, as HAProxy's hash
keeps them) and as N processes without it (each socket on a process drawn at random).
Figures: CPU per move summed over every server process and Redis, the share of moves
that crossed processes, latency, each against one process's. `--rounds R` measures the
three R times, the order reversed every other round, and gives the medians."""

from __future__ import annotations

import argparse
import copy
import os
import statistics
from typing import Any

from bench.scenarios.rounds import measure_ours
from bench.scenarios.side import Say
from bench.scenarios.steady import number

# Issue #40's targets: N processes with affinity cost at most this much more CPU per move
# (summed) than one, and their p99 is within this many times one's.
CPU_TARGET = 1.15
P99_TARGET = 2.0


def setups(args: argparse.Namespace) -> dict[str, argparse.Namespace]:
    """The three ways of serving the same tables, by name."""
    processes = max(args.processes, 2)
    found = {}
    for name, count, affinity in (
        ("one process", 1, "on"),
        (f"{processes}, affinity", processes, "on"),
        (f"{processes}, no affinity", processes, "off"),
    ):
        each = copy.copy(args)
        each.processes, each.affinity, each.postgres, each.no_relay = count, affinity, True, True
        found[name] = each
    return found


async def run(args: argparse.Namespace, say: Say) -> dict[str, Any]:
    """Every setup `args.rounds` times; each round's run figures by setup name."""
    named = setups(args)
    rounds: list[dict[str, Any]] = []
    report: dict[str, Any] = {
        "tables": args.tables,
        "spectators": args.spectators,
        "rate": args.rate,
        "seconds": args.seconds,
        "cores": os.cpu_count(),
        "load_average_before": os.getloadavg(),
    }
    for count in range(args.rounds):
        order = list(named) if count % 2 == 0 else list(reversed(named))
        measured: dict[str, Any] = {}
        for name in order:
            say(f"round {count + 1}: {name}")
            measured[name] = (await measure_ours(named[name], {}, say))["run"]
        rounds.append(measured)
    report["rounds"] = rounds
    report["load_average_after"] = os.getloadavg()
    return report


def median(rounds: list[dict[str, Any]], name: str, key: str) -> float | None:
    values = [r[name][key] for r in rounds if r[name].get(key) is not None]
    return statistics.median(values) if values else None


ROWS = [
    ("achieved moves/s", "achieved", 1),
    ("servers CPU ms/move", "server_cpu_ms_per_action", 3),
    ("Redis CPU ms/move", "redis_cpu_ms_per_action", 3),
    ("servers + Redis ms/move", "total_cpu_ms_per_action", 3),
    ("moves crossing processes", "crossed_share", 3),
    ("writes a commit", "writes_per_commit", 2),
    ("latency p50 ms", "p50_ms", 1),
    ("latency p99 ms", "p99_ms", 1),
    ("errors", "errors", 0),
]


def print_compare(report: dict[str, Any]) -> None:
    """The medians of the rounds, one column per setup, and the ratios to one process."""
    rounds = report["rounds"]
    names = list(rounds[0])
    before, after = report["load_average_before"], report["load_average_after"]
    print(
        f"{report['tables']} tables x (4 players + {report['spectators']} spectators), "
        f"offered {report['rate']:g} moves/s for {report['seconds']:g} s, PostgreSQL; "
        f"{report['cores']} cores, load average {before[0]:.2f} before, {after[0]:.2f} after; "
        f"median of {len(rounds)} round(s)"
    )
    print(f"{'':26}" + "".join(f"{name:>20}" for name in names))
    for label, key, digits in ROWS:
        if key == "errors":
            shown = [str(sum(sum(r[n]["errors"].values()) for r in rounds)) for n in names]
        else:
            shown = [number(median(rounds, n, key), digits) for n in names]
        print(f"{label:26}" + "".join(f"{value:>20}" for value in shown))
    one = names[0]
    for name in names[1:]:
        cpu = ratio(median(rounds, name, "total_cpu_ms_per_action"), rounds, one)
        p99 = ratio(median(rounds, name, "p99_ms"), rounds, one, "p99_ms")
        print(
            f"{name} against one: CPU per move (servers + Redis) {number(cpu, 2)}x "
            f"(target <= {CPU_TARGET:g}x with affinity), p99 {number(p99, 2)}x "
            f"(target <= {P99_TARGET:g}x)"
        )


def ratio(
    value: float | None,
    rounds: list[dict[str, Any]],
    one: str,
    key: str = "total_cpu_ms_per_action",
) -> float | None:
    base = median(rounds, one, key)
    return value / base if value is not None and base else None
