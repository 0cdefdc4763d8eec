"""Every route the app publishes, walked from its own OpenAPI document, with junk in every
id of its path and in every string of its body (NUL, a megabyte-ish id, spaces, quotes,
non-ASCII), next to real ids: on SQLite and PostgreSQL alike, every answer is a 4xx or a
success, never a 5xx, and no ERROR line is logged. A NUL reaching PostgreSQL is an error
there (text cannot hold one) where SQLite answers, so the PostgreSQL half is the one that
catches an id or a string that reaches SQL unchecked."""

from __future__ import annotations

import itertools
import logging
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from fastapi import FastAPI

from server.api.deps import ID_PATTERN
from tests.clubs.playing import bearer, make_club

JUNK = ["\x00", "a\x00b", "x" * 300, "a b", "'; --", "é.%"]
INTEGERS = {"seat": "0", "to": 1}


def resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def kinds(schema: dict[str, Any], spec: dict[str, Any]) -> set[str]:
    """The JSON types a (possibly `anyOf`) schema allows."""
    schema = resolve(schema, spec)
    if "anyOf" in schema:
        return set().union(*(kinds(option, spec) for option in schema["anyOf"]))
    return {schema.get("type", "string")}


def bodies(operation: dict[str, Any], spec: dict[str, Any], real: dict[str, str]) -> list[Any]:
    """Bodies for `operation`: each string field junk in turn (the others plausible), all
    of them junk at once, and a junk key and value inside each object field."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return [None]
    schema = resolve(content["schema"], spec)
    fields = {name: kinds(field, spec) for name, field in schema.get("properties", {}).items()}
    plausible: dict[str, Any] = {}
    for name, allowed in fields.items():
        if "string" in allowed:
            plausible[name] = real.get(name, "Ann")
        elif "integer" in allowed:
            plausible[name] = INTEGERS.get(name, 0)
    made: list[Any] = []
    for junk in JUNK:
        made.append({name: junk for name, allowed in fields.items() if "string" in allowed})
        for name, allowed in fields.items():
            if "string" in allowed:
                made.append(plausible | {name: junk})
            if "object" in allowed:
                made.append(plausible | {name: {"preset": junk}})
                made.append(plausible | {name: {"preset": "standard", junk: junk}})
    return made


def paths(template: str, real: dict[str, str]) -> list[str]:
    """`template` with every id filled in each way: junk (URL-encoded) or the real one."""
    names = [part[1:-1] for part in template.split("/") if part.startswith("{")]
    choices = []
    for name in names:
        if name in INTEGERS:
            choices.append([str(INTEGERS[name])])
        else:
            choices.append([quote(junk, safe="") for junk in JUNK] + [real.get(name, "nope")])
    filled = []
    for values in itertools.product(*choices):
        path = template
        for name, value in zip(names, values, strict=True):
            path = path.replace("{" + name + "}", value, 1)
        filled.append(path)
    return filled


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


async def test_every_route_refuses_junk_ids_and_strings_without_an_error(
    app: FastAPI, client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    club = await make_club(client, ["Ann"])
    (member,) = club.members
    made = await client.post(
        "/api/tables", json={"club": club.id, "member_token": club.token(member)}
    )
    assert made.status_code == 201, made.text
    real = {
        "table_id": made.json()["id"],
        "club_id": club.id,
        "member_id": member,
        "club": club.id,
        "member_token": club.token(member),
        "host_token": club.host_token,
        "invite": club.invite,
    }
    spec = app.openapi()
    # The host's token, a member's, and junk, in turn.
    tokens = itertools.cycle([club.host_token, club.token(member), "x", "\u00e9"])
    sent, answers = 0, set()
    for template, operations in spec["paths"].items():
        for method, operation in operations.items():
            for path, body in itertools.product(
                paths(template, real), bodies(operation, spec, real)
            ):
                token = next(tokens)
                response = await client.request(
                    method,
                    path,
                    json=body,
                    headers={"Authorization": f"Bearer {quote(token)}"},
                )
                sent += 1
                answers.add(response.status_code)
                assert response.status_code < 500, (method, path, body, response.text)
    # The pages outside the OpenAPI document take the same ids.
    for page, junk in itertools.product(("/t/", "/c/"), JUNK):
        response = await client.get(page + quote(junk, safe=""))
        assert response.status_code == 422, (page, junk)
    assert errors_logged(caplog) == []
    assert sent > 500 and {201, 403, 422} <= answers
    # Whoever joined with the real invite did so under a printable name.
    page = await client.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))
    assert page.status_code == 200
    assert all(m["name"].isprintable() for m in page.json()["members"])


async def test_a_malformed_id_is_a_422_naming_the_field(client: httpx.AsyncClient) -> None:
    """The issue's own requests: a NUL club id in a path and in a body."""
    answer = await client.get("/api/clubs/%00", headers=bearer("x"))
    assert answer.status_code == 422
    (problem,) = answer.json()["detail"]
    assert problem["loc"] == ["path", "club_id"]
    assert "an id is 1 to 16 letters, digits" in problem["msg"]
    answer = await client.post("/api/tables", json={"club": "\u0000", "member_token": "x"})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["body", "club"]
    answer = await client.post("/api/tables/%00/seats/0", json={"name": "Ann", "member_token": "x"})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["loc"] == ["path", "table_id"]


def test_every_id_of_every_route_is_the_one_checked_type(app: FastAPI) -> None:
    """Every string in a path, and every id in a body, is published as `deps.Id`."""
    spec = app.openapi()
    path_ids = [
        parameter["schema"]
        for operations in spec["paths"].values()
        for operation in operations.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "path" and parameter["schema"].get("type") == "string"
    ]
    assert len(path_ids) >= 15
    assert all(schema["pattern"] == ID_PATTERN for schema in path_ids)
    (club,) = [
        option
        for option in spec["components"]["schemas"]["NewTable"]["properties"]["club"]["anyOf"]
        if option["type"] == "string"
    ]
    assert club["pattern"] == ID_PATTERN
