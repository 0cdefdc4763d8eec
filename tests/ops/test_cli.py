"""`spades migrate` on real SQLite and PostgreSQL databases, through the console script."""

from __future__ import annotations

import io
import json
import logging
import os
import pty
import queue
import random
import re
import select
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import namedtuple
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import structlog
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from server.cli import announcement, build_parser, in_container, lan_addresses, main
from server.observability import configure_logging, logs_as_json
from server.settings import Settings
from server.store.db import alembic_config

SPADES = Path(sys.executable).parent / "spades"
HEAD = ScriptDirectory.from_config(alembic_config()).get_current_head()


def run_spades(*args: str, database_url: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": database_url, "SPADES_LOG_JSON": "true"}
    return subprocess.run(
        [str(SPADES), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_parser_knows_every_command():
    parser = build_parser()
    assert parser.parse_args(["serve", "--port", "0"]).port == 0
    assert parser.parse_args(["migrate"]).command == "migrate"
    with pytest.raises(SystemExit):
        parser.parse_args([])


def test_migrate_brings_a_new_sqlite_file_to_head_and_is_idempotent(tmp_path):
    database = tmp_path / "nested" / "spades.db"
    url = f"sqlite+aiosqlite:///{database}"
    for _ in range(2):
        result = run_spades("migrate", database_url=url, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert f"Database migrated to the latest schema: {url}" in result.stdout
    with sqlite3.connect(database) as connection:
        [(version,)] = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    assert version == HEAD


async def test_migrate_brings_a_new_postgres_database_to_head(fresh_postgres_database, tmp_path):
    result = run_spades("migrate", database_url=fresh_postgres_database, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    dsn = make_url(fresh_postgres_database).set(drivername="postgresql")
    connection = await asyncpg.connect(dsn.render_as_string(hide_password=False))
    try:
        version = await connection.fetchval("SELECT version_num FROM alembic_version")
    finally:
        await connection.close()
    assert version == HEAD


def test_migrate_hides_the_password_it_reports(tmp_path):
    url = "postgresql+asyncpg://spades:hunter2secret@127.0.0.1:1/spades"
    result = run_spades("migrate", database_url=url, cwd=tmp_path)
    assert result.returncode != 0, "nothing listens on port 1"
    assert "hunter2secret" not in result.stdout + result.stderr


def play_bots(capsys, *args: str) -> tuple[int, list[str]]:
    code = main(["bots", *args])
    return code, capsys.readouterr().out.splitlines()


def test_bots_play_a_whole_standard_game_to_the_target(capsys):
    code, lines = play_bots(capsys, "--seed", "1")
    assert code == 0
    assert lines[0] == "4 basic bots play 'standard' to 500 (seed 1)"
    hands = [n for n, line in enumerate(lines) if line.startswith("Hand ")]
    assert lines[hands[0]].startswith("Hand 1 (dealer: seat ")
    for start, end in zip(hands, [*hands[1:], len(lines) - 1], strict=True):
        hand = lines[start:end]
        assert sum(" bids " in line and "|" not in line for line in hand) == 4
        tricks = [line for line in hand if line.lstrip().startswith("trick ")]
        assert len(tricks) == 13
        assert all(len(re.findall(r"\b\d:[2-9TJQKA][CDHS]\b", line)) == 4 for line in tricks)
    winner = re.fullmatch(r"Winner: seat (\d) and seat (\d), (-?\d+) to (-?\d+)", lines[-1])
    assert winner, lines[-1]
    assert int(winner[3]) >= 500 > int(winner[4])
    last_hand_scores = lines[-3:-1]
    assert any(f"-> {winner[3]} (" in line for line in last_hand_scores), last_hand_scores


def test_bots_game_is_reproducible_from_its_seed(capsys):
    assert play_bots(capsys, "--seed", "7", "--target", "150") == play_bots(
        capsys, "--seed", "7", "--target", "150"
    )


def test_bots_play_cutthroat_with_three_seats(capsys):
    code, lines = play_bots(capsys, "--preset", "cutthroat", "--seed", "3", "--target", "150")
    assert code == 0
    tricks = [line for line in lines if line.lstrip().startswith("trick ")]
    assert tricks and all(len(re.findall(r"\b\d:\w\w\b", line)) == 3 for line in tricks)
    assert re.fullmatch(r"Winner: seat \d, \d+ to -?\d+ to -?\d+", lines[-1])


def test_bots_refuse_unknown_presets_and_levels_with_a_message(capsys):
    assert main(["bots", "--preset", "nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err
    assert main(["bots", "--level", "grandmaster"]) == 2
    assert "no bot level 'grandmaster'" in capsys.readouterr().err


# The shapes psutil.net_if_addrs() and psutil.net_if_stats() give, with the fields we read.
Address = namedtuple("Address", "family address")
Stats = namedtuple("Stats", "isup")
INTERNET_LINE = "Playing across the internet: see docs/operations.md (a reverse proxy or a tunnel)."


def test_lan_addresses_skip_loopback_link_local_down_and_guest_bridges():
    ipv4 = socket.AF_INET
    interfaces = {
        "lo": [Address(ipv4, "127.0.0.1"), Address(socket.AF_INET6, "::1")],
        "tailscale0": [Address(ipv4, "100.101.102.103")],
        "docker0": [Address(ipv4, "172.17.0.1")],
        "br-5f2a9c": [Address(ipv4, "172.18.0.1")],
        "veth12ab": [Address(ipv4, "169.254.7.7")],
        "virbr0": [Address(ipv4, "192.168.122.1")],
        "podman0": [Address(ipv4, "10.88.0.1")],
        "enp3s0": [Address(ipv4, "169.254.10.20")],  # no DHCP answer
        "wlan0": [
            Address(socket.AF_PACKET, "02:fc:00:00:00:01"),
            Address(ipv4, "192.168.1.20"),
            Address(socket.AF_INET6, "fe80::1%wlan0"),
        ],
        "wlan0:1": [Address(ipv4, "192.168.1.20")],  # the same address twice
        "eth1": [Address(ipv4, "10.0.0.5")],
    }
    running = {name: Stats(isup=name != "eth1") for name in interfaces}
    # Private addresses come first: they are the ones friends on the same network reach.
    assert lan_addresses(interfaces, running) == ["192.168.1.20", "100.101.102.103"]
    assert lan_addresses({"lo": interfaces["lo"]}, {}) == []


def test_lan_addresses_of_this_machine_are_ipv4_and_not_loopback():
    for address in lan_addresses():
        assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address)
        assert not address.startswith(("127.", "169.254."))


def test_announcement_names_this_computer_first_then_how_friends_join():
    first = "Spades is running: open http://127.0.0.1:8000/"
    assert announcement("0.0.0.0", 8000, ["192.168.1.20", "10.0.0.5"]) == [
        first,
        "Friends on your network can join at http://192.168.1.20:8000/ or http://10.0.0.5:8000/",
        INTERNET_LINE,
    ]
    assert announcement("0.0.0.0", 8000, [])[1] == (
        "Friends on your network can join at this computer's network address, port 8000."
    )
    in_docker = announcement("0.0.0.0", 8000, ["172.17.0.2"], container=True)
    assert in_docker[0] == first
    assert in_docker[1].startswith("Friends on your network can join at http://172.17.0.2:8000/ ")
    assert "the host machine's address on the port published for it" in in_docker[1]
    assert announcement("192.168.1.20", 9000, ["10.0.0.5"]) == [
        "Spades is running: open http://192.168.1.20:9000/",
        "Friends on your network can join at http://192.168.1.20:9000/",
        INTERNET_LINE,
    ]
    # An IPv6 wildcard takes no IPv4 connections: no IPv4 link for friends.
    assert announcement("::", 8000, ["192.168.1.20"])[:2] == [
        "Spades is running: open http://[::1]:8000/",
        "Friends on your network can join at this computer's network address, port 8000.",
    ]
    # Bound to loopback on purpose: only this computer can join, so that is all it says.
    for loopback in ("127.0.0.1", "::1", "localhost"):
        assert len(announcement(loopback, 8000, ["192.168.1.20"])) == 1


def test_in_container_looks_for_the_files_docker_and_podman_leave(tmp_path):
    assert not in_container(tmp_path)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / ".containerenv").touch()
    assert in_container(tmp_path)
    (tmp_path / "run" / ".containerenv").unlink()
    (tmp_path / ".dockerenv").touch()
    assert in_container(tmp_path)


# Mount tables (/proc/self/mountinfo) of a virtual machine whose root is its own drive,
# and of a container whose root is an overlay the runtime assembled on the host's disk.
VM_MOUNTS = """22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
"""
CONTAINER_MOUNTS = """612 520 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/var/lib/l
613 612 0:55 / /proc rw,nosuid,nodev,noexec,relatime - proc proc rw
"""


def test_a_virtual_machine_that_kept_its_images_marker_is_no_container(tmp_path):
    """A plain VM built from a container image keeps /.dockerenv: the friends' line names
    its address, without a word about containers; a real container still gets one."""
    (tmp_path / ".dockerenv").touch()
    (tmp_path / "proc" / "self").mkdir(parents=True)
    mounts = tmp_path / "proc" / "self" / "mountinfo"
    mounts.write_text(VM_MOUNTS)
    assert not in_container(tmp_path)
    friends = announcement("0.0.0.0", 8000, ["192.0.2.2"], container=in_container(tmp_path))[1]
    assert friends == "Friends on your network can join at http://192.0.2.2:8000/"
    mounts.write_text(CONTAINER_MOUNTS)
    assert in_container(tmp_path)
    friends = announcement("0.0.0.0", 8000, ["172.17.0.2"], container=in_container(tmp_path))[1]
    assert "if this container shares the host's network" in friends
    # No marker: no container, whatever the mount table says.
    (tmp_path / ".dockerenv").unlink()
    assert not in_container(tmp_path)


class FakeStream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def test_logs_are_json_unless_stderr_is_a_terminal_and_the_setting_wins():
    assert logs_as_json(Settings(log_json=None), FakeStream(terminal=False)) is True
    assert logs_as_json(Settings(log_json=None), FakeStream(terminal=True)) is False
    assert logs_as_json(Settings(log_json=True), FakeStream(terminal=True)) is True
    assert logs_as_json(Settings(log_json=False), FakeStream(terminal=False)) is False
    closed = io.StringIO()
    closed.close()  # isatty() raises on it
    assert logs_as_json(Settings(log_json=None), closed) is True


@pytest.mark.parametrize("terminal", [True, False])
def test_configure_logging_renders_for_a_terminal_or_for_machines(monkeypatch, terminal):
    monkeypatch.delenv("SPADES_LOG_JSON", raising=False)
    stderr = FakeStream(terminal)
    monkeypatch.setattr(sys, "stderr", stderr)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure_logging(Settings())
        structlog.get_logger("spades.test").info("table_created", table="t1")
    finally:
        root.handlers, root.level = saved[0], saved[1]
        structlog.reset_defaults()
    [line] = stderr.getvalue().splitlines()
    if terminal:
        assert "[info" in line and "table_created" in line and "table=t1" in line
        assert not line.startswith("{")
    else:
        assert json.loads(line)["event"] == "table_created"


def serve_env(tmp_path: Path) -> dict[str, str]:
    """`spades serve` as a person runs it: no SPADES_ setting, a scratch SQLite database."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SPADES_")}
    env.pop("REDIS_URL", None)
    return {**env, "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'spades.db'}"}


def read_lines(stream, count: int, timeout: float = 60) -> list[str]:
    """The first `count` lines of a child's output, or fewer if it stops or takes too long."""
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in stream], daemon=True).start()
    found: list[str] = []
    deadline = time.monotonic() + timeout
    while len(found) < count and time.monotonic() < deadline:
        try:
            found.append(lines.get(timeout=1).rstrip("\n"))
        except queue.Empty:
            continue
    return found


@pytest.mark.slow
def test_serve_prints_the_links_first_and_logs_json_to_a_pipe(tmp_path):
    server = subprocess.Popen(
        [str(SPADES), "serve", "--port", "0"], cwd=tmp_path, env=serve_env(tmp_path),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        lines = read_lines(server.stdout, 3)
        assert lines, f"nothing printed (exit {server.poll()})"
        opened = re.fullmatch(r"Spades is running: open http://127\.0\.0\.1:(\d+)/", lines[0])
        assert opened, lines
        port = int(opened[1])
        # Bound to every interface by default, announced with this machine's LAN addresses.
        expected = announcement("0.0.0.0", port, lan_addresses(), container=in_container())
        assert lines[1:] == expected[1:]
        assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=10).status_code == 200
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=30)
    assert server.returncode == 0
    records = [json.loads(line) for line in stderr.splitlines() if line.strip()]
    events = [record["event"] for record in records]
    assert "Application startup complete." in events
    # Nothing repeats the link with a 0.0.0.0 address, and library chatter stays out.
    assert not any(event.startswith(("Uvicorn running on", "setup plugin")) for event in events)


@pytest.mark.slow
def test_serve_logs_readable_lines_to_a_terminal(tmp_path):
    terminal, child_side = pty.openpty()
    server = subprocess.Popen(
        [str(SPADES), "serve", "--host", "127.0.0.1", "--port", "0"], cwd=tmp_path,
        env=serve_env(tmp_path), stdout=subprocess.PIPE, stderr=child_side, text=True,
    )  # fmt: skip
    os.close(child_side)
    written = b""
    try:
        lines = read_lines(server.stdout, 1)
        assert lines and lines[0].startswith("Spades is running: open http://127.0.0.1:"), lines
        deadline = time.monotonic() + 30
        while b"Application startup complete." not in written and time.monotonic() < deadline:
            if select.select([terminal], [], [], 1)[0]:
                try:
                    written += os.read(terminal, 65536)
                except OSError:  # the server stopped: its side of the terminal is closed
                    break
    finally:
        server.terminate()
        server.wait(30)
        os.close(terminal)
    logged = written.decode().splitlines()
    assert any("Application startup complete." in line and "[info" in line for line in logged)
    assert not any(line.lstrip().startswith("{") for line in logged), logged


@pytest.mark.slow
@pytest.mark.parametrize("setting, compressed", [(None, False), ("true", True)])
def test_serve_turns_per_message_deflate_on_only_when_told(tmp_path, setting, compressed):
    env = serve_env(tmp_path)
    if setting is not None:
        env["SPADES_WS_DEFLATE"] = setting
    server = subprocess.Popen(
        [str(SPADES), "serve", "--host", "127.0.0.1", "--port", "0"], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        lines = read_lines(server.stdout, 1)
        opened = re.fullmatch(r"Spades is running: open http://127\.0\.0\.1:(\d+)/", lines[0])
        assert opened, lines
        # A client that offers permessage-deflate, as browsers do; the server answers the
        # handshake with the extension only when the setting is on.
        key = "dGhlIHNhbXBsZSBub25jZQ=="
        with socket.create_connection(("127.0.0.1", int(opened[1])), timeout=10) as peer:
            peer.sendall(
                (
                    "GET /ws/tables/nosuch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                    "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
                ).encode()
            )
            answer = b""
            while b"\r\n\r\n" not in answer:
                chunk = peer.recv(4096)
                assert chunk, answer
                answer += chunk
        head = answer.split(b"\r\n\r\n")[0].decode().lower()
        assert head.startswith("http/1.1 101"), head
        assert ("permessage-deflate" in head) is compressed, head
    finally:
        server.terminate()
        server.communicate(timeout=30)


def fair_record(tmp_path: Path, tamper: bool = False, **house: Any) -> Path:
    """A whole bot game dealt from seeds, saved as the hand review's download (``house``:
    rule overrides on the standard preset)."""
    from server.engine import Game, Rules
    from server.engine.bots import choose_action
    from server.engine.fairness import Deals

    rules = Rules.preset("standard", target_score=150, **house)
    game = Game(rules, deals=Deals.fresh("cli01", bytes(range(32)), {0: "me"}))
    rng = random.Random(4)
    while game.phase != "over":
        seat = game.turn[0]
        game.act(seat, choose_action(rules, game.view(seat), "basic", rng))
    hands = [
        {**result, "hand": number, "fairness": game.deal_proof(number)}
        for number, result in enumerate(game.hand_results, start=1)
    ]
    if tamper:
        hands[1]["fairness"]["deck"].reverse()
    record = {"table": {"id": "cli01", "rules": rules.model_dump()}, "hands": hands}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return path


def test_verify_says_every_deal_of_a_record_matched(tmp_path, capsys):
    assert main(["verify", str(fair_record(tmp_path))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Hand 1: matched (commitment, deck and cards dealt, first dealer)."
    assert lines[-1].startswith("All ") and lines[-1].endswith(" deals matched.")


def test_verify_replays_house_rules_and_the_nil_pass(tmp_path, capsys):
    """A format night with the nil pass: the passes move cards after the deal, which the
    record keeps as dealt, so every deal still matches its seeds."""
    rotation = ["suicide", "whiz", "mirror", "individual"]
    path = fair_record(tmp_path, bidding_formats=rotation, nil_pass=2, lose_score=-150)
    record = json.loads(path.read_text())
    assert record["table"]["rules"]["bidding_formats"] == rotation
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].endswith("matched.")


def test_verify_says_plainly_which_deal_did_not_match(tmp_path, capsys):
    assert main(["verify", str(fair_record(tmp_path, tamper=True))]) == 1
    out = capsys.readouterr().out
    assert "Hand 2: DID NOT MATCH: the deck is not the one the seeds shuffle" in out
    assert "1 of " in out and "hands did not match: [2]." in out


def test_verify_refuses_what_is_not_a_record(tmp_path, capsys):
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"hands": 3}')
    assert main(["verify", str(garbage)]) == 2
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert "not a game record" in err and "cannot read" in err
