"""Computer players: pick one action from a seat's view, the way a decent human would.

A bot sees exactly what a human in its seat sees: ``game.view(seat)`` (its own hand, the
bids, the trick on the table, the cards of finished tricks, the scores). It never gets the
game object, so it cannot peek at other hands, and ``choose_action`` is a pure function of
``(rules, view, rng)``: the same view always gives the same choice.

The ``basic`` level plays by the rules of thumb a club player learns first:

- **Bidding** counts likely tricks: aces, guarded kings and queens, high spades, spade
  length beyond the share an average hand holds, and ruffs from short side suits. It bids
  nil with a really weak hand and takes blind nil only when far behind.
- **Play** wins tricks cheaply while the contract still needs them (second hand low,
  third hand high, the lowest card that wins, trump when void), ducks as a nil bidder,
  covers a nil partner, and once the contract is made avoids needless bags (plays low,
  never overtakes a partner's winning card) unless the opponents can still be set.

The ``advanced`` level (see the section of that name below) bids from the same count
but reads the scoreboard (bags near the limit, the target, a deficit late in the game,
10-for-200), and picks each card by a look-ahead: it imagines deals of the cards it has
not seen that fit what is public (hand sizes, shown voids, the bids), plays each out for
every distinct legal card with a cheap version of the basic rules of thumb, and keeps the
card that scores best for its side. Still only the view: the imagined deals come from
the unseen cards, drawn by the rng (or one seeded from the view itself).

>>> from server.engine import Rules
>>> view = {"phase": "bid", "seat": 0, "turn": [0], "hand": ["AS", "KS", "QS", "JS",
...     "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C", "5C"], "bids": [None] * 4,
...     "legal": [{"type": "bid", "bid": n} for n in range(14)]}
>>> choose_action(Rules.preset("standard"), view)
{'type': 'bid', 'bid': 8}
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from server.engine.cards import (
    CLUBS,
    CODES,
    SPADES,
    CardOrder,
    card_index,
    card_order,
    deck_codes,
    trick_winner,
)
from server.engine.scoring import game_winner, score_sides

if TYPE_CHECKING:
    from server.engine.rules import Rules

BOT_LEVELS: tuple[str, ...] = ("basic", "advanced")

# The lowest side card worth keeping in the draw: the king (rank index, 2 = 0 ... A = 12).
# Keeping queens too did worse in duplicate deals between bots.
KEEP_FROM_RANK = 11
# A hand whose nil danger (see nil_danger) is at most this, and whose strength is at most
# NIL_MAX_STRENGTH, bids nil.
NIL_MAX_DANGER = 3.0
NIL_MAX_STRENGTH = 1.5
# Tricks a hand takes on average, as ``slope * hand_strength + intercept`` by table size:
# low cards win some tricks too (long suits, opponents out of trumps). Fitted on bot
# games; the bid is that average less a margin, rounded, since a set costs far more
# than a bag.
TRICKS_FROM_STRENGTH = {2: (0.9, 2.5), 3: (1.15, 1.5), 4: (0.91, 1.0), 6: (1.1, 1.2)}
BID_MARGIN_PARTNERS = 0.55
BID_MARGIN_SOLO = 0.9
# Blind nil is a gamble worth taking only this far behind (or further, if the table
# demands more).
BLIND_NIL_DEFICIT = 200
# Once the contract is made, keep fighting for tricks only while the opponents need
# nearly every trick that is left: then a trick or two sets them.
SET_MARGIN = 2

Action = dict[str, Any]
View = dict[str, Any]
Rng = random.Random | None


# ---------------------------------------------------------------------------------------
# Hand evaluation: plain card lists in, numbers out.


@lru_cache(maxsize=32)
def _deck_powers(players: int, deck: str) -> tuple[tuple[int, ...], ...]:
    """Per suit, the power of every card of the table's deck (copies included)."""
    order = card_order(deck)
    powers: list[list[int]] = [[], [], [], []]
    for code in deck_codes(players, deck):
        index = card_index(code)
        powers[order.suit[index]].append(order.power[index])
    return tuple(tuple(sorted(p, reverse=True)) for p in powers)


@lru_cache(maxsize=32)
def _deck_counter(players: int, deck: str) -> Counter[int]:
    return Counter(card_index(code) for code in deck_codes(players, deck))


def _by_suit(order: CardOrder, cards: Iterable[int]) -> list[list[int]]:
    """The cards of each suit, highest power first."""
    suits: list[list[int]] = [[], [], [], []]
    for card in cards:
        suits[order.suit[card]].append(card)
    for suit in suits:
        suit.sort(key=order.power.__getitem__, reverse=True)
    return suits


def _missing_above(powers: Sequence[int], deck_powers: Sequence[int], power: int) -> int:
    """How many cards at least as strong as ``power`` are held by others (copies count:
    in a double deck an unseen twin may be played later and win)."""
    return sum(1 for p in deck_powers if p >= power) - sum(1 for p in powers if p >= power)


def hand_strength(hand: Iterable[str], deck: str = "standard", players: int = 4) -> float:
    """The tricks a hand can count on, as a decent player counts them before the play
    (low cards win a few more; ``TRICKS_FROM_STRENGTH`` turns this into a bid).

    Side suits: an ace, a king behind one missing card with a guard, a queen with two
    guards (each worth less the more likely the suit is ruffed by then). Spades: the top
    cards with enough guards, every spade beyond an average hand's share, and ruffs from
    voids, singletons and doubletons with spare spades.

    >>> hand_strength(["AS", "KS", "QS", "JS", "TS", "AH", "KH", "AD", "KD", "AC",
    ...                "KC", "2C", "3C"]) > 10
    True
    >>> hand_strength(["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H",
    ...                "2S", "3S", "TD"]) < 0.5
    True
    """
    order = card_order(deck)
    deck_powers = _deck_powers(players, deck)
    suits = _by_suit(order, (card_index(code) for code in hand))
    spades = [order.power[c] for c in suits[SPADES]]
    high, length, winners = _spade_tricks(spades, deck_powers[SPADES], players)
    total = high + length
    ruff_chances = 0.0
    for suit in (s for s in range(4) if s != SPADES):
        powers = [order.power[c] for c in suits[suit]]
        total += _side_suit_tricks(powers, deck_powers[suit], players)
        ruff_chances += (1.0, 0.6, 0.2)[len(powers)] if len(powers) < 3 else 0.0
    spare = len(spades) - winners - length
    return total + 0.7 * min(max(spare, 0), ruff_chances)


def _spade_card_value(missing: int, guards: int) -> float:
    """Chance a spade takes a trick: ``missing`` stronger trumps are out, ``guards`` of
    our own lower spades can be played while they fall."""
    if missing <= 0:
        return 1.0
    if guards < missing:
        return 0.0
    return {1: 0.75, 2: 0.5, 3: 0.25}.get(missing, 0.0)


def _spade_tricks(
    powers: list[int], deck_powers: Sequence[int], players: int
) -> tuple[float, int, int]:
    """(tricks from high spades, tricks from length, spades counted as likely winners)."""
    high = 0.0
    winners = 0
    for j, power in enumerate(powers):
        value = _spade_card_value(_missing_above(powers, deck_powers, power), len(powers) - j - 1)
        high += value
        winners += value >= 0.5
    share = round(len(deck_powers) / players) + 1
    length = min(max(len(powers) - share, 0), len(powers) - winners)
    return high, length, winners


def _side_suit_tricks(powers: list[int], deck_powers: Sequence[int], players: int) -> float:
    """Tricks from the high cards of one side suit, cashed from the top down."""
    others_length = (len(deck_powers) - len(powers)) / max(players - 1, 1)
    total = 0.0
    for j, power in enumerate(powers):
        missing = _missing_above(powers, deck_powers, power)
        if len(powers) - j - 1 < missing:
            value = 0.05
        else:
            value = {0: 0.95, 1: 0.5, 2: 0.2}.get(missing, 0.0)
        cashed_on_round = j + 1 + missing
        if cashed_on_round > others_length:
            value *= 0.3
        elif cashed_on_round > others_length - 1:
            value *= 0.8
        total += value
    return total


def nil_danger(hand: Iterable[str], deck: str = "standard", players: int = 4) -> float:
    """How likely a hand is to be forced to win a trick; about 3 or less is a fair nil.

    High spades are nearly fatal, long spades force wins late in the hand, and a high
    side card is dangerous unless enough low cards of its suit let its holder duck.

    >>> nil_danger(["2C", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H", "2S",
    ...             "3S", "TD"]) <= 2
    True
    >>> nil_danger(["AS", "3C", "4C", "5D", "6D", "7D", "8H", "9H", "3H", "4H", "2S",
    ...             "3S", "TD"]) > 2
    True
    """
    order = card_order(deck)
    deck_powers = _deck_powers(players, deck)
    spade_share = round(len(deck_powers[SPADES]) / players)
    suits = _by_suit(order, (card_index(code) for code in hand))
    danger = 0.0
    for suit, cards in enumerate(suits):
        # Ranks, not copies: a twin played earlier in the trick does not save a nil.
        ranks = sorted(set(deck_powers[suit]), reverse=True)
        powers = [order.power[c] for c in cards]
        for j, power in enumerate(powers):
            missing = _missing_above(sorted(set(powers)), ranks, power)
            lower_own = len(powers) - j - 1
            if suit == SPADES:
                danger += 3.0 if missing < 4 else 1.5 if missing < 6 else 0.0
            elif missing == 0:
                danger += 3.0
            elif missing == 1:
                danger += 1.0 if lower_own >= 2 else 2.0
            elif missing == 2:
                danger += 0.5 if lower_own >= 2 else 1.0
            elif missing == 3 and lower_own == 0:
                danger += 0.5
        danger += 1.5 * max(len(powers) - spade_share, 0) if suit == SPADES else 0.0
    return danger


# ---------------------------------------------------------------------------------------
# What the seat knows: derived from the view once per decision.


@dataclass(slots=True)
class _Seat:
    """The public situation from one seat's point of view, with cards as engine ints."""

    rules: Rules
    order: CardOrder
    seat: int
    hand: list[int]
    teammates: list[int]
    opponents: list[int]
    bids: list[Any]
    tricks_won: list[int]
    trick: list[tuple[int, int]]
    played: list[tuple[int, int]]
    sides: list[list[int]]
    contracts: list[Any] | None
    rng: random.Random | None
    _unseen: Counter[int] | None = field(default=None)
    _voids: dict[int, set[int]] | None = field(default=None)

    @property
    def players(self) -> int:
        return self.rules.players

    def is_nil(self, seat: int) -> bool:
        """Whether the seat bid nil or blind nil and has taken no trick yet."""
        return self.bids[seat] in (0, "blind_nil") and self.tricks_won[seat] == 0

    def side_of(self, seat: int) -> list[int]:
        return next(side for side in self.sides if seat in side)

    def need(self, side: list[int]) -> int:
        """Tricks the side still needs for its contract (0 once made)."""
        contract = None
        if self.contracts is not None:
            contract = self.contracts[self.sides.index(side)]
        if contract is None:
            numbers = [b for s in side if isinstance(b := self.bids[s], int) and b > 0]
            team = self.rules.bidding == "team"
            contract = (max(numbers) if team else sum(numbers)) if numbers else 0
        counts_failed_nil = self.rules.nil_tricks == "contract"
        taken = sum(
            self.tricks_won[s]
            for s in side
            if counts_failed_nil or self.bids[s] not in (0, "blind_nil")
        )
        return max(contract - taken, 0)

    @property
    def unseen(self) -> Counter[int]:
        """Cards this seat has not seen: in other hands, or (two players) discarded."""
        if self._unseen is None:
            unseen = _deck_counter(self.players, self.rules.deck).copy()
            unseen.subtract(self.hand)
            unseen.subtract(card for _, card in self.played)
            unseen.subtract(card for _, card in self.trick)
            self._unseen = unseen
        return self._unseen

    @property
    def voids(self) -> dict[int, set[int]]:
        """Suits each seat has shown it lacks, from finished tricks and the current one."""
        if self._voids is not None:
            return self._voids
        voids: dict[int, set[int]] = {}
        n = self.players
        plays = self.played + self.trick
        for start in range(0, len(plays), n):
            cards = plays[start : start + n]
            led = self._led_suit(cards, first_trick=start == 0)
            for seat, card in cards[1:]:
                if self.order.suit[card] != led:
                    voids.setdefault(seat, set()).add(led)
        self._voids = voids
        return voids

    def _led_suit(self, cards: list[tuple[int, int]], first_trick: bool) -> int:
        if first_trick and self.rules.first_lead == "lowest_club":
            return CLUBS
        return self.order.suit[cards[0][1]]

    def led_suit(self) -> int:
        return self._led_suit(self.trick, first_trick=not self.played)

    def wins_with(self, card: int | None = None) -> int:
        """Position in the trick of the winning card, ``card`` played last if given (the
        engine's own rule, RULES.md §7)."""
        cards = [CODES[c] for _, c in self.trick]
        if card is not None:
            cards.append(CODES[card])
        first_club_trick = not self.played and self.rules.first_lead == "lowest_club"
        return trick_winner(
            cards,
            self.rules.deck,
            self.rules.duplicate_later_wins,
            "C" if first_club_trick else None,
        )

    def winning(self) -> tuple[int, int]:
        """(seat, card) currently winning the trick on the table."""
        return self.trick[self.wins_with()]

    def stronger_unseen(self, card: int) -> int:
        """Unseen cards of the card's suit that would beat it if played after it."""
        suit, power = self.order.suit[card], self.order.power[card]
        later_wins = self.rules.duplicate_later_wins
        return sum(
            count
            for other, count in self.unseen.items()
            if count > 0
            and self.order.suit[other] == suit
            and (self.order.power[other] > power or (later_wins and other == card))
        )

    def is_boss(self, card: int) -> bool:
        """Whether no unseen card of its suit can beat it (ruffs aside)."""
        return self.stronger_unseen(card) == 0

    def pick(self, cards: list[int], key: Callable[[int], Any]) -> int:
        """The card with the highest key; ties broken by the rng (else the first)."""
        best_key = max(key(c) for c in cards)
        ties = [c for c in cards if key(c) == best_key]
        if len(ties) > 1 and self.rng is not None:
            return ties[self.rng.randrange(len(ties))]
        return ties[0]

    def lowest(self, cards: list[int]) -> int:
        """The weakest card: lowest rank, a non-spade before a spade."""
        return self.pick(cards, lambda c: (-(self.order.suit[c] == SPADES), -self.order.power[c]))

    def highest(self, cards: list[int]) -> int:
        """The strongest card: a spade before a side card, then the higher rank."""
        return self.pick(cards, lambda c: (self.order.suit[c] == SPADES, self.order.power[c]))


def _own_seat(view: dict[str, Any]) -> int:
    seat = view.get("seat")
    if isinstance(seat, int):
        return seat
    turn = view.get("turn") or []
    if len(turn) == 1:
        return int(turn[0])
    raise ValueError("the view does not say whose it is")


def _seat_state(rules: Rules, view: dict[str, Any], rng: random.Random | None) -> _Seat:
    order = card_order(rules.deck)
    seat = _own_seat(view)
    sides = view.get("sides") or rules.sides
    my_side = next(side for side in sides if seat in side)
    n = rules.players
    return _Seat(
        rules=rules,
        order=order,
        seat=seat,
        hand=[card_index(code) for code in view.get("hand") or []],
        teammates=[s for s in my_side if s != seat],
        opponents=[s for s in range(n) if s not in my_side],
        bids=list(view.get("bids") or [None] * n),
        tricks_won=list(view.get("tricks_won") or [0] * n),
        trick=[(p["seat"], card_index(p["card"])) for p in view.get("trick") or []],
        played=[(p["seat"], card_index(p["card"])) for p in view.get("played") or []],
        sides=[list(side) for side in sides],
        contracts=view.get("contracts"),
        rng=rng,
    )


# ---------------------------------------------------------------------------------------
# One decision per phase.


def choose_action(
    rules: Rules,
    view: dict[str, Any],
    level: str = "basic",
    rng: random.Random | None = None,
    *,
    samples: int | None = None,
) -> Action:
    """One action from ``view["legal"]`` for the seat whose view this is.

    ``basic``: ``rng`` only breaks ties between equally good cards. ``advanced``: ``rng``
    also draws the imagined deals of the look-ahead (without one, the rng is seeded from
    the view itself); ``samples`` caps the deals imagined per card decision
    (``ADVANCED_SAMPLES`` by default). Either way a given view and rng state always give
    the same answer. ValueError if the level is unknown or the view offers nothing to
    do. Every decision returns one of the legal actions themselves (no fallback hides a
    bot bug: the whole-game tests check each choice against ``game.legal``).
    """
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(BOT_LEVELS)}")
    legal: list[Action] = list(view.get("legal") or [])
    if not legal:
        raise ValueError("nothing to do: the view offers no legal action")
    if len(legal) == 1:
        return legal[0]
    phase = str(view.get("phase"))
    if level == "advanced":
        if phase == "play":
            return _advanced_play(rules, view, legal, rng, samples)
        decide = _ADVANCED_DECISIONS.get(phase)
    else:
        decide = _DECISIONS.get(phase)
    return legal[0] if decide is None else decide(rules, view, legal, rng)


def _draw(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """Keep spades, aces and kings; anything less is worth no more than the unseen next
    card."""
    code = view.get("draw_card")
    keep = False
    if isinstance(code, str):
        order = card_order(rules.deck)
        card = card_index(code)
        keep = order.suit[card] == SPADES or order.power[card] >= KEEP_FROM_RANK
    return {"type": "draw", "keep": keep}


def _blind(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """Declare blind nil only when allowed, far behind, and the partner has not."""
    state = _seat_state(rules, view, rng)
    scores = [entry["score"] for entry in view.get("scores") or []]
    my_index = state.sides.index(state.side_of(state.seat))
    others = [score for i, score in enumerate(scores) if i != my_index]
    deficit = max(others) - scores[my_index] if others else 0
    needed = max(BLIND_NIL_DEFICIT, rules.blind_nil_behind_by or 0)
    partner_declared = any(state.bids[s] == "blind_nil" for s in state.teammates)
    declare = deficit >= needed and not partner_declared
    return {"type": "blind_nil", "declare": declare}


def _pass(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """The blind nil bidder gives away its most dangerous cards (top spades, then the
    highest side cards); its partner gives the lowest side cards, which a nil can duck
    with, and keeps its spades and honours to cover."""
    state = _seat_state(rules, view, rng)
    count = len(legal[0]["cards"])
    order = state.order
    if state.bids[state.seat] == "blind_nil":
        chosen = sorted(state.hand, key=lambda c: _danger(state, c))[-count:]
    else:
        ranked = sorted(state.hand, key=lambda c: (order.suit[c] == SPADES, order.power[c]))
        chosen = ranked[:count]
    wanted = Counter(chosen)
    for action in legal:
        if Counter(card_index(code) for code in action["cards"]) == wanted:
            return action
    return legal[0]


def _bid(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """Bid the counted tricks (nil with a really weak hand), the nearest legal number."""
    state = _seat_state(rules, view, rng)
    hand = view.get("hand") or []
    numbers = [action["bid"] for action in legal]
    strength = hand_strength(hand, rules.deck, rules.players)
    partner_bids = [state.bids[s] for s in state.teammates if state.bids[s] is not None]
    if 0 in numbers and _nil_is_sensible(rules, hand, strength, partner_bids):
        return {"type": "bid", "bid": 0}
    slope, intercept = TRICKS_FROM_STRENGTH[rules.players]
    margin = BID_MARGIN_PARTNERS if state.teammates else BID_MARGIN_SOLO
    wanted = max(int(slope * strength + intercept + 0.5 - margin), 1)
    if rules.bidding == "team":
        wanted += sum(b for b in partner_bids if isinstance(b, int))
    candidates = [n for n in numbers if n > 0] or numbers
    return {"type": "bid", "bid": min(candidates, key=lambda n: (abs(n - wanted), n))}


def _nil_is_sensible(
    rules: Rules, hand: list[str], strength: float, partner_bids: list[Any]
) -> bool:
    if strength > NIL_MAX_STRENGTH or nil_danger(hand, rules.deck, rules.players) > NIL_MAX_DANGER:
        return False
    if any(b in (0, "blind_nil") for b in partner_bids):
        return False
    # A nil would raise a low partner bid to the team minimum: not worth it.
    return not any(isinstance(b, int) and b < rules.min_team_bid - 1 for b in partner_bids)


def _play(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    state = _seat_state(rules, view, rng)
    cards = [card_index(action["card"]) for action in legal]
    if state.is_nil(state.seat):
        card = _follow_as_nil(state, cards) if state.trick else _lead_to_lose(state, cards)
    elif any(state.is_nil(s) for s in state.teammates):
        card = _follow_covering(state, cards) if state.trick else _lead_covering(state, cards)
    elif _wants_tricks(state):
        card = _follow_for_tricks(state, cards) if state.trick else _lead_for_tricks(state, cards)
    else:
        card = _follow_ducking(state, cards) if state.trick else _lead_to_lose(state, cards)
    return legal[cards.index(card)]


def _wants_tricks(state: _Seat) -> bool:
    """Still short of the contract, or the opponents can be set (a failed nil, whose
    tricks are only bags, just stays out of the way)."""
    if state.tricks_won[state.seat] and state.bids[state.seat] in (0, "blind_nil"):
        return False
    if state.need(state.side_of(state.seat)) > 0:
        return True
    left = len(state.hand)
    opponent_sides = [side for side in state.sides if state.seat not in side]
    needs = [state.need(side) for side in opponent_sides]
    return any(0 < need <= left < need + SET_MARGIN + 1 for need in needs)


def _seats_after(state: _Seat) -> list[int]:
    """Seats still to play to this trick after this one."""
    n = state.players
    return [(state.seat + k) % n for k in range(1, n - len(state.trick))]


def _split(state: _Seat, cards: list[int]) -> tuple[list[int], list[int]]:
    """(cards that would win the trick now, cards that would not)."""
    winners = [c for c in cards if state.wins_with(c) == len(state.trick)]
    return winners, [c for c in cards if c not in winners]


def _danger(state: _Seat, card: int) -> int:
    """How badly a nil bidder wants to be rid of a card: high cards, spades worst."""
    return state.order.power[card] + (4 if state.order.suit[card] == SPADES else 0)


def _follow_as_nil(state: _Seat, cards: list[int]) -> int:
    """Duck with the highest card that still loses; if every card wins, hope a later
    player overtakes the lowest, or (last to play) shed the highest."""
    winners, losers = _split(state, cards)
    if losers:
        return state.pick(losers, lambda c: _danger(state, c))
    return state.highest(winners) if not _seats_after(state) else state.lowest(winners)


def _lead_to_lose(state: _Seat, cards: list[int]) -> int:
    """Lead the card most likely to be beaten (as a nil, or once the contract is made):
    a side card with many unseen cards above it."""
    return state.pick(
        cards,
        lambda c: (state.order.suit[c] != SPADES, state.stronger_unseen(c), -state.order.power[c]),
    )


def _follow_covering(state: _Seat, cards: list[int]) -> int:
    """Protect a nil partner: overtake the partner's winning card, or play high in front
    of a partner still to play, so it can duck under."""
    winner_seat, _ = state.winning()
    winners, losers = _split(state, cards)
    partner_to_play = any(s in state.teammates for s in _seats_after(state))
    if winner_seat in state.teammates:
        return state.lowest(winners) if winners else state.lowest(cards)
    if partner_to_play and winners:
        following = [c for c in winners if state.order.suit[c] == state.led_suit()]
        return state.highest(following) if following else state.lowest(winners)
    if partner_to_play:
        return state.lowest(losers)
    if _wants_tricks(state):
        return _follow_for_tricks(state, cards)
    return _follow_ducking(state, cards)


def _lead_covering(state: _Seat, cards: list[int]) -> int:
    """Lead high, so the nil partner can play under it: a boss card first, else the
    highest side card."""
    bosses = [c for c in cards if state.is_boss(c)]
    if bosses:
        return state.highest(bosses)
    side = [c for c in cards if state.order.suit[c] != SPADES]
    return state.pick(side or cards, lambda c: state.order.power[c])


def _follow_for_tricks(state: _Seat, cards: list[int]) -> int:
    """Win cheaply: leave a partner's sure winner alone, the lowest sure winner (the
    lowest winning card when last), second hand low, third hand high, trump when void."""
    winner_seat, best = state.winning()
    winners, losers = _split(state, cards)
    after = _seats_after(state)
    opponents_after = [s for s in after if s in state.opponents]
    if winner_seat in state.teammates and _holds(state, best, opponents_after):
        return _discard(state, losers) if losers else state.lowest(cards)
    if winner_seat in state.opponents and state.is_nil(winner_seat) and losers:
        # Setting a nil is worth more than one trick: leave it winning.
        return _shed_under(state, losers)
    if not winners:
        return _discard(state, cards)
    safe = [c for c in winners if _holds(state, c, opponents_after)]
    if safe:
        return state.lowest(safe)
    following = [c for c in winners if state.order.suit[c] == state.led_suit()]
    if len(state.trick) == 1 and following:
        return _discard(state, losers) if losers else state.lowest(cards)
    return state.highest(following) if following else state.lowest(winners)


def _shed_under(state: _Seat, losers: list[int]) -> int:
    """Stay under the winning card with the highest side card that does: it sheds a
    card that could win an unwanted trick later, and spades stay in hand for when a
    trick is wanted."""
    return state.pick(losers, lambda c: (state.order.suit[c] != SPADES, state.order.power[c]))


def _holds(state: _Seat, card: int, seats: list[int]) -> bool:
    """Whether ``card`` will most likely still win once ``seats`` have played: no unseen
    card of its suit beats it and (for a side card) none of them is known to be void
    while spades are out."""
    if not seats:
        return True
    if state.stronger_unseen(card):
        return False
    suit = state.order.suit[card]
    if suit == SPADES:
        return True
    voids = state.voids
    spades_out = any(
        count > 0 and state.order.suit[c] == SPADES for c, count in state.unseen.items()
    )
    return not (spades_out and any(suit in voids.get(s, ()) for s in seats))


def _discard(state: _Seat, cards: list[int]) -> int:
    """Throw the least useful card: a low side card, from the shortest suit so that a
    void (and a ruff) comes sooner; spades and boss cards are kept."""
    lengths = Counter(state.order.suit[c] for c in state.hand)
    return state.pick(
        cards,
        lambda c: (
            state.order.suit[c] != SPADES,
            not state.is_boss(c),
            -state.order.power[c],
            -lengths[state.order.suit[c]],
        ),
    )


def _lead_for_tricks(state: _Seat, cards: list[int]) -> int:
    """Lead low at a nil opponent; cash a boss side card that will not be ruffed; draw
    trumps with a boss spade when long in spades; lead into a partner's void; else lead
    low from the longest suit."""
    nils = [s for s in state.opponents if state.is_nil(s)]
    if nils:
        return _lead_at_nil(state, cards, nils)
    others = [s for s in range(state.players) if s != state.seat]
    cashable = [c for c in cards if state.order.suit[c] != SPADES and _holds(state, c, others)]
    if cashable:
        return state.pick(cashable, lambda c: _unseen_in_suit(state, state.order.suit[c]))
    spades = [c for c in cards if state.order.suit[c] == SPADES]
    if len(spades) >= 2 and any(state.is_boss(c) for c in spades):
        return state.highest(spades)
    voids = state.voids
    for partner in state.teammates:
        feed = [c for c in cards if state.order.suit[c] in voids.get(partner, ())]
        if feed:
            return state.lowest(feed)
    side = [c for c in cards if state.order.suit[c] != SPADES]
    if not side:
        return state.highest(cards) if state.is_boss(state.highest(cards)) else state.lowest(cards)
    lengths = Counter(state.order.suit[c] for c in state.hand)
    return state.pick(side, lambda c: (lengths[state.order.suit[c]], -state.order.power[c]))


def _lead_at_nil(state: _Seat, cards: list[int], nils: list[int]) -> int:
    """Lead the lowest card of a suit the nil bidder still holds, so that it may be
    forced to win."""
    voids = state.voids
    live = [c for c in cards if not any(state.order.suit[c] in voids.get(s, ()) for s in nils)]
    return state.pick(
        live or cards, lambda c: (state.order.suit[c] != SPADES, -state.order.power[c])
    )


def _unseen_in_suit(state: _Seat, suit: int) -> int:
    return sum(n for c, n in state.unseen.items() if n > 0 and state.order.suit[c] == suit)


def _follow_ducking(state: _Seat, cards: list[int]) -> int:
    """Contract made: play under the winning card (never over a partner), shedding the
    highest card that still loses; forced to win, win with the lowest card if someone
    may still overtake, else with the highest."""
    winners, losers = _split(state, cards)
    if losers:
        return _shed_under(state, losers)
    return state.highest(winners) if not _seats_after(state) else state.lowest(winners)


_DECISIONS: dict[str, Callable[[Rules, View, list[Action], Rng], Action]] = {
    "draw": _draw,
    "blind": _blind,
    "pass": _pass,
    "bid": _bid,
    "play": _play,
}


# ---------------------------------------------------------------------------------------
# The advanced level: bidding that reads the scoreboard, card play by look-ahead.
#
# Bidding starts from the basic count and then applies a few rules a seasoned player
# would state out loud (see _advanced_bid). Card play imagines deals of the unseen cards
# that fit everything public (hand sizes, the voids players have shown), plays the rest
# of the hand out for every distinct legal card with a cheap rule-of-thumb policy, and
# picks the card whose deals score best for its side (the hand's points, bags and bag
# penalties included, and the game itself when the hand ends it). It gets only the
# view: the deals it imagines are drawn from the cards it has not seen.

# Within this many bags of the bag limit, bid what the hand should take (a smaller margin).
BAG_WARNING = 3
BAG_MARGIN = 0.15
# Within this many points of the target, and not behind: no nil.
NEAR_TARGET = 80
# Late in a game (the leader within LATE of the target) and this far behind: nil with a
# weaker hand than usual, and blind nil when the table allows it.
LATE = 150
DESPERATE_DEFICIT = 150
NIL_MAX_DANGER_DESPERATE = 5.0
NIL_MAX_STRENGTH_DESPERATE = 2.2
# 10-for-200: raise the side's contract to 10 when its estimate falls short by at most
# this (more when a set of 10 costs no more than 100).
TEN_SLACK = 0.4
TEN_SLACK_CHEAP_SET = 0.9
# The look-ahead: at most ADVANCED_SAMPLES imagined deals per card decision, fewer when
# (distinct cards x cards left) would exceed the budget of simulated card plays, but
# never fewer than MIN_SAMPLES. About 2 microseconds per simulated card here: 30,000
# card plays are about 70 ms.
ADVANCED_SAMPLES = 64
ADVANCED_CARD_BUDGET = 30_000
# Tables that deal more cards than this scale ADVANCED_SAMPLES down in proportion.
CARDS_AT_FULL_SAMPLES = 52
MIN_SAMPLES = 6
# Imagined deals give high cards to each hidden seat in proportion to the tricks its bid
# still promises plus WEIGHT_BASE; a nil bidder still clean gets NIL_WEIGHT.
WEIGHT_BASE = 0.5
NIL_WEIGHT = 0.25
# What ending the game is worth, in points of this hand, to the look-ahead.
GAME_VALUE = 1000

_NIL, _COVER, _WANT, _DUCK = range(4)


@dataclass(frozen=True, slots=True)
class _Situation:
    """The scoreboard from one side's chair."""

    score: int
    bags: int
    best_other: int
    target: int
    bags_close: bool
    near_target: bool
    late: bool

    @property
    def deficit(self) -> int:
        return self.best_other - self.score


def _situation(rules: Rules, view: View, state: _Seat) -> _Situation:
    entries = view.get("scores") or [{"score": 0, "bags": 0} for _ in state.sides]
    mine = state.sides.index(state.side_of(state.seat))
    score, bags = int(entries[mine]["score"]), int(entries[mine]["bags"])
    others = [int(e["score"]) for i, e in enumerate(entries) if i != mine]
    best_other = max(others) if others else score
    target = int(view.get("target_score") or rules.target_score)
    return _Situation(
        score=score,
        bags=bags,
        best_other=best_other,
        target=target,
        bags_close=rules.bags and bags >= rules.bag_limit - BAG_WARNING,
        near_target=score >= target - NEAR_TARGET and score >= best_other,
        late=best_other >= target - LATE,
    )


def _advanced_bid(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """The basic count, adjusted by the situation, one rule at a time:

    - near the target and not behind: no nil (a failed nil would hand the game over);
    - own side near the bag limit: bid close to the estimate (bags now cost 100);
    - far behind late in the game: nil with a weaker hand than usual;
    - 10-for-200 tables: a second partner lifts the side to 10 when the side's
      estimate is within reach of it.

    Opponents about to win are fought in the play (the look-ahead counts a hand that
    ends the game as the game): bidding higher then, or a bigger margin near the
    target, did no better in duplicate deals against the basic level.
    """
    state = _seat_state(rules, view, rng)
    hand = view.get("hand") or []
    numbers = [action["bid"] for action in legal]
    situation = _situation(rules, view, state)
    strength = hand_strength(hand, rules.deck, rules.players)
    slope, intercept = TRICKS_FROM_STRENGTH[rules.players]
    expected = slope * strength + intercept
    margin = BID_MARGIN_PARTNERS if state.teammates else BID_MARGIN_SOLO
    partner_bids = [state.bids[s] for s in state.teammates if state.bids[s] is not None]
    desperate = situation.late and situation.deficit >= DESPERATE_DEFICIT
    if situation.bags_close and not situation.near_target:
        margin = min(margin, BAG_MARGIN)
    max_danger, max_strength = NIL_MAX_DANGER, NIL_MAX_STRENGTH
    if desperate:
        max_danger, max_strength = NIL_MAX_DANGER_DESPERATE, NIL_MAX_STRENGTH_DESPERATE
    if (
        0 in numbers
        and not situation.near_target
        and strength <= max_strength
        and nil_danger(hand, rules.deck, rules.players) <= max_danger
        and _nil_fits_partner(rules, partner_bids)
    ):
        return {"type": "bid", "bid": 0}
    own = max(int(expected + 0.5 - margin), 1)
    partner_numbers = [b for b in partner_bids if isinstance(b, int) and b > 0]
    team = rules.bidding == "team"
    base = sum(partner_numbers) if team else 0
    wanted = base + own
    if (
        rules.ten_for_two_hundred
        and partner_numbers
        and not situation.near_target
        and sum(partner_numbers) + own < 10
    ):
        slack = TEN_SLACK_CHEAP_SET if rules.ten_for_two_hundred_set <= 100 else TEN_SLACK
        # The partner's bid is itself a cautious count: add back its margin.
        side_estimate = sum(partner_numbers) + BID_MARGIN_PARTNERS + expected
        if side_estimate >= 10 - slack:
            wanted = 10 if team else 10 - sum(partner_numbers)
    candidates = [n for n in numbers if n > 0] or numbers
    return {"type": "bid", "bid": min(candidates, key=lambda n: (abs(n - wanted), n))}


def _nil_fits_partner(rules: Rules, partner_bids: list[Any]) -> bool:
    if any(b in (0, "blind_nil") for b in partner_bids):
        return False
    return not any(isinstance(b, int) and b < rules.min_team_bid - 1 for b in partner_bids)


def _advanced_blind(rules: Rules, view: View, legal: list[Action], rng: Rng) -> Action:
    """Blind nil when the table allows it (the engine only asks eligible players), the
    partner has not declared, and the side is far behind: 150 late in the game (the
    leader within LATE of the target), else 200, or more if the table demands more."""
    state = _seat_state(rules, view, rng)
    situation = _situation(rules, view, state)
    needed = DESPERATE_DEFICIT if situation.late else BLIND_NIL_DEFICIT
    needed = max(needed, rules.blind_nil_behind_by or 0)
    partner_declared = any(state.bids[s] == "blind_nil" for s in state.teammates)
    declare = situation.deficit >= needed and not partner_declared
    return {"type": "blind_nil", "declare": declare}


def _advanced_play(
    rules: Rules, view: View, legal: list[Action], rng: Rng, samples: int | None
) -> Action:
    """The distinct legal card whose imagined deals score best for the bot's side; ties
    go to the basic level's choice."""
    state = _seat_state(rules, view, rng)
    if not state.played and rules.first_lead == "lowest_club":
        # The first trick's own rules (lowest clubs, forced): the basic play is fine.
        return _play(rules, view, legal, rng)
    cards = [card_index(action["card"]) for action in legal]
    candidates = _distinct_cards(state, cards)
    basic = card_index(_play(rules, view, legal, rng)["card"])
    basic_group = next(c for c in candidates if _same_group(state, c, basic))
    if len(candidates) == 1:
        return legal[cards.index(candidates[0])]
    if rng is None:
        rng = random.Random(_view_seed(view))
    sizes = view.get("hand_sizes") or _hand_sizes(state)
    left = sum(sizes)
    if samples is None:
        # Bigger tables (six players: 108 cards) imagine fewer deals of more cards.
        dealt = rules.players * rules.hand_size
        cap = max(int(ADVANCED_SAMPLES * min(1.0, CARDS_AT_FULL_SAMPLES / dealt)), 1)
    else:
        cap = max(int(samples), 1)
    count = min(cap, max(MIN_SAMPLES, ADVANCED_CARD_BUDGET // (len(candidates) * left)))
    sim = _Sim(state, view)
    totals = [0.0] * len(candidates)
    unseen = list(state.unseen.elements())
    hidden = [s for s in range(state.players) if s != state.seat]
    voids = state.voids
    next_seat = (state.seat + 1) % state.players
    strong = _strong_cards(rules.deck)
    weights = _holding_weights(state, view, hidden)
    for _ in range(count):
        deal = _deal_hidden(rng, unseen, hidden, sizes, voids, state.order.suit, strong, weights)
        deal[state.seat] = list(state.hand)
        tops = _suit_tops(state.order, deal)
        for i, card in enumerate(candidates):
            hands = [list(h) for h in deal]
            hands[state.seat].remove(card)
            card_tops = [list(t) for t in tops]
            card_tops[state.order.suit[card]].remove(state.order.power[card])
            tricks = sim.rollout(
                hands,
                [*state.trick, (state.seat, card)],
                list(state.tricks_won),
                sim.broken or state.order.suit[card] == SPADES,
                next_seat,
                card_tops,
            )
            totals[i] += sim.utility(tricks)
    best = max(totals)
    tied = [c for c, total in zip(candidates, totals, strict=True) if total >= best - 1e-9]
    chosen = basic_group if basic_group in tied else tied[0]
    return legal[cards.index(chosen)]


@lru_cache(maxsize=8)
def _strong_cards(deck: str) -> list[bool]:
    """Per card int: a high card whose holder the bids hint at (jacks of spades and
    up, side-suit kings and aces)."""
    order = card_order(deck)
    return [
        order.power[c] >= (9 if order.suit[c] == SPADES else 11) for c in range(len(order.suit))
    ]


def _holding_weights(state: _Seat, view: View, hidden: list[int]) -> dict[int, float]:
    """How strongly each hidden seat is expected to hold high cards: the tricks its own
    bid still promises (a nil bidder holds few, a blind nil bidder bid before looking)."""
    n = state.players
    dealer = view.get("dealer")
    position = [(s - (dealer if isinstance(dealer, int) else 0) - 1) % n for s in range(n)]
    weights: dict[int, float] = {}
    for seat in hidden:
        bid = state.bids[seat]
        if bid == "blind_nil" or not isinstance(bid, int):
            weights[seat] = 1.0 + WEIGHT_BASE
            continue
        if bid == 0:
            weights[seat] = NIL_WEIGHT if state.tricks_won[seat] == 0 else 1.0
            continue
        own = bid
        if state.rules.bidding == "team":
            # The later partner's number is the side's total: its own part is the rest.
            for partner in state.side_of(seat):
                other = state.bids[partner]
                if (
                    partner != seat
                    and isinstance(other, int)
                    and position[partner] < position[seat]
                ):
                    own = max(bid - other, 0)
        weights[seat] = max(own - state.tricks_won[seat], 0) + WEIGHT_BASE
    return weights


def _hand_sizes(state: _Seat) -> list[int]:
    """Cards left per seat, from the cards each has played (a view without
    ``hand_sizes``)."""
    sizes = [state.rules.hand_size] * state.players
    for seat, _ in state.played + state.trick:
        sizes[seat] -= 1
    sizes[state.seat] = len(state.hand)
    return sizes


def _view_seed(view: View) -> str:
    """A seed made of what the seat sees, so that the same view imagines the same deals."""
    trick = [p["card"] for p in view.get("trick") or []]
    played = [p["card"] for p in view.get("played") or []]
    return f"{view.get('seat')}|{view.get('hand')}|{trick}|{played}|{view.get('bids')}"


def _others_between(state: _Seat, low: int, high: int, suit: int) -> bool:
    """Whether a card of ``suit`` not in this seat's hand (unseen, or on the table in
    this trick) has a power in ``low..high``."""
    order = state.order
    for card, count in state.unseen.items():
        if count > 0 and order.suit[card] == suit and low <= order.power[card] <= high:
            return True
    return any(
        order.suit[card] == suit and low <= order.power[card] <= high for _, card in state.trick
    )


def _same_group(state: _Seat, a: int, b: int) -> bool:
    """Whether two of the seat's cards are equivalent: same suit, and no card anyone
    else may play lies between them (so either one wins or loses the same tricks)."""
    order = state.order
    if order.suit[a] != order.suit[b]:
        return False
    low, high = sorted((order.power[a], order.power[b]))
    return a == b or not _others_between(state, low, high, order.suit[a])


def _distinct_cards(state: _Seat, cards: list[int]) -> list[int]:
    """One card (the lowest) of each group of equivalent legal cards."""
    order = state.order
    ranked = sorted(dict.fromkeys(cards), key=lambda c: (order.suit[c], order.power[c]))
    groups: list[int] = []
    for card in ranked:
        if groups and _same_group(state, groups[-1], card):
            continue
        groups.append(card)
    return groups


def _deal_hidden(
    rng: random.Random,
    unseen: list[int],
    hidden: list[int],
    sizes: list[int],
    voids: dict[int, set[int]],
    suit: list[int],
    strong: list[bool] | None = None,
    weights: dict[int, float] | None = None,
) -> list[list[int]]:
    """One deal of the unseen cards to the hidden seats (their hand sizes), respecting
    the suits each has shown it lacks; cards left over (the two-player discards) go to
    nobody. With ``weights``, each ``strong`` card goes to a seat with odds in
    proportion to its free room times its weight (a seat that bid high holds more high
    cards than one that bid nil). Falls back to ignoring the voids if a few tries find no
    fitting deal."""
    pool = list(unseen)
    rng.shuffle(pool)
    hands: list[list[int]] = [[] for _ in sizes]
    weighted = strong is not None and weights is not None
    if not weighted and not any(voids.get(s) for s in hidden):
        return _slice_deal(pool, hidden, sizes, hands)
    # The leftover cards (two players) form a pseudo-seat -1 that takes anything.
    owners = [*hidden, -1]
    spare = max(len(pool) - sum(sizes[s] for s in hidden), 0)
    weight = dict(weights or {})
    weight[-1] = 1.0
    banned = {s: voids.get(s, set()) for s in owners}
    special = [
        c for c in pool if (weighted and strong[c]) or any(suit[c] in banned[s] for s in hidden)
    ]
    free = [
        c
        for c in pool
        if not ((weighted and strong[c]) or any(suit[c] in banned[s] for s in hidden))
    ]
    for _ in range(8):
        room = {s: sizes[s] for s in hidden}
        room[-1] = spare
        placed: dict[int, list[int]] = {s: [] for s in owners}
        for card in special:
            odds = weight if weighted and strong[card] else None
            fits = [
                (s, room[s] * (odds[s] if odds else 1.0))
                for s in owners
                if room[s] > 0 and suit[card] not in banned[s]
            ]
            if not fits:
                break
            pick = rng.random() * sum(w for _, w in fits)
            owner = fits[-1][0]
            for seat, w in fits:
                pick -= w
                if pick < 0:
                    owner = seat
                    break
            placed[owner].append(card)
            room[owner] -= 1
        else:
            start = 0
            for owner in owners:
                placed[owner].extend(free[start : start + room[owner]])
                start += room[owner]
            for seat in hidden:
                hands[seat] = placed[seat]
            return hands
        rng.shuffle(special)
    return _slice_deal(pool, hidden, sizes, hands)


def _slice_deal(
    pool: list[int], hidden: list[int], sizes: list[int], hands: list[list[int]]
) -> list[list[int]]:
    start = 0
    for seat in hidden:
        hands[seat] = pool[start : start + sizes[seat]]
        start += sizes[seat]
    return hands


def _suit_tops(order: CardOrder, hands: list[list[int]]) -> list[list[int]]:
    """Per suit, the powers of the cards still in hands, highest first."""
    tops: list[list[int]] = [[], [], [], []]
    for hand in hands:
        for card in hand:
            tops[order.suit[card]].append(order.power[card])
    for top in tops:
        top.sort(reverse=True)
    return tops


class _Sim:
    """Plays the rest of a hand out on a deal (every hand known) with a cheap policy
    that follows the basic level's rules of thumb, and scores the result."""

    def __init__(self, state: _Seat, view: View) -> None:
        rules = state.rules
        n = rules.players
        self.rules = rules
        self.n = n
        self.suit = state.order.suit
        self.power = state.order.power
        self.win_key = state.order.win_key
        self.later_wins = rules.duplicate_later_wins
        self.guard = rules.spades_broken_to_lead
        self.broken = bool(view.get("spades_broken")) or any(
            self.suit[c] == SPADES for _, c in state.played + state.trick
        )
        self.bids = list(state.bids)
        self.sides = state.sides
        self.side_of = [0] * n
        for index, side in enumerate(self.sides):
            for seat in side:
                self.side_of[seat] = index
        self.partners = [[t for t in self.sides[self.side_of[s]] if t != s] for s in range(n)]
        self.nil_bid = [b in (0, "blind_nil") for b in self.bids]
        counts_failed_nil = rules.nil_tricks == "contract"
        self.counted = [
            [s for s in side if counts_failed_nil or not self.nil_bid[s]] for side in self.sides
        ]
        self.contracts = [
            state.need(side) + sum(state.tricks_won[s] for s in counted)
            if state.contracts is None
            else int(state.contracts[i])
            for i, (side, counted) in enumerate(zip(self.sides, self.counted, strict=True))
        ]
        self.my_side = self.side_of[state.seat]
        self.scores = list(view.get("scores") or [{"score": 0, "bags": 0} for _ in self.sides])
        self._utilities: dict[tuple[int, ...], float] = {}

    def rollout(
        self,
        hands: list[list[int]],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        seat: int,
        tops: list[list[int]],
    ) -> tuple[int, ...]:
        """Play on from ``trick`` (``seat`` to play next) until the hands are empty;
        the tricks each seat won this hand."""
        n, suit, power, win_key, later = (
            self.n,
            self.suit,
            self.power,
            self.win_key,
            self.later_wins,
        )
        while True:
            if len(trick) == n:
                winner, _ = _taking(trick, win_key[suit[trick[0][1]]], later)
                tricks_won[winner] += 1
                trick = []
                seat = winner
                if not hands[seat]:
                    return tuple(tricks_won)
            if not hands[seat]:
                # Only a view that contradicts itself gets here: score what was played.
                return tuple(tricks_won)
            card = self.choose(seat, hands[seat], trick, tricks_won, broken, tops)
            hands[seat].remove(card)
            card_suit = suit[card]
            tops[card_suit].remove(power[card])
            if card_suit == SPADES:
                broken = True
            trick.append((seat, card))
            seat = seat + 1 if seat + 1 < n else 0

    def _mode(self, seat: int, tricks_won: list[int], left: int) -> int:
        if self.nil_bid[seat]:
            return _NIL if tricks_won[seat] == 0 else _DUCK
        for partner in self.partners[seat]:
            if self.nil_bid[partner] and tricks_won[partner] == 0:
                return _COVER
        mine = self.side_of[seat]
        for index, counted in enumerate(self.counted):
            need = self.contracts[index] - sum(tricks_won[s] for s in counted)
            if index == mine and need > 0:
                return _WANT
            if index != mine and 0 < need <= left < need + SET_MARGIN + 1:
                return _WANT
        return _DUCK

    def choose(
        self,
        seat: int,
        hand: list[int],
        trick: list[tuple[int, int]],
        tricks_won: list[int],
        broken: bool,
        tops: list[list[int]],
    ) -> int:
        """The policy's card for ``seat``: the basic level's rules of thumb, cheaply."""
        suit, power = self.suit, self.power
        if trick:
            led = suit[trick[0][1]]
            legal = [c for c in hand if suit[c] == led] or hand
        elif self.guard and not broken:
            legal = [c for c in hand if suit[c] != SPADES] or hand
        else:
            legal = hand
        if len(legal) == 1:
            return legal[0]
        mode = self._mode(seat, tricks_won, len(hand))
        if not trick:
            return self._lead(seat, mode, hand, legal, tricks_won, tops)
        keys = self.win_key[led]
        later = self.later_wins
        winner, best = _taking(trick, keys, later)
        if later and best >= 0:
            winners = [c for c in legal if keys[c] >= best]
            losers = [c for c in legal if keys[c] < best]
        else:
            winners = [c for c in legal if keys[c] > best]
            losers = [c for c in legal if keys[c] <= best]
        last = len(trick) == self.n - 1
        if mode == _NIL:
            if losers:
                return max(losers, key=lambda c: power[c] + (4 if suit[c] == SPADES else 0))
            return _forced_win(winners, keys, last)
        if mode == _DUCK:
            if losers:
                return max(losers, key=lambda c: (suit[c] != SPADES) * 100 + power[c])
            return _forced_win(winners, keys, last)
        low = min(legal, key=lambda c: (suit[c] == SPADES) * 100 + power[c])
        if mode == _COVER:
            nil_partner = next(
                p for p in self.partners[seat] if self.nil_bid[p] and tricks_won[p] == 0
            )
            if winner == nil_partner:
                return min(winners, key=keys.__getitem__) if winners else low
            if all(p != nil_partner for p, _ in trick) and winners:
                following = [c for c in winners if suit[c] == led]
                if following:
                    return max(following, key=power.__getitem__)
                return min(winners, key=keys.__getitem__)
        if winner in self.partners[seat]:
            win_card = next(c for p, c in trick if p == winner)
            top = tops[suit[win_card]]
            if last or not top or power[win_card] >= top[0]:
                return low
        elif self.nil_bid[winner] and tricks_won[winner] == 0 and losers:
            return max(losers, key=lambda c: (suit[c] != SPADES) * 100 + power[c])
        if not winners:
            return low
        if last:
            return min(winners, key=keys.__getitem__)
        following = [c for c in winners if suit[c] == led]
        if not following:
            return min(winners, key=keys.__getitem__)
        high = max(following, key=power.__getitem__)
        if power[high] >= tops[led][0] or len(trick) > 1:
            return high
        return low

    def _lead(
        self,
        seat: int,
        mode: int,
        hand: list[int],
        legal: list[int],
        tricks_won: list[int],
        tops: list[list[int]],
    ) -> int:
        suit, power = self.suit, self.power
        low = min(legal, key=lambda c: (suit[c] == SPADES) * 100 + power[c])
        if mode in (_NIL, _DUCK):
            return low
        side_cards = [c for c in legal if suit[c] != SPADES]
        bosses = [c for c in side_cards if power[c] >= tops[suit[c]][0]]
        if mode == _COVER:
            if bosses:
                return bosses[0]
            return max(side_cards or legal, key=power.__getitem__)
        if any(self.nil_bid[s] and tricks_won[s] == 0 for s in range(self.n) if s != seat):
            opponents = [s for s in range(self.n) if self.side_of[s] != self.side_of[seat]]
            if any(self.nil_bid[s] and tricks_won[s] == 0 for s in opponents):
                return low
        if bosses:
            return bosses[0]
        spades = [c for c in legal if suit[c] == SPADES]
        if spades:
            high = max(spades, key=power.__getitem__)
            if power[high] >= tops[SPADES][0] and (len(spades) >= 2 or not side_cards):
                return high
        if not side_cards:
            return min(spades, key=power.__getitem__)
        lengths = [0, 0, 0, 0]
        for card in hand:
            lengths[suit[card]] += 1
        return min(side_cards, key=lambda c: (-lengths[suit[c]], power[c]))

    def utility(self, tricks: tuple[int, ...]) -> float:
        """What a hand that ends with these tricks is worth to the bot's side: its points
        less the others' (on average), each bag taken at its share of the bag penalty
        (a bag is worth 1 point now and costs ``bag_penalty / bag_limit`` later); or the
        game, when the hand ends it."""
        cached = self._utilities.get(tricks)
        if cached is not None:
            return cached
        rules = self.rules
        after = score_sides(rules, self.bids, tricks, self.scores)
        bag_cost = rules.bag_penalty / rules.bag_limit if rules.bags and rules.bag_limit else 0.0
        deltas = []
        for side, old in zip(after, self.scores, strict=True):
            penalties = side["bag_penalty"] / rules.bag_penalty if rules.bag_penalty else 0
            bags = side["bags"] - old["bags"] + penalties * rules.bag_limit
            deltas.append(side["score"] - old["score"] + side["bag_penalty"] - bag_cost * bags)
        others = [d for i, d in enumerate(deltas) if i != self.my_side]
        value = float(deltas[self.my_side] - (sum(others) / len(others) if others else 0))
        winner = game_winner(rules, after)
        if winner is not None:
            value += GAME_VALUE if winner == self.my_side else -GAME_VALUE
        self._utilities[tricks] = value
        return value


def _taking(trick: list[tuple[int, int]], keys: list[int], later_wins: bool) -> tuple[int, int]:
    """The seat taking the trick so far and its win key (-1: nothing can win yet);
    ``later_wins``: of identical cards the later one takes it."""
    winner, best = trick[0][0], -1
    for player, card in trick:
        key = keys[card]
        if key > best or (later_wins and key == best and key >= 0):
            winner, best = player, key
    return winner, best


def _forced_win(winners: list[int], keys: list[int], last: bool) -> int:
    """Every card wins: the highest when last (the trick is lost anyway), else the
    lowest, hoping a later player overtakes."""
    return max(winners, key=keys.__getitem__) if last else min(winners, key=keys.__getitem__)


_ADVANCED_DECISIONS: dict[str, Callable[[Rules, View, list[Action], Rng], Action]] = {
    **_DECISIONS,
    "blind": _advanced_blind,
    "bid": _advanced_bid,
}
