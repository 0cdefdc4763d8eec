"""A member plays one seat of a club game (`one_seat_each`), on SQLite and PostgreSQL: a
second seat with the same member token is refused with nothing changed, a member who
left their seat may sit down again, and a game in which one member held seats on both
sides (stored before the check, or slipped past it) is never rated or counted."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from server.api.services import services_of
from server.clubs.ratings import fresh, rate
from server.engine import SideScore
from server.realtime.hosting import hash_token, new_token
from server.store.clubs import ClubStore
from server.store.models import CLUB_GAMES
from tests.clubs.playing import Club, bearer, make_club, write_game_end


async def club_table(http: httpx.AsyncClient, club: Club, by: str) -> dict[str, Any]:
    made = await http.post("/api/tables", json={"club": club.id, "member_token": club.token(by)})
    assert made.status_code == 201, made.text
    table: dict[str, Any] = made.json()
    return table


async def sit(
    http: httpx.AsyncClient, table_id: str, seat: int, club: Club, member: str
) -> httpx.Response:
    return await http.post(
        f"/api/tables/{table_id}/seats/{seat}",
        json={"name": "ignored", "member_token": club.token(member)},
    )


async def test_a_member_cannot_take_a_second_seat_but_may_sit_again_after_leaving(client):
    club = await make_club(client, ["Ann", "Bob"])
    ann, bob = club.members
    table_id = (await club_table(client, club, ann))["id"]
    first = await sit(client, table_id, 0, club, ann)
    assert first.status_code == 201, first.text
    before = (await client.get(f"/api/tables/{table_id}")).json()

    second = await sit(client, table_id, 1, club, ann)
    assert second.status_code == 409
    assert "already sit at this table" in second.json()["detail"]
    assert (await client.get(f"/api/tables/{table_id}")).json() == before
    again = await sit(client, table_id, 0, club, ann)
    assert again.status_code == 409 and again.json()["detail"] == "That seat is taken."

    assert (await sit(client, table_id, 1, club, bob)).status_code == 201
    # Ann leaves her seat and sits down again, elsewhere: hers is empty now.
    left = await client.delete(
        f"/api/tables/{table_id}/seats/0", headers=bearer(first.json()["token"])
    )
    assert left.status_code == 204
    moved = await sit(client, table_id, 2, club, ann)
    assert moved.status_code == 201, moved.text
    seats = (await client.get(f"/api/tables/{table_id}")).json()["seats"]
    assert [seat["name"] for seat in seats] == [None, "Bob", "Ann", None]


async def test_a_game_with_one_member_on_both_sides_is_never_rated_or_counted(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    club = await make_club(client, ["Ann", "Bob"])
    ann, _bob = club.members
    table = await club_table(client, club, ann)
    table_id = table["id"]
    assert (await sit(client, table_id, 0, club, ann)).status_code == 201
    # Ann's second seat, across from her first, seated past the API's check: a token of
    # hers the game's end knows as Ann's, as a table seated before the check would have.
    hub, clubs = services_of(app).hub, services_of(app).clubs
    assert isinstance(clubs, ClubStore)
    token = new_token()
    await clubs.seat_member(table_id, ann, hash_token(token))
    await hub.take_seat(table_id, 1, "Ann", token=token, admitted=True)
    for seat in (2, 3):
        await hub.add_bot(table_id, seat, "basic", host_token=table["host_token"])

    scores: list[SideScore] = [{"score": 120, "bags": 0}, {"score": 40, "bags": 0}]
    store = hub.store
    await write_game_end(store, table_id, 0, scores)

    page = (await client.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
    (game,) = page["games"]
    assert game["table"] == table_id and not game["rated"]
    members = {member["id"]: member for member in page["members"]}
    assert members[ann]["games"] == 0 and members[ann]["wins"] == 0
    assert members[ann]["mu"] == fresh().mu

    # Stored rated by an older server: a recount leaves it out all the same.
    async with store.engine.begin() as connection:
        await connection.execute(update(CLUB_GAMES).values(rated=True))
    assert await clubs.recount(club.id) == {}


def test_rate_refuses_a_member_on_two_sides() -> None:
    ratings = {"ann": fresh(), "bob": fresh()}
    assert rate([["ann"], ["ann"]], ratings, [120, 40], 0) == {}
    assert rate([["ann", "ann"], ["bob"]], ratings, [120, 40], 0) == {}
    assert set(rate([["ann"], ["bob"]], ratings, [120, 40], 0)) == {"ann", "bob"}
