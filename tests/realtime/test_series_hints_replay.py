"""Through the real protocol, on SQLite and PostgreSQL: the series tally across a rematch and
a fresh hub on the same database (a restart), hints, and every trick of a finished hand in
the history (docs/protocol.md)."""

from __future__ import annotations

import asyncio
from random import Random
from typing import Any

import httpx

from server.api.services import services_of
from server.app import create_app
from server.engine import Rules
from server.realtime.bots import bot_decision, saturated
from server.realtime.hub import TableHub
from server.realtime.pubsub import LocalNotices
from tests.api.test_tables import bearer
from tests.conftest import serve
from tests.realtime.players import TableClient, create_table, play_turns, seat_players

FAST_RULES = {"preset": "standard", "target_score": 100}


def over(game_number: int) -> Any:
    return lambda m: m["table"]["game_number"] == game_number and m["table"]["status"] == "over"


async def table_info(http: httpx.AsyncClient, table_id: str) -> dict[str, Any]:
    return (await http.get(f"/api/tables/{table_id}")).json()


async def test_the_series_counts_each_game_won_across_a_rematch_and_a_restart(served, http):
    app, address = served
    hub: TableHub = services_of(app).hub
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    rules = Rules.model_validate(FAST_RULES)
    assert (await table_info(http, table_id))["series"] == [0, 0]
    tally = [0, 0]
    try:
        await play_turns(players, rules, done=over(1))
        first = await table_info(http, table_id)
        tally[first["winner"]] += 1
        assert first["series"] == tally
        assert all(player.state["table"]["series"] == tally for player in players)

        again = await http.post(f"/api/tables/{table_id}/rematch", headers=bearer(players[0].token))
        assert again.status_code == 201, again.text
        assert again.json()["series"] == tally  # a new game keeps the tally
        await play_turns(players, rules, done=over(2))
        second = await table_info(http, table_id)
        tally[second["winner"]] += 1
        assert second["series"] == tally and sum(tally) == 2
    finally:
        for player in players:
            await player.close()

    # A fresh hub on the same database, as after a restart: the tally is read back from
    # the stored games, for the table and for the lobby's summaries.
    fresh = TableHub(hub.store, hub.settings, LocalNotices())
    assert (await fresh.table_info(table_id))["series"] == tally
    summaries = {table.id: table for table in await fresh.store.summaries(("over",))}
    assert summaries[table_id].series == tally


async def test_the_history_holds_every_trick_of_each_finished_hand(served, http):
    _app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    rules = Rules.model_validate(FAST_RULES)
    try:
        await play_turns(players, rules, done=lambda m: m["table"]["hands_played"] >= 1)
        history = (await http.get(f"/api/tables/{table_id}/history")).json()
        hand = history["hands"][0]
        plays = hand["plays"]
        assert len(plays) == 13 and all(len(trick["cards"]) == 4 for trick in plays)
        played: list[set[str]] = [set(), set(), set(), set()]
        for trick in plays:
            for card in trick["cards"]:
                played[card["seat"]].add(card["card"])
        assert played == [set(cards) for cards in hand["deal"]]
        assert [sum(t["winner"] == seat for t in plays) for seat in range(4)] == hand["tricks"]
        # The replay is the history's: no state message carries a hand's plays.
        assert all("plays" not in str(m.get("state")) for p in players for m in p.messages)
    finally:
        for player in players:
            await player.close()


async def hint(client: TableClient, hint_id: str = "h") -> dict[str, Any]:
    await client.send({"type": "hint", "id": hint_id})
    return await client.until(lambda m: m["type"] in ("hint", "error"))


async def test_a_hint_is_a_legal_move_for_the_asking_player_alone_and_plays_nothing(served, http):
    app, address = served
    made = await http.post("/api/tables", json={"rules": FAST_RULES, "listed": True, "hints": True})
    table_id = made.json()["id"]
    players = await seat_players(http, address, table_id, 4)
    watcher = TableClient(address, table_id)
    await watcher.connect()
    try:
        version = players[0].version
        on_turn = next(p for p in players if p.state["seat"] in p.view["turn"])
        waiting = next(p for p in players if p.state["seat"] not in p.view["turn"])
        for p in players:
            p.drain()
        watcher.drain()

        answer = await hint(on_turn, "h1")
        assert answer["type"] == "hint" and answer["id"] == "h1"
        assert answer["version"] == version
        assert answer["action"] in on_turn.view["legal"]

        # Asking again before the table moves gets the same answer, thought out once.
        again = [await hint(on_turn, f"h{n}") for n in range(2, 6)]
        assert all(a["action"] == answer["action"] and a["version"] == version for a in again)
        assert [a["id"] for a in again] == ["h2", "h3", "h4", "h5"]
        assert set(services_of(app).hub.rooms[table_id].tasks.hints) == {on_turn.state["seat"]}

        assert (await hint(waiting))["code"] == "not_your_turn"
        assert (await hint(watcher))["code"] == "not_seated"
        # Nothing was played or announced: no other socket got anything, the version stands.
        assert (await table_info(http, table_id))["version"] == version
        others = [p for p in players if p is not on_turn and p is not waiting]
        assert [m for p in others for m in p.drain()] == []
        assert watcher.drain() == [] and waiting.drain() == []
    finally:
        for client in (*players, watcher):
            await client.close()


async def test_hints_are_on_at_friends_tables_and_off_at_listed_ones_unless_said(served, http):
    _app, address = served
    friends = (await http.post("/api/tables", json={})).json()
    listed = (await http.post("/api/tables", json={"listed": True})).json()
    quiet = (await http.post("/api/tables", json={"hints": False})).json()
    assert (friends["hints"], listed["hints"], quiet["hints"]) == (True, False, False)
    assert (await table_info(http, listed["id"]))["hints"] is False

    players = await seat_players(http, address, listed["id"], 4)
    try:
        on_turn = next(p for p in players if p.state["seat"] in p.view["turn"])
        refused = await hint(on_turn)
        assert refused["type"] == "error" and refused["code"] == "hints_off"
    finally:
        for player in players:
            await player.close()


async def test_favicon_is_the_spade(http):
    icon = await http.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


async def test_a_hint_asked_while_every_decision_process_is_busy_does_not_wait_for_them(
    served, http
):
    """Bots and timers never wait behind hints: while the pool is busy (here an expert's
    decision for another table holds it), a hint is the basic bot's choice, made at once."""
    app, address = served
    hub: TableHub = services_of(app).hub
    made = await http.post("/api/tables", json={"rules": FAST_RULES, "listed": True, "hints": True})
    table_id = made.json()["id"]
    players = await seat_players(http, address, table_id, 4)
    try:
        on_turn = next(p for p in players if p.state["seat"] in p.view["turn"])
        room = hub.rooms[table_id]
        assert room.stored.game is not None
        processes = hub.settings.bot_processes
        view = room.stored.game.view(on_turn.state["seat"])
        busy = [
            asyncio.ensure_future(
                bot_decision(processes, room.stored.rules, view, "expert", Random(n))
            )
            for n in range(max(processes, 1))
        ]
        await asyncio.sleep(0)
        assert saturated(processes)
        answer = await hint(on_turn, "busy")
        assert not all(thinking.done() for thinking in busy), "the hint waited for the pool"
        assert answer["type"] == "hint" and answer["action"] in on_turn.view["legal"]
        await asyncio.gather(*busy)
        assert not saturated(processes)
    finally:
        for client in players:
            await client.close()


async def test_hints_have_a_budget_per_player_and_per_address(settings):
    """One address asking hint after hint cannot take the decision pool: each socket has
    its budget, and the address one over all its sockets; past either, `rate_limited`."""
    tight = settings.model_copy(
        update={"hint_rate_limit": "3/minute", "hint_address_rate_limit": "5/minute"}
    )
    application = create_app(tight)
    async for address in serve(application):
        async with httpx.AsyncClient(base_url=f"http://{address}") as http:
            made = await http.post(
                "/api/tables", json={"rules": FAST_RULES, "listed": True, "hints": True}
            )
            players = await seat_players(http, address, made.json()["id"], 4)
            second = None
            try:
                on_turn = next(p for p in players if p.state["seat"] in p.view["turn"])
                answers = [await hint(on_turn, f"a{n}") for n in range(4)]
                assert [a["type"] for a in answers] == ["hint", "hint", "hint", "error"]
                assert answers[3]["code"] == "rate_limited" and answers[3]["id"] == "a3"
                # Another socket of the same player, from the same address: its own budget,
                # but only what is left of the address's (5 - 3).
                second = TableClient(address, made.json()["id"], on_turn.token)
                await second.connect()
                more = [await hint(second, f"b{n}") for n in range(3)]
                assert [m["type"] for m in more] == ["hint", "hint", "error"]
                assert more[2]["code"] == "rate_limited"
            finally:
                for client in (*players, *([second] if second else [])):
                    await client.close()


async def review(client: TableClient, hand: int, review_id: str = "r") -> dict[str, Any]:
    await client.send({"type": "review", "hand": hand, "id": review_id})
    return await client.until(lambda m: m["type"] in ("review", "error"), timeout=120)


def legal_card(card: str, held: list[str], led: str | None) -> bool:
    """Whether a seat holding `held` may play `card` to a trick led with `led` (follow
    suit when you can; a lead is free but for spades before they are broken, which this
    check leaves to the engine)."""
    if card not in held:
        return False
    if led is None:
        return True
    suit = led[-1]
    return card[-1] == suit or not any(other[-1] == suit for other in held)


async def test_the_review_shows_the_experts_choice_beside_each_of_the_players_own(served, http):
    """After a hand, a player asks for its review: each of their own bids and plays that had
    a choice, in order, with the expert's choice from their view then, a legal one; asked
    again it is thought out once; spectators and hands not over are refused."""
    app, address = served
    table_id = await create_table(http, FAST_RULES)
    players = await seat_players(http, address, table_id, 4)
    watcher = TableClient(address, table_id)
    await watcher.connect()
    rules = Rules.model_validate(FAST_RULES)
    try:
        await play_turns(players, rules, done=lambda m: m["table"]["hands_played"] >= 1)
        for client in (*players, watcher):
            client.drain()
        asker = players[0]
        seat = asker.state["seat"]
        answer = await review(asker, 1, "r1")
        assert answer["type"] == "review", answer
        assert (answer["id"], answer["hand"], answer["seat"]) == ("r1", 1, seat)
        hand = (await http.get(f"/api/tables/{table_id}/history")).json()["hands"][0]

        # The player's own choices, in order: their bid, then cards of their own.
        choices = answer["choices"]
        bids = [c for c in choices if c["action"]["type"] == "bid"]
        plays = [c for c in choices if c["action"]["type"] == "play"]
        assert len(bids) == 1 and bids[0]["action"]["bid"] == hand["bids"][seat]
        assert bids[0]["expert"]["type"] == "bid" and choices[0] is bids[0]
        own = [
            (number, card["card"])
            for number, trick in enumerate(hand["plays"], start=1)
            for card in trick["cards"]
            if card["seat"] == seat
        ]
        assert [(c["trick"], c["action"]["card"]) for c in plays] == [
            entry for entry in own if entry[0] in {c["trick"] for c in plays}
        ]
        assert len(plays) >= 5  # a hand of 13 cards has choices before its last tricks
        # Each expert card was one the player could have played there, by the history.
        for choice in plays:
            number = choice["trick"]
            earlier = {
                card["card"]
                for trick in hand["plays"][: number - 1]
                for card in trick["cards"]
                if card["seat"] == seat
            }
            held = [card for card in hand["deal"][seat] if card not in earlier]
            cards = hand["plays"][number - 1]["cards"]
            before = cards[: [c["seat"] for c in cards].index(seat)]
            led = before[0]["card"] if before else None
            assert legal_card(choice["expert"]["card"], held, led), choice

        # Thought out once: asking again (the same socket or not) gets the same answer.
        again = await review(asker, 1, "r2")
        assert again["choices"] == choices and again["id"] == "r2"
        assert list(services_of(app).hub.rooms[table_id].tasks.reviews) == [(1, 1, seat)]
        # Only the asker heard it.
        assert not any(m["type"] == "review" for p in players[1:] for m in p.drain())

        assert (await review(watcher, 1))["code"] == "not_seated"
        assert (await review(asker, 2))["code"] == "unknown_hand"
        assert (await review(asker, 0))["code"] == "unknown_hand"
        await asker.send({"type": "review", "hand": "one"})
        refused = await asker.until(lambda m: m["type"] == "error")
        assert refused["code"] == "bad_message"
    finally:
        for client in (*players, watcher):
            await client.close()
