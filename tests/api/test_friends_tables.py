"""Friends' tables through the HTTP API (docs/protocol.md, "Friends' tables"), on SQLite and
PostgreSQL: private by default, the invite, the host's controls and their refusals."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.test_tables import bearer


async def friends_table(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/api/tables", json={"name": "Friday"} | body)
    assert response.status_code == 201, response.text
    return response.json()


async def info(client: httpx.AsyncClient, table_id: str) -> dict[str, Any]:
    return (await client.get(f"/api/tables/{table_id}")).json()


async def join(
    client: httpx.AsyncClient, table: dict[str, Any], seat: int, name: str, **extra: Any
) -> str:
    body = {"name": name, "invite": table["invite"]} | extra
    response = await client.post(f"/api/tables/{table['id']}/seats/{seat}", json=body)
    assert response.status_code == 201, response.text
    return response.json()["token"]


async def add_bot(client: httpx.AsyncClient, table: dict[str, Any], seat: int) -> None:
    response = await client.post(
        f"/api/tables/{table['id']}/seats/{seat}/bot",
        json={"level": "basic", "invite": table["invite"]},
    )
    assert response.status_code == 201, response.text


async def test_a_new_table_is_private_and_its_answer_carries_the_invite_and_host_token(client):
    table = await friends_table(client)
    assert table["listed"] is False
    assert len(table["invite"]) >= 16 and len(table["host_token"]) >= 16
    assert table["invite"] != table["host_token"]
    assert table["invite_url"] == f"/t/{table['id']}#invite={table['invite']}"
    assert table["turn_seconds"] is None and table["deadline"] is None
    assert table["host_seat"] is None


async def test_the_lobby_lists_only_listed_tables(client):
    private = await friends_table(client, name="private")
    public = await friends_table(client, name="public", listed=True)
    lobby = {table["id"] for table in (await client.get("/api/tables")).json()}
    assert public["id"] in lobby
    assert private["id"] not in lobby
    # An unlisted table is still reached by its link, for watching.
    assert (await client.get(f"/api/tables/{private['id']}")).status_code == 200
    assert (await client.get(private["url"])).status_code == 200


async def test_secrets_are_never_shown_again(client):
    table = await friends_table(client, listed=True)
    token = await join(client, table, 0, "Ann")
    answers = [
        (await client.get(path)).text
        for path in (
            "/api/tables",
            f"/api/tables/{table['id']}",
            f"/api/tables/{table['id']}/history",
        )
    ]
    for secret in (table["invite"], table["host_token"], token):
        for answer in answers:
            assert secret not in answer


@pytest.mark.parametrize("invite", [None, "", "wrong-invite-0123456789", "x" * 300])
async def test_a_stranger_without_the_invite_gets_403_for_seats_and_bots_and_nothing_changes(
    client, invite
):
    table = await friends_table(client)
    before = await info(client, table["id"])
    body: dict[str, Any] = {"name": "Mallory"}
    if invite is not None:
        body["invite"] = invite
    seat = await client.post(f"/api/tables/{table['id']}/seats/0", json=body)
    bot_body = {"level": "basic"} | ({"invite": invite} if invite is not None else {})
    bot = await client.post(f"/api/tables/{table['id']}/seats/1/bot", json=bot_body)
    expected = 422 if invite is not None and len(invite) > 256 else 403
    assert (seat.status_code, bot.status_code) == (expected, expected)
    if expected == 403:
        assert "private" in seat.json()["detail"] and "invite" in seat.json()["detail"]
    assert await info(client, table["id"]) == before


async def test_the_invite_seats_friends_and_bots_and_a_listed_table_needs_none(client):
    table = await friends_table(client)
    await join(client, table, 0, "Ann")
    await add_bot(client, table, 1)
    seats = (await info(client, table["id"]))["seats"]
    assert [seat["name"] for seat in seats[:2]] == ["Ann", "West bot"]
    open_table = await friends_table(client, listed=True)
    taken = await client.post(f"/api/tables/{open_table['id']}/seats/0", json={"name": "Bo"})
    assert taken.status_code == 201


async def test_the_host_token_sits_without_the_invite_and_makes_that_seat_the_hosts(client):
    table = await friends_table(client)
    response = await client.post(
        f"/api/tables/{table['id']}/seats/2",
        json={"name": "Host", "host_token": table["host_token"]},
    )
    assert response.status_code == 201
    assert (await info(client, table["id"]))["host_seat"] == 2


async def test_turn_seconds_is_off_or_5_to_300(client):
    for good in (None, 5, 300):
        assert (await friends_table(client, turn_seconds=good))["turn_seconds"] == good
    for bad in (0, 4, 301, -5, 2.5, "30", True):
        response = await client.post("/api/tables", json={"turn_seconds": bad})
        assert response.status_code == 422, bad


HOST_REQUESTS = [
    ("delete", "/seats/1", None),
    ("post", "/seats/1/move", {"to": 3}),
    ("post", "/seats/1/standin", None),
    ("post", "/seats/1/reissue", {}),
    ("patch", "", {"turn_seconds": 30}),
    ("delete", "", None),
]


async def send(
    client: httpx.AsyncClient, table_id: str, method: str, path: str, body: Any, token: str | None
) -> httpx.Response:
    headers = bearer(token) if token else {}
    url = f"/api/tables/{table_id}{path}"
    if body is None:
        return await client.request(method, url, headers=headers)
    return await client.request(method, url, json=body, headers=headers)


async def test_every_host_control_refuses_non_hosts_with_403_and_changes_nothing(client):
    table = await friends_table(client)
    host = await join(client, table, 0, "Host", host_token=table["host_token"])
    guest = await join(client, table, 1, "Guest")
    before = await info(client, table["id"])
    for method, path, body in HOST_REQUESTS:
        # Emptying a seat answers 401, as it always has for a token that does not hold it.
        refusal = 401 if method == "delete" and path else 403
        for token in (None, "forged", table["invite"]):
            response = await send(client, table["id"], method, path, body, token)
            assert response.status_code == refusal, (method, path, token, response.text)
            assert "Only the" in response.json()["detail"] or "Bearer" in response.json()["detail"]
        if refusal == 401:
            continue  # the seat's own token may leave it: not a host control for its player
        response = await send(client, table["id"], method, path, body, guest)
        assert response.status_code == 403, (method, path)
    assert await info(client, table["id"]) == before
    assert host  # the host's own requests are tested below


async def test_the_host_removes_and_moves_players_before_the_game_starts(client):
    table = await friends_table(client)
    host = await join(client, table, 0, "Host", host_token=table["host_token"])
    ann = await join(client, table, 1, "Ann")
    await add_bot(client, table, 2)
    moved = await send(client, table["id"], "post", "/seats/1/move", {"to": 3}, host)
    assert moved.status_code == 200
    assert [seat["name"] for seat in moved.json()["seats"]] == ["Host", None, "North bot", "Ann"]
    # Ann's token moved with her: she can leave seat 3, not seat 1.
    assert (await send(client, table["id"], "delete", "/seats/1", None, ann)).status_code == 401
    swapped = await send(client, table["id"], "post", "/seats/0/move", {"to": 2}, host)
    assert [seat["name"] for seat in swapped.json()["seats"]] == [
        "South bot",  # a bot is named by where it sits
        None,
        "Host",
        "Ann",
    ]
    assert swapped.json()["host_seat"] == 2  # the host's seat follows the host
    removed = await send(client, table["id"], "delete", "/seats/0", None, table["host_token"])
    assert removed.status_code == 204
    assert (await info(client, table["id"]))["seats"][0]["name"] is None
    for refused in ({"to": 2}, {"to": 9}, {"to": "1"}, {}):
        answer = await send(client, table["id"], "post", "/seats/1/move", refused, host)
        assert answer.status_code in (404, 409, 422), refused


async def test_moves_and_removals_are_refused_once_the_game_has_started(client):
    table = await friends_table(client)
    host = await join(client, table, 0, "Host", host_token=table["host_token"])
    for seat in (1, 2, 3):
        await add_bot(client, table, seat)
    before = await info(client, table["id"])
    assert before["status"] == "playing"
    for method, path, body in (("post", "/seats/1/move", {"to": 2}), ("delete", "/seats/1", None)):
        response = await send(client, table["id"], method, path, body, host)
        assert response.status_code == 409
    # A bot's seat has no player to stand in for; the host, with no socket open, is away.
    response = await send(client, table["id"], "post", "/seats/1/standin", None, host)
    assert response.status_code == 409
    response = await send(client, table["id"], "post", "/seats/0/standin", None, host)
    assert response.status_code == 200
    assert response.json()["seats"][0] | {"autoplay_reason": "away"} == response.json()["seats"][0]
    again = await send(client, table["id"], "post", "/seats/0/standin", None, host)
    assert again.status_code == 409


async def test_the_host_changes_the_timer_and_ends_the_table(client):
    table = await friends_table(client)
    host = table["host_token"]
    changed = await send(client, table["id"], "patch", "", {"turn_seconds": 30}, host)
    assert changed.status_code == 200 and changed.json()["turn_seconds"] == 30
    assert changed.json()["deadline"] is None  # nobody must act before the game starts
    for bad in ({"turn_seconds": 3}, {}, {"turn_seconds": 30, "x": 1}):
        response = await send(client, table["id"], "patch", "", bad, host)
        assert response.status_code == 422
    off = await send(client, table["id"], "patch", "", {"turn_seconds": None}, host)
    assert off.json()["turn_seconds"] is None
    assert (await send(client, table["id"], "delete", "", None, host)).status_code == 204
    ended = await info(client, table["id"])
    assert ended["status"] == "ended"
    seat = await client.post(
        f"/api/tables/{table['id']}/seats/0", json={"name": "Late", "invite": table["invite"]}
    )
    assert seat.status_code == 409
    assert (await send(client, table["id"], "delete", "", None, host)).status_code == 409
    assert await info(client, table["id"]) == ended


async def test_a_reissued_seat_locks_out_the_old_token(client):
    table = await friends_table(client)
    await join(client, table, 0, "Host", host_token=table["host_token"])
    old = await join(client, table, 1, "Lost phone")
    reissued = await send(
        client, table["id"], "post", "/seats/1/reissue", {"name": "Ann"}, table["host_token"]
    )
    assert reissued.status_code == 200
    fresh = reissued.json()
    assert fresh["seat"] == 1 and fresh["token"] != old
    assert fresh["continue_url"] == f"/t/{table['id']}#seat={fresh['token']}"
    assert (await info(client, table["id"]))["seats"][1]["name"] == "Ann"
    # The old token no longer holds the seat; the new one does.
    assert (await send(client, table["id"], "delete", "/seats/1", None, old)).status_code == 401
    assert (
        await send(client, table["id"], "delete", "/seats/1", None, fresh["token"])
    ).status_code == 204


async def test_the_host_role_passes_to_a_seated_player_when_the_host_leaves(client):
    table = await friends_table(client)
    host = await join(client, table, 0, "Host", host_token=table["host_token"])
    ann = await join(client, table, 2, "Ann")
    assert (await send(client, table["id"], "delete", "/seats/0", None, host)).status_code == 204
    assert (await info(client, table["id"]))["host_seat"] == 2
    # The old host token stopped working; Ann's seat token carries the controls now.
    for token in (table["host_token"], host):
        response = await send(client, table["id"], "patch", "", {"turn_seconds": 10}, token)
        assert response.status_code == 403
    response = await send(client, table["id"], "patch", "", {"turn_seconds": 10}, ann)
    assert response.status_code == 200
