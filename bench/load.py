"""Load benchmark: many tables of four player sockets and spectators play real games at an
offered rate of actions per second; the same client then drives a bare relay
(bench/relay.py) in the same run, and our figures are printed as ratios to the relay's.

Starts the table server (`uvicorn server.app:app --ws websockets-sansio --ws-max-size
8192 --ws-per-message-deflate false`, as `spades serve`; `--deflate on` for per-message
deflate on both servers) on a fresh SQLite file, on `--database-url`, or with `--postgres`
on a scratch PostgreSQL database (created on 127.0.0.1:5432, dropped afterwards); or
targets a running one with `--url` (then `--pid` gives its CPU and memory: how the apps
of bench/investigations/ are measured). The relay is served by the same uvicorn command
line (bench/harness/server.py).

Each of `--tables` tables is created listed, its four seats are taken over HTTP with
names, and its four players and `--spectators` spectators connect over the WebSocket
(docs/protocol.md). Then the tables play at `--rate` actions/s in all, open loop: table i
acts at start + i/rate + k*tables/rate (its k-th action), whatever the others do; a table
whose last action is still in flight acts as soon as it completes (the lag behind the
schedule is reported), and nothing is sent after the end of the run. The acting seat
picks a legal action from its own view. An action's latency runs from sending it until
every socket of the table has received the state with the new version. A finished game
is rematched, so the load stays steady. The client does no more with a state than the
measurement needs, the same for both servers (bench/harness/tables.py); the relay's
states are one of the table server's, recorded (`--relay-state padding`: a padded
string instead, as figures measured before 13dd2df were).

Figures (bench/scenarios/steady.py): achieved actions/s, latency p50/p99/p99.9, errors
by code, the server's own act -> broadcast time (its /metrics histogram), server CPU per
action (psutil: the server's CPU seconds over the run / actions), memory per table
(server RSS growth while the tables connect, after the first, / tables), the state
message size, and the load client's own CPU (a process uses one core at most: over 90 %
it says so, the figures are then the client's). `--clients N` splits the tables over N
client processes (table k in process k mod N, each on the same schedule as one process
would keep), for rates one client process cannot offer; the client's CPU is then given
for the busiest process and for all together. `--rounds N` measures both servers N
times, each time afresh, the one measured first alternating from the second round on,
and prints each round, the median of the rounds' CPU ratios, how many rounds meet the
target (2x or less), and from 6 rounds on a 95 % interval of the median
(bench/scenarios/rounds.py). `--search` finds, for each side, the highest offered rate
with p99 under 50 ms, no errors and at least 95 % of it achieved (doubling, then
`--bisections` steps of bisection, each step `--step-seconds`, a failed step tried once
more). `--profile` runs our server under `py-spy record` and prints the profile's path.
`--bot-tables N` adds, on our server only, N tables of four bots (`--bot-level`,
advanced by default) playing at bot delay 0 beside the measured tables (`--bot-preset`
for another variant than theirs), each replaced by a new one when its game ends: the
measured tables' figures then show what thinking bots cost the people at other tables,
and the bots' own decision times are read from the server's
`spades_bot_decision_seconds`. `--json` prints the figures as JSON on stdout (the rest
goes to stderr).

Several server processes: `--processes N` serves our side with N processes on one
PostgreSQL database (a scratch one unless given) and Redis (`--redis-url`, the local one
by default); a table's sockets all go to one process (table k to process k mod N, as
HAProxy's hash on the table's path keeps them in `spades serve --workers`), or with
`--affinity off` each socket to a process drawn at random. The CPU per action is then
summed over every server process, Redis's is given beside it and added, and the share of
moves that reached a process's sockets from another (its spades_remote_changes_total) is
given. `--compare` measures one process, N with affinity and N without (N = --processes,
2 at least), on the same tables at the same rate, and prints them side by side with the
ratios to one process (bench/scenarios/processes.py). The message limit per socket stays
as in production (20/s; a seat at a person's pace sends far fewer) unless
`--message-limit` lifts it: at 50 tables a search's higher steps ask more than 20 a second
of each seat, and the relay has no limit. Sockets per address and HTTP writes are
lifted, since every client here is 127.0.0.1.

    .venv/bin/python bench/load.py --tables 50 --spectators 1 --rate 100 --seconds 20
    .venv/bin/python bench/load.py --tables 50 --spectators 1 --rate 100 --rounds 5
    .venv/bin/python bench/load.py --postgres --tables 50 --rate 100 --seconds 20
    .venv/bin/python bench/load.py --tables 50 --search
    .venv/bin/python bench/load.py --tables 50 --search --clients 2  # two client processes
    .venv/bin/python bench/load.py --tables 50 --search --clients 2 --rounds 3 \
        --message-limit 1000/second    # the hot path's rate, three times, median
    .venv/bin/python bench/load.py --tables 50 --bot-tables 50 --rate 25 --no-relay
    .venv/bin/python bench/load.py --tables 2 --rate 10 --seconds 2      # a smoke run
    .venv/bin/python bench/load.py --compare --processes 2 --clients 2 --tables 200 \
        --rate 200 --seconds 20   # one process against two, with and without affinity
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.scenarios import processes, rounds
from bench.scenarios.search import print_search
from bench.scenarios.steady import print_run
from server.settings import Settings


def print_report(report: dict[str, Any]) -> None:
    before, after = report["load_average_before"], report["load_average_after"]
    print(
        f"load on {report['backend']}: {report['tables']} tables x (4 players + "
        f"{report['spectators']} spectators) = {report['sockets']} sockets; "
        f"{report['cores']} cores, load average {before[0]:.2f} before, {after[0]:.2f} after"
    )
    ours, relay = report["spades"], report.get("relay", {})
    if report["search"]:
        print_search(ours, relay)
    else:
        print(f"offered {report['rate']:g} actions/s for {report['seconds']:g} s, open loop")
        print_run(ours, relay)
    if report.get("rounds"):
        rounds.print_rounds(report["rounds"])
    if report.get("profile"):
        print(f"profile: {report['profile']}")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=1, help="per table")
    parser.add_argument("--rate", type=float, default=100, help="offered actions/s, all tables")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--search", action="store_true", help="find the highest passing rate")
    parser.add_argument("--step-seconds", type=float, default=4, help="each --search step")
    parser.add_argument(
        "--bisections", type=int, default=4, help="--search: bisection steps after doubling"
    )
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--target", type=int, default=200, help="target score of the games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--clients", type=int, default=1, help="load client processes holding the tables"
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="run our server under py-spy record: FILE.svg flame graph, .json speedscope, "
        ".txt collapsed stacks",
    )
    parser.add_argument(
        "--bot-tables", type=int, default=0, help="bot-only tables playing beside (ours only)"
    )
    parser.add_argument("--bot-level", default="advanced", help="the --bot-tables' bots")
    parser.add_argument("--bot-preset", help="the --bot-tables' preset (default: --preset)")
    parser.add_argument("--no-relay", action="store_true", help="skip the relay baseline")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="measure both servers this many times, alternating which goes first",
    )
    parser.add_argument(
        "--message-limit",
        default=Settings.model_fields["ws_rate_limit"].default,
        help="our server's per-socket message limit (default: production's); the relay has "
        "none. A search to 50 tables' highest rate needs more than 20/s a seat: 1000/second",
    )
    parser.add_argument(
        "--deflate",
        choices=("on", "off"),
        default="off",
        help="per-message deflate on both servers (off: as spades serve; uvicorn's own: on)",
    )
    parser.add_argument(
        "--relay-state",
        choices=("recorded", "padding"),
        default="recorded",
        help="the relay's state: one of ours, recorded (default), or the rounds before "
        "13dd2df's padded string, cheaper for the client to decode",
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="our server's processes (PostgreSQL, Redis)"
    )
    parser.add_argument(
        "--affinity",
        choices=("on", "off"),
        default="on",
        help="with --processes: a table's sockets on one process (on), or each at random",
    )
    parser.add_argument("--redis-url", help="Redis of several processes (the local one)")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="one process, --processes with affinity and without, side by side",
    )
    parser.add_argument("--json", action="store_true", help="figures as JSON on stdout")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--database-url", help="default: a fresh SQLite file")
    where.add_argument("--postgres", action="store_true", help="a scratch database")
    where.add_argument("--url", help="a running table server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--pid", type=int, help="with --url: the server's pid, for CPU and RSS")
    return parser.parse_args(argv)


def main() -> int:
    args = parse()
    out = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=out, flush=True)

    # The load client's collector, as the server's (server/realtime/collector.py): a young
    # collection per 50,000 allocations, not per 700.
    gc.set_threshold(50_000, 20, 100)
    if args.compare:
        report = asyncio.run(processes.run(args, say))
    else:
        report = asyncio.run(rounds.run(args, say))
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.compare:
        processes.print_compare(report)
    else:
        print_report(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
