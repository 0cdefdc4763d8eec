"""Claims: whether the seat about to lead is sure to take every remaining trick.

A claim holds when, for every layout of the cards the claimant has not seen that fits
what it knows (each other seat holds as many cards as it does; a seat that failed to
follow a led suit holds none of it; cards the claimant passed stay in its partner's hand
unless played; with two players, unseen cards may also lie among the discards), the
claimant takes every remaining trick whatever the others play. Every other seat, the
partner too, is treated as an adversary. It is decided only from the claimant's own
knowledge, so offering it tells nobody anything.

Taking every trick means leading every trick, so each of the claimant's cards must win
when led. For one layout seen whole, the claimant's best order is fixed: its trumps
first, highest first, then each other suit highest first; while spades may not be led
(and it holds another suit), its other suits first and its trumps last. The others
keep their best card of a suit to the end and discard anything else, so the claim fails
in that layout exactly when one other seat ``o`` holding ``v[s]`` cards of each suit
``s`` has (:func:`breaks`):

- in a suit the claimant holds, a card beating the claimant's ``j``-th highest card of
  it, with at least ``j`` cards of the suit (it follows the first ``j - 1`` leads low);
- ``T`` trumps, one beating the claimant's ``T``-th highest trump; or more trumps than
  the claimant when trumps are drawn first; or, when they come last, any trump and fewer
  cards than the claimant of some suit it leads (it ruffs).

So the claim holds when no seat can be dealt such a ``v`` in any layout. That depends on
each other seat's count of cards per suit, which are few: with 4 tricks or fewer left
every count vector of every seat is tried, each one that breaks the claim checked for a
layout of the rest of the cards (Hall's condition over the seats and suits), which makes
the answer exact. With more tricks left the rest of the layout is not checked (a seat
may take any of the cards it could hold), which can only miss a claim, never offer a
wrong one. The layout actually dealt is one of those layouts: checked first, it refuses
most claims at once (a few microseconds), and since the full check would refuse them
too, the answer still depends on the claimant's knowledge alone. A claim is not offered
on a first trick with its own rules (lowest club, forced lead).

Between identical cards (six players, two decks) the later one played wins when
``duplicate_later_wins``: an identical card then beats the claimant's.

>>> from server.engine.cards import INDEX, card_order
>>> order = card_order("standard")
>>> def two_others(hand: str, unseen: str) -> Knowledge:
...     cards = [[INDEX[code] for code in codes.split()] for codes in (hand, unseen)]
...     return Knowledge(*cards, [{}, {}], [set(), set()], False, False)
>>> holds(two_others("AS KS AH", "QS 2H 3H 2C 3C 4C"), order, later_wins=False)
True
>>> holds(two_others("AS KS QH", "AH 2H 3H 2C 3C 4C"), order, later_wins=False)
False
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from operator import itemgetter

from server.engine.auction import Auction
from server.engine.cards import CLUBS, CODES, INDEX, SPADES, CardOrder
from server.engine.shapes import HandClaim
from server.engine.table import Table
from server.engine.tricks import Tricks

# Up to this many tricks left the decision is exact (every layout of the rest checked).
EXACT_TRICKS = 4
# The order the quick refusal looks at the suits in: trumps first, most often decisive.
SUIT_CHECKS = (SPADES, *range(SPADES))


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the claimant knows, as engine ints: its ``hand``; ``unseen`` the cards it has
    not seen (with repeats for identical cards); for each other seat in seat order, the
    cards it surely holds (``fixed``: card -> count) and the suits it has shown void in
    (``voids``); ``discards`` whether unseen cards may lie outside every hand (two
    players); ``spades_closed`` whether the claimant may not lead a spade yet and holds
    another suit."""

    hand: list[int]
    unseen: list[int]
    fixed: list[dict[int, int]]
    voids: list[set[int]]
    discards: bool
    spades_closed: bool


def claim_holds(table: Table, tricks: Tricks, auction: Auction, seat: int) -> bool:
    """Whether ``seat``, about to lead a trick of this hand, may claim the rest."""
    if tricks.over or tricks.trick:
        return False
    if tricks.number == 0 and (table.lowest_club_first or tricks.forced_lead is not None):
        return False
    if _outranked(table, tricks, seat):
        return False
    hand = tricks.hand(seat)
    guard = table.rules.spades_broken_to_lead and not tricks.spades_broken
    closed = guard and any(table.order.suit[card] != SPADES for card in hand)
    if not closed and table.players != 2 and _sure(table, tricks, seat):
        return True
    if _fails_as_dealt(table, tricks, seat, closed):
        return False
    seen = []
    if table.players == 2:
        seen = seen_draw_discards(auction.stock, auction.dealer, seat, auction.deal[seat])
    knowledge = seat_knowledge(
        table,
        seat,
        hand,
        tricks.played,
        tricks.spades_broken,
        auction.passes.get(seat, []),
        seen,
    )
    return holds(knowledge, table.order, table.later_wins)


class ClaimCheck:
    """A game's answer to ``claim_holds`` for the seat about to lead, worked out once per
    trick however many views and ``legal`` calls ask."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        # The answer as ``(hand_number, trick_number, answer)``.
        self._known: tuple[int, int, bool] | None = None

    def may_claim(
        self, table: Table, tricks: Tricks, auction: Auction, hand_number: int, seat: int
    ) -> bool:
        """Whether ``seat``, about to lead, may claim the rest of hand ``hand_number``."""
        known = self._known
        if known is not None and known[0] == hand_number and known[1] == tricks.number:
            return known[2]
        answer = claim_holds(table, tricks, auction, seat)
        self._known = (hand_number, tricks.number, answer)
        return answer


def lay_down(table: Table, tricks: Tricks, seat: int) -> HandClaim:
    """``seat``'s checked claim made: its cards laid down (sorted), the rest of the
    tricks credited to it."""
    cards = table.order.sorted_codes(tricks.hand(seat))
    return {"seat": seat, "cards": cards, "tricks": tricks.claim(seat)}


def seat_knowledge(
    table: Table,
    seat: int,
    hand: list[int],
    played: list[tuple[int, int]],
    spades_broken: bool,
    passed: list[int],
    seen_discards: list[int],
) -> Knowledge:
    """The claimant's knowledge at the start of a trick: ``hand`` its cards, ``played``
    the cards of this hand's finished tricks, ``passed`` the cards it gave its partner,
    ``seen_discards`` the cards it saw and discarded in a two-player draw."""
    n = table.players
    suit = table.order.suit
    seen = Counter(hand)
    seen.update(map(itemgetter(1), played))
    seen.update(seen_discards)
    if table.duplicates:
        unseen = list((Counter(table.base_deck) - seen).elements())
    else:
        unseen = [card for card in table.base_deck if card not in seen]
    others = [other for other in range(n) if other != seat]
    voids: dict[int, set[int]] = {other: set() for other in others}
    first = 0
    if table.lowest_club_first and played:
        # The first trick's led suit is clubs, whatever was played first.
        for player, card in played[:n]:
            if suit[card] != CLUBS and player != seat:
                voids[player].add(CLUBS)
        first = n
    for start in range(first, len(played), n):
        led = suit[played[start][1]]
        for player, card in played[start + 1 : start + n]:
            if suit[card] != led and player != seat:
                voids[player].add(led)
    fixed: dict[int, dict[int, int]] = {other: {} for other in others}
    partner = table.partner_of[seat]
    if partner is not None and passed:
        gone = Counter(card for player, card in played if player == partner)
        for card, count in Counter(passed).items():
            if count > gone[card]:
                fixed[partner][card] = count - gone[card]
    guard = table.rules.spades_broken_to_lead and not spades_broken
    return Knowledge(
        hand=list(hand),
        unseen=unseen,
        fixed=[fixed[other] for other in others],
        voids=[voids[other] for other in others],
        discards=n == 2,
        spades_closed=guard and any(suit[card] != SPADES for card in hand),
    )


def holds(knowledge: Knowledge, order: CardOrder, later_wins: bool) -> bool:
    """Whether the claim holds (exactly with ``EXACT_TRICKS`` or fewer tricks left;
    with more, true only when it surely holds)."""
    return _Claim(knowledge, order, later_wins).holds()


def seen_draw_discards(stock: list[int], dealer: int, seat: int, kept: list[str]) -> list[int]:
    """The cards ``seat`` saw on top of a two-player stock and discarded: each of its
    turns shows it the top card, which it keeps (then in ``kept``, its hand's codes when
    bidding began) or discards."""
    return [
        stock[2 * turn]
        for turn in range(len(stock) // 2)
        if (dealer + 1 + turn) % 2 == seat and CODES[stock[2 * turn]] not in kept
    ]


class _Claim:
    """One claim decision: the claimant's cards by suit and the others' possible cards."""

    def __init__(self, knowledge: Knowledge, order: CardOrder, later_wins: bool) -> None:
        self.knowledge = knowledge
        self.size = len(knowledge.hand)
        self.later_wins = later_wins
        suit, power = order.suit, order.power
        # The claimant's powers by suit, highest first.
        self.mine: list[list[int]] = [[], [], [], []]
        for card in knowledge.hand:
            self.mine[suit[card]].append(power[card])
        for powers in self.mine:
            powers.sort(reverse=True)
        # Unseen cards whose place is not known, by suit: their count and powers.
        free = Counter(knowledge.unseen)
        for cards in knowledge.fixed:
            free.subtract(cards)
        self.free_count = [0, 0, 0, 0]
        self.free_best = [-1, -1, -1, -1]
        for card, count in free.items():
            if count > 0:
                self.free_count[suit[card]] += count
                self.free_best[suit[card]] = max(self.free_best[suit[card]], power[card])
        self.fixed_count: list[list[int]] = []
        self.fixed_best: list[list[int]] = []
        for cards in knowledge.fixed:
            counts, best = [0, 0, 0, 0], [-1, -1, -1, -1]
            for card, count in cards.items():
                counts[suit[card]] += count
                best[suit[card]] = max(best[suit[card]], power[card])
            self.fixed_count.append(counts)
            self.fixed_best.append(best)
        self.others = range(len(knowledge.fixed))

    # ------------------------------------------------------------------ the decision

    def holds(self) -> bool:
        exact = self.size <= EXACT_TRICKS
        for other in self.others:
            low, high = self._bounds(other)
            for counts in _count_vectors(low, high, self.size):
                if self._violated(other, counts) and (not exact or self._rest_fits(other, counts)):
                    return False
        return True

    def _bounds(self, other: int) -> tuple[list[int], list[int]]:
        """The fewest and most cards of each suit ``other`` may hold."""
        low = self.fixed_count[other]
        voids = self.knowledge.voids[other]
        high = [low[s] + (0 if s in voids else self.free_count[s]) for s in range(4)]
        return low, high

    def _best(self, other: int, suit: int, count: int) -> int:
        """The highest power ``other`` can hold in ``suit`` with ``count`` cards of it."""
        fixed = self.fixed_best[other][suit]
        if count > self.fixed_count[other][suit]:
            return max(fixed, self.free_best[suit])
        return fixed

    def _violated(self, other: int, counts: tuple[int, ...]) -> bool:
        """Whether ``other``, holding ``counts`` cards of each suit (its best ones),
        takes a trick from the claimant."""

        def best(suit: int) -> int:
            return self._best(other, suit, counts[suit])

        return breaks(self.mine, counts, best, self.later_wins, self.knowledge.spades_closed)

    def _rest_fits(self, other: int, counts: tuple[int, ...]) -> bool:
        """Whether the seats but ``other`` can be dealt the rest of the unseen cards
        (Hall's condition: every group of seats can be filled from the suits one of
        them may hold)."""
        knowledge = self.knowledge
        rest = [self.free_count[s] - (counts[s] - self.fixed_count[other][s]) for s in range(4)]
        seats = [seat for seat in self.others if seat != other]
        needs = {seat: self.size - sum(self.fixed_count[seat]) for seat in seats}
        for size in range(1, len(seats) + 1):
            for group in combinations(seats, size):
                open_suits = {
                    s for s in range(4) for seat in group if s not in knowledge.voids[seat]
                }
                if sum(needs[seat] for seat in group) > sum(rest[s] for s in open_suits):
                    return False
        return knowledge.discards or sum(rest) == sum(needs.values())


def breaks(
    mine: list[list[int]],
    counts: Sequence[int],
    best: Callable[[int], int],
    later_wins: bool,
    closed: bool,
) -> bool:
    """Whether a seat holding ``counts`` cards of each suit, ``best(suit)`` the highest
    power of a suit it holds, takes a trick from the claimant, whose powers by suit
    (highest first) are ``mine`` (see the module's docstring); ``closed``: spades may
    not be led yet and the claimant holds another suit."""
    for suit in range(4):
        held = counts[suit]
        ours = mine[suit]
        if held and ours:
            # Its best card against the claimant's lowest it still guards (highest first).
            low = ours[min(held, len(ours)) - 1]
            top = best(suit)
            if top > low or (later_wins and top == low):
                return True
    if not counts[SPADES]:
        return False
    if closed:
        return any(counts[suit] < len(mine[suit]) for suit in range(SPADES))
    return counts[SPADES] > len(mine[SPADES])


def _outranked(table: Table, tricks: Tricks, seat: int) -> bool:
    """Whether, as dealt, another seat holds a card beating the claimant's best of a suit
    it holds, or any trump while the claimant holds none: the first rule of
    :func:`breaks` alone, the cheapest sure refusal (most positions end here, most of
    them at the trumps, looked at first).

    It needs only each suit's best card in the hands and who holds it, remembered for
    the hand (``tricks.claim_memo``) and looked for again, from there down, only once
    that card has left its holder's hand: since cards only leave the hands, no card
    above it is back."""
    memo = tricks.claim_memo
    if memo is None:
        holders = {}
        if not table.duplicates:
            for holder, codes in enumerate(tricks.hand_codes):
                holders.update(dict.fromkeys(codes, holder))
        memo = tricks.claim_memo = (_ranked_codes(table), holders, [None, None, None, None])
    ranked, holders, tops = memo
    by_seat = tricks.suit_codes
    mine = by_seat[seat]
    for suit in SUIT_CHECKS:
        top = tops[suit]
        if top is None:
            top = tops[suit] = _suit_top(ranked[suit], holders, by_seat, suit, 0)
        elif top[1] >= 0 and top[0] not in by_seat[top[1]][suit]:
            top = tops[suit] = _suit_top(ranked[suit], holders, by_seat, suit, top[2])
        code, holder, _ = top
        if holder < 0:
            continue
        if holder != seat:
            if not mine[suit] and suit != SPADES:
                continue
            # An identical card of its own ties the best, and a tie beats it only when
            # the later of identical cards wins.
            if table.duplicates and not table.later_wins and code in mine[suit]:
                continue
            return True
        if table.later_wins and any(
            code in by_suit[suit] for other, by_suit in enumerate(by_seat) if other != seat
        ):
            return True
    return False


def _suit_top(
    ranked: list[str],
    holders: dict[str, int],
    by_seat: list[list[list[str]]],
    suit: int,
    start: int,
) -> tuple[str, int, int]:
    """The best card of ``suit`` in the hands, the seat holding it and its place in
    ``ranked`` (the suit's codes, best first), looked for from ``start`` on; ``("", -1,
    len(ranked))`` when the hands hold none. ``by_seat``: every seat's codes by suit;
    ``holders``: the seat each card was in when the memo was made, if every card is
    unique (else empty, and every hand is looked in)."""
    if holders:
        for index in range(start, len(ranked)):
            code = ranked[index]
            seat = holders.get(code)
            if seat is not None and code in by_seat[seat][suit]:
                return code, seat, index
        return "", -1, len(ranked)
    for index in range(start, len(ranked)):
        code = ranked[index]
        for seat, by_suit in enumerate(by_seat):
            if code in by_suit[suit]:
                return code, seat, index
    return "", -1, len(ranked)


def _sure(table: Table, tricks: Tricks, seat: int) -> bool:
    """Whether the claim holds by the plainest proof, trumps first: in each suit the
    claimant holds, every card it has not seen is below its lowest, and it holds at least
    as many trumps as another seat can hold (so leading them draws every other seat's):
    as many as it has not seen, or as many as its cards, since every seat holds as many as
    it does. Every card is dealt (not with two players, whose stock hides some), so the
    cards it has not seen are exactly the other seats' together: the proof reads nothing
    it does not know. Spades must be free to lead (the caller checks)."""
    get = _code_power(table.order).__getitem__
    by_seat = tricks.suit_codes
    mine = by_seat[seat]
    later_wins = table.later_wins
    unseen_trumps = 0
    for other, by_suit in enumerate(by_seat):
        if other == seat:
            continue
        unseen_trumps += len(by_suit[SPADES])
        for suit, codes in enumerate(by_suit):
            if not codes or not mine[suit]:
                continue
            low, theirs = min(map(get, mine[suit])), max(map(get, codes))
            if theirs > low or (later_wins and theirs == low):
                return False
    size = len(mine[0]) + len(mine[1]) + len(mine[2]) + len(mine[3])
    return min(unseen_trumps, size) <= len(mine[SPADES])


def _fails_as_dealt(table: Table, tricks: Tricks, seat: int, closed: bool) -> bool:
    """Whether the claim fails in the layout actually dealt (one of those the claimant
    must allow for, so a quick and sure refusal: most positions end here)."""
    power = _code_power(table.order)
    by_suit = tricks.suit_codes
    mine = [sorted([power[code] for code in codes], reverse=True) for codes in by_suit[seat]]
    for other in range(table.players):
        if other == seat:
            continue
        theirs = by_suit[other]
        counts = [len(codes) for codes in theirs]

        def best(suit: int, theirs: list[list[str]] = theirs) -> int:
            return max([power[code] for code in theirs[suit]])

        if breaks(mine, counts, best, table.later_wins, closed):
            return True
    return False


_CODE_POWERS: dict[str, dict[str, int]] = {}


def _code_power(order: CardOrder) -> dict[str, int]:
    """Each card code's power under ``order``, made once per deck."""
    powers = _CODE_POWERS.get(order.deck)
    if powers is None:
        powers = {code: order.power[index] for code, index in INDEX.items()}
        _CODE_POWERS[order.deck] = powers
    return powers


_RANKED_CODES: dict[tuple[str, int], list[list[str]]] = {}


def _ranked_codes(table: Table) -> list[list[str]]:
    """Every card code of each suit in ``table``'s deck, best first, made once per deck
    and number of players."""
    key = table.order.deck, table.players
    ranked = _RANKED_CODES.get(key)
    if ranked is None:
        order = table.order
        ranked = [[], [], [], []]
        for card in sorted(set(table.base_deck), key=lambda card: -order.power[card]):
            ranked[order.suit[card]].append(CODES[card])
        _RANKED_CODES[key] = ranked
    return ranked


def _count_vectors(low: list[int], high: list[int], total: int) -> Iterator[tuple[int, ...]]:
    """Every ``(clubs, diamonds, hearts, spades)`` count within the bounds adding up to
    ``total``."""
    for clubs in range(low[0], high[0] + 1):
        for diamonds in range(low[1], high[1] + 1):
            for hearts in range(low[2], high[2] + 1):
                spades = total - clubs - diamonds - hearts
                if spades < low[3]:
                    break
                if spades <= high[3]:
                    yield clubs, diamonds, hearts, spades
