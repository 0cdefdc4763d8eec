"""Configuration from the environment (pydantic-settings).

`DATABASE_URL` and `REDIS_URL` are read under those plain names, as the contract and
every hosting platform spell them; everything else is prefixed `SPADES_`
(for example `SPADES_BOT_DELAY=0`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from limits import parse
from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_SQLITE_PATH = Path("data") / "spades.db"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SPADES_", extra="ignore")

    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{DEFAULT_SQLITE_PATH}",
        validation_alias=AliasChoices("DATABASE_URL", "SPADES_DATABASE_URL"),
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("REDIS_URL", "SPADES_REDIS_URL")
    )
    # Address `spades serve` binds: every interface, so friends on the same network can join;
    # 127.0.0.1 keeps the server to this computer.
    host: str = "0.0.0.0"
    port: int = 8000
    # Seconds a disconnected player's seat waits before a bot plays for them; None = never.
    grace_seconds: float | None = None
    # Seconds the host's seat may be away, while another player is at the table, before
    # the host's controls pass to that player.
    host_away_seconds: float = Field(default=60.0, ge=0)
    # With Redis: a process's claim that it holds a seat's socket lasts this long unless
    # renewed (every third of it); a crashed process's seats show away after about this.
    presence_expiry_seconds: float = Field(default=15.0, gt=0)
    # With Redis: while its notices cannot arrive, read the versions of the tables this
    # process serves from the database this often, so split tables keep playing.
    outage_poll_seconds: float = Field(default=1.0, gt=0)
    # Human-like pause before a bot acts; 0 in tests.
    bot_delay: float = 0.8
    # Processes that make bot decisions, so that a thinking bot never holds up the event
    # loop (the GIL); 0: in a thread of the server process.
    bot_processes: int = Field(default=1, ge=0)
    # A table nobody watches and no bot or timer needs leaves memory after this many
    # seconds; the database keeps it, and the next request loads it again.
    room_idle_seconds: float = Field(default=300.0, ge=0)
    chat_max_length: int = 300
    # Sockets watching one table without a seat; one more is refused (1013).
    spectators_per_table: int = Field(default=200, ge=0)
    chat_history: int = 100
    table_name_max_length: int = 64
    seat_name_max_length: int = 32
    # Per-connection message rate limit, as understood by the `limits` library.
    ws_rate_limit: str = "20/second"
    # Chat lines per client address, over all its sockets and tables (a classroom behind one
    # NAT shares it).
    chat_rate_limit: str = "120/minute"
    # Hints a player may ask for (per socket), and a client address over all its sockets:
    # past either, a hint is refused with `rate_limited`.
    hint_rate_limit: str = "30/minute"
    hint_address_rate_limit: str = "300/minute"
    # Seeds for the next deal one seat may send (over all its sockets), and a client
    # address over all its seats: past either, a seed is refused with `rate_limited`.
    seed_rate_limit: str = "20/minute"
    seed_address_rate_limit: str = "120/minute"
    # Per-client-address budget of HTTP writes (new tables, seats, bots, rematches).
    http_rate_limit: str = "300/minute"
    # Per-message deflate on WebSockets (`spades serve`): off by default, since a table's
    # frames are a few KB and each compressing socket costs CPU and a compressor's memory
    # (docs/performance.md, Per-message deflate); on trades them for fewer bytes sent.
    ws_deflate: bool = False
    # -- Connection limits and trust (docs/operations.md, Security) --
    # One client address may be a school's or a carrier's NAT, or a proxy not trusted: these
    # keep a flood out and let hundreds of players in. Over any of them a socket is
    # closed with 1013.
    # Open WebSockets one client address may hold.
    ws_per_address: int = Field(default=500, ge=1)
    # New WebSockets one client address may open, as `limits` reads a rate (a moving window:
    # all at once after a restart, then as the window moves).
    ws_new_per_address: str = "500/minute"
    # Open WebSockets one client address may hold at one table.
    ws_per_table_per_address: int = Field(default=100, ge=1)
    # Comma-separated origins (`https://spades.example.com`, or `*` for any) whose pages may
    # open table sockets besides the server's own origin; browsers send it, scripts need not.
    allowed_origins: str | None = None
    # Seconds a request has to send its whole body; slower ones get 408.
    body_timeout_seconds: float = Field(default=10.0, gt=0)
    # Addresses (a reverse proxy's) whose X-Forwarded-For/-Proto `spades serve` believes;
    # unset: none, the TCP peer is the client. uvicorn's own name works too.
    forwarded_allow_ips: str | None = Field(
        default=None,
        validation_alias=AliasChoices("FORWARDED_ALLOW_IPS", "SPADES_FORWARDED_ALLOW_IPS"),
    )
    # The garbage collector's first threshold (allocations between young collections;
    # Python's own is 700), and whether what start-up made leaves its sight (gc.freeze):
    # with many tables in memory a full collection otherwise stops every table.
    gc_threshold: int = Field(default=50_000, ge=0)
    gc_freeze: bool = True
    log_level: str = "INFO"
    # One JSON object per log line; unset (None): JSON unless standard error is a terminal,
    # where a person reads plain lines. The Docker image and compose set it to true.
    log_json: bool | None = None
    # Run `alembic upgrade head` at start-up (zero-setup SQLite); operators may turn it off.
    migrate_on_start: bool = True

    @field_validator(
        "ws_rate_limit",
        "http_rate_limit",
        "chat_rate_limit",
        "hint_rate_limit",
        "hint_address_rate_limit",
        "seed_rate_limit",
        "seed_address_rate_limit",
        "ws_new_per_address",
    )
    @classmethod
    def _rate(cls, rate: str) -> str:
        """Refuse a rate the `limits` library cannot read, at start-up, by name."""
        try:
            parse(rate)
        except ValueError:
            raise ValueError(f"not a rate like '20/second' or '60/minute': {rate!r}") from None
        return rate


@lru_cache
def get_settings() -> Settings:
    return Settings()
