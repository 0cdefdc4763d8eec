"""The rule builder's server side, on SQLite and PostgreSQL: the catalogue names only
real fields of `Rules` once each, grouped as players look for them; a check answers the
one-line summary or a 422 that names the field; every table (its info, the lobby) shows
the same summary, and its "play these rules again" link opens rules that validate to the
table's own."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from server.engine import PRESETS, Rules
from tests.realtime.test_protocol import check, published_schema


def rules_of_link(link: str) -> dict[str, Any]:
    """The rules a `/?rules=<JSON>` link carries."""
    parts = urlsplit(link)
    assert parts.path == "/" and not parts.fragment
    [text] = parse_qs(parts.query)["rules"]
    rules: dict[str, Any] = json.loads(text)
    return rules


async def test_the_catalogue_groups_every_rule_once_with_its_words(client: httpx.AsyncClient):
    answer = await client.get("/api/rules/catalog")
    assert answer.status_code == 200
    catalog = answer.json()
    schema = published_schema()
    check(catalog, schema["http"]["RuleCatalog"], schema)
    groups = [group["id"] for group in catalog["groups"]]
    assert groups == ["bidding", "nil", "scoring", "end", "deck", "lead"]
    fields = [rule["field"] for group in catalog["groups"] for rule in group["rules"]]
    assert len(fields) == len(set(fields)), "a rule is declared twice"
    assert set(fields) <= set(Rules.model_fields)
    for wanted in ("bidding", "bidding_formats", "nil_pass", "mercy_margin", "deck"):
        assert wanted in fields
    for group in catalog["groups"]:
        for rule in group["rules"]:
            assert rule["label"] and rule["explain"] and rule["example"], rule["field"]
    bidding = next(r for r in catalog["groups"][0]["rules"] if r["field"] == "bidding")
    formats = {choice["value"]: choice for choice in bidding["choices"]}
    assert set(formats) == {"individual", "team", "whiz", "mirror", "suicide"}
    assert formats["mirror"]["line"] == "your bid is your spades"
    assert formats["suicide"]["needs"] == {"partnerships": [True]}
    presets = {preset["name"]: preset for preset in catalog["presets"]}
    assert list(presets) == list(PRESETS)
    assert presets["whiz"]["rules"] == Rules.preset("whiz").model_dump(mode="json")
    assert presets["suicide"]["summary"] == "Suicide · min bid 4 · to 500 · lose at -200"


async def test_a_check_answers_the_summary_or_names_the_field(client: httpx.AsyncClient):
    given = {"preset": "whiz", "deck": "jokers", "target_score": 300, "bags": False}
    answer = await client.post("/api/rules/check", json={"rules": given})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    schema = published_schema()
    check(body, schema["http"]["RulesChecked"], schema)
    assert body["summary"] == "Whiz · jokers · to 300 · lose at -200 · no bags"
    assert body["rules"] == Rules.model_validate(given).model_dump(mode="json")
    assert rules_of_link(body["link"]) == given
    refused = [
        ({"preset": "suicide", "players": 3, "partnerships": False}, "bidding"),
        ({"preset": "standard", "nil_pass": 5}, "nil_pass"),
        ({"preset": "standard", "target_score": 0}, "target_score"),
        ({"preset": "suicide", "bidding_formats": ["suicide", "whiz"]}, "min_team_bid"),
        ({"preset": "nonsense"}, "preset"),
        ({"preset": "standard", "colour": "red"}, "colour"),
    ]
    for rules, field in refused:
        answer = await client.post("/api/rules/check", json={"rules": rules})
        assert answer.status_code == 422, rules
        assert field in answer.json()["detail"], (rules, answer.json())
    assert (await client.post("/api/rules/check", json={"rules": "x"})).status_code == 422


async def test_every_table_shows_the_summary_and_links_its_rules_again(
    client: httpx.AsyncClient,
):
    given = {
        "preset": "suicide",
        "min_team_bid": 0,
        "nil_pass": 2,
        "bidding_formats": ["suicide", "mirror", "whiz"],
        "mercy_margin": 300,
    }
    made = await client.post("/api/tables", json={"rules": given, "listed": True})
    assert made.status_code == 201, made.text
    created = made.json()
    line = "Rotation Suicide, Mirror, Whiz · nil pass 2 · to 500 · lose at -200 · mercy 300"
    assert created["summary"] == line
    info = (await client.get(f"/api/tables/{created['id']}")).json()
    # The PostgreSQL database is shared by the session's tests: find this table's row.
    [listed] = [t for t in (await client.get("/api/tables")).json() if t["id"] == created["id"]]
    assert info["summary"] == listed["summary"] == line
    again = rules_of_link(info["rules_link"])
    assert Rules.model_validate(again) == Rules.model_validate(given)
    assert len(again) <= len(given), "the link carries a preset and its changes only"
    # The link's rules make a table with the same rules.
    remade = await client.post("/api/tables", json={"rules": again})
    assert remade.status_code == 201
    assert remade.json()["rules"] == info["rules"]
