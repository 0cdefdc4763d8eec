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

if TYPE_CHECKING:
    from server.engine.rules import Rules

BOT_LEVELS: tuple[str, ...] = ("basic",)

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
) -> Action:
    """One action from ``view["legal"]`` for the seat whose view this is.

    ``rng`` only breaks ties between equally good cards, so a given view and rng state
    always give the same answer. ValueError if the level is unknown or the view offers
    nothing to do. Every decision returns one of the legal actions themselves (no
    fallback hides a bot bug: the whole-game tests check each choice against
    ``game.legal``).
    """
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(BOT_LEVELS)}")
    legal: list[Action] = list(view.get("legal") or [])
    if not legal:
        raise ValueError("nothing to do: the view offers no legal action")
    if len(legal) == 1:
        return legal[0]
    decide = _DECISIONS.get(str(view.get("phase")))
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
