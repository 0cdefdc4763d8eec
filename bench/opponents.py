"""Opponents written for tests and matches, with the signature of ``choose_action``
(``bench/tournament.py`` takes them as ``bench.opponents:nil_hunter``).

``nil_hunter`` plays as the advanced level except while an opponent's nil (or blind
nil) is still clean: then everything it does aims to force that nil to take a trick.
It leads its lowest card of a suit the nil bidder may still hold, plays low in front of
the nil (so the nil must get under a low card), never ruffs in front of it (a ruff lets
the nil throw anything), and stays under the nil's card once it is winning.

``expert_blind_by_rule`` and ``expert_never_blind`` play as the expert except when asked
whether to bid blind nil: the first answers by the advanced level's rule of thumb (far
behind, partner not declared), the second always no. Played against the same opponent on
the same seeds as the expert itself, they say what the expert's blind nil by simulation
wins or loses.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Protocol

from server.engine import Rules
from server.engine.bots import choose_action
from server.engine.cards import SPADES, card_index, card_order, trick_winner
from server.engine.shapes import Action, PlayAction, View

# An opponent's own decision in its one phase: an action, or None to play as its level.
Decide = Callable[[Rules, View, random.Random | None, int | None], Action | None]


class Opponent(Protocol):
    """A bot with the signature of ``choose_action`` (its ``level`` is its own)."""

    def __call__(
        self,
        rules: Rules,
        view: View,
        level: str = ...,
        rng: random.Random | None = None,
        *,
        samples: int | None = None,
    ) -> Action: ...


def opponent(plays_as: str, phase: str) -> Callable[[Decide], Opponent]:
    """Make a decision of ``phase`` an opponent that plays as the level ``plays_as``
    everywhere else (and where the decision answers None), whatever ``level`` it is
    asked to play."""

    def make(decide: Decide) -> Opponent:
        def play(
            rules: Rules,
            view: View,
            level: str = plays_as,
            rng: random.Random | None = None,
            *,
            samples: int | None = None,
        ) -> Action:
            if view.get("phase") == phase:
                action = decide(rules, view, rng, samples)
                if action is not None:
                    return action
            return choose_action(rules, view, plays_as, rng, samples=samples)

        # Its name, module and docstring: tournament.py names an opponent by them.
        functools.update_wrapper(play, decide)
        return play

    return make


@opponent("advanced", "play")
def nil_hunter(
    rules: Rules, view: View, rng: random.Random | None, samples: int | None
) -> Action | None:
    """The advanced level's choice, except for cards played while hunting a nil."""
    legal = [action for action in view.get("legal") or [] if action["type"] == "play"]
    if len(legal) > 1:
        targets = _clean_nils(rules, view)
        if targets:
            return _hunt(rules, view, legal, targets, samples)
    return None


@opponent("expert", "blind")
def expert_blind_by_rule(
    rules: Rules, view: View, rng: random.Random | None, samples: int | None
) -> Action:
    """The expert's choice, with blind nil decided by the advanced level's rule."""
    return choose_action(rules, view, "advanced", rng, samples=samples)


@opponent("expert", "blind")
def expert_never_blind(
    rules: Rules, view: View, rng: random.Random | None, samples: int | None
) -> Action:
    """The expert's choice, never declaring blind nil."""
    return {"type": "blind_nil", "declare": False}


def _clean_nils(rules: Rules, view: View) -> list[int]:
    seat = view["seat"]
    mine = next(side for side in view["sides"] if seat in side)
    return [
        s
        for s, bid in enumerate(view["bids"])
        if s not in mine and bid in (0, "blind_nil") and view["tricks_won"][s] == 0
    ]


def _hunt(
    rules: Rules,
    view: View,
    legal: list[PlayAction],
    targets: list[int],
    samples: int | None,
) -> Action:
    order = card_order(rules.deck)
    cards = [action["card"] for action in legal]

    def power(code: str) -> int:
        return order.power[card_index(code)]

    def suit(code: str) -> int:
        return order.suit[card_index(code)]

    trick = view["trick"]
    voids = _voids(view, suit)
    if not trick:
        live = [c for c in cards if not any(suit(c) in voids.get(t, set()) for t in targets)]
        return legal[cards.index(min(live or cards, key=power))]
    played = {p["seat"] for p in trick}
    led = suit(trick[0]["card"])
    following = [c for c in cards if suit(c) == led]
    if any(t not in played for t in targets):
        # The nil plays after this seat: keep the bar low.
        if following:
            return legal[cards.index(min(following, key=power))]
        side_cards = [c for c in cards if suit(c) != SPADES]
        return legal[cards.index(max(side_cards or cards, key=power))]
    codes = [p["card"] for p in trick]
    winner = trick[trick_winner(codes, rules.deck, rules.duplicate_later_wins)]["seat"]
    if winner in targets:
        losers = [
            c
            for c in cards
            if trick_winner([*codes, c], rules.deck, rules.duplicate_later_wins) != len(codes)
        ]
        if losers:
            return legal[cards.index(max(losers, key=power))]
    return choose_action(rules, view, "advanced", samples=samples)


def _voids(view: View, suit: Callable[[str], int]) -> dict[int, set[int]]:
    """Suits each seat has shown it lacks, from the finished tricks and this one."""
    plays = [*view["played"], *view["trick"]]
    n = len(view["bids"])
    voids: dict[int, set[int]] = {}
    for start in range(0, len(plays), n):
        cards = plays[start : start + n]
        led = suit(cards[0]["card"])
        for play in cards[1:]:
            if suit(play["card"]) != led:
                voids.setdefault(play["seat"], set()).add(led)
    return voids
