"""Pure Spades rules: cards, table rules, the game state machine and scoring.

No I/O, no clock, no web or database imports: the server feeds actions in and
broadcasts the views it gets back.

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
    DrawAction,
    Event,
    GameState,
    HandResult,
    LastTrick,
    LegalAction,
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
    TrickPlays,
    View,
)

__all__ = [
    "PRESETS",
    "Action",
    "Bid",
    "BidAction",
    "BlindNilAction",
    "DrawAction",
    "Event",
    "Game",
    "GameState",
    "HandResult",
    "IllegalAction",
    "LastTrick",
    "LegalAction",
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
