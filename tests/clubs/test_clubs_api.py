"""Clubs through real HTTP and WebSockets, on SQLite and PostgreSQL: members seated with
their member tokens play whole games; every figure equals what the games' histories say;
ratings move the right way and a second write of the same end changes nothing; removing a
member keeps their games; a stranger gets 403 for every club read and write."""

from __future__ import annotations

import json
from typing import Any

import httpx
from fastapi import FastAPI

from server.api.services import services_of
from server.clubs.figures import AVERAGES, STORED
from server.clubs.figures import FIGURES as DECLARED
from server.store.clubs import ClubStore
from tests.clubs.playing import (
    FAST,
    FIGURES,
    Club,
    abandoned_club_game,
    add,
    bearer,
    club_table,
    figures_from_history,
    make_club,
    play_to_the_end,
    seat_members,
    write_game_end,
)
from tests.realtime.players import TableClient
from tests.realtime.test_protocol import check, published_schema

PARTNERS = [[0, 2], [1, 3]]
# A member of `GET /api/clubs/{id}` as the public contract names it: every figure at the
# member's top level, beside its id, name and rating.
CONTRACT_MEMBER = {
    "id",
    "name",
    "games",
    "wins",
    "hands",
    "contracts",
    "contracts_made",
    "sets",
    "nils",
    "nils_made",
    "bags",
    "rating",
}
# What the page adds to each member: the other declared figures and averages, whether
# they were removed, their rating's estimate and uncertainty, their figures per preset.
MEMBER_EXTRAS = (
    {figure.name for figure in DECLARED} | {average.name for average in AVERAGES}
) - CONTRACT_MEMBER | {"removed", "mu", "sigma", "presets"}


async def page(http: httpx.AsyncClient, club: Club, token: str) -> dict[str, Any]:
    answer = await http.get(f"/api/clubs/{club.id}", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def play_game(
    http: httpx.AsyncClient, address: str, club: Club, order: list[str]
) -> tuple[str, dict[str, dict[str, int]], int]:
    """A club table seated in `order`, played to its end: its id, the figures its
    history gives, its winning side."""
    table_id = await club_table(http, club, order[0], FAST)
    clients = await seat_members(http, address, table_id, club, order)
    await play_to_the_end(clients, FAST)
    info = (await http.get(f"/api/tables/{table_id}")).json()
    history = (await http.get(f"/api/tables/{table_id}/history")).json()
    seats = dict(enumerate(order))
    return table_id, figures_from_history(history, seats, info["winner"], PARTNERS), info["winner"]


def check_member_keys(page: dict[str, Any]) -> None:
    """Each member has exactly the contract's keys and the page's extras at its top
    level, every figure a number there (none nested under another key)."""
    for member in page["members"]:
        assert set(member) == CONTRACT_MEMBER | MEMBER_EXTRAS, sorted(member)
        assert all(
            isinstance(member[name], int | float) for name in CONTRACT_MEMBER - {"id", "name"}
        )


def shown(member: dict[str, Any]) -> dict[str, int]:
    return {name: member[name] for name in FIGURES}


async def write_the_end_again(app: FastAPI, table_id: str) -> None:
    """The game's last write replayed: `write_club_results` once more on its own
    transaction, as a retried commit would."""
    store = services_of(app).hub.store
    record = await store.load(table_id)
    assert record is not None and record.game is not None
    info = record.game.snapshot
    scores = info["scores"] if isinstance(info, dict) and "scores" in info else None
    await write_game_end(store, table_id, record.series.index(max(record.series)), scores)


async def test_a_club_plays_two_games_and_its_figures_match_their_histories(served, http):
    app, address = served
    club = await make_club(http, ["Ann", "Bob", "Cy", "Di"])
    ann, bob, cy, di = club.members
    fresh = await page(http, club, club.token(ann))
    assert fresh["you"] == ann and not fresh["host"]
    assert [m["name"] for m in fresh["members"]] == ["Ann", "Bob", "Cy", "Di"]
    check_member_keys(fresh)
    start = {m["id"]: m["rating"] for m in fresh["members"]}
    assert len(set(start.values())) == 1

    first, expected, winner = await play_game(http, address, club, [ann, bob, cy, di])
    after_one = await page(http, club, club.host_token)
    assert after_one["host"] and after_one["you"] is None
    check_member_keys(after_one)
    [game] = after_one["games"]
    assert game["table"] == first and game["rated"] and not game["abandoned"]
    assert game["winner"] == winner and game["ended"]
    assert [side["members"] for side in game["sides"]] == [[ann, cy], [bob, di]]
    members = {m["id"]: m for m in after_one["members"]}
    assert all(figures["hands"] >= 1 for figures in expected.values())
    for member, figures in expected.items():
        assert shown(members[member]) == figures, members[member]["name"]
        assert members[member]["presets"]["standard"]["games"] == 1
    winners = [ann, cy] if winner == 0 else [bob, di]
    losers = [m for m in members if m not in winners]
    for member in winners:
        assert members[member]["rating"] > start[member]
        assert members[member]["sigma"] < 25 / 3
    for member in losers:
        assert members[member]["rating"] < min(members[w]["rating"] for w in winners)
    assert after_one["leaderboard"][:2] == sorted(
        winners, key=lambda m: after_one["leaderboard"].index(m)
    )

    schema = published_schema()
    check(after_one, schema["http"]["ClubPage"], schema)
    # The same end written again changes nothing.
    await write_the_end_again(app, first)
    assert await page(http, club, club.host_token) == after_one

    second, more, _ = await play_game(http, address, club, [cy, ann, di, bob])
    add(expected, more)
    after_two = await page(http, club, club.token(di))
    assert [g["table"] for g in after_two["games"]] == [second, first]
    assert after_two["games_total"] == 2
    older = await http.get(f"/api/clubs/{club.id}/games?offset=1", headers=bearer(club.token(di)))
    assert older.json() == {"offset": 1, "games": after_two["games"][1:]}
    check(older.json(), schema["http"]["ClubGames"], schema)
    members = {m["id"]: m for m in after_two["members"]}
    for member, figures in expected.items():
        assert shown(members[member]) == figures, members[member]["name"]
        assert members[member]["presets"]["standard"] == {
            **{name: figures[name] for name in FIGURES},
            "bags_per_hand": members[member]["bags_per_hand"],
            "points_per_hand": members[member]["points_per_hand"],
        }
        hands = figures["hands"]
        assert members[member]["points_per_hand"] == round(figures["points"] / hands, 2)

    # The stored totals equal a recount from every stored hand.
    clubs: ClubStore = services_of(app).clubs
    recount = await clubs.recount(club.id)
    for member, kinds in recount.items():
        for kind, tally in kinds.items():
            stored = members[member] if kind == "all" else members[member]["presets"][kind]
            assert {name: stored[name] for name in STORED} == tally.counts()

    # The host removes Bob: his token stops working, his games and figures stay.
    removed = await http.delete(
        f"/api/clubs/{club.id}/members/{bob}", headers=bearer(club.host_token)
    )
    assert removed.status_code == 204
    assert (
        await http.get(f"/api/clubs/{club.id}", headers=bearer(club.token(bob)))
    ).status_code == 403
    kept = await page(http, club, club.token(ann))
    bob_now = next(m for m in kept["members"] if m["id"] == bob)
    assert bob_now["removed"] and shown(bob_now) == expected[bob]
    assert bob not in kept["leaderboard"]
    assert kept["games"] == after_two["games"]
    refused = await http.post(
        f"/api/tables/{second}/seats/0", json={"name": "Bob", "member_token": club.token(bob)}
    )
    assert refused.status_code == 403


async def test_a_stranger_gets_403_for_every_club_read_and_write(served, http):
    club = await make_club(http, ["Ann", "Bob"])
    ann, _bob = club.members
    table_id = await club_table(http, club, ann, FAST)
    other = await make_club(http, ["Eve"])
    [eve] = other.members
    table = (await http.get(f"/api/tables/{table_id}")).json()
    assert not table.get("listed", False)
    before = await page(http, club, club.host_token)

    wrong_tokens = [None, "nonsense", other.host_token, other.token(eve), club.invite]
    for token in wrong_tokens:
        headers = bearer(token) if token else {}
        calls = [
            http.get(f"/api/clubs/{club.id}", headers=headers),
            http.get(f"/api/clubs/{club.id}/games", headers=headers),
            http.patch(f"/api/clubs/{club.id}", json={"name": "Mine"}, headers=headers),
            http.delete(f"/api/clubs/{club.id}/members/{ann}", headers=headers),
            http.post(f"/api/clubs/{club.id}/invite", headers=headers),
        ]
        for call in calls:
            answer = await call
            assert answer.status_code == 403, (token, answer.text)
            assert "detail" in answer.json()
            assert club.invite not in answer.text and club.host_token not in answer.text
        made = await http.post(
            "/api/tables", json={"club": club.id, "member_token": token, "rules": FAST}
        )
        assert made.status_code == 403, made.text
        seat = await http.post(
            f"/api/tables/{table_id}/seats/0", json={"name": "X", "member_token": token or "x"}
        )
        assert seat.status_code == 403, seat.text
    # A member may read but not rule the club.
    for call in [
        http.patch(f"/api/clubs/{club.id}", json={"name": "Mine"}, headers=bearer(club.token(ann))),
        http.post(f"/api/clubs/{club.id}/invite", headers=bearer(club.token(ann))),
    ]:
        assert (await call).status_code == 403
    # A club that does not exist answers as one that does.
    assert (await http.get("/api/clubs/nope", headers=bearer("x"))).status_code == 403
    bad_join = await http.post(
        f"/api/clubs/{club.id}/members", json={"name": "Mal", "invite": "guess"}
    )
    assert bad_join.status_code == 403
    assert await page(http, club, club.host_token) == before

    # The host renames the club and gives out a fresh link: the old one stops working.
    renamed = await http.patch(
        f"/api/clubs/{club.id}", json={"name": "Friday spades"}, headers=bearer(club.host_token)
    )
    assert renamed.status_code == 200 and renamed.json()["name"] == "Friday spades"
    fresh = await http.post(f"/api/clubs/{club.id}/invite", headers=bearer(club.host_token))
    assert fresh.status_code == 200
    new_invite = fresh.json()["invite"]
    assert fresh.json()["url"] == f"/c/{club.id}#invite={new_invite}"
    old = await http.post(
        f"/api/clubs/{club.id}/members", json={"name": "Late", "invite": club.invite}
    )
    assert old.status_code == 403
    late = await http.post(
        f"/api/clubs/{club.id}/members", json={"name": "Late", "invite": new_invite}
    )
    assert late.status_code == 201


async def test_club_tables_remember_the_usual_rules_and_list_unfinished_games(served, http):
    club = await make_club(http, ["Ann"])
    [ann] = club.members
    first = await club_table(http, club, ann, {"preset": "competitive", "target_score": 200})
    second = await club_table(http, club, ann)
    info = (await http.get(f"/api/tables/{second}")).json()
    assert info["rules"]["target_score"] == 200 and info["rules"]["bidding"] == "team"
    shown = await page(http, club, club.host_token)
    assert shown["rules"] == {"preset": "competitive", "target_score": 200}
    assert {t["id"] for t in shown["tables"]} == {first, second}
    # Bots fill the table, the host ends it: the game is listed abandoned, never rated.
    abandoned = await abandoned_club_game(http, club, FAST)
    after = await page(http, club, club.token(ann))
    [game] = after["games"]
    assert game["table"] == abandoned and game["abandoned"] and not game["rated"]
    assert abandoned not in {t["id"] for t in after["tables"]}


async def test_no_club_answer_or_table_message_leaks_a_secret_or_the_club(served, http):
    """The page gives no token or invite to anyone; a club table's watch link, public info
    and socket name neither the club nor its members."""
    _app, address = served
    club = await make_club(http, ["Ann", "Bob", "Cy", "Di"])
    order = list(club.members)
    table_id = await club_table(http, club, order[0], FAST)
    clients = await seat_members(http, address, table_id, club, order[:2])
    watcher = TableClient(address, table_id)
    await watcher.connect()
    secrets = [club.invite, club.host_token, *(token for _name, token in club.members.values())]
    secrets += [client.token for client in clients if client.token]
    for token in (club.host_token, club.token(order[0])):
        answer = await http.get(f"/api/clubs/{club.id}", headers=bearer(token))
        assert not [secret for secret in secrets if secret in answer.text]
    public = (await http.get(f"/api/tables/{table_id}")).text
    seen = public + json.dumps(watcher.messages) + json.dumps(clients[0].messages)
    assert club.id not in seen
    assert not [member for member in club.members if member in seen]
    assert not [secret for secret in secrets if secret in public + json.dumps(watcher.messages)]
    for client in [*clients, watcher]:
        await client.close()


async def test_a_game_with_a_guest_and_a_bot_is_rated_for_its_members_only(served, http):
    _app, address = served
    club = await make_club(http, ["Ann", "Bob", "Cy"])
    ann, bob, cy = club.members
    made = await http.post(
        "/api/tables", json={"club": club.id, "member_token": club.token(ann), "rules": FAST}
    )
    table = made.json()
    clients = await seat_members(http, address, table["id"], club, [ann, bob])
    guest = await http.post(
        f"/api/tables/{table['id']}/seats/2", json={"name": "Gail", "invite": table["invite"]}
    )
    assert guest.status_code == 201, guest.text
    guest_client = TableClient(address, table["id"], guest.json()["token"])
    await guest_client.connect()
    bot = await http.post(
        f"/api/tables/{table['id']}/seats/3/bot",
        json={"level": "basic", "invite": table["invite"]},
    )
    assert bot.status_code == 201, bot.text
    await play_to_the_end([*clients, guest_client], FAST)

    shown = await page(http, club, club.host_token)
    [game] = shown["games"]
    assert game["rated"] and game["bots"]
    assert [side["members"] for side in game["sides"]] == [[ann], [bob]]
    members = {m["id"]: m for m in shown["members"]}
    assert members[ann]["games"] == members[bob]["games"] == 1
    assert members[cy]["games"] == 0 and members[cy]["mu"] == 25
    assert members[ann]["mu"] != 25 and members[bob]["mu"] != 25
