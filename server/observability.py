"""Metrics and structured logs.

Prometheus metrics come from `prometheus_client` (the reference client); logs from
`structlog`, as JSON lines or, at a terminal, readable ones. Log lines name the table and
version, never a seat token or a card in a hand: `scrub_secrets` runs on every line, ours
and uvicorn's alike, so a token or a hand logged by mistake is masked before it is written.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
from collections.abc import Mapping
from typing import Any

import structlog
from prometheus_client import Counter, Gauge, Histogram
from structlog.typing import EventDict, WrappedLogger

from server.settings import Settings

OPEN_TABLES = Gauge("spades_open_tables", "Tables whose game has not finished")
ROOMS_LOADED = Gauge(
    "spades_rooms_loaded", "Tables held in memory by this process (idle ones are evicted)"
)
CONNECTED_SOCKETS = Gauge(
    "spades_connected_sockets", "Open WebSocket connections", ["role"]
)  # role: player | spectator
ACTIONS = Counter("spades_actions_total", "Accepted game actions", ["type"])
REFUSED_ACTIONS = Counter("spades_refused_actions_total", "Refused actions", ["code"])


@functools.cache
def accepted(kind: str) -> Counter:
    """`ACTIONS` for one action type, looked up once per type (the engine's few: `labels`
    takes a lock and builds its key on every call)."""
    return ACTIONS.labels(type=kind)


ACTION_LATENCY = Histogram(
    "spades_action_latency_seconds",
    "From an act message received to its state broadcast sent (validate, persist, broadcast)",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
BOT_DECISIONS = Histogram(
    "spades_bot_decision_seconds",
    "A bot's move, from asking the decision pool to its answer (waiting for a process included)",
    ["level", "phase"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.5, 1.0, 2.5),
)
# A change another process made to a table this process has sockets at: it reached them
# across processes (a Redis notice, or the database poll while Redis is down). Over the
# accepted actions of every process, the share of moves that crossed.
REMOTE_CHANGES = Counter(
    "spades_remote_changes_total",
    "Other processes' changes to tables with sockets here, applied from their notices",
)
# Table-change notices this process committed: "sent" on Redis, or "unheard" (not sent,
# since no other process listened on the table's channel: a table whose sockets all
# reach this process).
TABLE_NOTICES = Counter(
    "spades_table_notices_total",
    "Table-change notices: sent to other processes (through Redis, or the database while "
    "Redis is down), or not sent as nobody else listened",
    ["outcome"],
)
# Group commit: the moves and other writes batched, and the transactions they took; their
# ratio is how many writes a commit carried.
COMMITS = Counter("spades_store_commits_total", "Transactions of batched writes committed")
COMMITTED_WRITES = Counter(
    "spades_store_committed_writes_total", "Writes committed in batched transactions"
)
ERRORS = Counter("spades_errors_total", "Unexpected server errors", ["where"])
SOCKETS_DROPPED = Counter(
    "spades_sockets_dropped_total",
    "WebSockets refused, dropped or found closing, by reason",
    ["reason"],
)  # reason: one of DROP_REASONS

# Why a socket was refused or dropped: a client too slow to read; over a cap or budget of its
# address (sockets open, open at one table, new ones); a page of another origin; a message
# the server could not send; and a message for a socket already closing (its peer left, or
# uvicorn closed it: no fault of the server's).
DROP_REASONS = (
    "too_slow",
    "per_address",
    "per_table",
    "new_per_address",
    "origin_not_allowed",
    "server_error",
    "closed",
)
# Every role and reason exists from the start, so a dashboard shows 0 rather than "no data".
for _role in ("player", "spectator"):
    CONNECTED_SOCKETS.labels(role=_role)
for _reason in DROP_REASONS:
    SOCKETS_DROPPED.labels(reason=_reason)

REDACTED = "[redacted]"
_HANDLER_NAME = "spades"

# Keys whose whole value is a secret or a hidden hand, wherever they sit in a log event.
_SECRET_KEY = re.compile(
    r"token|authorization|password|secret|cookie|invite|server_seed|deal_key", re.IGNORECASE
)
_HAND_KEYS = frozenset({"hand", "hands", "cards", "deck", "decks", "passed", "kitty"})
# Identifiers we do want in logs even though they may look random.
_ID_KEYS = frozenset({"table", "table_id", "request_id", "logger", "level", "timestamp"})

_CARD = r"(?:[2-9TJQKA][CDHS]|BJ|LJ)"
_CARD_CODE = re.compile(rf"^{_CARD}$")
# Two or more card codes in a row inside free text: "hand AS KH" or "['AS', 'KH', '2C']".
_CARD_RUN = re.compile(rf"(?<![A-Za-z0-9]){_CARD}(?:[\s,'\"]+{_CARD})+(?![A-Za-z0-9])")
_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[^\s,;\"']+")
_TOKEN_PARAM = re.compile(
    r"(?i)(token|authorization|password|secret|invite)([\"']?\s*[=:]\s*[\"']?)[^\s&,;\"'}]+"
)
_URL_PASSWORD = re.compile(r"(://[^:/@\s]+:)[^@/\s]+@")
# A run of 20+ URL-safe characters mixing letters and digits reads as a generated secret
# (secrets.token_urlsafe(16) gives 22); table ids live under _ID_KEYS so they survive.
_RANDOM_RUN = re.compile(
    r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z0-9_-]{20,}(?![\w-])", re.ASCII
)


def looks_secret(text: str) -> bool:
    """Whether `text` alone is a run `scrub_text` masks as a generated secret: 20 or more
    URL-safe characters with a digit and a letter among them (a long run of letters alone
    reads as a word). The server mints its tokens so that this always holds of them
    (`server.realtime.hosting.new_token`).

    >>> looks_secret("x5PQJ0f6VKfxSJ8Y93YUrybDfJ6z"), looks_secret("internationalisation")
    (True, False)
    """
    return _RANDOM_RUN.fullmatch(text) is not None


def scrub_text(text: str) -> str:
    """Mask token-like pieces and runs of card codes in free text.

    >>> scrub_text("hello token=abc123 from seat 2")
    'hello token=[redacted] from seat 2'
    >>> scrub_text("dealt ['AS', 'KH', '2C', 'BJ']")
    "dealt ['[redacted]']"
    >>> scrub_text("seat 1 played QS")
    'seat 1 played QS'
    """
    text = _URL_PASSWORD.sub(rf"\1{REDACTED}@", text)
    text = _BEARER.sub(rf"\1 {REDACTED}", text)
    text = _TOKEN_PARAM.sub(rf"\1\2{REDACTED}", text)
    text = _RANDOM_RUN.sub(REDACTED, text)
    return _CARD_RUN.sub(REDACTED, text)


def _looks_like_hand(value: Any) -> bool:
    """Two or more card codes together are a hand or a pass; one card is a public play."""
    return (
        isinstance(value, list | tuple | set | frozenset)
        and len(value) >= 2
        and all(isinstance(card, str) and _CARD_CODE.match(card) for card in value)
    )


def scrub_value(value: Any, key: str | None = None) -> Any:
    """Return a copy of a logged value with secrets and hidden cards masked.

    >>> scrub_value({"seat": 1, "token": "t", "view": {"hand": ["AS", "KH"], "trick": []}})
    {'seat': 1, 'token': '[redacted]', 'view': {'hand': '[redacted]', 'trick': []}}
    """
    if key is not None and (_SECRET_KEY.search(key) or key.lower() in _HAND_KEYS):
        return value if value is None else REDACTED
    if isinstance(value, Mapping):
        return {k: scrub_value(v, str(k)) for k, v in value.items()}
    if _looks_like_hand(value):
        return REDACTED
    if isinstance(value, list | tuple | set | frozenset):
        return [scrub_value(item) for item in value]
    if isinstance(value, bytes | bytearray):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        return value if key in _ID_KEYS else scrub_text(value)
    return value


def scrub_secrets(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    """structlog processor: the last line of defence before a line is rendered."""
    return {key: scrub_value(value, key) for key, value in event_dict.items()}


class _StderrHandler(logging.StreamHandler[Any]):
    """Writes to whatever `sys.stderr` is at the time, as logging's last-resort handler does,
    so a process (or test runner) that swaps stderr after start-up still gets the lines."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def _drop_formatting_leftovers(
    _logger: WrappedLogger, _method: str, event_dict: EventDict
) -> EventDict:
    """Drop record attributes that only repeat `event`: uvicorn's ANSI-coloured copy of its
    message, and `message`, which another handler's formatter may have set first."""
    event_dict.pop("color_message", None)
    event_dict.pop("message", None)
    return event_dict


def logs_as_json(settings: Settings, stream: Any = None) -> bool:
    """`SPADES_LOG_JSON` when set; unset, JSON unless `stream` (standard error) is a terminal.

    Containers, files and log shippers read JSON; a person running `spades serve` in a
    terminal reads plain lines.

    >>> import io
    >>> logs_as_json(Settings(log_json=None), io.StringIO())
    True
    >>> logs_as_json(Settings(log_json=False), io.StringIO())
    False
    """
    if settings.log_json is not None:
        return settings.log_json
    stream = sys.stderr if stream is None else stream
    try:
        return not stream.isatty()
    except (AttributeError, ValueError, OSError):  # no stream, or a closed one
        return True


class ProtocolNoise(logging.Filter):
    """Lowers uvicorn's ERROR records about a client breaking the protocol to INFO, without
    the traceback: a peer's bad frame is not a server error (it is answered with a close
    code, 1007 for invalid UTF-8). Every other record, real errors included, passes as is.
    """

    # uvicorn's messages (websockets-sansio) for what a client sent, not what the server did.
    MESSAGES = frozenset({"Invalid UTF-8 sequence received from client."})

    def filter(self, record: logging.LogRecord) -> bool:
        if (
            record.levelno >= logging.ERROR
            and isinstance(record.msg, str)
            and record.msg in self.MESSAGES
        ):
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info = record.exc_text = None
            # The level was checked for ERROR: a server logging at WARNING drops it now.
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True


def quiet_protocol_noise() -> None:
    """Install ProtocolNoise on uvicorn's error logger, once."""
    logger = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, ProtocolNoise) for f in logger.filters):
        logger.addFilter(ProtocolNoise())


# Loggers whose INFO lines at start-up say only what a library loaded: below DEBUG they would
# bury the link `spades serve` prints, and tell an operator nothing.
_QUIET_AT_INFO = ("alembic.runtime.plugins",)


def configure_logging(settings: Settings) -> None:
    """Send structlog and stdlib logging (uvicorn included) through one scrubbing renderer.

    JSON lines or readable console lines as `logs_as_json` decides. Safe to call more than
    once (tests, reloads): our root handler is replaced, not added again.
    """
    level = logging.getLevelName(settings.log_level.upper())
    if not isinstance(level, int):
        level = logging.INFO
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if logs_as_json(settings)
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*shared, structlog.stdlib.ExtraAdder(), _drop_formatting_leftovers],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            # Tracebacks quote exception messages: render them first, then scrub everything.
            structlog.processors.format_exc_info,
            scrub_secrets,
            renderer,
        ],
    )
    handler = _StderrHandler()
    handler.setFormatter(formatter)
    handler.set_name(_HANDLER_NAME)
    root = logging.getLogger()
    # Replace our own handler only: a test runner's capture handler must keep working.
    for previous in [h for h in root.handlers if h.get_name() == _HANDLER_NAME]:
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(level)
    quiet = logging.NOTSET if level <= logging.DEBUG else logging.WARNING
    for name in _QUIET_AT_INFO:
        logging.getLogger(name).setLevel(quiet)
    # uvicorn installs its own handlers; hand its records to ours so they are scrubbed too.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi"):
        uvicorn_logger = logging.getLogger(name)
        uvicorn_logger.handlers = []
        uvicorn_logger.propagate = True
        # Follow our level, not one an earlier uvicorn log config left on the logger.
        uvicorn_logger.setLevel(logging.NOTSET)
    quiet_protocol_noise()
    structlog.configure(
        processors=[
            *shared,
            structlog.stdlib.PositionalArgumentsFormatter(),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )
