"""Deals anyone can verify, through the real server on SQLite and PostgreSQL: whole bot
games on every kind of deck recomputed by the page's algorithm (tests/fairness_verifier.py,
which imports nothing of the server), the `seed` message, and no server seed anywhere
before its hand is over."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from bench.harness import tables
from bench.harness.server import LiveServer
from bench.harness.tables import add_bots
from server.api.services import services_of
from server.cli import main
from server.engine import PRESETS, Game, Rules
from server.realtime import moves
from server.realtime.errors import TableError
from server.realtime.room import Room
from server.store.records import GameRecord, SeatRecord, TableRecord
from tests.fairness_verifier import verify_record
from tests.realtime.players import (
    TableClient,
    crash_and_restart,
    create_table,
    play_turns,
    seat_players,
)

VARIANTS = [
    {"preset": "standard"},
    {"preset": "standard", "deck": "jokers_deuces"},
    {"preset": "competitive", "blind_nil_behind_by": None},
    {"preset": "cutthroat", "deck": "jokers"},
    {"preset": "two_player"},
    {"preset": "six_player"},
    {"preset": "six_player", "deck": "jokers"},
    # House rules: the nil pass moves cards after the deal (every Suicide hand has one),
    # and a format night changes the bidding hand by hand; the deals still verify.
    {"preset": "suicide", "nil_pass": 2},
    {"preset": "standard", "bidding_formats": ["suicide", "whiz", "mirror", "team"], "nil_pass": 1},
]


async def record_of(http: httpx.AsyncClient, table_id: str) -> dict[str, Any]:
    """The game's record as the hand review downloads it: the table and its history."""
    table = (await http.get(f"/api/tables/{table_id}")).json()
    history = (await http.get(f"/api/tables/{table_id}/history")).json()
    return {"table": table, "game_number": history["game_number"], "hands": history["hands"]}


def commitments_shown(messages: list[dict[str, Any]], game: int) -> dict[int, set[str]]:
    """The commitments the states showed before each deal of game `game`, by hand."""
    shown: dict[int, set[str]] = {}
    for message in messages:
        if message["type"] != "state" or message["fairness"] is None:
            continue
        table = message["table"]
        next_game = (
            table["game_number"] if table["status"] == "playing" else table["game_number"] + 1
        )
        if next_game == game:
            shown.setdefault(message["fairness"]["hand"], set()).add(
                message["fairness"]["commitment"]
            )
    return shown


def assert_all_matched(record: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    found = verify_record(record)
    assert found and all(not problems for problems in found.values()), found
    shown = commitments_shown(messages, record["game_number"])
    for hand in record["hands"]:
        assert shown[hand["hand"]] == {hand["fairness"]["commitment"]}


@pytest.mark.parametrize("fields", VARIANTS, ids=lambda f: "-".join(map(str, f.values())))
async def test_whole_bot_games_on_every_deck_verify_and_a_tampered_record_fails(
    served, http, fields, tmp_path
):
    _app, address = served
    preset = str(fields["preset"])
    rules = {**fields, "target_score": 60}
    table_id = await create_table(http, rules)
    spectator = TableClient(address, table_id)
    first = await spectator.connect()
    assert first["fairness"]["hand"] == 1 and first["fairness"]["client_seeds"] == {}
    await add_bots(http, table_id, PRESETS[preset]["players"], level="basic")
    await spectator.until(
        lambda m: m["type"] == "state" and m["table"]["status"] == "over", timeout=180
    )
    record = await record_of(http, table_id)
    assert_all_matched(record, spectator.messages)
    saved = tmp_path / "record.json"
    saved.write_text(json.dumps(record))
    assert main(["verify", str(saved)]) == 0

    for tamper in ("seed", "deck", "commitment"):
        forged = copy.deepcopy(record)
        proof = forged["hands"][-1]["fairness"]
        if tamper == "seed":
            proof["client_seeds"]["0"] = "forged"
        elif tamper == "deck":
            # Two different cards (a two-deck table holds two of each): swapping equal
            # ones would forge nothing.
            deck = proof["deck"]
            other = next(i for i, card in enumerate(deck) if card != deck[0])
            deck[0], deck[other] = deck[other], deck[0]
        else:
            proof["server_seed"] = "00" * 32
        assert verify_record(forged)[forged["hands"][-1]["hand"]], tamper
    await spectator.close()


async def test_seeds_from_the_seats_make_the_deal_and_a_refusal_changes_nothing(served, http):
    """Accepted from a seated player (1..64 printable characters, the last one counts,
    shown at once); refused for a spectator, a bad value, and once the table has ended."""
    _app, address = served
    rules = {"preset": "standard", "target_score": 60}
    made = await tables.create_table(http, rules, "seeds")
    table_id, host_token = made["id"], made["host_token"]
    spectator = TableClient(address, table_id)
    await spectator.connect()
    players = [await take_seat(http, address, table_id, seat) for seat in range(3)]
    alice = players[0]

    await alice.send({"type": "seed", "value": "first try"})
    await alice.until(lambda m: m["type"] == "state" and m["fairness"]["client_seeds"])
    await alice.send({"type": "seed", "value": "é 🂡 " + "x" * 58})
    shown = await spectator.until(
        lambda m: (
            m["type"] == "state" and m["fairness"]["client_seeds"].get("0", "").startswith("é")
        )
    )
    assert shown["fairness"]["client_seeds"] == {"0": "é 🂡 " + "x" * 58}
    await players[2].send({"type": "seed", "value": "two"})
    await spectator.until(lambda m: m["type"] == "state" and "2" in m["fairness"]["client_seeds"])

    version = alice.version
    for client, value, code in [
        (spectator, "watching", "not_seated"),
        (alice, "", "bad_seed"),
        (alice, "x" * 65, "bad_seed"),
        (alice, "line\nbreak", "bad_seed"),
        (alice, 7, "bad_seed"),
    ]:
        await client.send({"type": "seed", "value": value})
        refused = await client.until(lambda m: m["type"] == "error")
        assert refused["code"] == code, refused
    assert alice.version == version
    status = (await http.get(f"/api/tables/{table_id}")).json()
    assert status["version"] == version

    # The last seat fills the table: hand 1 is dealt from those seeds.
    players.append(await take_seat(http, address, table_id, 3))
    started = await spectator.until(lambda m: m["type"] == "state" and m["state"] is not None)
    assert started["fairness"] == {
        "hand": 2,
        "commitment": started["fairness"]["commitment"],
        "client_seeds": {},
    }
    await play_turns(
        players, Rules.model_validate(rules), done=lambda m: m["table"]["hands_played"] >= 1
    )
    record = await record_of(http, table_id)
    assert record["hands"][0]["fairness"]["client_seeds"] == {"0": "é 🂡 " + "x" * 58, "2": "two"}
    assert not any(verify_record(record).values())

    ended = await http.delete(
        f"/api/tables/{table_id}", headers={"Authorization": f"Bearer {host_token}"}
    )
    assert ended.status_code == 204, ended.text
    gone = await alice.until(lambda m: m["type"] == "state" and m["table"]["status"] == "ended")
    await alice.send({"type": "seed", "value": "too late"})
    refused = await alice.until(lambda m: m["type"] == "error")
    assert refused["code"] == "ended"
    assert alice.version == gone["version"]
    for player in players:
        await player.close()
    await spectator.close()


async def take_seat(http: httpx.AsyncClient, address: str, table_id: str, seat: int) -> TableClient:
    [token] = await tables.take_seats(http, table_id, [seat])
    client = TableClient(address, table_id, token)
    await client.connect()
    return client


async def test_no_server_seed_is_in_a_frame_answer_or_log_line_before_its_hand_is_over(
    served, http, caplog
):
    # Every line the server's own loggers write, and anyone's at INFO and above (a
    # database driver's DEBUG lines echo every statement's parameters, snapshots and all).
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="server")
    app, address = served
    rules = {"preset": "standard", "target_score": 250}  # a game of two hands or more
    table_id = await create_table(http, rules)
    spectator = TableClient(address, table_id)
    await spectator.connect()
    players = await seat_players(http, address, table_id, 4)
    answers: list[tuple[int, str]] = []  # (hands finished in the answer, its text)

    async def watch() -> None:
        seen = -1
        while True:
            table = (await http.get(f"/api/tables/{table_id}")).text
            history = await http.get(f"/api/tables/{table_id}/history")
            answers.append((0, table))
            answers.append((len(history.json()["hands"]), history.text))
            answers.append((0, (await http.get("/api/tables")).text))
            done = json.loads(table)["hands_played"]
            if done != seen:
                seen = done
                await players[done % 4].send({"type": "seed", "value": f"hand {done}"})
            await asyncio.sleep(0.02)

    watcher = asyncio.create_task(watch())
    try:
        await play_turns(
            players, Rules.model_validate(rules), done=lambda m: m["table"]["status"] == "over"
        )
    finally:
        watcher.cancel()
    room = services_of(app).hub.rooms[table_id]
    keys = [key.hex() for key in room.stored.game.deals.keys]
    assert len(keys) == room.stored.game.hand_number + 1  # the last one: the rematch's first
    frames = [m for client in [spectator, *players] for m in client.messages]
    assert len(frames) > 100
    for message in frames:
        text = json.dumps(message)
        finished = message["table"]["hands_played"] if message["type"] == "state" else 0
        for hand, key in enumerate(keys, start=1):
            if hand > finished:
                assert key not in text, (hand, message["type"])
    for finished, text in answers:
        for hand, key in enumerate(keys, start=1):
            if hand > finished:
                assert key not in text, hand
    final = (await http.get(f"/api/tables/{table_id}/history")).text
    assert keys[-1] not in final and all(key in final for key in keys[:-1])
    for line in caplog.records:
        text = line.getMessage() + repr(line.__dict__)
        assert not any(key in text for key in keys), (line.name, text[:300])
    record = await record_of(http, table_id)
    assert not any(verify_record(record).values())
    assert any(hand["fairness"]["client_seeds"] for hand in record["hands"])
    for client in [spectator, *players]:
        await client.close()


@pytest.mark.slow
async def test_a_killed_server_keeps_every_seed_and_its_deals_still_verify(database_url):
    """SIGKILL mid-hand, after seeds for the next deal are in: the restarted server shows
    the same commitment and seeds, deals from them, and the whole game verifies."""
    fast = {"SPADES_BOT_DELAY": "0", "SPADES_WS_RATE_LIMIT": "1000/second"}
    server = LiveServer(database_url, env=fast)
    await asyncio.to_thread(server.start)
    address = server.url.removeprefix("http://")
    # One hand cannot reach 250 (a made nil and a contract of 13 make 230): a hand 2 is dealt.
    rules_fields = {"preset": "standard", "target_score": 250}
    rules = Rules.model_validate(rules_fields)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            table_id = await create_table(http, rules_fields)
            players = await seat_players(http, address, table_id, 4)

            def mid_hand(message: dict[str, Any]) -> bool:
                view = message["state"]
                return sum(view["tricks_won"]) >= 3 and len(view["trick"]) == 2

            await play_turns(players, rules, done=mid_hand)
            await players[1].send({"type": "seed", "value": "before the crash"})
            before = await players[3].until(
                lambda m: m["type"] == "state" and "1" in m["fairness"]["client_seeds"]
            )
            assert before["fairness"]["hand"] == 2

        await crash_and_restart(server, players)

        async with httpx.AsyncClient(base_url=server.url) as http:
            for player in players:
                back = await player.connect(version=player.version)
                assert back["fairness"] == before["fairness"]
            await play_turns(players, rules, done=lambda m: m["table"]["hands_played"] >= 2)
            record = await record_of(http, table_id)
            assert record["hands"][1]["fairness"]["client_seeds"] == {"1": "before the crash"}
            assert record["hands"][1]["fairness"]["commitment"] == before["fairness"]["commitment"]
            found = verify_record(record)
            assert len(found) >= 2 and not any(found.values()), found
        for player in players:
            await player.close()
    finally:
        server.stop()


class Seat:
    """A listener for a pure change: its seat only."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat


def test_a_game_begun_before_deals_had_seeds_shows_none_and_its_rematch_gets_them():
    """A game saved without seeds (a server of before) goes on as it was dealt: no
    commitment to show, a seed refused as `no_deal`; the next game deals from seeds."""
    rules = Rules.preset("standard")
    legacy = Game(rules, seed=9).to_state()
    del legacy["fairness"]
    record = TableRecord(
        id="old1",
        name="old",
        rules=rules.model_dump(mode="json"),
        status="playing",
        version=5,
        game_number=1,
        created=datetime.now(UTC),
        seats=[SeatRecord(seat, name=f"P{seat}") for seat in range(4)],
        game=GameRecord(
            id=1, number=1, seed=9, snapshot=legacy, snapshot_seq=0, later_actions=[], hands_saved=0
        ),
    )
    room = Room(record, 10)
    assert (
        room.stored.game is not None and room.stored.game.deals is None and room.next_deal() is None
    )
    with pytest.raises(TableError) as refused:
        moves.seed(room, Seat(0), "mine")
    assert refused.value.code == "no_deal"
    with pytest.raises(TableError) as refused:
        moves.seed(room, Seat(None), "mine")
    assert refused.value.code == "not_seated"
    deals = moves.first_deals(room)
    assert len(deals.keys) == 1 and len(deals.keys[0]) == 32 and deals.seeds == [{}]
