"""Claims through the real WebSocket protocol, on SQLite and PostgreSQL: offered only to
the seat that holds it, refused with a reason when not offered, and when acted on the
hand ends, every socket sees the cards laid down and the scored hand, and the history
marks the claim."""

from __future__ import annotations

import json
from typing import Any

import pytest

from server.engine import Game, Rules
from server.realtime import moves
from tests.engine.stacking import SUIT_HANDS, stacked_deck
from tests.realtime.players import TableClient, create_table, seat_players
from tests.realtime.test_table_socket import CARD, assert_no_hidden_card

CLAIM = {"type": "claim"}
SPADES = [f"{rank}S" for rank in "23456789TJQKA"]


@pytest.fixture
def spades_to_seat_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every game the server starts deals seat 0 all thirteen spades (seat 1 the clubs,
    seat 2 the hearts, seat 3 the diamonds), seat 3 dealing: seat 0 leads first."""
    rules = Rules.preset("standard")

    def stacked(rules_given: Rules, seed: int, deals: object = None) -> Game:
        # A stacked deck, not one dealt from the table's seeds (`deals` is set aside).
        deck = stacked_deck(rules, SUIT_HANDS, dealer=3)
        return Game(rules_given, seed=seed, decks=[deck], dealer=3)

    monkeypatch.setattr(moves, "Game", stacked)


async def turn_of(client: TableClient, seat: int) -> None:
    """Wait until the client's latest state has ``seat`` on turn."""
    if client.state is not None and client.view["turn"] == [seat]:
        return
    await client.until(lambda m: m["type"] == "state" and m["state"]["turn"] == [seat])


async def act(client: TableClient, action: dict[str, Any]) -> dict[str, Any]:
    """Send an act and wait for its answer: the next state, or an error."""
    client.drain()
    await client.send({"type": "act", "action": action})
    return await client.until(lambda m: m["type"] in ("state", "error"))


async def test_a_claim_ends_the_hand_for_every_socket_and_the_history_marks_it(
    served: Any, http: Any, spades_to_seat_0: None
) -> None:
    _app, address = served
    table_id = await create_table(http, {"preset": "standard", "target_score": 500})
    spectator = TableClient(address, table_id)
    await spectator.connect()
    players = await seat_players(http, address, table_id, 4)
    for seat in (0, 1, 2, 3):
        await turn_of(players[seat], seat)
        assert (await act(players[seat], {"type": "bid", "bid": 4 if seat == 0 else 1}))[
            "type"
        ] == "state"
    leader = players[0]
    await turn_of(leader, 0)
    assert leader.view["phase"] == "play"
    assert leader.view["legal"][-1] == CLAIM
    # Only the seat about to lead is offered it.
    for client in players[1:]:
        await turn_of(client, 0)
        assert client.view["phase"] == "play"
        assert CLAIM not in client.view["legal"]

    # One trick played: seat 1, on turn mid-trick, may not claim.
    assert (await act(leader, {"type": "play", "card": "2S"}))["type"] == "state"
    follower = players[1]
    await turn_of(follower, 1)
    version = follower.version
    refusal = await act(follower, CLAIM)
    assert refusal["type"] == "error" and refusal["code"] == "illegal", refusal
    assert refusal["reason"] == "bad_claim"
    assert "about to lead" in refusal["message"]
    assert (await http.get(f"/api/tables/{table_id}")).json()["version"] == version
    for seat, card in ((1, "2C"), (2, "2H"), (3, "2D")):
        await turn_of(players[seat], seat)
        assert (await act(players[seat], {"type": "play", "card": card}))["type"] == "state"
    await turn_of(leader, 0)
    assert leader.view["legal"][-1] == CLAIM

    # Nobody but seat 0 has seen a spade it still holds.
    for client in [spectator, *players[1:]]:
        for message in client.messages:
            if message["type"] == "state" and message["state"] is not None:
                current = {k: v for k, v in message["state"].items() if k != "last_hand"}
                assert set(CARD.findall(json.dumps(current))) & set(SPADES) <= {"2S"}
        for message in spectator.messages:
            assert_no_hidden_card(message)

    answer = await act(leader, CLAIM)
    assert answer["type"] == "state", answer
    claimed = {"seat": 0, "cards": SPADES[1:], "tricks": 12}
    for client in [spectator, *players]:
        if client.view["hand_number"] != 2:
            await client.until(
                lambda m: m["type"] == "state" and m["state"]["hand_number"] == 2, timeout=30
            )
        last = client.view["last_hand"]
        assert last["claim"] == claimed
        assert last["tricks"] == [13, 0, 0, 0]
        assert last["sides"][0]["taken"] == 13 and last["sides"][1]["taken"] == 0

    history = (await http.get(f"/api/tables/{table_id}/history")).json()
    [hand] = history["hands"]
    assert hand["claim"] == claimed
    assert hand["tricks"] == [13, 0, 0, 0]
    assert len(hand["plays"]) == 1 and hand["plays"][0]["winner"] == 0
    for client in [spectator, *players]:
        await client.close()


async def test_a_claim_not_offered_is_refused_and_changes_nothing(served: Any, http: Any) -> None:
    _app, address = served
    table_id = await create_table(http, {"preset": "standard", "target_score": 500})
    players = await seat_players(http, address, table_id, 4)
    on_turn = players[players[0].view["turn"][0]]
    version = on_turn.version
    refusal = await act(on_turn, CLAIM)
    assert refusal["code"] == "illegal" and refusal["reason"] == "wrong_phase", refusal
    assert "claim" in refusal["message"]
    assert (await http.get(f"/api/tables/{table_id}")).json()["version"] == version
    for client in players:
        await client.close()
