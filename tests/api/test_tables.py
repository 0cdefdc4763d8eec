"""HTTP API of the table server (docs/protocol.md), on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx

from bench.harness.tables import add_bots
from server.api.services import services_of
from server.engine import PRESETS


async def new_table(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    """A listed table, open to anyone (private tables: test_friends_tables.py)."""
    body = {"name": "Friday", "listed": True} | body
    response = await client.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    return response.json()


async def sit(client: httpx.AsyncClient, table_id: str, seat: int, name: str = "Ann") -> str:
    response = await client.post(f"/api/tables/{table_id}/seats/{seat}", json={"name": name})
    assert response.status_code == 201, response.text
    assert response.json()["seat"] == seat
    return response.json()["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_presets_lists_the_presets_with_full_rules(client):
    response = await client.get("/api/presets")
    assert response.status_code == 200
    presets = response.json()
    assert list(presets) == list(PRESETS)
    assert presets["cutthroat"]["players"] == 3
    assert presets["standard"]["target_score"] == 500
    assert presets["suicide"]["bidding"] == "suicide" and presets["suicide"]["min_team_bid"] == 4


async def test_a_format_night_table_keeps_its_house_rules(client):
    rules = {
        "preset": "whiz",
        "bidding_formats": ["whiz", "suicide", "mirror"],
        "nil_pass": 2,
        "mercy_margin": 300,
    }
    table = await new_table(client, rules=rules)
    kept = (await client.get(f"/api/tables/{table['id']}")).json()["rules"]
    assert kept["bidding_formats"] == ["whiz", "suicide", "mirror"]
    assert (kept["nil_pass"], kept["mercy_margin"], kept["lose_score"]) == (2, 300, -200)


async def test_create_table_answers_id_and_table_page_url(client):
    table = await new_table(
        client, name="  Friday spades  ", rules={"preset": "standard", "target_score": 300}
    )
    assert table["url"] == f"/t/{table['id']}"
    assert table["name"] == "Friday spades"
    assert table["status"] == "waiting"
    assert table["rules"]["target_score"] == 300
    assert [seat["name"] for seat in table["seats"]] == [None] * 4
    assert table["version"] >= 1


async def test_create_table_without_a_name_or_rules_gets_defaults(client):
    response = await client.post("/api/tables", json={})
    assert response.status_code == 201
    table = response.json()
    assert table["name"] == f"Table {table['id']}"
    assert table["rules"]["players"] == 4


BAD_TABLES = [
    ({"name": "x" * 65}, "64"),
    ({"rules": {"preset": "nope"}}, "preset"),
    ({"rules": {"preset": "cutthroat", "bidding": "team"}}, "bidding"),
    ({"rules": {"preset": "standard", "target_score": 0}}, "target_score"),
    ({"rules": {"preset": "standard", "blind_nil": True, "nil": False}}, "nil"),
    ({"name": 5}, "name"),
    ({"rules": "standard"}, "rules"),
    ({"name": "x", "surprise": True}, "surprise"),
    # House rules: a refused combination names the setting.
    ({"rules": {"preset": "whiz", "blind_nil": True}}, "blind_nil"),
    ({"rules": {"preset": "cutthroat", "bidding": "suicide"}}, "bidding"),
    ({"rules": {"preset": "cutthroat", "nil_pass": 2}}, "nil_pass"),
    ({"rules": {"preset": "standard", "nil_pass": 4}}, "nil_pass"),
    ({"rules": {"preset": "standard", "mercy_margin": 0}}, "mercy_margin"),
    ({"rules": {"preset": "competitive", "bidding_formats": ["team", "mirror"]}}, "min_team_bid"),
    ({"rules": {"preset": "cutthroat", "bidding_formats": ["suicide"]}}, "bidding_formats"),
    ({"rules": {"preset": "standard", "bidding_formats": []}}, "bidding_formats"),
]
MALFORMED = [b"{not json", b"[]", b"null", b'"text"', b"\xff\xfe", '{"name": "\u00e9"'.encode()]


async def test_create_table_refuses_bad_input_with_422_naming_the_field(client):
    for body, needle in BAD_TABLES:
        response = await client.post("/api/tables", json=body)
        assert response.status_code == 422, body
        assert needle in str(response.json()["detail"]), body


async def test_malformed_bodies_get_a_json_4xx_not_a_500(client):
    for content in MALFORMED:
        response = await client.post(
            "/api/tables", content=content, headers={"content-type": "application/json"}
        )
        assert 400 <= response.status_code < 500, content
        assert "detail" in response.json(), content


async def test_huge_body_is_refused_with_413(client):
    response = await client.post("/api/tables", json={"name": "x" * 100_000})
    assert response.status_code == 413
    assert response.json() == {"detail": "Request body too large."}


async def test_unknown_ids_and_routes_get_404_json(client):
    table = await new_table(client)
    for path in (
        "/api/tables/nope",
        "/api/tables/nope/history",
        "/api/nothing-here",
        "/t/nope",
    ):
        response = await client.get(path)
        assert response.status_code == 404, path
        assert "detail" in response.json()
    for seat in (4, -1, 99):
        response = await client.post(f"/api/tables/{table['id']}/seats/{seat}", json={"name": "A"})
        assert response.status_code == 404
    response = await client.post("/api/tables/nope/seats/0", json={"name": "A"})
    assert response.status_code == 404
    response = await client.post("/api/tables/nope/seats/0/bot", json={"level": "basic"})
    assert response.status_code == 404
    # An id the server could never have made is malformed, not unknown (test_id_fuzz.py).
    response = await client.get("/api/tables/" + "x" * 300)
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["path", "table_id"]


async def test_taking_a_seat_returns_a_token_once_and_shows_the_name(client):
    table = await new_table(client)
    token = await sit(client, table["id"], 2, name="  Ann  ")
    assert len(token) >= 32
    info = (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["seats"][2]["name"] == "Ann"
    assert info["seats"][2]["bot"] is None
    assert info["version"] > table["version"]


async def test_a_taken_seat_gets_409(client):
    table = await new_table(client)
    await sit(client, table["id"], 0)
    response = await client.post(f"/api/tables/{table['id']}/seats/0", json={"name": "Bob"})
    assert response.status_code == 409
    assert response.json()["detail"] == "That seat is taken."
    response = await client.post(f"/api/tables/{table['id']}/seats/0/bot", json={"level": "basic"})
    assert response.status_code == 409


async def test_bad_seat_names_get_422(client):
    table = await new_table(client)
    for name in ["", "   ", "x" * 33, None, 7, ["Ann"]]:
        response = await client.post(f"/api/tables/{table['id']}/seats/0", json={"name": name})
        assert response.status_code == 422, name
        assert "detail" in response.json()
    response = await client.post(f"/api/tables/{table['id']}/seats/0", json=["Ann"])
    assert response.status_code == 422


async def test_a_32_character_name_is_fine(client):
    table = await new_table(client)
    await sit(client, table["id"], 0, name="x" * 32)


async def test_leaving_a_seat_before_the_start_frees_it(client):
    table = await new_table(client)
    token = await sit(client, table["id"], 1)
    url = f"/api/tables/{table['id']}/seats/1"
    assert (await client.delete(url)).status_code == 401
    assert (await client.delete(url, headers=bearer("not-the-token"))).status_code == 401
    assert (await client.delete(url, headers={"Authorization": token})).status_code == 401
    other = await sit(client, table["id"], 0, name="Bob")
    assert (await client.delete(url, headers=bearer(other))).status_code == 401
    response = await client.delete(url, headers=bearer(token))
    assert response.status_code == 204
    info = (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["seats"][1]["name"] is None
    await sit(client, table["id"], 1, name="Cy")


async def test_the_game_starts_when_the_last_seat_fills_and_seats_are_then_kept(client):
    table = await new_table(client)
    token = await sit(client, table["id"], 0)
    for seat in (1, 2):
        response = await client.post(
            f"/api/tables/{table['id']}/seats/{seat}/bot", json={"level": "basic"}
        )
        assert response.status_code == 201
        assert response.json() == {"seat": seat, "bot": "basic"}
    assert (await client.get(f"/api/tables/{table['id']}")).json()["status"] == "waiting"
    await sit(client, table["id"], 3, name="Dee")
    info = (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["status"] == "playing"
    assert info["game_number"] == 1
    assert info["scores"] == [{"score": 0, "bags": 0}, {"score": 0, "bags": 0}]
    response = await client.delete(f"/api/tables/{table['id']}/seats/0", headers=bearer(token))
    assert response.status_code == 409


async def test_unknown_bot_level_gets_422(client):
    table = await new_table(client)
    response = await client.post(f"/api/tables/{table['id']}/seats/0/bot", json={"level": "god"})
    assert response.status_code == 422
    assert "basic" in response.json()["detail"]


async def test_rematch_needs_a_seat_token_and_a_finished_game(client):
    table = await new_table(client)
    token = await sit(client, table["id"], 0)
    url = f"/api/tables/{table['id']}/rematch"
    assert (await client.post(url)).status_code == 401
    assert (await client.post(url, headers=bearer("forged"))).status_code == 401
    response = await client.post(url, headers=bearer(token))
    assert response.status_code == 409
    assert (await client.post("/api/tables/nope/rematch", headers=bearer(token))).status_code == 404


async def test_lobby_lists_open_tables_and_live_games_but_not_finished_ones(client):
    open_table = await new_table(client, name="open")
    live = await new_table(client, name="live", rules={"preset": "standard", "target_score": 50})
    await sit(client, live["id"], 0)
    await add_bots(client, live["id"], (1, 2, 3), level="basic")
    lobby = (await client.get("/api/tables")).json()
    by_id = {table["id"]: table for table in lobby}
    assert by_id[open_table["id"]]["status"] == "waiting"
    assert by_id[live["id"]]["status"] == "playing"


async def test_history_of_a_new_table_is_empty(client):
    table = await new_table(client)
    response = await client.get(f"/api/tables/{table['id']}/history")
    assert response.status_code == 200
    assert response.json() == {"id": table["id"], "game_number": 0, "hands": []}


async def test_history_of_a_bot_game_lists_every_hand_with_sides_after_it(client, app):
    table = await new_table(client, rules={"preset": "standard", "target_score": 100})
    await add_bots(client, table["id"], level="basic")
    await services_of(app).hub.rooms[table["id"]].tasks.bot_task
    info = (await client.get(f"/api/tables/{table['id']}")).json()
    assert info["status"] == "over"
    assert info["winner"] in (0, 1)
    history = (await client.get(f"/api/tables/{table['id']}/history")).json()
    assert len(history["hands"]) == info["hands_played"] >= 1
    for number, hand in enumerate(history["hands"], start=1):
        assert hand["hand"] == number
        assert sum(hand["tricks"]) == 13
        assert len(hand["bids"]) == 4
        assert sorted(len(cards) for cards in hand["deal"]) == [13] * 4
        assert [set(side) >= {"points", "score", "bags"} for side in hand["sides"]] == [True] * 2
    last = history["hands"][-1]["sides"]
    assert [{"score": s["score"], "bags": s["bags"]} for s in last] == info["scores"]


async def test_no_get_answer_ever_shows_a_token(client):
    table = await new_table(client)
    tokens = [await sit(client, table["id"], seat, name=f"P{seat}") for seat in range(4)]
    answers = [
        (await client.get(path)).text
        for path in (
            "/api/tables",
            f"/api/tables/{table['id']}",
            f"/api/tables/{table['id']}/history",
        )
    ]
    for token in tokens:
        for answer in answers:
            assert token not in answer
            assert "token" not in answer


async def test_pages_serve_the_lobby_and_the_table_page(client):
    table = await new_table(client)
    lobby = await client.get("/")
    assert lobby.status_code == 200
    assert lobby.headers["content-type"].startswith("text/html")
    page = await client.get(table["url"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")


async def test_static_files_and_wrong_methods(client):
    css = await client.get("/static/app.css")
    assert css.status_code == 200
    assert (await client.get("/static/nope.js")).status_code == 404
    wrong = await client.put("/api/tables")
    assert wrong.status_code == 405
    assert "detail" in wrong.json()
