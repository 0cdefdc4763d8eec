"""A club night's standings and progress, from its schedule and its tables' stored
hands (pure: the store reads, this counts). Read afresh for every answer, so they are
current at each hand's end and the same in every server process.

Order (docs/clubs.md, "Club nights"): points over finished games, then wins, then
contracts made, then live points (the game being played counted too), then the order the
host listed the members in. Members equal on all of these share a place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from server.clubs.stats import HandFacts, tally_hand
from server.engine import Rules
from server.protocol import NightRound, NightStanding, NightStatus, TableStatus

SIDES = ([0, 2], [1, 3])


@dataclass(frozen=True, slots=True)
class NightGame:
    """A night table's first game as the standings read it (no hands before it starts)."""

    table_id: str
    round: int
    position: int
    status: TableStatus
    finished: bool
    winner: int | None
    hands: list[HandFacts]


def side_of(seat: int) -> int:
    return seat % 2


def standings(
    members: Sequence[str],
    names: Mapping[str, str],
    schedule: Sequence[NightRound],
    rules: Sequence[Rules],
    games: Sequence[NightGame],
) -> list[NightStanding]:
    """Every member's standing; the member of a seat is the schedule's (a member
    substituted in takes the seat's whole game)."""
    rows = {
        member: NightStanding(
            member=member,
            name=names.get(member, member),
            place=0,
            points=0,
            games=0,
            wins=0,
            live_points=0,
            hands=0,
            contracts=0,
            contracts_made=0,
        )
        for member in members
    }
    for game in games:
        if game.round > len(schedule):
            continue
        table = schedule[game.round - 1]["tables"][game.position]
        round_rules = rules[game.round - 1]
        for seat, member in enumerate(table["seats"]):
            if member is None or member not in rows:
                continue
            row = rows[member]
            points = 0
            for hand in game.hands:
                tally = tally_hand(round_rules, hand, seat)
                points += tally.points
                row["hands"] += 1
                row["contracts"] += tally.contracts
                row["contracts_made"] += tally.contracts_made
            row["live_points"] += points
            if game.finished:
                row["points"] += points
                row["games"] += 1
                row["wins"] += int(game.winner is not None and side_of(seat) == game.winner)
    order = {member: index for index, member in enumerate(members)}

    def key(row: NightStanding) -> tuple[int, int, int, int]:
        return (-row["points"], -row["wins"], -row["contracts_made"], -row["live_points"])

    ranked = sorted(rows.values(), key=lambda row: (key(row), order[row["member"]]))
    for index, row in enumerate(ranked):
        same = index > 0 and key(ranked[index - 1]) == key(row)
        row["place"] = ranked[index - 1]["place"] if same else index + 1
    return ranked


def round_over(round: int, schedule: Sequence[NightRound], games: Sequence[NightGame]) -> bool:
    """Whether every table of `round` has finished its game (or been closed)."""
    if round == 0:
        return True
    made = [game for game in games if game.round == round]
    expected = len(schedule[round - 1]["tables"])
    return len(made) == expected and all(game.finished or game.status == "ended" for game in made)


def night_status(
    round: int,
    rounds: int,
    ended: bool,
    schedule: Sequence[NightRound],
    games: Sequence[NightGame],
) -> NightStatus:
    if ended or (round == rounds and round_over(round, schedule, games)):
        return "over"
    return "waiting" if round == 0 else "playing"
