"""A table server's /metrics (Prometheus text), read into histograms and counters."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import httpx

SAMPLE = re.compile(r"^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$", re.M)
LABEL = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


@dataclass
class Histogram:
    """One histogram's series: its count, sum, and cumulative bucket counts by bound."""

    count: float = 0.0
    total: float = 0.0
    buckets: dict[float, float] = field(default_factory=dict)

    def since(self, before: Histogram) -> Histogram:
        """What was observed between `before` and this."""
        return Histogram(
            self.count - before.count,
            self.total - before.total,
            {bound: n - before.buckets.get(bound, 0.0) for bound, n in self.buckets.items()},
        )


def parse(text: str) -> list[Sample]:
    return [
        Sample(name, dict(LABEL.findall(labels or "")), float(value))
        for name, labels, value in SAMPLE.findall(text)
    ]


async def scrape(http: httpx.AsyncClient) -> list[Sample] | None:
    """The server's samples now (None: it has no /metrics, as the relay)."""
    answer = await http.get("/metrics")
    return parse(answer.text) if answer.status_code == 200 else None


async def scrape_all(urls: list[str]) -> list[Sample] | None:
    """The samples of every server at `urls`, one list (None: one of them has no /metrics).
    Summing a name's samples gives the processes' total."""
    found: list[Sample] = []
    for url in urls:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            samples = await scrape(http)
        if samples is None:
            return None
        found += samples
    return found


def histograms(
    samples: list[Sample], name: str, by: tuple[str, ...] = ()
) -> dict[tuple[str, ...], Histogram]:
    """The histogram `name`, one per value of the labels `by`."""
    found: dict[tuple[str, ...], Histogram] = {}
    for sample in samples:
        part = sample.name.removeprefix(name)
        if part == sample.name or part not in ("_bucket", "_count", "_sum"):
            continue
        key = tuple(sample.labels.get(label, "") for label in by)
        histogram = found.setdefault(key, Histogram())
        # Added up: the same series from several processes' samples is their total.
        if part == "_count":
            histogram.count += sample.value
        elif part == "_sum":
            histogram.total += sample.value
        else:
            bound = float(sample.labels["le"])
            histogram.buckets[bound] = histogram.buckets.get(bound, 0.0) + sample.value
    return found


def counters(samples: list[Sample], name: str, by: str | None = None) -> dict[str, float]:
    """The counter `name` (its `_total` series), summed by the value of the label `by`
    (all of it under "" without one)."""
    found: dict[str, float] = {}
    for sample in samples:
        if sample.name == name:
            key = sample.labels.get(by, "") if by else ""
            found[key] = found.get(key, 0.0) + sample.value
    return found
