"""A finished hand's decisions seen again: each choice one seat made in it, with the view
it made it from, so that a bot can be asked what it would have chosen there.

The game is rebuilt from the start (its seed or the decks its hands were dealt, and its
first dealer) and its log replayed; nothing of the game that asks is changed. A seat's
view never holds a card it could not see then, so nothing a bot decides from it uses
hidden cards.

>>> from server.engine import Game, Rules
>>> from server.engine.bots import choose_action
>>> game = Game(Rules.preset("standard"), seed=3)
>>> while not game.hand_results:
...     seat = game.turn[0]
...     _ = game.act(seat, choose_action(game.rules, game.view(seat), "basic"))
>>> seen = decisions(game.rules, replay_start(game), game.log, seat=0, hand_number=1)
>>> [d.action["type"] for d in seen][:2], seen[1].trick
(['bid', 'play'], 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from server.engine.cards import card_code
from server.engine.game import Game
from server.engine.rules import Rules
from server.engine.shapes import Action, View

# The phases whose choices are reviewed (the pass and the draw are not).
REVIEWED = ("blind", "bid", "play")


@dataclass(frozen=True)
class Start:
    """What a game was made from: enough to make it again and replay its log."""

    seed: int | str
    decks: list[list[str]]
    dealer: int


@dataclass(frozen=True)
class Decision:
    """One choice of a seat with more than one legal action: the seat's view just before
    it, what it chose, and the trick it was in (1-based; 0 before the play)."""

    view: View
    action: Action
    trick: int


def replay_start(game: Game) -> Start:
    """What `game` was made from, as far as its finished hands go (a fresh copy: safe to
    hand to another thread). A game dealt from seeds is made again from the decks its
    finished hands were dealt (their proofs), the seeds of the next not being out yet."""
    decks = [[card_code(card) for card in deck] for deck in game.decks]
    if game.deals is not None:
        hand = 1
        while (proof := game.deal_proof(hand)) is not None:
            decks.append(proof["deck"])
            hand += 1
    return Start(game.seed, decks, game.first_dealer)


def decisions(
    rules: Rules, start: Start, log: list[tuple[int, Action]], seat: int, hand_number: int
) -> list[Decision]:
    """Every reviewed choice `seat` made in hand `hand_number`, in order, replaying `log`
    (a game's `log`, or its beginning) on a game made again from `start`."""
    game = Game(rules, seed=start.seed, decks=start.decks, dealer=start.dealer)
    found: list[Decision] = []
    for actor, action in log:
        if game.hand_number > hand_number:
            break
        if actor == seat and game.hand_number == hand_number and game.phase in REVIEWED:
            view = game.view(seat)
            if len(view["legal"]) > 1:
                trick = sum(game.tricks_won) + 1 if game.phase == "play" else 0
                found.append(Decision(view, action, trick))
        game.act(actor, action)
    return found
