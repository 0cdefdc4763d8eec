"""One run at an offered rate: every live table plays its share for some seconds, and
the figures of the run (`Figures`): achieved rate, latency percentiles, errors, the
server's own act -> broadcast time (its /metrics histogram), the server's and the
client's CPU, the state message size."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil

from bench.harness import metrics
from bench.harness.stats import bucket_bound, cpu_seconds, kernel_seconds, percentile_ms
from bench.scenarios.side import Side, play_share

LATENCY_BUDGET_MS = 50.0
ACHIEVED_SHARE = 0.95  # of the offered rate, for a run to pass
CLIENT_SATURATED = 90.0  # % of one core: above it the client, not the server, sets the pace
ACT_HISTOGRAM = "spades_action_latency_seconds"
REMOTE_CHANGES = "spades_remote_changes_total"
COMMITS, COMMITTED_WRITES = "spades_store_commits_total", "spades_store_committed_writes_total"


@dataclass
class Figures:
    """One run at one offered rate."""

    offered: float
    seconds: float
    tables: int
    achieved: float = 0.0
    actions: int = 0
    p50_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    max_ms: float | None = None
    lag_p99_ms: float | None = None  # how late actions left, behind the schedule
    errors: dict[str, int] = field(default_factory=dict)
    games: int = 0
    # Every server process's together (one unless --processes N).
    server_cpu_ms_per_action: float | None = None
    processes: int = 1
    # The shared Redis's CPU (several processes), and the servers' and Redis's together.
    redis_cpu_ms_per_action: float | None = None
    total_cpu_ms_per_action: float | None = None
    # Of the moves, the share that reached a process's sockets from another process (its
    # spades_remote_changes_total over the moves): what crossed Redis.
    crossed_share: float | None = None
    # Writes a database transaction carried, over every process (the group commit's
    # batching: fewer moves a process, fewer a commit).
    writes_per_commit: float | None = None
    # The part of it spent in the kernel (system time): sockets, the database's files.
    server_kernel_ms_per_action: float | None = None
    server_cpu_percent: float | None = None
    client_cpu_percent: float = 0.0  # the busiest client process's
    client_cpu_total_percent: float = 0.0  # every client process's together
    clients: int = 1  # load client processes
    state_bytes: float = 0.0  # mean size of a state message received
    # The server's own act -> broadcast time (its /metrics histogram; the relay has none).
    inside_mean_ms: float | None = None
    inside_p99_ms: float | None = None  # the upper bound of the bucket holding the p99

    def passed(self) -> bool:
        return (
            not self.errors
            and self.p99_ms is not None
            and self.p99_ms < LATENCY_BUDGET_MS
            and self.achieved >= ACHIEVED_SHARE * self.offered
        )


@dataclass
class Inside:
    """What the server processes' /metrics say together at one moment."""

    acted: metrics.Histogram
    remote_changes: float
    commits: float
    committed_writes: float


async def inside_now(side: Side) -> Inside | None:
    """Every server process's act -> broadcast histogram and remote changes, added up
    (None: the relay has no /metrics)."""
    samples = await metrics.scrape_all(side.urls)
    if samples is None:
        return None
    acted = metrics.histograms(samples, ACT_HISTOGRAM).get((), metrics.Histogram())
    counted = {
        name: metrics.counters(samples, name).get("", 0.0)
        for name in (REMOTE_CHANGES, COMMITS, COMMITTED_WRITES)
    }
    return Inside(acted, counted[REMOTE_CHANGES], counted[COMMITS], counted[COMMITTED_WRITES])


def cpu_of(processes: list[psutil.Process]) -> tuple[float, float] | None:
    """The CPU seconds so far of `processes` together, and the kernel's part of them."""
    if not processes:
        return None
    return (
        sum(cpu_seconds(process) or 0.0 for process in processes),
        sum(kernel_seconds(process) or 0.0 for process in processes),
    )


def inside_figures(timed: metrics.Histogram) -> tuple[float | None, float | None]:
    """Mean and p99 (the bound of the bucket that holds it) of the actions `timed`."""
    if timed.count <= 0:
        return None, None
    bound = bucket_bound(timed.buckets.items(), timed.count, 0.99)
    return 1000 * timed.total / timed.count, None if bound is None else 1000 * bound


async def play(side: Side, http: httpx.AsyncClient, rate: float, seconds: float) -> Figures:
    """Every live table plays its share of `rate` for `seconds`."""
    # The metrics are read outside the CPU window on both ends: the scrape is not play.
    inside_before = await inside_now(side)
    start = time.perf_counter() + 0.2  # every driver is waiting before the first is due
    servers, redis = side.servers(), side.redis()
    server_before = cpu_of(servers)
    redis_before = cpu_seconds(redis)
    if side.clients is not None:
        shares = await side.clients.play(rate, start, seconds)
    else:
        live = sum(table.dead is None for table in side.tables)
        shares = [await play_share(side, http, (rate, start, seconds, live))]
    wall = time.perf_counter() - start
    server_after = cpu_of(servers)
    redis_after = cpu_seconds(redis)
    inside_after = await inside_now(side)
    latencies = sorted(x for share in shares for x in share["latencies"])
    errors: Counter[str] = Counter()
    for share in shares:
        errors.update(share["errors"])
    states = sum(share["states"] for share in shares)
    client_cpu = [100 * share["client_cpu_seconds"] / wall for share in shares]
    figures = Figures(
        offered=rate,
        seconds=seconds,
        tables=sum(share["live"] for share in shares),
        achieved=sum(share["in_time"] for share in shares) / seconds,
        actions=len(latencies),
        p50_ms=percentile_ms(latencies, 0.5),
        p99_ms=percentile_ms(latencies, 0.99),
        p999_ms=percentile_ms(latencies, 0.999),
        max_ms=percentile_ms(latencies, 1.0),
        lag_p99_ms=percentile_ms(sorted(x for share in shares for x in share["lags"]), 0.99),
        errors=dict(errors),
        games=sum(share["games"] for share in shares),
        client_cpu_percent=max(client_cpu),
        client_cpu_total_percent=sum(client_cpu),
        clients=len(shares),
        state_bytes=sum(share["state_bytes"] for share in shares) / states if states else 0.0,
        processes=len(side.urls),
    )
    moves = len(latencies)
    if inside_before is not None and inside_after is not None:
        figures.inside_mean_ms, figures.inside_p99_ms = inside_figures(
            inside_after.acted.since(inside_before.acted)
        )
        if moves:
            crossed = inside_after.remote_changes - inside_before.remote_changes
            figures.crossed_share = crossed / moves
        commits = inside_after.commits - inside_before.commits
        if commits:
            written = inside_after.committed_writes - inside_before.committed_writes
            figures.writes_per_commit = written / commits
    if server_before is not None and server_after is not None:
        spent = server_after[0] - server_before[0]
        figures.server_cpu_percent = 100 * spent / wall
        if moves:
            figures.server_cpu_ms_per_action = 1000 * spent / moves
            kernel = server_after[1] - server_before[1]
            figures.server_kernel_ms_per_action = 1000 * kernel / moves
            figures.total_cpu_ms_per_action = figures.server_cpu_ms_per_action
            if redis_before is not None and redis_after is not None:
                figures.redis_cpu_ms_per_action = 1000 * (redis_after - redis_before) / moves
                figures.total_cpu_ms_per_action += figures.redis_cpu_ms_per_action
    return figures


def number(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def times(ours: float | None, theirs: float | None) -> str:
    """Ours over theirs as "1.23x" (empty without both)."""
    if ours is None or theirs is None or theirs == 0:
        return ""
    return f"{ours / theirs:.2f}x"


def row(figures: Figures) -> str:
    """One run in a line."""
    errors = ", ".join(f"{code} {n}" for code, n in sorted(figures.errors.items())) or "0"
    return (
        f"offered {figures.offered:g}/s, achieved {figures.achieved:.1f}/s, "
        f"p50 {number(figures.p50_ms)} p99 {number(figures.p99_ms)} "
        f"p99.9 {number(figures.p999_ms)} ms, "
        f"errors {errors}, CPU % of a core: server {number(figures.server_cpu_percent, 0)}, "
        f"client {figures.client_cpu_percent:.0f}"
    )


# The rows of a run's table: label, figure, digits shown.
RUN_ROWS = [
    ("achieved actions/s", "achieved", 1),
    ("actions completed", "actions", 0),
    ("latency p50 ms", "p50_ms", 1),
    ("latency p99 ms", "p99_ms", 1),
    ("latency p99.9 ms", "p999_ms", 1),
    ("latency max ms", "max_ms", 1),
    ("schedule lag p99 ms", "lag_p99_ms", 1),
    ("in server: mean ms", "inside_mean_ms", 1),
    ("in server: p99 <= ms", "inside_p99_ms", 1),
    ("server CPU ms/action", "server_cpu_ms_per_action", 2),
    ("  of it in the kernel", "server_kernel_ms_per_action", 2),
    ("server CPU % of a core", "server_cpu_percent", 0),
    ("Redis CPU ms/action", "redis_cpu_ms_per_action", 3),
    ("servers + Redis ms/action", "total_cpu_ms_per_action", 2),
    ("moves crossing processes", "crossed_share", 3),
    ("writes a commit", "writes_per_commit", 2),
    ("memory KiB/table", "rss_kib_per_table", 1),
    ("client CPU %, busiest", "client_cpu_percent", 0),
    ("client CPU %, all", "client_cpu_total_percent", 0),
    ("state message bytes", "state_bytes", 0),
    ("games finished", "games", 0),
]


def print_run(ours: dict[str, Any], relay: dict[str, Any]) -> None:
    """The run's figures, ours beside the relay's and their ratio."""
    a = {**ours["run"], "rss_kib_per_table": ours["rss_kib_per_table"]}
    b = {**relay["run"], "rss_kib_per_table": relay["rss_kib_per_table"]} if relay else {}
    print(f"{'':24}{'spades':>12}{'relay':>12}{'ratio':>10}")
    for label, key, digits in RUN_ROWS:
        mine, theirs = a[key], b.get(key)
        shown = f"{number(mine, digits):>12}{number(theirs, digits):>12}"
        print(f"{label:24}{shown}{times(mine, theirs):>10}")
    for name, figures in (("spades", a), ("relay", b)):
        errors = figures.get("errors")
        if figures:
            shown = ", ".join(f"{c} {n}" for c, n in sorted(errors.items())) if errors else "0"
            print(f"errors {name}: {shown}")
    warn_client([a, b])


def warn_client(runs: list[dict[str, Any]]) -> None:
    busiest = max((r.get("client_cpu_percent", 0.0) for r in runs), default=0.0)
    if busiest > CLIENT_SATURATED:
        print(
            f"note: the load client used {busiest:.0f} % of a core: it saturated, so the "
            "figures at that rate are bounded by the client, not the server"
        )
