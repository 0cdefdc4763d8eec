"""The club's nights as its page lists them (`GET /api/clubs/{id}/nights`), through real
HTTP on SQLite and PostgreSQL: every member and the host see the night that is on, from
waiting to over, newest first; anyone else gets 403."""

from __future__ import annotations

from tests.clubs.playing import bearer, make_club
from tests.realtime.test_protocol import check, published_schema

NAMES = ["Ann", "Bob", "Cy", "Di"]


async def test_members_and_the_host_see_the_clubs_nights_and_nobody_else_does(http):
    club = await make_club(http, NAMES)
    other = await make_club(http, ["Eve"])
    members = list(club.members)
    path = f"/api/clubs/{club.id}/nights"
    empty = await http.get(path, headers=bearer(club.token(members[0])))
    assert empty.status_code == 200 and empty.json() == {"nights": []}

    host = bearer(club.host_token)
    body = {"members": members, "rounds": 2, "format": "rotating", "hands": 1}
    first = (await http.post(path, json=body, headers=host)).json()["id"]
    second = (await http.post(path, json=body, headers=host)).json()["id"]
    await http.post(f"{path}/{second}/next", headers=host)
    for token in (club.host_token, club.token(members[3])):
        answer = await http.get(path, headers=bearer(token))
        assert answer.status_code == 200, answer.text
        schema = published_schema()
        check(answer.json(), schema["http"]["ClubNights"], schema)
        listed = answer.json()["nights"]
        assert [night["id"] for night in listed] == [second, first]
        by_id = {night["id"]: night for night in listed}
        assert by_id[first] == {"id": first, "status": "waiting", "round": 0, "rounds": 2}
        assert by_id[second] == {"id": second, "status": "playing", "round": 1, "rounds": 2}

    ended = await http.post(f"{path}/{second}/end", headers=host)
    assert ended.status_code == 200, ended.text
    listed = (await http.get(path, headers=host)).json()["nights"]
    assert {night["id"]: night["status"] for night in listed} == {first: "waiting", second: "over"}

    for token in [None, "nonsense", other.host_token, other.token(next(iter(other.members)))]:
        refused = await http.get(path, headers=bearer(token) if token else {})
        assert refused.status_code == 403, refused.text
    assert (
        await http.get(f"/api/clubs/{other.id}/nights", headers=bearer(other.host_token))
    ).json() == {"nights": []}
