"""A club night's schedule: who sits where in every round, and who sits out. Pure: no
I/O, no clock; the same members, rounds and seed give the same schedule.

A table's seats 0 and 2 are partners against seats 1 and 3 (a four-player partnership
game). `None` in a seat is a bot.

- "rotating": partners change every round. When every member plays every round and
  the count allows it (a multiple of 4, or one more with one sitting out), the partners
  follow the round robin's circle method, so no two members partner twice before every
  pair has partnered once. Otherwise each round's partners are found by a seeded local
  search. In both cases the search then groups the partnerships into tables, spreading
  opponents, and `polish` trades partnerships between tables over the whole schedule.
  Costs grow exponentially with the times two members already partnered (heavily) or
  opposed (lightly), so that the largest count is kept low first. A small night (one or
  two tables) is made several times and the most even schedule kept.
- "pairs": fixed partnerships (consecutive members) meet each other pair in turn (the
  circle method over pairs; a round robin again when the rounds outlast it).

When the members are not a multiple of 4, `fill` says what to do: "sit_out" (the
members who have missed the fewest rounds sit out, so nobody sits out twice before
everyone has once) or "bots" (bots in the empty seats).

`evenness` measures a schedule against the ideal: how often the most-paired two
partnered and opposed, beside the least that the numbers allow (docs/clubs.md).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Format = Literal["rotating", "pairs"]
Fill = Literal["sit_out", "bots"]
Seat = str | None

MIN_MEMBERS = 4
MAX_MEMBERS = 32
# Exponential costs: one more repeat of the most-repeated partnership always outweighs
# any spread of opponents within a round.
PARTNER_WEIGHT = 1 << 20
BOT_PAIR = 1 << 40
# Restarts of a round's search (fewer for many tables, where each costs more).
RESTARTS = 6
# Trades tried by `polish` over a whole schedule.
POLISH_MOVES = 6_000
POLISH_PER_TABLE = 60
# Under this many members (one or two tables), several choices of who sits out among
# equals are tried.
SMALL_NIGHT = 12
SIT_OUT_TRIES = 6
# Whole schedules made for a small night, the most even kept.
ATTEMPTS = 6


@dataclass(frozen=True)
class Round:
    """One round: each table's four seats (partners 0-2 and 1-3), and who sits out."""

    tables: list[list[Seat]]
    sitting_out: list[str] = field(default_factory=list)

    def playing(self) -> list[str]:
        return [seat for table in self.tables for seat in table if seat is not None]


@dataclass(frozen=True)
class Evenness:
    """How evenly a schedule spreads partners and opponents, beside the ideal."""

    partner_max: int
    partner_ideal: int
    opponent_max: int
    opponent_ideal: int
    # The fewest and most rounds any member sits out.
    sit_out_min: int
    sit_out_max: int


def schedule(
    members: Sequence[str],
    rounds: int,
    format: Format = "rotating",
    fill: Fill = "sit_out",
    seed: int = 0,
    played: Sequence[Round] = (),
) -> list[Round]:
    """Every round of a night: the `played` ones as they were, then the rest. A member
    added late (in `members` but not in the rounds played) joins the rounds to come."""
    if not MIN_MEMBERS <= len(members) <= MAX_MEMBERS or len(set(members)) != len(members):
        raise ValueError(f"a night needs {MIN_MEMBERS} to {MAX_MEMBERS} different members")
    if format == "pairs":
        if len(members) % 2:
            raise ValueError("fixed pairs need an even number of members")
        return [*played, *_pairs_rounds(list(members), rounds, fill, len(played))]
    rng = random.Random(seed)
    best: tuple[tuple[int, int, int], list[Round]] | None = None
    # A small night is cheap to make: the best of several.
    for _attempt in range(ATTEMPTS if len(members) < SMALL_NIGHT else 1):
        made = _rotating(list(members), rounds, fill, rng, list(played))
        measure = evenness(members, made)
        key = (measure.partner_max, measure.opponent_max, measure.sit_out_max)
        if best is None or key < best[0]:
            best = (key, made)
    assert best is not None
    return best[1]


def _rotating(
    members: list[str], rounds: int, fill: Fill, rng: random.Random, played: list[Round]
) -> list[Round]:
    if not played and (len(members) % 4 == 0 or (len(members) % 4 == 1 and fill == "sit_out")):
        return _circle_rounds(members, rounds, rng)
    return [*played, *_searched_rounds(members, rounds, fill, rng, played)]


# -- fixed pairs -----------------------------------------------------------------------


def circle(count: int, round_index: int) -> list[tuple[int, int]]:
    """The round robin's circle method: the pairs of `count` (even) entrants in a round.

    >>> [circle(4, r) for r in range(3)]
    [[(0, 3), (1, 2)], [(0, 1), (2, 3)], [(0, 2), (3, 1)]]
    """
    others = list(range(1, count))
    shift = round_index % (count - 1)
    ring = others[shift:] + others[:shift]
    ring = [ring[-1], *ring[:-1]]
    pairs = [(0, ring[0])]
    for k in range(1, count // 2):
        pairs.append((ring[k], ring[-k]))
    return pairs


def _pairs_rounds(members: list[str], rounds: int, fill: Fill, start: int) -> list[Round]:
    pairs = [(members[i], members[i + 1]) for i in range(0, len(members), 2)]
    count = len(pairs) + len(pairs) % 2  # a dummy pair: its opponent has a bye
    out = []
    for index in range(start, rounds):
        tables: list[list[Seat]] = []
        out_now: list[str] = []
        for a, b in circle(count, index):
            if a >= len(pairs) or b >= len(pairs):
                bye = pairs[b if a >= len(pairs) else a]
                if fill == "bots":
                    tables.append([bye[0], None, bye[1], None])
                else:
                    out_now.extend(bye)
                continue
            (a0, a1), (b0, b1) = pairs[a], pairs[b]
            tables.append([a0, b0, a1, b1])
        out.append(Round(tables, out_now))
    return out


# -- rotating partners: the circle method --------------------------------------------------


def _circle_rounds(members: list[str], rounds: int, rng: random.Random) -> list[Round]:
    """Partners by the circle method (over one more, a dummy, for 4k + 1 members: the
    dummy's partner sits out); the tables by the search. Past one round robin, another
    starts with the members shuffled again."""
    counts = Counts()
    out = []
    order = members[:]
    entrants = len(members) + len(members) % 2
    for index in range(rounds):
        if index % (entrants - 1) == 0:
            rng.shuffle(order)
        pairs, sitting = [], []
        for a, b in circle(entrants, index):
            if a >= len(order) or b >= len(order):
                sitting.append(order[a if b >= len(order) else b])
            else:
                pairs.append((order[a], order[b]))
        tables = _group(pairs, counts, rng)
        counts.add(tables)
        out.append(Round(tables, sitting))
    polish(out, counts, rng)
    return out


# -- rotating partners: the search -------------------------------------------------------


class Counts:
    """Times each two members have partnered and opposed, and who sat out."""

    def __init__(self) -> None:
        self.partners: dict[tuple[Seat, Seat], int] = {}
        self.opponents: dict[tuple[Seat, Seat], int] = {}
        self.missed: dict[str, int] = {}

    @staticmethod
    def key(a: Seat, b: Seat) -> tuple[Seat, Seat]:
        if a is None or (b is not None and a > b):
            return (b, a)
        return (a, b)

    def partnered(self, a: Seat, b: Seat) -> int:
        return self.partners.get(self.key(a, b), 0)

    def opposed(self, a: Seat, b: Seat) -> int:
        return self.opponents.get(self.key(a, b), 0)

    def add(self, tables: list[list[Seat]]) -> None:
        for s0, s1, s2, s3 in tables:
            for a, b in ((s0, s2), (s1, s3)):
                key = self.key(a, b)
                self.partners[key] = self.partners.get(key, 0) + 1
            for a, b in ((s0, s1), (s0, s3), (s2, s1), (s2, s3)):
                key = self.key(a, b)
                self.opponents[key] = self.opponents.get(key, 0) + 1

    def shift(self, a: Seat, b: Seat, by: int) -> int:
        """Count `a` and `b` opposed `by` more times; the change of the polish's cost."""
        key = self.key(a, b)
        before = self.opponents.get(key, 0)
        after = before + by
        self.opponents[key] = after
        if a is None or b is None:
            return 0
        return (1 << (2 * after)) - (1 << (2 * before))

    def partner_cost(self, a: Seat, b: Seat) -> int:
        if a is None and b is None:
            return BOT_PAIR
        return PARTNER_WEIGHT << (2 * self.partnered(a, b))

    def opponent_cost(self, a: Seat, b: Seat) -> int:
        return 1 << (2 * self.opposed(a, b))

    def table_cost(self, table: Sequence[Seat]) -> int:
        s0, s1, s2, s3 = table
        return (
            self.partner_cost(s0, s2)
            + self.partner_cost(s1, s3)
            + self.opponent_cost(s0, s1)
            + self.opponent_cost(s0, s3)
            + self.opponent_cost(s2, s1)
            + self.opponent_cost(s2, s3)
        )


def _searched_rounds(
    members: list[str], rounds: int, fill: Fill, rng: random.Random, played: list[Round]
) -> list[Round]:
    counts = Counts()
    for done in played:
        counts.add(done.tables)
        playing = set(done.playing())
        for member in members:
            if member not in playing:
                counts.missed[member] = counts.missed.get(member, 0) + 1
    rank = {member: index for index, member in enumerate(rng.sample(members, len(members)))}
    out = []
    for _index in range(len(played), rounds):
        bots = (-len(members)) % 4 if fill == "bots" else 0
        sit = len(members) % 4 if fill == "sit_out" else 0
        sitting, tables = _sit_out_and_arrange(members, sit, bots, counts, rank, rng)
        counts.add(tables)
        for member in sitting:
            counts.missed[member] = counts.missed.get(member, 0) + 1
        for member in sitting:
            rank[member] = max(rank.values()) + 1
        out.append(Round(tables, sitting))
    polish(out, counts, rng)
    return out


def _sit_out_and_arrange(
    members: list[str],
    sit: int,
    bots: int,
    counts: Counts,
    rank: dict[str, int],
    rng: random.Random,
) -> tuple[list[str], list[list[Seat]]]:
    """Who sits out this round, and the tables of the rest. Those who missed the fewest
    rounds sit out; among equals, the seeded order (which rotates: who sat out goes to
    its back), or, at one or two tables, whichever choice seats the rest best."""
    order = sorted(members, key=lambda m: (counts.missed.get(m, 0), rank[m]))
    choices = [order[:sit]]
    if sit and len(members) < SMALL_NIGHT:
        edge = counts.missed.get(order[sit - 1], 0)
        fewer = [m for m in order if counts.missed.get(m, 0) < edge]
        equal = [m for m in order if counts.missed.get(m, 0) == edge]
        for _try in range(SIT_OUT_TRIES):
            choices.append(fewer + rng.sample(equal, sit - len(fewer)))
    best: tuple[int, list[str], list[list[Seat]]] | None = None
    for sitting in choices:
        players: list[Seat] = [m for m in order if m not in sitting]
        tables = _arrange([*players, *([None] * bots)], counts, rng)
        cost = sum(counts.table_cost(table) for table in tables)
        if best is None or cost < best[0]:
            best = (cost, sitting, tables)
    assert best is not None
    return best[1], best[2]


def _arrange(players: list[Seat], counts: Counts, rng: random.Random) -> list[list[Seat]]:
    """Seat `players` (a multiple of 4) at tables, partners and opponents spread: the
    best of a few seeded restarts of a local search over swaps of two seats."""
    best: list[Seat] = []
    best_cost = -1
    for _restart in range(restarts(len(players) // 4)):
        seats = players[:]
        rng.shuffle(seats)
        cost = _improve(seats, counts)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = seats, cost
    return [best[i : i + 4] for i in range(0, len(best), 4)]


def restarts(tables: int) -> int:
    """Restarts of a round's search: more for few tables, where each is cheap."""
    return max(2, min(RESTARTS, 12 // max(tables, 1)))


def _improve(seats: list[Seat], counts: Counts) -> int:
    """Swap two seats while it lowers the cost (in place); the final cost."""
    tables = len(seats) // 4
    costs = [counts.table_cost(seats[4 * t : 4 * t + 4]) for t in range(tables)]
    improved = True
    while improved:
        improved = False
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                ti, tj = i // 4, j // 4
                if seats[i] == seats[j] or (ti == tj and (j - i) == 2):
                    continue
                seats[i], seats[j] = seats[j], seats[i]
                new_i = counts.table_cost(seats[4 * ti : 4 * ti + 4])
                new_j = new_i if ti == tj else counts.table_cost(seats[4 * tj : 4 * tj + 4])
                before = costs[ti] + (0 if ti == tj else costs[tj])
                after = new_i + (0 if ti == tj else new_j)
                if after < before:
                    costs[ti], costs[tj] = new_i, new_j
                    improved = True
                else:
                    seats[i], seats[j] = seats[j], seats[i]
    return sum(costs)


def _group(pairs: list[tuple[str, str]], counts: Counts, rng: random.Random) -> list[list[Seat]]:
    """Fixed partnerships of a round grouped two a table, opponents spread (the same
    search, over swaps of whole partnerships)."""
    best: list[tuple[str, str]] = []
    best_cost = -1
    for _restart in range(restarts(len(pairs) // 2)):
        order = pairs[:]
        rng.shuffle(order)
        cost = _improve_pairs(order, counts)
        if best_cost < 0 or cost < best_cost:
            best, best_cost = order, cost
    return [
        [best[i][0], best[i + 1][0], best[i][1], best[i + 1][1]] for i in range(0, len(best), 2)
    ]


def _pair_table(a: tuple[str, str], b: tuple[str, str], counts: Counts) -> int:
    return counts.table_cost([a[0], b[0], a[1], b[1]])


def _improve_pairs(order: list[tuple[str, str]], counts: Counts) -> int:
    improved = True
    while improved:
        improved = False
        for i in range(len(order)):
            for j in range(i + 1, len(order)):
                ti, tj = i // 2, j // 2
                if ti == tj:
                    continue
                before = _pair_table(order[2 * ti], order[2 * ti + 1], counts) + _pair_table(
                    order[2 * tj], order[2 * tj + 1], counts
                )
                order[i], order[j] = order[j], order[i]
                after = _pair_table(order[2 * ti], order[2 * ti + 1], counts) + _pair_table(
                    order[2 * tj], order[2 * tj + 1], counts
                )
                if after < before:
                    improved = True
                else:
                    order[i], order[j] = order[j], order[i]
    return sum(_pair_table(order[i], order[i + 1], counts) for i in range(0, len(order), 2))


def polish(rounds: list[Round], counts: Counts, rng: random.Random) -> None:
    """Spread opponents over the whole schedule (in place, `counts` kept up to date):
    random trades of a partnership between two tables of a round, kept when they do not
    raise the sum of 4 ** (times opposed) over every two members. Partners never change."""
    movable = [index for index, entry in enumerate(rounds) if len(entry.tables) > 1]
    if not movable:
        return
    budget = POLISH_PER_TABLE * sum(len(rounds[index].tables) for index in movable)
    for _move in range(min(POLISH_MOVES, budget)):
        tables = rounds[rng.choice(movable)].tables
        first, second = rng.sample(range(len(tables)), 2)
        a, b = tables[first], tables[second]
        # Partnerships: seats (0, 2) and (1, 3). Trade one of a's for one of b's.
        pa, pb = rng.randrange(2), rng.randrange(2)
        mine = (a[pa], a[pa + 2])
        theirs = (b[pb], b[pb + 2])
        stays_a = (a[1 - pa], a[3 - pa])
        stays_b = (b[1 - pb], b[3 - pb])
        delta = 0
        for x in mine:
            for y in stays_a:
                delta += counts.shift(x, y, -1)
            for y in stays_b:
                delta += counts.shift(x, y, +1)
        for x in theirs:
            for y in stays_b:
                delta += counts.shift(x, y, -1)
            for y in stays_a:
                delta += counts.shift(x, y, +1)
        if delta <= 0:
            a[pa], a[pa + 2] = theirs
            b[pb], b[pb + 2] = mine
            continue
        for x in mine:
            for y in stays_a:
                counts.shift(x, y, +1)
            for y in stays_b:
                counts.shift(x, y, -1)
        for x in theirs:
            for y in stays_b:
                counts.shift(x, y, +1)
            for y in stays_a:
                counts.shift(x, y, -1)


# -- the measure -----------------------------------------------------------------------------


def evenness(members: Sequence[str], rounds: Sequence[Round]) -> Evenness:
    """The most times two members partnered and opposed, beside the ideal: no schedule
    can do better than ceil(rounds played / (members - 1)) partnerships of the same two,
    nor ceil(2 x rounds played / (members - 1)) oppositions (a member's rounds spread
    over everyone else), taken for the member who played most."""
    counts = Counts()
    plays = dict.fromkeys(members, 0)
    for done in rounds:
        counts.add(done.tables)
        for member in done.playing():
            plays[member] += 1
    others = len(members) - 1
    most = max(plays.values())
    sat = [len(rounds) - plays[m] for m in members]

    def top(found: dict[tuple[Seat, Seat], int]) -> int:
        return max((n for (a, b), n in found.items() if a is not None and b is not None), default=0)

    return Evenness(
        partner_max=top(counts.partners),
        partner_ideal=math.ceil(most / others),
        opponent_max=top(counts.opponents),
        opponent_ideal=math.ceil(2 * most / others),
        sit_out_min=min(sat),
        sit_out_max=max(sat),
    )
