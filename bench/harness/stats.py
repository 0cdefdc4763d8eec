"""The benchmarks' statistics: percentiles, a distribution-free interval of a median,
a win rate's interval, a least-squares slope, histogram bounds, and a process's CPU and
memory (psutil)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import psutil


def percentile(ordered: Sequence[float], share: float) -> float:
    """The `share` percentile of sorted, non-empty `ordered`: the value at rank
    `share` * n, rounded down (`share` 1.0: the largest).

    >>> percentile([1.0, 2.0, 3.0, 4.0], 0.5), percentile([1.0, 2.0, 3.0, 4.0], 1.0)
    (3.0, 4.0)
    """
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def percentile_ms(ordered: Sequence[float], share: float) -> float | None:
    """`percentile` of sorted seconds, in milliseconds (None without samples)."""
    return 1000 * percentile(ordered, share) if ordered else None


def median_interval(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[float, float] | None:
    """A distribution-free interval holding the median of what `values` were drawn from
    with at least `confidence`: the k-th smallest and k-th largest value, for the largest
    k with P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2. None when even the smallest
    and largest values do not give that confidence (fewer than 6 values at 95 %).

    >>> median_interval([1.9, 1.4, 2.1, 1.8, 1.7, 2.0, 1.6, 1.5, 2.2, 1.3])
    (1.4, 2.1)
    >>> median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    True
    """
    ordered, n = sorted(values), len(values)
    tail, below, k = (1 - confidence) / 2, 0.0, 0
    # Add P(X = k) to the lower tail for as long as the tail stays within `tail`.
    while k < n and (more := below + math.comb(n, k) / 2**n) <= tail:
        below, k = more, k + 1
    if k == 0:
        return None
    return ordered[k - 1], ordered[n - k]


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a win rate (Wilson score interval)."""
    if games == 0:
        return 0.0, 1.0
    rate = wins / games
    centre = rate + z * z / (2 * games)
    spread = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    scale = 1 + z * z / games
    return (centre - spread) / scale, (centre + spread) / scale


def slope_per_minute(samples: Sequence[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value) samples, per minute (0 without a spread)."""
    if len(samples) < 2:
        return 0.0
    mean_t = sum(t for t, _ in samples) / len(samples)
    mean_v = sum(v for _, v in samples) / len(samples)
    spread = sum((t - mean_t) ** 2 for t, _ in samples)
    if spread == 0:
        return 0.0
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in samples) / spread


def bucket_bound(
    buckets: Iterable[tuple[float, float]], count: float, share: float
) -> float | None:
    """The upper bound of the first cumulative histogram bucket, (bound, samples at or
    under it), that holds `share` of `count` samples: the bucket of that percentile
    (None if no bucket does)."""
    return next((bound for bound, seen in sorted(buckets) if seen >= share * count), None)


def ratio(ours: float | None, theirs: float | None) -> float | None:
    """`ours` / `theirs` (None without both, or over nothing)."""
    return ours / theirs if ours is not None and theirs else None


def cpu_seconds(process: psutil.Process | None) -> float | None:
    """A process's CPU seconds so far, user and kernel (None without a process)."""
    if process is None:
        return None
    times = process.cpu_times()
    return float(times.user + times.system)


def kernel_seconds(process: psutil.Process | None) -> float | None:
    """A process's CPU seconds in the kernel so far (None without a process)."""
    return None if process is None else float(process.cpu_times().system)


def rss_mb(pid: int | None) -> float | None:
    """A process's resident memory in MiB (None without one, or once it is gone)."""
    if pid is None:
        return None
    try:
        return psutil.Process(pid).memory_info().rss / 2**20
    except psutil.Error:
        return None
