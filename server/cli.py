"""The `spades` command: serve the tables, migrate a database, watch bots play a game.

    spades serve [--host H] [--port P] [--reload]
    spades migrate
    spades bots [--preset standard] [--seed N] [--target 500] [--level basic]

Settings come from the environment exactly as for the server (see server/settings.py);
flags override them for this run only.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence

import uvicorn
from sqlalchemy.engine import make_url

from server.observability import configure_logging
from server.settings import Settings

APP = "server.app:app"
# uvicorn's sans-I/O websockets protocol: the one the team tests the WebSocket layer with.
WS_PROTOCOL = "websockets-sansio"


def browser_url(host: str, port: int) -> str:
    """The address a person opens; a wildcard bind is reached through loopback.

    >>> browser_url("0.0.0.0", 8000)
    'http://127.0.0.1:8000/'
    >>> browser_url("::1", 9000)
    'http://[::1]:9000/'
    """
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/"


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that prints the URL once it really accepts connections
    (migrations done, socket bound), so whoever waits for the line can open it at once."""

    async def startup(self, sockets: list | None = None) -> None:
        await super().startup(sockets)
        if self.started and not self.should_exit:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            bound = self.config.host if self.config.host in ("0.0.0.0", "::") else host
            print(f"Spades is running: open {browser_url(bound, port)}", flush=True)


def serve(args: argparse.Namespace) -> int:
    settings = Settings()
    host = args.host if args.host is not None else settings.host
    port = args.port if args.port is not None else settings.port
    configure_logging(settings)
    if args.reload:
        # The reloader's worker is another process: announce before handing over to it.
        print(f"Spades is running: open {browser_url(host, port)}", flush=True)
        uvicorn.run(APP, host=host, port=port, ws=WS_PROTOCOL, reload=True, log_config=None)
        return 0
    # log_config=None: configure_logging already routes uvicorn's lines through our renderer.
    config = uvicorn.Config(APP, host=host, port=port, ws=WS_PROTOCOL, log_config=None)
    server = _AnnouncingServer(config)
    # After a graceful stop uvicorn re-raises the SIGTERM/SIGINT it handled, so the process
    # would die by that signal (exit 143) although everything closed cleanly. A stop that
    # was asked for and completed is a success: these handlers receive that re-raise.
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop_signal, _stop_already_done)
    server.run()
    return 0 if server.started else 1


def _stop_already_done(_signal: int, _frame: object) -> None:
    """Receives uvicorn's re-raised stop signal once its shutdown has completed."""


def _redacted(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


async def _migrate(url: str) -> None:
    from server.store.db import create_engine, migrate

    engine = create_engine(url)
    try:
        await migrate(engine)
    finally:
        await engine.dispose()


def migrate(_args: argparse.Namespace) -> int:
    settings = Settings()
    configure_logging(settings)
    asyncio.run(_migrate(settings.database_url))
    print(f"Database migrated to the latest schema: {_redacted(settings.database_url)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spades", description="Real-time multiplayer Spades server."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve_parser = commands.add_parser(
        "serve", help="serve the lobby, tables and WebSockets (SQLite by default)"
    )
    serve_parser.add_argument("--host", help="address to bind (default SPADES_HOST, 127.0.0.1)")
    serve_parser.add_argument(
        "--port", type=int, help="port to bind, 0 for any free one (default SPADES_PORT, 8000)"
    )
    serve_parser.add_argument(
        "--reload", action="store_true", help="restart when the code changes (development)"
    )
    serve_parser.set_defaults(run=serve)

    migrate_parser = commands.add_parser(
        "migrate", help="apply the database migrations (alembic upgrade head) to DATABASE_URL"
    )
    migrate_parser.set_defaults(run=migrate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `spades` console script."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
