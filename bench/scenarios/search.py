"""The highest offered rate that passes (p99 under the budget, no errors, nearly all of
it achieved): doubling until a step fails, then `--bisections` halvings of the gap
(4), each step `--step-seconds`, a failed step tried once more."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

from bench.scenarios.side import Say, Side
from bench.scenarios.steady import (
    ACHIEVED_SHARE,
    LATENCY_BUDGET_MS,
    Figures,
    number,
    play,
    row,
    times,
    warn_client,
)

SEARCH_TRIES = 2  # runs of a rate before it fails
SEARCH_MAX_RATE = 20000.0


async def search(
    side: Side, http: httpx.AsyncClient, first: float, say: Say
) -> tuple[float | None, list[Figures]]:
    """The highest offered rate that passes: doubling until a step fails, then bisection."""
    steps: list[Figures] = []

    async def step(rate: float) -> bool:
        """A rate passes if one of SEARCH_TRIES runs passes: on a shared machine one
        scheduling stall of another process's making is enough to push a p99 over."""
        for _ in range(SEARCH_TRIES):
            figures = await play(side, http, rate, side.args.step_seconds)
            steps.append(figures)
            verdict = "pass" if figures.passed() else "fail"
            say(f"  {side.name} search: {row(figures)} -> {verdict}")
            await asyncio.sleep(0.5)  # let the last broadcasts settle between steps
            if figures.passed():
                return True
        return False

    passed: float | None = None
    failed: float | None = None
    rate = first
    while rate <= SEARCH_MAX_RATE:
        if await step(rate):
            passed = rate
            if failed is not None:
                break
            rate *= 2
        else:
            failed = rate
            if passed is not None or rate < 2:
                break
            rate /= 2
    if passed is None or failed is None:
        return passed, steps
    for _ in range(side.args.bisections):
        middle = round((passed + failed) / 2)
        if middle in (passed, failed):
            break
        if await step(middle):
            passed = middle
        else:
            failed = middle
    return passed, steps


def print_search(ours: dict[str, Any], relay: dict[str, Any]) -> None:
    """Each side's highest rate and their ratio, then every step each side ran."""
    best, theirs = ours["search_best_rate"], relay.get("search_best_rate")
    print(
        f"highest offered rate with p99 < {LATENCY_BUDGET_MS:g} ms, no errors and "
        f">= {ACHIEVED_SHARE:.0%} achieved: spades {number(best, 0)} actions/s, "
        f"relay {number(theirs, 0)} actions/s {times(best, theirs)}".rstrip()
    )
    steps = ours["search_steps"] + relay.get("search_steps", [])
    for name, result in (("spades", ours), ("relay", relay)):
        for figures in result.get("search_steps", []):
            print(f"  {name:7}{row(Figures(**figures))}")
        if result:
            print(f"  {name:7}memory KiB/table {number(result['rss_kib_per_table'])}")
    warn_client(steps)
