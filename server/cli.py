"""The `spades` command: serve the tables, migrate a database, watch bots play a game.

    spades serve [--host H] [--port P] [--reload] [--workers N]
    spades migrate
    spades bots [--preset standard] [--seed N] [--target 500] [--level basic|advanced]
    spades verify RECORD.json

Settings come from the environment exactly as for the server (see server/settings.py);
flags override them for this run only. `spades serve` binds every interface by default and
prints the links to open: one for this computer, one for friends on the same network.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import os
import random
import shutil
import signal
import socket
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict

import psutil
import uvicorn
from pydantic import ValidationError
from sqlalchemy.engine import make_url

from server.api.sockets import MAX_MESSAGE_BYTES
from server.observability import configure_logging
from server.settings import Settings

APP = "server.app:app"
# uvicorn's sans-I/O websockets protocol: the one the team tests the WebSocket layer with.
WS_PROTOCOL = "websockets-sansio"


class ServeOptions(TypedDict):
    """What `spades serve` sets of uvicorn's options, beside the app, host and port."""

    ws: str
    ws_max_size: int
    ws_per_message_deflate: bool
    proxy_headers: bool
    forwarded_allow_ips: str | None
    log_config: None


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


WILDCARDS = ("", "0.0.0.0", "::")
# Interfaces of the bridges and virtual cables that Docker, Podman, Kubernetes networks and
# virtual machines make for their guests: friends on the network cannot reach those addresses.
GUEST_INTERFACES = (
    "docker", "br-", "veth", "podman", "cni", "flannel", "cali", "virbr", "lxcbr", "lxdbr",
    "vboxnet", "vmnet",
)  # fmt: skip
# The files Docker and Podman put at the root of every container. A virtual machine made
# from a container image may keep them: its root file system is a disk of its own.
CONTAINER_MARKERS = (".dockerenv", "run/.containerenv")
# Where the mount table of this process is, below the root given to in_container.
MOUNT_TABLE = "proc/self/mountinfo"


def lan_addresses(
    interfaces: Mapping[str, Iterable[Any]] | None = None,
    running: Mapping[str, Any] | None = None,
) -> list[str]:
    """This machine's IPv4 addresses that friends on the same network can open, private ones
    first. Read from the interface table (psutil by default), so finding them sends no packet.

    Skipped: loopback, link-local 169.254.x (no network gave an address), interfaces that are
    down, and the bridges containers and virtual machines use (GUEST_INTERFACES).

    >>> from types import SimpleNamespace as Addr
    >>> lan_addresses({
    ...     "lo": [Addr(family=socket.AF_INET, address="127.0.0.1")],
    ...     "docker0": [Addr(family=socket.AF_INET, address="172.17.0.1")],
    ...     "wlan0": [Addr(family=socket.AF_INET, address="192.168.1.20"),
    ...               Addr(family=socket.AF_INET6, address="fe80::1%wlan0")],
    ... }, running={})
    ['192.168.1.20']
    """
    if interfaces is None:
        interfaces = psutil.net_if_addrs()
    if running is None:
        running = psutil.net_if_stats()
    found: list[ipaddress.IPv4Address] = []
    for name, addresses in interfaces.items():
        if name.startswith(GUEST_INTERFACES) or (name in running and not running[name].isup):
            continue
        for address in addresses:
            if address.family != socket.AF_INET:
                continue
            ip = ipaddress.IPv4Address(address.address)
            if not (ip.is_loopback or ip.is_link_local or ip.is_unspecified or ip in found):
                found.append(ip)
    return [str(ip) for ip in sorted(found, key=lambda ip: not ip.is_private)]


def root_on_a_disk(mountinfo: str) -> bool:
    """Whether `/` is mounted from a block device (a disk, a partition, a virtual machine's
    drive), read from a mount table in the format of /proc/self/mountinfo. A container's
    root is an overlay (or another file system without a device of its own, device
    major 0), assembled by the runtime on the host's disk.

    >>> root_on_a_disk("27 1 254:0 / / rw,relatime - ext4 /dev/vda rw")
    True
    >>> root_on_a_disk("612 520 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l")
    False
    >>> root_on_a_disk("")
    False
    """
    found = False
    for line in mountinfo.splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[4] == "/":
            # The last mount on `/` is the one in sight; field 3 is its major:minor device.
            found = not fields[2].startswith("0:")
    return found


def in_container(root: Path = Path("/")) -> bool:
    """Inside Docker or Podman the addresses found may be the container's own, which friends
    cannot reach (unless it shares the host's network): the announcement says so. A marker
    file at `root` tells a container, unless the mount table under `root` shows the root
    on a disk of its own: a virtual machine that kept the marker from its image."""
    if not any((root / marker).exists() for marker in CONTAINER_MARKERS):
        return False
    try:
        mountinfo = (root / MOUNT_TABLE).read_text()
    except OSError:
        return True  # no mount table to tell otherwise: the marker decides
    return not root_on_a_disk(mountinfo)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _friends_line(host: str, port: int, lan: Sequence[str], container: bool) -> str:
    """How another device on the network opens the server bound to `host`."""
    if host not in WILDCARDS:
        return f"Friends on your network can join at {browser_url(host, port)}"
    links = " or ".join(browser_url(address, port) for address in lan)
    if host == "::" or not links:  # an IPv6 wildcard bind takes no IPv4 connections
        where = "the host machine's address" if container else "this computer's network address"
        return f"Friends on your network can join at {where}, port {port}."
    if container:
        return (
            f"Friends on your network can join at {links} if this container shares the host's "
            "network, else at the host machine's address on the port published for it."
        )
    return f"Friends on your network can join at {links}"


def announcement(
    host: str, port: int, lan: Sequence[str] = (), *, container: bool = False
) -> list[str]:
    """The lines `spades serve` prints once it accepts connections. The first is the link for
    this computer, exactly `Spades is running: open URL` (people and tests wait for it); then
    how friends join. A loopback bind is a choice to keep the server here: nothing to add.

    >>> print("\\n".join(announcement("0.0.0.0", 8000, ["192.168.1.20"])))
    Spades is running: open http://127.0.0.1:8000/
    Friends on your network can join at http://192.168.1.20:8000/
    Playing across the internet: see docs/operations.md (a reverse proxy or a tunnel).
    >>> announcement("127.0.0.1", 8000)
    ['Spades is running: open http://127.0.0.1:8000/']
    """
    lines = [f"Spades is running: open {browser_url(host, port)}"]
    if not _is_loopback(host):
        lines.append(_friends_line(host, port, lan, container))
        lines.append(
            "Playing across the internet: see docs/operations.md (a reverse proxy or a tunnel)."
        )
    return lines


def announce(host: str, port: int) -> None:
    """Print the announcement on standard output, where no log line goes."""
    lan = lan_addresses() if host in WILDCARDS else []
    print("\n".join(announcement(host, port, lan, container=in_container())), flush=True)


class _AnnouncingServer(uvicorn.Server):
    """A uvicorn server that prints the links once it really accepts connections
    (migrations done, socket bound), so whoever waits for them can open them at once."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started and not self.should_exit:
            host, port = self.servers[0].sockets[0].getsockname()[:2]
            announce(self.config.host if self.config.host in WILDCARDS else host, port)

    def _log_started_message(self, listeners: Sequence[socket.SocketType]) -> None:
        """uvicorn's "Uvicorn running on http://0.0.0.0:8000" would repeat the announcement
        with a link some browsers do not open: it is logged only at the DEBUG log level."""
        if logging.getLogger("uvicorn.error").isEnabledFor(logging.DEBUG):
            super()._log_started_message(listeners)


def serve(args: argparse.Namespace) -> int:
    """uvicorn on the app, logs configured from the first line, and the links once ready;
    with `--workers N` over 1, N of them behind HAProxy (server/workers.py)."""
    settings = Settings()
    host = args.host if args.host is not None else settings.host
    port = args.port if args.port is not None else settings.port
    configure_logging(settings)
    if args.workers < 1 or (args.workers > 1 and args.reload):
        print(
            "spades serve: --workers takes a count of 1 or more, without --reload", file=sys.stderr
        )
        return 2
    if args.workers > 1:
        return serve_workers(settings, host, port, args.workers)
    options: ServeOptions = {
        "ws": WS_PROTOCOL,
        # A frame over our own limit is refused (1009) before it is read whole, not after.
        "ws_max_size": MAX_MESSAGE_BYTES,
        "ws_per_message_deflate": settings.ws_deflate,
        # X-Forwarded-For/-Proto are believed only from the proxies named in settings.
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips or None,
        # log_config=None: configure_logging already routes uvicorn's lines through ours.
        "log_config": None,
    }
    if args.reload:
        # The reloader's worker is another process: announce before handing over to it.
        announce(host, port)
        uvicorn.run(APP, host=host, port=port, reload=True, **options)
        return 0
    config = uvicorn.Config(APP, host=host, port=port, **options)
    server = uvicorn.Server(config) if args.worker else _AnnouncingServer(config)
    # After a graceful stop uvicorn re-raises the SIGTERM/SIGINT it handled, so the process
    # would die by that signal (exit 143) although everything closed cleanly. A stop that
    # was asked for and completed is a success: these handlers receive that re-raise.
    for stop_signal in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop_signal, _stop_already_done)
    server.run()
    return 0 if server.started else 1


def serve_workers(settings: Settings, host: str, port: int, count: int) -> int:
    """`count` server processes behind HAProxy on `host`:`port`, migrated once first; the
    same announcement as one process once all of them and the proxy answer."""
    from server.workers import Refused, Workers, check, free_port

    haproxy = shutil.which("haproxy")
    try:
        check(settings, count, haproxy)
    except Refused as refused:
        print(f"spades serve: {refused}", file=sys.stderr)
        return 2
    assert haproxy is not None
    if settings.migrate_on_start:
        asyncio.run(_migrate(settings.database_url))
    if port == 0:
        port = free_port("::" if host == "::" else "0.0.0.0" if host in WILDCARDS else host)
    workers = Workers(host, port, count, haproxy)
    try:
        workers.start()
    except (Refused, KeyboardInterrupt) as error:
        workers.stop()
        if isinstance(error, Refused):
            print(f"spades serve: {error}", file=sys.stderr)
        return 1
    announce(host, port)
    return workers.watch()


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
    """Migrate as its own step (deploys with several processes), using the app's migrator."""
    settings = Settings()
    configure_logging(settings)
    asyncio.run(_migrate(settings.database_url))
    print(f"Database migrated to the latest schema: {_redacted(settings.database_url)}")
    return 0


# A game whose sides keep losing could in principle go on for ever; a terminal demo stops.
MAX_HANDS = 500


def _bid_words(bid: Any) -> str:
    return {0: "nil", "blind_nil": "blind nil"}.get(bid, str(bid))


def _side_names(rules: Any) -> list[str]:
    return [" and ".join(f"seat {seat}" for seat in seats) for seats in rules.sides]


def narrate(event: Mapping[str, Any], rules: Any, say: Callable[[str], None]) -> None:
    """One line (or a few) per public event; the deal itself is never printed."""
    kind = event["type"]
    sides = _side_names(rules)
    if kind == "hand_start":
        say(f"Hand {event['hand_number']} (dealer: seat {event['dealer']})")
    elif kind == "blind_nil" and event["declare"]:
        say(f"  seat {event['seat']} declares blind nil")
    elif kind == "bid":
        say(f"  seat {event['seat']} bids {_bid_words(event['bid'])}")
    elif kind == "bid_raised":
        say(f"  seat {event['seat']}'s bid is raised to {event['bid']}")
    elif kind == "trick":
        plays = ", ".join(f"{play['seat']}:{play['card']}" for play in event["cards"])
        say(f"  trick {event['number']:>2}: {plays} -> seat {event['winner']}")
    elif kind == "hand_scored":
        bids = " ".join(_bid_words(bid) for bid in event["bids"])
        tricks = " ".join(str(count) for count in event["tricks"])
        say(f"  bids {bids} | tricks {tricks}")
        for name, side in zip(sides, event["sides"], strict=True):
            notes = [f"{side['bags']} bags"]
            if side["bag_penalty"]:
                notes.append(f"bag penalty -{side['bag_penalty']}")
            for nil in side["nil"]:
                kind_of_nil = "blind nil" if nil["blind"] else "nil"
                outcome = "made" if nil["made"] else "set"
                notes.append(f"seat {nil['seat']} {kind_of_nil} {outcome} {nil['points']:+d}")
            say(f"  {name}: {side['points']:+d} -> {side['score']} ({', '.join(notes)})")
    elif kind == "game_over":
        winner = event["winner"]
        others = [side["score"] for k, side in enumerate(event["scores"]) if k != winner]
        scores = " to ".join(str(score) for score in [event["scores"][winner]["score"], *others])
        say(f"Winner: {sides[winner]}, {scores}")


def bots(args: argparse.Namespace) -> int:
    """A whole bot-only game with the engine, in this process: no server, no database."""
    from server.engine import Game, IllegalAction, Rules
    from server.engine.bots import BOT_LEVELS, choose_action

    if args.level not in BOT_LEVELS:
        levels = ", ".join(BOT_LEVELS)
        print(f"spades bots: no bot level {args.level!r}; choose {levels}", file=sys.stderr)
        return 2

    overrides = {"target_score": args.target} if args.target is not None else {}
    try:
        rules = Rules.preset(args.preset, **overrides)
    except ValidationError as error:
        reasons = "; ".join(problem["msg"] for problem in error.errors())
        print(f"spades bots: {reasons}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    game = Game(rules, seed=seed)
    print(
        f"{rules.players} {args.level} bots play '{args.preset}' to {rules.target_score} "
        f"(seed {seed})"
    )
    start = game.view(None)
    narrate({"type": "hand_start", "hand_number": 1, "dealer": start["dealer"]}, rules, print)
    while game.winner is None and game.hand_number <= MAX_HANDS:
        seat = game.turn[0]
        action = choose_action(rules, game.view(seat), args.level, rng)
        try:
            events = game.act(seat, action)
        except IllegalAction as error:
            print(f"spades bots: the {args.level} bot chose {action}: {error}", file=sys.stderr)
            return 1
        for event in events:
            narrate(event, rules, print)
    if game.winner is None:
        print(f"No winner after {MAX_HANDS} hands; stopped.")
    return 0


def verify(args: argparse.Namespace) -> int:
    """Recompute every deal of a game's record (the hand review's download) from its
    revealed seeds (docs/fairness.md): 0 when all matched, 1 when any did not."""
    from server.engine import Rules
    from server.engine.fairness import check_deals

    try:
        record = json.loads(Path(args.record).read_text(encoding="utf-8"))
        table = record["table"]
        checks = check_deals(Rules.model_validate(table["rules"]), table["id"], record["hands"])
    except OSError as error:
        print(f"spades verify: cannot read {args.record}: {error.strerror}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        print(f"spades verify: not a game record ({error!r})", file=sys.stderr)
        return 2
    if not checks:
        print("No finished hand in this record: nothing to verify.")
        return 1
    for check in checks:
        if check.matched:
            matched = "commitment, deck and cards dealt"
            if check.hand == 1:
                matched += ", first dealer"
            print(f"Hand {check.hand}: matched ({matched}).")
        else:
            print(f"Hand {check.hand}: DID NOT MATCH: {'; '.join(check.problems)}.")
    failed = [check.hand for check in checks if not check.matched]
    if failed:
        print(f"{len(failed)} of {len(checks)} hands did not match: {failed}.")
        return 1
    print("The deal matched." if len(checks) == 1 else f"All {len(checks)} deals matched.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="spades", description="Real-time multiplayer Spades server."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve_parser = commands.add_parser(
        "serve", help="serve the lobby, tables and WebSockets (SQLite by default)"
    )
    serve_parser.add_argument(
        "--host",
        help="address to bind (default SPADES_HOST, 0.0.0.0: every interface, so friends on "
        "your network can join; 127.0.0.1 for this computer only)",
    )
    serve_parser.add_argument(
        "--port", type=int, help="port to bind, 0 for any free one (default SPADES_PORT, 8000)"
    )
    serve_parser.add_argument(
        "--reload", action="store_true", help="restart when the code changes (development)"
    )
    serve_parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes, one per core, behind HAProxy on the port (needs REDIS_URL, "
        "PostgreSQL and haproxy; see docs/operations.md). Default 1: this process alone",
    )
    # A worker of `--workers`: no announcement (the parent makes it once for all).
    serve_parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    serve_parser.set_defaults(run=serve)

    migrate_parser = commands.add_parser(
        "migrate", help="apply the database migrations (alembic upgrade head) to DATABASE_URL"
    )
    migrate_parser.set_defaults(run=migrate)

    bots_parser = commands.add_parser(
        "bots", help="watch bots play a whole game in the terminal (no server needed)"
    )
    bots_parser.add_argument("--preset", default="standard", help="rules preset (standard)")
    bots_parser.add_argument("--seed", type=int, help="seed for a reproducible game")
    bots_parser.add_argument("--target", type=int, help="score that wins (the preset's)")
    bots_parser.add_argument(
        "--level", default="basic", help="bot level: basic or advanced (basic)"
    )
    bots_parser.set_defaults(run=bots)

    verify_parser = commands.add_parser(
        "verify", help="recompute every deal of a game's record from its revealed seeds"
    )
    verify_parser.add_argument("record", help="the game's record (the hand review's download)")
    verify_parser.set_defaults(run=verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `spades` console script."""
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except BrokenPipeError:
        # `spades bots | head`: the reader has seen enough; say nothing more to it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
