"""`/openapi.json` describes the real answers, and the answers keep what the hub gives.

Every route's success answer has a schema with content (no bare `{}` object), and the
response models filter nothing the client reads: each answer equals what the hub built.
"""

from __future__ import annotations

from typing import Any

from bench.harness.tables import add_bots
from server.api.services import services_of

HOST_ROUTES = ("move", "standin", "reissue")


def resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def bare_objects(spec: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    """Places in `schema` (references followed) that say nothing, or only "an object"."""
    schema = resolve(spec, schema)
    parts = {"properties", "items", "anyOf", "oneOf", "allOf", "enum", "const"}
    values = schema.get("additionalProperties")
    if not (parts & set(schema) or isinstance(values, dict)) and schema.get("type") in (
        None,
        "object",
    ):
        return [where]
    found = []
    for name, part in schema.get("properties", {}).items():
        found += bare_objects(spec, part, f"{where}.{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += bare_objects(spec, schema[key], f"{where}[{key}]")
    for key in ("anyOf", "oneOf", "allOf"):
        for k, part in enumerate(schema.get(key, [])):
            found += bare_objects(spec, part, f"{where}|{k}")
    return found


async def test_every_route_documents_a_non_empty_schema_for_its_success_answer(client):
    spec = (await client.get("/openapi.json")).json()
    assert spec["paths"], "the API is in the schema"
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            successes = {code: answer for code, answer in operation["responses"].items()
                         if code.startswith("2")}  # fmt: skip
            assert successes, f"{method} {path}: no success answer documented"
            for code, answer in successes.items():
                if code == "204":
                    assert "content" not in answer, f"{method} {path}: 204 has no body"
                    continue
                [(media, content)] = answer["content"].items()
                schema = content["schema"]
                assert schema, f"{method} {path} {code}: empty schema"
                if media == "application/json":
                    assert not bare_objects(spec, schema, f"{method} {path}"), schema


async def test_the_answers_document_the_contract_fields(client):
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    created = schemas["CreatedTable"]["properties"]
    assert {"id", "url", "invite", "host_token", "invite_url", "seats", "rules"} <= set(created)
    table = schemas["PublicTable"]["properties"]
    assert {"rules", "seats", "status", "scores"} <= set(table)
    assert not {"invite", "host_token", "token"} & set(table), "never a secret"
    assert set(schemas["SeatTaken"]["properties"]) == {"seat", "token"}
    assert set(schemas["PublicSeat"]["properties"]) >= {"name", "bot", "connected"}
    assert "hands" in schemas["History"]["properties"]
    assert table["rules"]["properties"]["target_score"], "rules described as the engine's"


async def test_table_answers_equal_what_the_hub_gives(client, app):
    """The response models drop nothing: optional seat fields included."""
    hub = services_of(app).hub
    created = (
        await client.post("/api/tables", json={"listed": True, "rules": {"target_score": 100}})
    ).json()
    table_id, host = created["id"], {"Authorization": f"Bearer {created['host_token']}"}
    assert {key: created[key] for key in ("invite", "host_token", "invite_url")}
    await client.post(f"/api/tables/{table_id}/seats/0", json={"name": "Ann"})
    await add_bots(client, table_id, (1, 2, 3), level="basic")
    stood_in = await client.post(f"/api/tables/{table_id}/seats/0/standin", headers=host)
    assert stood_in.json()["seats"][0]["autoplay"] is True, stood_in.text
    await hub.rooms[table_id].tasks.bot_task

    info = (await client.get(f"/api/tables/{table_id}")).json()
    assert info == await hub.table_info(table_id)
    assert info["seats"][0]["autoplay_reason"] == "away"
    assert "autoplay" not in info["seats"][1], "absent while no bot stands in"
    assert (await client.get("/api/tables")).json() == await hub.lobby()
    history = (await client.get(f"/api/tables/{table_id}/history")).json()
    assert history == await hub.history(table_id)
    assert history["hands"], "the bots finished the game"


async def test_readiness_answers_keep_their_shape(client):
    ready = await client.get("/readyz")
    assert ready.json() == {
        "status": "ready",
        "checks": {"database": "ok", "redis": "not configured"},
    }
    assert (await client.get("/healthz")).json() == {"status": "ok"}
