"""Club set-ups for tests: a club, its members, a club table seated by members and
played to its end through real sockets, and the figures a game's history gives,
counted here independently of the server's own code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from server.clubs.figures import STORED
from server.engine import Rules, SideScore
from server.store.club_results import write_club_results
from server.store.records import ActionWrite
from server.store.repository import TableStore
from server.store.statements import CoreWriter
from tests.realtime.players import TableClient, play_turns
from tests.realtime.test_protocol import check, published_schema

FAST = {"preset": "standard", "target_score": 100}


@dataclass
class Club:
    id: str
    invite: str
    host_token: str
    # Member id -> (name, member token).
    members: dict[str, tuple[str, str]]

    def token(self, member: str) -> str:
        return self.members[member][1]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def make_club(http: httpx.AsyncClient, names: list[str]) -> Club:
    made = await http.post("/api/clubs", json={"name": "Thursday spades"})
    assert made.status_code == 201, made.text
    body = made.json()
    schema = published_schema()
    check(body, schema["http"]["CreatedClub"], schema)
    assert body["url"] == f"/c/{body['id']}#invite={body['invite']}"
    club = Club(body["id"], body["invite"], body["host_token"], {})
    for name in names:
        joined = await http.post(
            f"/api/clubs/{club.id}/members", json={"name": name, "invite": club.invite}
        )
        assert joined.status_code == 201, joined.text
        check(joined.json(), schema["http"]["JoinedClub"], schema)
        member = joined.json()["member"]
        assert member["name"] == name
        club.members[member["id"]] = (name, joined.json()["token"])
    return club


async def club_table(
    http: httpx.AsyncClient, club: Club, by: str, rules: dict[str, Any] | None = None
) -> str:
    body: dict[str, Any] = {"club": club.id, "member_token": club.token(by)}
    if rules is not None:
        body["rules"] = rules
    made = await http.post("/api/tables", json=body)
    assert made.status_code == 201, made.text
    return str(made.json()["id"])


async def abandoned_club_game(http: httpx.AsyncClient, club: Club, rules: dict[str, Any]) -> str:
    """A club table made by the host with `rules`, bots in every seat, ended by the host
    (its game listed abandoned, never rated): its id."""
    made = await http.post(
        "/api/tables", json={"club": club.id, "host_token": club.host_token, "rules": rules}
    )
    assert made.status_code == 201, made.text
    created = made.json()
    await bots_then_end(http, created["id"], created["host_token"])
    return str(created["id"])


async def bots_then_end(http: httpx.AsyncClient, table_id: str, host_token: str) -> None:
    """Basic bots in the four seats of a table (its game starts), then its host ends it."""
    for seat in range(4):
        bot = await http.post(
            f"/api/tables/{table_id}/seats/{seat}/bot",
            json={"level": "basic", "host_token": host_token},
        )
        assert bot.status_code == 201, bot.text
    ended = await http.delete(f"/api/tables/{table_id}", headers=bearer(host_token))
    assert ended.status_code == 204


async def write_game_end(
    store: TableStore, table_id: str, winner: int, final_scores: list[SideScore] | None
) -> None:
    """A write ending the table's game as `winner` with `final_scores`, given to
    `write_club_results` alone on its own transaction (as a retried commit, or a table
    seated past the API's checks, would give it)."""
    record = await store.load(table_id)
    assert record is not None and record.game is not None
    end = ActionWrite(
        table_id=table_id,
        old_version=record.version,
        status="over",
        game_id=record.game.id,
        seq=0,
        seat=0,
        action={"type": "bid", "bid": 1},
        snapshot=None,
        new_hands=[],
        first_hand_number=0,
        winner=winner,
        final_scores=final_scores,
    )
    async with store.engine.begin() as connection:
        await connection.run_sync(lambda sync: write_club_results(CoreWriter(sync), [end]))


async def seat_members(
    http: httpx.AsyncClient, address: str, table_id: str, club: Club, order: list[str]
) -> list[TableClient]:
    """Each member of `order` sits in the next seat with their member token (no invite)
    and connects before the next one sits down."""
    clients = []
    for seat, member in enumerate(order):
        taken = await http.post(
            f"/api/tables/{table_id}/seats/{seat}",
            json={"name": "ignored", "member_token": club.token(member)},
        )
        assert taken.status_code == 201, taken.text
        client = TableClient(address, table_id, taken.json()["token"])
        await client.connect()
        assert client.state is not None
        assert client.state["table"]["seats"][seat]["name"] == club.members[member][0]
        clients.append(client)
    return clients


async def play_to_the_end(clients: list[TableClient], rules: dict[str, Any]) -> None:
    await play_turns(
        clients,
        Rules.model_validate(rules),
        done=lambda m: m["table"]["status"] == "over",
        timeout=240,
    )
    for client in clients:
        await client.close()


# The stored figures' names; their counts below are worked out here, independently.
FIGURES = STORED


def figures_from_history(
    history: dict[str, Any], seats: dict[int, str], winner: int, partners: list[list[int]]
) -> dict[str, dict[str, int]]:
    """Each member's figures from a game's history (standard rules: nil tricks are bags,
    no 10-for-200), as the contract defines them."""
    out: dict[str, dict[str, int]] = {}
    for seat, member in seats.items():
        figures = dict.fromkeys(FIGURES, 0)
        figures["games"] = 1
        figures["wins"] = int(seat in partners[winner])
        for hand in history["hands"]:
            side = next(s for s in hand["sides"] if seat in s["seats"])
            bids = hand["bids"]
            figures["hands"] += 1
            figures["points"] += side["points"]
            if any(bids[s] not in (0, "blind_nil") for s in side["seats"]):
                figures["contracts"] += 1
                made = side["taken"] >= side["contract"]
                figures["contracts_made" if made else "sets"] += 1
                if made:
                    figures["bags"] += side["taken"] - side["contract"]
            for s in side["seats"]:
                if bids[s] in (0, "blind_nil"):
                    figures["bags"] += hand["tricks"][s]
            if bids[seat] in (0, "blind_nil"):
                figures["nils"] += 1
                figures["nils_made"] += int(hand["tricks"][seat] == 0)
                if bids[seat] == "blind_nil":
                    figures["blind_nils"] += 1
                    figures["blind_nils_made"] += int(hand["tricks"][seat] == 0)
        out[member] = figures
    return out


def add(total: dict[str, dict[str, int]], more: dict[str, dict[str, int]]) -> None:
    for member, figures in more.items():
        mine = total.setdefault(member, dict.fromkeys(FIGURES, 0))
        for name, value in figures.items():
            mine[name] += value
