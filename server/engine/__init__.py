"""Pure Spades rules: cards, table rules, the game state machine and scoring.

No I/O, no clock, no web or database imports: the server feeds actions in and
broadcasts the views it gets back.

>>> from server.engine import Rules
>>> Rules.preset("standard").players
4
"""

from server.engine.cards import card_code, card_index, card_name, deck_codes, suit_of, trick_winner
from server.engine.rules import PRESETS, Rules

__all__ = [
    "PRESETS",
    "Rules",
    "card_code",
    "card_index",
    "card_name",
    "deck_codes",
    "suit_of",
    "trick_winner",
]
