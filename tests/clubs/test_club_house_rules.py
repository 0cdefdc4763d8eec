"""A club's house rules over real HTTP, on SQLite and PostgreSQL: only its host sets them
(a member: 403, a stranger: 403), rules that do not hold together are refused with the
field named and change nothing; the club's new tables take them when started without
rules, the page shows their summary, and every game in its list links its rules again."""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

from server.engine import Rules
from tests.clubs.playing import (
    FAST,
    abandoned_club_game,
    bearer,
    bots_then_end,
    club_table,
    make_club,
)
from tests.realtime.test_protocol import check, published_schema

HOUSE = {"preset": "whiz", "deck": "jokers", "target_score": 300, "bags": False}


async def test_the_host_sets_house_rules_and_new_club_tables_take_them(served, http):
    club = await make_club(http, ["Ann"])
    [ann] = club.members
    path = f"/api/clubs/{club.id}/rules"
    schema = published_schema()

    by_member = await http.put(path, json={"rules": HOUSE}, headers=bearer(club.token(ann)))
    assert by_member.status_code == 403
    by_stranger = await http.put(path, json={"rules": HOUSE}, headers=bearer("nope"))
    assert by_stranger.status_code == 403
    bad = await http.put(
        path,
        json={"rules": {"preset": "suicide", "players": 3, "partnerships": False}},
        headers=bearer(club.host_token),
    )
    assert bad.status_code == 422 and "bidding" in bad.json()["detail"]
    unknown = await http.put(
        path, json={"rules": {"preset": "whiz", "nil_pass": 9}}, headers=bearer(club.host_token)
    )
    assert unknown.status_code == 422 and "nil_pass" in unknown.json()["detail"]
    before = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
    assert before["house_rules"] is None and before["house_summary"] is None

    # Given with every field, kept as the preset and its changes.
    full = Rules.model_validate(HOUSE).model_dump(mode="json")
    saved = await http.put(path, json={"rules": full}, headers=bearer(club.host_token))
    assert saved.status_code == 200, saved.text
    check(saved.json(), schema["http"]["ClubHouseRules"], schema)
    assert saved.json() == {
        "house_rules": HOUSE,
        "house_summary": "Whiz · jokers · to 300 · lose at -200 · no bags",
    }
    page = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.token(ann)))).json()
    assert page["house_rules"] == HOUSE and page["house_summary"] == saved.json()["house_summary"]

    # A table given no rules plays the house rules; one given rules plays those.
    house_table = await club_table(http, club, ann)
    info = (await http.get(f"/api/tables/{house_table}")).json()
    assert info["rules"] == full and info["summary"] == page["house_summary"]
    own = await club_table(http, club, ann, FAST)
    assert (await http.get(f"/api/tables/{own}")).json()["rules"]["target_score"] == 100
    # Still the house rules after a table with its own rules (not the latest table's).
    again = await club_table(http, club, ann)
    assert (await http.get(f"/api/tables/{again}")).json()["rules"] == full

    cleared = await http.put(path, json={"rules": None}, headers=bearer(club.host_token))
    assert cleared.json() == {"house_rules": None, "house_summary": None}
    # Without house rules, a table given none takes the latest table's.
    await club_table(http, club, ann, FAST)
    latest = await club_table(http, club, ann)
    assert (await http.get(f"/api/tables/{latest}")).json()["rules"]["target_score"] == 100


async def test_a_club_game_links_its_rules_again(served, http):
    club = await make_club(http, [])
    rules = {"preset": "mirror", "target_score": 150}
    await abandoned_club_game(http, club, rules)
    page = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
    [game] = page["games"]
    link = urlsplit(game["rules_link"])
    assert link.path == "/"
    assert json.loads(parse_qs(link.query)["rules"][0]) == rules


async def test_the_host_of_a_club_table_changes_its_rules_before_it_starts(served, http):
    club = await make_club(http, ["Ann"])
    [ann] = club.members
    made = await http.post(
        "/api/tables", json={"club": club.id, "member_token": club.token(ann), "rules": FAST}
    )
    created = made.json()
    rules = {"preset": "mirror", "target_score": 150}
    # A member of the club is not the table's host: only its host token changes the rules.
    refused = await http.patch(
        f"/api/tables/{created['id']}", json={"rules": rules}, headers=bearer(club.token(ann))
    )
    assert refused.status_code == 403
    changed = await http.patch(
        f"/api/tables/{created['id']}", json={"rules": rules}, headers=bearer(created["host_token"])
    )
    assert changed.status_code == 200, changed.text
    assert changed.json()["rules"] == Rules.model_validate(rules).model_dump(mode="json")
    # The club's next table given no rules takes these, as the latest chosen.
    latest = await club_table(http, club, ann)
    assert (await http.get(f"/api/tables/{latest}")).json()["rules"] == changed.json()["rules"]
    # The table's game counts under the preset its rules now start from.
    await bots_then_end(http, created["id"], created["host_token"])
    page = (await http.get(f"/api/clubs/{club.id}", headers=bearer(club.host_token))).json()
    [game] = [game for game in page["games"] if game["table"] == created["id"]]
    assert game["preset"] == "mirror"
    assert json.loads(parse_qs(urlsplit(game["rules_link"]).query)["rules"][0]) == rules
