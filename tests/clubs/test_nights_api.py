"""Club nights through real HTTP (and a real served app), on SQLite and PostgreSQL: a
night made by the host, read by a member, its rounds' tables made with each member's
seat kept for them; strangers, members using host controls, a round started twice, a
seat of someone else, junk ids: each a clear 4xx that changes nothing."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
from fastapi import FastAPI
from sqlalchemy import update

from server.api.services import services_of
from server.app import create_app
from server.nights import ROUND_MAKING_SECONDS
from server.store.models import ClubNightRow, utcnow
from tests.clubs.playing import Club, bearer, make_club
from tests.realtime.test_protocol import check, published_schema

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy"]


async def night_of(http: httpx.AsyncClient, club: Club, night: str, token: str) -> dict[str, Any]:
    answer = await http.get(f"/api/clubs/{club.id}/nights/{night}", headers=bearer(token))
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


async def make_night(
    http: httpx.AsyncClient, club: Club, **options: Any
) -> tuple[httpx.Response, dict[str, Any]]:
    body = {"members": list(club.members), "rounds": 3, "format": "rotating", "hands": 2}
    body.update(options)
    made = await http.post(
        f"/api/clubs/{club.id}/nights", json=body, headers=bearer(club.host_token)
    )
    return made, body


async def test_a_night_is_made_read_and_started_by_its_host(http):
    club = await make_club(http, NAMES)
    members = list(club.members)
    made, _body = await make_night(http, club, seed=7, bidding=["whiz", None, "suicide"])
    assert made.status_code == 201, made.text
    night = made.json()
    assert [rules["bidding"] for rules in night["rules"]] == ["whiz", "individual", "suicide"]
    schema = published_schema()
    check(night, schema["http"]["ClubNight"], schema)
    assert night["status"] == "waiting" and night["round"] == 0 and night["tables"] == []
    assert len(night["schedule"]) == 3
    for entry in night["schedule"]:
        seated = [m for table in entry["tables"] for m in table["seats"]]
        # 9 members: two tables of four, one sits out, nobody twice in a round.
        assert len(entry["tables"]) == 2 and len(entry["sitting_out"]) == 1
        assert sorted(seated + entry["sitting_out"]) == sorted(members)
    sat_out = [entry["sitting_out"][0] for entry in night["schedule"]]
    assert len(set(sat_out)) == 3
    assert [s["member"] for s in night["standings"]] and all(
        s["points"] == 0 and s["games"] == 0 and s["wins"] == 0 for s in night["standings"]
    )
    assert night["watch_url"].startswith(f"/c/{club.id}/night/{night['id']}#watch=")
    assert all(rules["hand_limit"] == 2 for rules in night["rules"])

    # A member reads it (with the watch link); the watch link reads the spectators' part.
    read = await night_of(http, club, night["id"], club.token(members[0]))
    assert read["schedule"] == night["schedule"] and read["watch_url"] == night["watch_url"]
    watch = night["watch_url"].split("#watch=")[1]
    seen = await http.get(f"/api/nights/{night['id']}/watch", headers=bearer(watch))
    assert seen.status_code == 200, seen.text
    check(seen.json(), schema["http"]["NightWatch"], schema)
    assert watch not in seen.text and club.host_token not in seen.text
    assert seen.json()["names"][members[0]] == "Ann"

    # A member cannot start it; the host can, once.
    refused = await http.post(
        f"/api/clubs/{club.id}/nights/{night['id']}/next", headers=bearer(club.token(members[0]))
    )
    assert refused.status_code == 403
    started = await http.post(
        f"/api/clubs/{club.id}/nights/{night['id']}/next", headers=bearer(club.host_token)
    )
    assert started.status_code == 201, started.text
    now = started.json()
    assert now["round"] == 1 and now["status"] == "playing" and len(now["tables"]) == 2
    again = await http.post(
        f"/api/clubs/{club.id}/nights/{night['id']}/next", headers=bearer(club.host_token)
    )
    assert again.status_code == 409 and "detail" in again.json()
    assert (await night_of(http, club, night["id"], club.host_token))["tables"] == now["tables"]
    assert now["you"] is None and now["seat"] is None
    # Each member reads where they sit now; the one sitting out, nowhere.
    for member in members:
        mine = await night_of(http, club, night["id"], club.token(member))
        assert mine["you"] == member
        if member in now["schedule"][0]["sitting_out"]:
            assert mine["seat"] is None
            continue
        [(position, seat)] = [
            (p, t["seats"].index(member))
            for p, t in enumerate(now["schedule"][0]["tables"])
            if member in t["seats"]
        ]
        assert mine["seat"] == {"round": 1, "table": now["tables"][position], "seat": seat}
    listed = await http.get(f"/api/clubs/{club.id}/nights", headers=bearer(club.token(members[1])))
    assert listed.status_code == 200
    check(listed.json(), schema["http"]["ClubNights"], schema)
    [summary] = listed.json()["nights"]
    assert summary["id"] == night["id"] and summary["status"] == "playing"
    assert summary["round"] == 1 and summary["members"] == 9

    # Each table: the scheduled members' seats are kept for them, bots nowhere else.
    first = now["schedule"][0]
    for position, table_id in enumerate(now["tables"]):
        info = (await http.get(f"/api/tables/{table_id}")).json()
        assert info["status"] == "playing"
        seats = first["tables"][position]["seats"]
        assert first["tables"][position]["table"] == table_id
        for seat, member in enumerate(seats):
            assert info["seats"][seat]["name"] == club.members[member][0]
        # The member's own seat: 200 with a token, again from another device too.
        member = seats[1]
        for _device in range(2):
            taken = await http.post(
                f"/api/tables/{table_id}/seats/1",
                json={"name": "x", "member_token": club.token(member)},
            )
            assert taken.status_code == 200, taken.text
            assert taken.json()["seat"] == 1 and len(taken.json()["token"]) >= 16
        # Someone else's seat: 403; the one sitting out too.
        other = await http.post(
            f"/api/tables/{table_id}/seats/0",
            json={"name": "x", "member_token": club.token(member)},
        )
        assert other.status_code == 403
        out = first["sitting_out"][0]
        for seat in range(4):
            sitting = await http.post(
                f"/api/tables/{table_id}/seats/{seat}",
                json={"name": "x", "member_token": club.token(out)},
            )
            assert sitting.status_code == 403
        # A guest without the invite: refused.
        guest = await http.post(f"/api/tables/{table_id}/seats/0", json={"name": "Eve"})
        assert guest.status_code in (403, 409)


async def test_strangers_members_and_junk_get_4xx_and_change_nothing(http):
    club = await make_club(http, NAMES[:5])
    members = list(club.members)
    other = await make_club(http, ["Eve"])
    made, body = await make_night(http, club)
    assert made.status_code == 201
    night = made.json()["id"]
    before = await night_of(http, club, night, club.host_token)

    for token in [None, "nonsense", other.host_token, other.token(next(iter(other.members)))]:
        headers = bearer(token) if token else {}
        for answer in [
            await http.get(f"/api/clubs/{club.id}/nights/{night}", headers=headers),
            await http.get(f"/api/clubs/{club.id}/nights", headers=headers),
            await http.post(f"/api/clubs/{club.id}/nights", json=body, headers=headers),
            await http.post(f"/api/clubs/{club.id}/nights/{night}/next", headers=headers),
            await http.post(f"/api/clubs/{club.id}/nights/{night}/end", headers=headers),
            await http.get(f"/api/nights/{night}/watch", headers=headers),
        ]:
            assert answer.status_code == 403, answer.text
    member = bearer(club.token(members[0]))
    for answer in [
        await http.post(f"/api/clubs/{club.id}/nights", json=body, headers=member),
        await http.post(
            f"/api/clubs/{club.id}/nights/{night}/pause", json={"paused": True}, headers=member
        ),
        await http.post(
            f"/api/clubs/{club.id}/nights/{night}/substitute",
            json={"out": members[0], "in": members[1]},
            headers=member,
        ),
    ]:
        assert answer.status_code == 403, answer.text
    host = bearer(club.host_token)
    junk = ["a%00b", "x" * 200, "a.b", "%20", "%C3%A9"]
    for bad in junk:
        for answer in [
            await http.get(f"/api/clubs/{club.id}/nights/{bad}", headers=host),
            await http.post(f"/api/clubs/{club.id}/nights/{bad}/next", headers=host),
            await http.get(f"/api/nights/{bad}/watch", headers=host),
        ]:
            assert 400 <= answer.status_code < 500, (bad, answer.text)
    for wrong in [
        {**body, "members": [*members[:4], "a\x00b"]},
        {**body, "members": [*members[:3], members[0]]},
        {**body, "members": members[:3]},
        {**body, "members": [*members[:4], next(iter(other.members))]},
        {**body, "rounds": 0},
        {**body, "hands": None},
        {**body, "format": "swiss"},
        {**body, "rules": {"preset": "cutthroat"}},
        {**body, "bidding": ["nonsense", None, None]},
        {**body, "bidding": [None]},
        {**body, "format": "pairs", "members": members[:5]},
    ]:
        answer = await http.post(f"/api/clubs/{club.id}/nights", json=wrong, headers=host)
        assert answer.status_code == 422, (wrong, answer.text)
        assert "detail" in answer.json()
    missing = await http.get(f"/api/clubs/{club.id}/nights/nosuchnight", headers=host)
    assert missing.status_code == 404
    elsewhere = await http.get(
        f"/api/clubs/{other.id}/nights/{night}", headers=bearer(other.host_token)
    )
    assert elsewhere.status_code == 404
    assert await night_of(http, club, night, club.host_token) == before


async def test_two_servers_on_one_database_share_the_night(settings):
    """Two apps (two processes' worth) on one database: a round started on both at
    once starts once; a table made by one gives the member their seat through the other;
    both read the same night."""
    first, second = create_app(settings), create_app(settings)
    async with first.router.lifespan_context(first), second.router.lifespan_context(second):
        a = httpx.AsyncClient(transport=httpx.ASGITransport(app=first), base_url="http://a")
        b = httpx.AsyncClient(transport=httpx.ASGITransport(app=second), base_url="http://b")
        async with a, b:
            club = await make_club(a, NAMES[:8])
            made, _body = await make_night(a, club, fill="bots")
            assert made.status_code == 201, made.text
            night = made.json()["id"]
            host = bearer(club.host_token)
            answers = await asyncio.gather(
                a.post(f"/api/clubs/{club.id}/nights/{night}/next", headers=host),
                b.post(f"/api/clubs/{club.id}/nights/{night}/next", headers=host),
            )
            assert sorted(answer.status_code for answer in answers) == [201, 409]
            shown_a = await night_of(a, club, night, club.host_token)
            shown_b = await night_of(b, club, night, club.token(next(iter(club.members))))
            assert shown_a["round"] == shown_b["round"] == 1
            assert shown_a["tables"] == shown_b["tables"] and len(shown_a["tables"]) == 2
            for position, table_id in enumerate(shown_a["tables"]):
                seats = shown_a["schedule"][0]["tables"][position]["seats"]
                for seat, member in enumerate(seats):
                    for client in (b, a):
                        taken = await client.post(
                            f"/api/tables/{table_id}/seats/{seat}",
                            json={"name": "x", "member_token": club.token(member)},
                        )
                        assert taken.status_code == 200, taken.text
            ended = await b.post(f"/api/clubs/{club.id}/nights/{night}/end", headers=host)
            assert ended.status_code == 200 and ended.json()["status"] == "over"
            final = await night_of(a, club, night, club.host_token)
            assert final["status"] == "over" and final["ended"]
            assert all(t["status"] == "ended" for t in final["schedule"][0]["tables"])
            again = await a.post(f"/api/clubs/{club.id}/nights/{night}/next", headers=host)
            assert again.status_code == 409


async def test_late_arrivals_a_substitute_and_a_pause(settings):
    # Bots that take their time: round 1 is surely still being played throughout.
    slow = create_app(settings.model_copy(update={"bot_delay": 2.0}))
    async with slow.router.lifespan_context(slow):
        transport = httpx.ASGITransport(app=slow)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            await late_substitute_pause(http)


async def late_substitute_pause(http: httpx.AsyncClient) -> None:
    club = await make_club(http, [*NAMES[:8], "Jo", "Kit", "Lou"])
    members = list(club.members)
    early, late, stranger = members[:8], members[8:10], members[10]
    host = bearer(club.host_token)
    made = await http.post(
        f"/api/clubs/{club.id}/nights",
        json={"members": early, "rounds": 3, "hands": 1, "format": "rotating"},
        headers=host,
    )
    assert made.status_code == 201
    night = made.json()
    url = f"/api/clubs/{club.id}/nights/{night['id']}"

    # Round 1 starts; Jo arrives: rounds 2 and 3 are scheduled again with Jo.
    assert (await http.post(f"{url}/next", headers=host)).status_code == 201
    added = await http.post(f"{url}/members", json={"members": [late[0]]}, headers=host)
    assert added.status_code == 200, added.text
    now = added.json()
    assert now["schedule"][0] == {**night["schedule"][0], **now["schedule"][0]}
    assert [t["seats"] for t in now["schedule"][0]["tables"]] == [
        t["seats"] for t in night["schedule"][0]["tables"]
    ]
    for entry in now["schedule"][1:]:
        seated = [m for t in entry["tables"] for m in t["seats"]]
        assert sorted(seated + entry["sitting_out"]) == sorted([*early, late[0]])
    again = await http.post(f"{url}/members", json={"members": [late[0]]}, headers=host)
    assert again.status_code == 409
    assert (await night_of(http, club, night["id"], club.host_token))["schedule"] == now["schedule"]

    # Kit takes the place of a member playing round 1: the seat is Kit's at once.
    out = now["schedule"][0]["tables"][0]["seats"][2]
    swapped = await http.post(f"{url}/substitute", json={"out": out, "in": late[1]}, headers=host)
    assert swapped.status_code == 200, swapped.text
    table_id = swapped.json()["tables"][0]
    assert swapped.json()["schedule"][0]["tables"][0]["seats"][2] == late[1]
    info = (await http.get(f"/api/tables/{table_id}")).json()
    assert info["seats"][2]["name"] == "Kit"
    kit = await http.post(
        f"/api/tables/{table_id}/seats/2", json={"name": "x", "member_token": club.token(late[1])}
    )
    assert kit.status_code == 200
    gone = await http.post(
        f"/api/tables/{table_id}/seats/2", json={"name": "x", "member_token": club.token(out)}
    )
    assert gone.status_code == 403
    # A member already at a table of this round cannot be put at another seat.
    busy = swapped.json()["schedule"][0]["tables"][1]["seats"][0]
    twice = await http.post(f"{url}/substitute", json={"out": late[1], "in": busy}, headers=host)
    assert twice.status_code == 409
    nobody = await http.post(
        f"{url}/substitute", json={"out": stranger, "in": late[0]}, headers=host
    )
    assert nobody.status_code == 422

    # Paused: no round starts until it resumes.
    paused = await http.post(f"{url}/pause", json={"paused": True}, headers=host)
    assert paused.status_code == 200 and paused.json()["paused"]
    held = await http.post(f"{url}/next", headers=host)
    assert held.status_code == 409 and "paused" in held.json()["detail"]
    resumed = await http.post(f"{url}/pause", json={"paused": False}, headers=host)
    assert resumed.status_code == 200 and not resumed.json()["paused"]
    playing = await http.post(f"{url}/next", headers=host)
    assert playing.status_code == 409 and "still being played" in playing.json()["detail"]
    assert (await night_of(http, club, night["id"], club.host_token))["round"] == 1


async def started_long_ago(app: FastAPI, night_id: str) -> None:
    """The round being played was started longer ago than a round takes to make."""
    long_ago = utcnow() - timedelta(seconds=ROUND_MAKING_SECONDS + 1)
    async with services_of(app).db_engine.begin() as connection:
        await connection.execute(
            update(ClubNightRow).where(ClubNightRow.id == night_id).values(round_started=long_ago)
        )


async def test_a_round_being_made_by_another_request_is_refused_not_made_again(app, client):
    """Another request (or process) has just started round 1 and is making its tables:
    `next` answers 409 and makes nothing; once that start is long past (its process
    stopped), `next` finishes the round (200)."""
    http = client
    club = await make_club(http, NAMES[:8])
    made, _body = await make_night(http, club)
    night_id = made.json()["id"]
    assert await services_of(app).nights.store.start_round(night_id, 0)
    url = f"/api/clubs/{club.id}/nights/{night_id}"
    refused = await http.post(f"{url}/next", headers=bearer(club.host_token))
    assert refused.status_code == 409, refused.text
    assert refused.json()["detail"] == "Round 1 is being started: one moment."
    assert (await night_of(http, club, night_id, club.host_token))["tables"] == []
    await started_long_ago(app, night_id)
    finished = await http.post(f"{url}/next", headers=bearer(club.host_token))
    assert finished.status_code == 200, finished.text
    assert finished.json()["round"] == 1 and len(finished.json()["tables"]) == 2


async def test_a_round_left_half_made_is_completed_by_the_next_next(app, client):
    """A process stopped after raising the round and making one table of two: `next`
    completes the round (200), making nothing twice."""
    http = client
    club = await make_club(http, NAMES[:8])
    made, _body = await make_night(http, club)
    night_id = made.json()["id"]
    nights = services_of(app).nights
    assert await nights.store.start_round(night_id, 0)
    await started_long_ago(app, night_id)
    host = bearer(club.host_token)
    url = f"/api/clubs/{club.id}/nights/{night_id}"
    assert (await night_of(http, club, night_id, club.host_token))["tables"] == []
    # The first of the round's two tables made, as a process stopped then would leave it.
    record = await nights.night(club.id, night_id)
    first_round = {**record.schedule[0], "tables": record.schedule[0]["tables"][:1]}
    await nights.make_round(replace(record, schedule=[first_round]), 1)
    [made_first] = (await night_of(http, club, night_id, club.host_token))["tables"]
    completed = await http.post(f"{url}/next", headers=host)
    assert completed.status_code == 200, completed.text
    first = completed.json()
    assert first["round"] == 1 and len(first["tables"]) == 2
    assert first["tables"][0] == made_first
    assert all(t["status"] == "playing" for t in first["schedule"][0]["tables"])
    again = await http.post(f"{url}/next", headers=host)
    assert again.status_code == 409
    assert (await night_of(http, club, night_id, club.host_token))["tables"] == first["tables"]
