"""Metrics and structured logs.

Prometheus metrics come from `prometheus_client` (the reference client); JSON logs from
`structlog`. Log lines name the table and version, never a seat token or a card in a hand.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

OPEN_TABLES = Gauge("spades_open_tables", "Tables whose game has not finished")
CONNECTED_SOCKETS = Gauge(
    "spades_connected_sockets", "Open WebSocket connections", ["role"]
)  # role: player | spectator
ACTIONS = Counter("spades_actions_total", "Accepted game actions", ["type"])
REFUSED_ACTIONS = Counter("spades_refused_actions_total", "Refused actions", ["code"])
ACTION_LATENCY = Histogram(
    "spades_action_latency_seconds",
    "From an act message received to its state broadcast sent (validate, persist, broadcast)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
ERRORS = Counter("spades_errors_total", "Unexpected server errors", ["where"])
