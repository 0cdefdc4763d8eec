"""Every benchmark under bench/ (and bench/investigations/) still runs and prints its
figures (tiny sizes: this checks that the scripts work against today's code, not how fast
anything is)."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from bench.harness.server import LiveServer, serve_options, served

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

RUNS = {
    "act_path": (
        [
            *("--tables", "2", "--actions", "40", "--repeats", "1", "--gap", "1"),
            *("--split", "--calls", "--disk", "--waking", "6"),
        ],
        [
            r"act path: 2 tables",
            r"calls per move \(.*\): [1-9]\d* Python, [1-9]\d* C",
            r"the loop's calls into SQLite: [1-9]\d*, p50 \d+ us, p99 \d+ us, max [\d.]+ ms",
            r"CPU per move: best \d+ us, median \d+ us",
            r"of it the sqlite3 transaction\s+\d+ us a move",
            r"one move alone, median CPU of 6 after waiting 1 ms:",
            r"back to back\s+\d+ us  x1\.0",
            r"asleep\s+\d+ us  x[\d.]+",
            r"spinning over 8 MiB\s+\d+ us  x[\d.]+",
        ],
    ),
    "investigations/cold": (
        ["--count", "5", "--gap", "1"],
        [
            r"median CPU us of one step: back to back, then after 1 ms asleep",
            r"the act's transaction \(bump, log row, COMMIT\)\s+[\d.]+\s+[\d.]+  x[\d.]+",
            r"locks held \(locking_mode=EXCLUSIVE\)\s+[\d.]+\s+[\d.]+",
            r"no version bump \(one page\)\s+[\d.]+\s+[\d.]+",
            r"pwrite64 x4 \(two frames\)\s+[\d.]+\s+[\d.]+",
        ],
    ),
    # Seed 20001 puts the expert 200 behind in both its games, and with two samples a
    # decision the bots choose the same way every run: both games fork.
    "investigations/blind_nil": (
        [*("--games", "2", "--seed", "20001", "--samples", "2", "--budget-ms", "5")],
        [
            r"2 games; the expert was asked in 2 \(\d+ asks\) and declared in 2",
            r"won declaring: \d/2 = [\d.]+% \(95% CI",
            r"won declining: \d/2 = [\d.]+% \(95% CI",
            r"games won more often declaring: \d, declining: \d \(sign test p = [\d.]+\)",
            r"share of plays won, declaring minus declining: mean [+-][\d.]+ percentage points",
            r"blind nils made: \d/2",
            r"declaring minus declining: mean [+-][\d.]+ points \(95% CI [+-][\d.]+ to",
            r"the expert's odds at the forks: the blind nil survived \d+% of its play-outs",
            r"lower half by the gain it saw \(1 games, gain [+-]\d+ to [+-]\d+\): made \d+%",
        ],
    ),
    "investigations/expert_work": (
        ["--games", "1", "--hands", "1"],
        [
            r"\d+ decisions of seat 0, expert level, pinned to core \d+",
            r"quiet core\s+: CPU median\s+[\d.]+ ms, p90\s+[\d.]+ ms; wall median",
            r"shared core\s+: CPU median\s+[\d.]+ ms, p90\s+[\d.]+ ms; wall median",
        ],
    ),
    "engine": (
        ["--seconds", "0.05", "--decisions", "50", "--games", "1", "--presets", "standard"],
        [r"standard\s+standard\s+[\d,]+ \([\d,]+\)", r"choose_action\s+median [\d.]+ ms"],
    ),
    # 160 actions a side and round: the relay's CPU over 20 (about 4 ms) could fall under
    # the 10 ms tick the process's CPU times are counted in, leaving its ratio undefined.
    "load": (
        ["--tables", "2", "--rate", "40", "--seconds", "4", "--bot-tables", "1", "--rounds", "2"],
        [
            r"achieved actions/s\s+[\d.]+\s+[\d.]+\s+[\d.]+x",
            r"latency p99 ms\s+[\d.]+\s+[\d.]+",
            r"server CPU ms/action\s+[\d.]+\s+[\d.]+",
            r"memory KiB/table\s+[\d.,-]+",
            r"errors spades: 0",
            r"errors relay: 0",
            r"bots beside: \{'bot_tables': 1, 'bot_games': \d+, 'bot_versions': [1-9]",
            r"round 2: relay first, server CPU ms/action [\d.]+ \(relay [\d.]+, [\d.]+x\)",
            r"server CPU ratio to the relay, median of 2 rounds: [\d.]+x",
            r"  [012] of 2 rounds at 2x or less\n",
        ],
    ),
    "tournament": (
        [
            "expert",
            "bench.opponents:nil_hunter",
            "--games",
            "2",
            "--samples",
            "2",
            "--target",
            "100",
            "--presets",
            "standard",
        ],
        [
            r"expert won \d+/2 = [\d.]+% \(95% CI [\d.]+%-[\d.]+%\)",
            r"expert: points per hand -?[\d.]+, bags per hand [\d.]+, nils made \d+/\d+",
            r"expert play decisions \(\d+\): wall median [\d.]+ ms, p99 [\d.]+ ms; CPU",
        ],
    ),
    "club": (
        ["--games", "3", "--requests", "5"],
        [
            r"a club of 8 members, 3 finished games, filled in [\d.]+ s",
            r"GET /api/clubs/\{id\}: 3 games listed, \d+ KiB; median [\d.]+ ms, p99 [\d.]+ ms",
        ],
    ),
    "lobby": (
        ["--tables", "2", "--moves", "5"],
        [r"lobby \(summary query\)\s+2 tables listed", r"[\d.]+ KiB per room"],
    ),
    "soak": (
        ["--tables", "3", "--seconds", "8", "--target", "100"],
        [
            r"games finished: [1-9]\d*, unfinished: 0",
            r"actions/s: \d+ \(version increments",
            r"stalls: 0 tables .* longest gap [\d.]+ s",
            r"write failures: store 0, store_retry 0",
            r"server log: 0 'database is locked' lines",
            r"RSS MB: start [\d.]+, peak [\d.]+, end [\d.]+, slope [+-][\d.]+ MB/min",
            r"soak: PASS \(3 tables, 8 s, \d+ games, 0 stalls, 0 write failures, RSS \d+ -> \d+",
        ],
    ),
}


def bench(name: str, *arguments: str, cwd: Path, timeout: float = 180) -> str:
    """The output of bench/`name`.py run with `arguments` in `cwd` (anything a benchmark
    writes stays out of the work tree); it must exit 0."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "bench" / f"{name}.py"), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize("name", sorted(RUNS))
def test_benchmark_runs_and_prints_its_figures(name: str, tmp_path: Path) -> None:
    arguments, expected = RUNS[name]
    output = bench(name, *arguments, cwd=tmp_path)
    for pattern in expected:
        assert re.search(pattern, output), f"{pattern!r} not in:\n{output}"


def load_of(server: LiveServer, tmp_path: Path) -> str:
    """bench/load.py's run of two tables at 20 actions/s on `server`, given as `--url`."""
    with served(server):
        return bench(
            "load", "--url", server.url, "--pid", str(server.pid), "--no-relay",
            "--tables", "2", "--rate", "20", "--seconds", "2", cwd=tmp_path,
        )  # fmt: skip


def test_load_with_the_stall_watchdog_and_deflate_writes_what_the_loop_waited_on(
    tmp_path: Path,
) -> None:
    """bench/investigations/stalls.py around our app, per-message deflate on, measured by
    the load client: the report is written when the server stops."""
    server = LiveServer(
        f"sqlite+aiosqlite:///{tmp_path / 'stalls.db'}",
        app="bench.investigations.stalls:app",
        env={"STALLS_FILE": str(tmp_path / "stalls.txt")},
        options=serve_options(deflate=True),
    )
    output = load_of(server, tmp_path)
    assert re.search(r"errors spades: 0", output), output
    report = (tmp_path / "stalls.txt").read_text()
    assert re.match(r"stalls over 30 ms: \d+, total [\d.]+ s, longest \d+ ms\n", report), report
    assert re.search(r"gc generation 0: \d+ collections", report), report
    assert re.search(r"young generation now: \d+ objects", report), report


def test_load_search_rounds_against_the_relay_print_the_median_ratio(tmp_path: Path) -> None:
    """Two search rounds, both servers each, their tables held and played by two load
    client processes, our message limit lifted: each round's highest rates and their
    ratio, then the median of the ratios."""
    output = bench(
        "load", "--tables", "2", "--search", "--rate", "800", "--step-seconds", "0.3",
        "--bisections", "1",
        "--rounds", "2", "--clients", "2", "--message-limit", "1000/second",
        "--deflate", "on", cwd=tmp_path, timeout=300,
    )  # fmt: skip
    rounds = re.findall(
        r"^round \d: (spades|relay) first, highest rate ([\d,]+)/s \(relay ([\d,]+)/s, "
        r"([\d.]+)x\)$",
        output,
        re.M,
    )
    assert [first for first, *_ in rounds] == ["spades", "relay"], output
    ratios = sorted(float(found[3]) for found in rounds)
    median = re.search(r"highest rate's ratio to the relay, median of 2 rounds: ([\d.]+)x", output)
    assert median and float(median[1]) == pytest.approx(sum(ratios) / 2, abs=0.01), output
    meeting = sum(1 for ratio in ratios if ratio >= 0.4)
    assert f"  {meeting} of 2 rounds at 0.4x or more\n" in output, output


def test_load_uncommitted_what_if_appends_lone_moves_instead_of_committing_them(
    tmp_path: Path,
) -> None:
    """The what-if server (bench/investigations/uncommitted.py) plays as ours does, each
    lone move a line of the file (every field of its write) where ours would commit it;
    what it played is then not in the database's action log."""
    server = LiveServer(
        f"sqlite+aiosqlite:///{tmp_path / 'what-if.db'}",
        app="bench.investigations.uncommitted:app",
        env={"UNCOMMITTED_FILE": str(tmp_path / "moves.jsonl")},
        options=serve_options(),
    )
    output = load_of(server, tmp_path)
    assert re.search(r"errors spades: 0", output), output
    moves = [orjson.loads(line) for line in (tmp_path / "moves.jsonl").read_bytes().splitlines()]
    assert len(moves) >= 20, moves
    assert {"table_id", "old_version", "action", "snapshot", "seats"} <= moves[0].keys()
    with contextlib.closing(sqlite3.connect(tmp_path / "what-if.db")) as database:
        logged = set(database.execute("SELECT game_id, seq FROM actions").fetchall())
    assert not logged & {(move["game_id"], move["seq"]) for move in moves}


def test_load_compares_one_process_with_two_with_and_without_affinity(
    tmp_path: Path, postgres_url: str, redis_url: str
) -> None:
    """`--compare`: one process, two with a table's sockets on one of them, two with each
    socket on either; CPU summed over the processes and Redis, the share of moves that
    crossed processes (none with affinity while no game ends), and the ratios to one."""
    output = bench(
        "load", "--compare", "--processes", "2", "--clients", "2", "--redis-url", redis_url,
        "--tables", "4", "--rate", "40", "--seconds", "3", "--spectators", "0",
        cwd=tmp_path, timeout=300,
    )  # fmt: skip
    names = re.search(r"^\s+one process\s+2, affinity\s+2, no affinity$", output, re.M)
    assert names, output
    crossing = re.search(r"^moves crossing processes\s+(\S+)\s+([\d.]+)\s+([\d.]+)$", output, re.M)
    assert crossing and crossing[1] == "0.000", output
    assert float(crossing[2]) == 0 < float(crossing[3]), output
    assert re.search(r"^servers \+ Redis ms/move(\s+[\d.]+){3}$", output, re.M), output
    assert re.search(r"^errors\s+0\s+0\s+0$", output, re.M), output
    assert re.search(r"2, affinity against one: CPU per move \(servers \+ Redis\) [\d.]+x", output)
    assert re.search(r"2, no affinity against one: .* p99 [\d.]+x", output)


def test_blind_nil_forks_written_as_they_finish_summarize_as_the_run_did(tmp_path: Path) -> None:
    """bench/investigations/blind_nil.py's `--out` file, read back by `--summarize`,
    prints the figures the run printed."""
    arguments = ("--games", "2", "--seed", "20001", "--samples", "2", "--budget-ms", "5")
    arguments = (*arguments, "--replicates", "2")
    run = bench("investigations/blind_nil", *arguments, "--out", "forks.jsonl", cwd=tmp_path)
    lines = (tmp_path / "forks.jsonl").read_text().splitlines()
    assert len(lines) == 2
    again = bench("investigations/blind_nil", "--summarize", "forks.jsonl", cwd=tmp_path)
    assert "declared in 2 (4 plays of each branch)" in again
    assert again == run.split("\n", 1)[1]
