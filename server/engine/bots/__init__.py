"""Computer players: pick one action from a seat's view, the way a decent human would.

A bot sees exactly what a human in its seat sees: ``game.view(seat)`` (its own hand, the
bids, the trick on the table, the cards of finished tricks, the scores). It never gets the
game object, so it cannot peek at other hands, and ``choose_action`` is a pure function of
``(rules, view, rng)``: the same view always gives the same choice.

The ``basic`` level (``basic.py``) plays by the rules of thumb a club player learns
first: it counts likely tricks to bid (``evaluation.py``), wins tricks cheaply while the
contract needs them, ducks as a nil bidder, covers a nil partner and avoids needless bags.

Every level bids by the format of the hand in progress (the view's ``bidding``: each
level reads the rules of that hand, ``Rules.for_format``), and picks among the bids the
view offers: Whiz's nil or spade count, Mirror's one bid, Suicide's nil or number.

The ``advanced`` level (``advanced.py``) bids from the same count
but reads the scoreboard (bags near the limit, the target, a deficit late in the game,
10-for-200), and picks each card by a look-ahead: it imagines deals of the cards it has
not seen that fit what is public (hand sizes, shown voids, the bids), plays each out for
every distinct legal card with a cheap version of the basic rules of thumb, and keeps the
card that scores best for its side. Still only the view: the imagined deals come from
the unseen cards, drawn by the rng (or one seeded from the view itself). Its imagined
deals are in ``sampling.py``, its play-outs in ``rollout.py``.

The ``expert`` level (``expert.py``) chooses bids and blind nil too by playing imagined
deals out (``expert_bids.py``, on its own play-outs: ``expert_rollout.py``), reads more of
the play into its deals, solves the last tricks of each deal exactly
(``expert_endgame.py``) and stops imagining when its time per decision is nearly spent
(``SPADES_BOT_BUDGET_MS``, 150 ms by default): unless ``samples`` fixes the number of
deals, its answer depends on the clock.

The basic and advanced levels are tables of decisions, one per phase (``DECISIONS`` in
their modules); the expert decides the play, the bids and blind nil itself and takes the
advanced level's other decisions (``expert.choose``). ``knowledge.py`` turns a view into
what the seat knows (``SeatState``).

>>> from server.engine import Rules
>>> view = {"phase": "bid", "seat": 0, "turn": [0], "hand": ["AS", "KS", "QS", "JS",
...     "AH", "KH", "AD", "KD", "AC", "2C", "3C", "4C", "5C"], "bids": [None] * 4,
...     "legal": [{"type": "bid", "bid": n} for n in range(14)]}
>>> choose_action(Rules.preset("standard"), view)
{'type': 'bid', 'bid': 8}
"""

from __future__ import annotations

import random

from server.engine.bots import advanced, basic, expert
from server.engine.bots.advanced import ADVANCED_SAMPLES
from server.engine.bots.evaluation import hand_strength, nil_danger
from server.engine.bots.knowledge import first_action
from server.engine.rules import Rules
from server.engine.shapes import Action, LegalAction, View

BOT_LEVELS: tuple[str, ...] = ("basic", "advanced", "expert")

__all__ = ["ADVANCED_SAMPLES", "BOT_LEVELS", "choose_action", "hand_strength", "nil_danger"]


def choose_action(
    rules: Rules,
    view: View,
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
    do. Every decision returns one of the legal actions themselves, or for the view's
    pass constraint (``{"type": "pass", "count": n}``) a pass of n of its cards (no
    fallback hides a bot bug: the whole-game tests check each choice against
    ``game.legal``).
    """
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(BOT_LEVELS)}")
    bidding = view.get("bidding")
    if isinstance(bidding, str):
        # The rules of the hand in progress: its bidding format, under a rotation.
        rules = rules.for_format(bidding)
    # Bots never claim: they play the tricks out (a claim offered is a sure thing
    # either way, and playing on shows the others every card as it falls).
    legal: list[LegalAction] = [a for a in view.get("legal") or [] if a["type"] != "claim"]
    if not legal:
        raise ValueError("nothing to do: the view offers no legal action")
    only = legal[0]
    if len(legal) == 1 and "count" not in only:
        return only
    phase = str(view.get("phase"))
    if level == "expert":
        return expert.choose(rules, view, legal, rng, samples)
    if level == "advanced":
        if phase == "play":
            return advanced.choose_play(rules, view, legal, rng, samples)
        decide = advanced.DECISIONS.get(phase)
    else:
        decide = basic.DECISIONS.get(phase)
    return first_action(legal) if decide is None else decide(rules, view, legal, rng)
