"""No seat token and no hidden card reaches a log line, even when code logs one by mistake."""

from __future__ import annotations

import itertools
import json
import logging
import secrets

import pytest
import structlog

from server.observability import REDACTED, configure_logging, scrub_text, scrub_value
from server.realtime.hosting import new_token
from server.settings import Settings

# A token as the server mints them (a bare secrets.token_urlsafe(24) has no digit about
# one time in 230, and a run of letters alone is not masked in free text).
TOKEN = new_token()
HAND = ["AS", "KH", "QD", "JC", "TS", "9H", "8D", "7C", "6S", "5H", "4D", "3C", "BJ"]


@pytest.fixture
def json_logs(capsys):
    """Configure logging as production does; give back the JSON lines written so far."""
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    configure_logging(Settings(log_json=True, log_level="DEBUG"))

    def lines() -> list[dict]:
        written = capsys.readouterr().err.splitlines()
        return [json.loads(line) for line in written if line.strip()]

    yield lines
    root.handlers, root.level = saved[0], saved[1]
    structlog.reset_defaults()


def assert_no_secret(lines: list[dict]) -> None:
    text = json.dumps(lines)
    assert TOKEN not in text
    for a, b in itertools.pairwise(HAND):
        assert f"{a}', '{b}" not in text and f"{a} {b}" not in text and f'{a}", "{b}' not in text


def test_token_keys_are_redacted_at_any_depth(json_logs):
    log = structlog.get_logger("spades.test")
    log.info("seat_taken", table="t1", seat=2, token=TOKEN)
    log.info("hello", message={"type": "hello", "token": TOKEN, "version": 3})
    log.info("request", headers={"Authorization": f"Bearer {TOKEN}"})
    lines = json_logs()
    assert lines[0]["token"] == REDACTED
    assert lines[0]["table"] == "t1" and lines[0]["seat"] == 2
    assert lines[1]["message"] == {"type": "hello", "token": REDACTED, "version": 3}
    assert lines[2]["headers"] == {"Authorization": REDACTED}
    assert_no_secret(lines)


def test_token_values_are_redacted_inside_free_text(json_logs):
    log = structlog.get_logger("spades.test")
    log.info(f"reconnect with {TOKEN} accepted")
    log.warning("bad hello: token=%s", TOKEN)
    lines = json_logs()
    assert lines[0]["event"] == f"reconnect with {REDACTED} accepted"
    assert_no_secret(lines)


def test_a_server_seed_logged_by_mistake_is_masked(json_logs):
    """A deal's server seed is secret until its hand is over (docs/fairness.md): under its
    own keys, inside a saved game's fairness, and as hex in free text."""
    key = secrets.token_hex(32)
    log = structlog.get_logger("spades.test")
    log.info("dealt", server_seed=key, deal_key=key)
    log.info("saved", state={"fairness": {"table": "t1", "keys": [key]}})
    log.info(f"next deal from {key}")
    lines = json_logs()
    assert lines[0]["server_seed"] == lines[0]["deal_key"] == REDACTED
    assert key not in json.dumps(lines)


def test_hand_cards_are_redacted_in_keys_views_and_text(json_logs):
    log = structlog.get_logger("spades.test")
    log.info("dealt", hand=HAND)
    trick = [{"seat": 1, "card": "QS"}]
    log.info("broadcast", view={"phase": "play", "hand": HAND, "trick": trick})
    log.info("act", action={"type": "pass", "cards": ["5H", "2C"]})
    log.info("stray", value=list(HAND))
    log.info(f"seat 0 holds {HAND}")
    lines = json_logs()
    assert lines[0]["hand"] == REDACTED
    assert lines[1]["view"] == {"phase": "play", "hand": REDACTED, "trick": trick}
    assert lines[2]["action"] == {"type": "pass", "cards": REDACTED}
    assert lines[3]["value"] == REDACTED
    assert lines[4]["event"] == f"seat 0 holds ['{REDACTED}']"
    assert_no_secret(lines)


def test_a_public_play_is_still_logged(json_logs):
    structlog.get_logger("spades.test").info("played", table="t1", version=7, card="QS")
    [line] = json_logs()
    assert (line["card"], line["version"], line["level"]) == ("QS", 7, "info")


def test_uvicorn_stdlib_lines_are_json_and_scrubbed(json_logs):
    access = logging.getLogger("uvicorn.access")
    access.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5000", "GET", f"/x?token={TOKEN}", "1.1", 200)
    logging.getLogger("uvicorn.error").warning("client sent %s", HAND)
    lines = json_logs()
    assert [line["logger"] for line in lines] == ["uvicorn.access", "uvicorn.error"]
    assert lines[0]["event"] == f'127.0.0.1:5000 - "GET /x?token={REDACTED} HTTP/1.1" 200'
    assert_no_secret(lines)


def test_tracebacks_are_scrubbed(json_logs):
    log = structlog.get_logger("spades.test")
    try:
        raise ValueError(f"seat token {TOKEN} does not match hand {HAND}")
    except ValueError:
        log.exception("act_failed", table="t1")
    [line] = json_logs()
    assert "ValueError" in line["exception"]
    assert_no_secret([line])


def test_console_renderer_is_scrubbed_too(capsys):
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    try:
        configure_logging(Settings(log_json=False))
        structlog.get_logger("spades.test").info("seat_taken", token=TOKEN, hand=HAND)
        written = capsys.readouterr().err
    finally:
        root.handlers, root.level = saved[0], saved[1]
        structlog.reset_defaults()
    assert "seat_taken" in written and not written.lstrip().startswith("{")
    assert TOKEN not in written and "KH" not in written


def test_every_minted_token_is_masked_in_free_text():
    """The server draws its seat and host tokens again until they have a digit: a token
    of letters alone (one draw in about 230) would read as a word and leak from a line's
    free text. 5,000 fresh tokens, each masked wherever it sits in a sentence."""
    for _ in range(5000):
        token = new_token()
        assert scrub_text(f"seat {token}, again") == f"seat {REDACTED}, again"
    lettered = "KuyjGgZmfyC-BZYZdXMtAVEDqmoftnIm"  # a real token_urlsafe(24) without a digit
    assert scrub_text(lettered) == lettered  # why tokens are minted with a digit


def test_invites_are_masked_under_their_key_and_in_free_text():
    """An invite lets anyone take a seat at a friends' table: a secret like a token."""
    invite = secrets.token_urlsafe(12)
    assert scrub_value({"invite": invite, "invite_url": f"/t/abc#invite={invite}"}) == {
        "invite": REDACTED,
        "invite_url": REDACTED,
    }
    assert scrub_text(f"opened /t/abc#invite={invite} twice") == (
        f"opened /t/abc#invite={REDACTED} twice"
    )
