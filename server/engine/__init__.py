"""Pure Spades rules: cards, table rules, the game state machine and scoring.

No I/O, no clock, no web, database or JSON imports: the server feeds actions in and
broadcasts the views it gets back. What goes in and out (actions, views, hand results,
events, saved state) is plain data, typed in ``server.engine.shapes`` and exported here.

>>> from server.engine import Rules
>>> Rules.preset("standard").players
4
"""

from server.engine.cards import card_code, card_index, card_name, deck_codes, suit_of, trick_winner
from server.engine.game import Game, IllegalAction
from server.engine.rules import PRESETS, Rules
from server.engine.scoring import score_hand
from server.engine.shapes import (
    Action,
    Bid,
    BidAction,
    BlindNilAction,
    ClaimAction,
    CurrentState,
    DrawAction,
    Event,
    GameState,
    HandClaim,
    HandResult,
    LastTrick,
    LegalAction,
    MovingView,
    NilResult,
    PassAction,
    PassChoice,
    Phase,
    PlayAction,
    PublicView,
    SeatCard,
    SeatPart,
    SideResult,
    SideScore,
    SteadyView,
    TrickPlays,
    View,
)

__all__ = [
    "PRESETS",
    "Action",
    "Bid",
    "BidAction",
    "BlindNilAction",
    "ClaimAction",
    "CurrentState",
    "DrawAction",
    "Event",
    "Game",
    "GameState",
    "HandClaim",
    "HandResult",
    "IllegalAction",
    "LastTrick",
    "LegalAction",
    "MovingView",
    "NilResult",
    "PassAction",
    "PassChoice",
    "Phase",
    "PlayAction",
    "PublicView",
    "Rules",
    "SeatCard",
    "SeatPart",
    "SideResult",
    "SideScore",
    "SteadyView",
    "TrickPlays",
    "View",
    "card_code",
    "card_index",
    "card_name",
    "deck_codes",
    "score_hand",
    "suit_of",
    "trick_winner",
]
