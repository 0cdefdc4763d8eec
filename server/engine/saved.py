"""A game as the store keeps it: the saved state, read back, and a finished hand's plays.

``Game.to_state()`` is written here from the game's public reading (``StateReading``) and
its phases' own state (the auction's and the tricks'), and ``Game.from_state()`` reads it
back into the same parts, so that the layout of a saved game lives in one place, apart
from the rules of play. The state holds every secret (hands, stock, seed): it stays on
the server.
``STATE_FORMAT`` numbers the layout.

>>> from server.engine import Game, Rules
>>> game = Game(Rules.preset("standard"), seed=1)
>>> saved = read_state(game.to_state())
>>> saved.phase, saved.tricks is None, saved.auction.bids == game.bids
('bid', True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from server.engine.actions import LogEntry, logged_action
from server.engine.auction import Auction
from server.engine.cards import CODES, INDEX, Taken
from server.engine.dealing import checked_deck
from server.engine.fairness import Deals
from server.engine.reading import StateReading
from server.engine.rules import Rules
from server.engine.shapes import CurrentState, GameState, HandResult, Phase, TrickPlays
from server.engine.table import Table
from server.engine.tricks import Tricks
from server.engine.view import copy_result, seat_cards

STATE_FORMAT = 1


def current_state(game: StateReading, auction: Auction, tricks: Tricks | None) -> CurrentState:
    """``game.current_state()``: the saved state but its history, from the game, its
    auction and its tricks (None before play). Every list is a fresh copy."""
    last = game.last_trick
    return {
        "format": STATE_FORMAT,
        "rules": game.rules.model_dump(),
        "seed": game.seed,
        "decks": [[CODES[c] for c in deck] for deck in game.decks],
        "fairness": None if game.deals is None else game.deals.to_state(),
        "first_dealer": game.first_dealer,
        "dealer": game.dealer,
        "hand_number": game.hand_number,
        "phase": game.phase,
        "turn": game.seat_to_play,
        "scores": [[side["score"], side["bags"]] for side in game.scores],
        "winner": game.winner,
        "hands": [[CODES[c] for c in cards] for cards in game.hands],
        "bids": list(auction.bids),
        "contracts": auction.side_contracts(),
        "blind_queue": list(auction.blind_queue),
        "passers": list(auction.passers),
        "passes": [(seat, [CODES[c] for c in cards]) for seat, cards in auction.passes.items()],
        "stock": [CODES[c] for c in auction.stock],
        "stock_pos": auction.stock_pos,
        "trick": [(seat, CODES[c]) for seat, c in game.trick],
        "played": [(seat, CODES[c]) for seat, c in game.played],
        "tricks_won": list(game.tricks_won),
        "trick_number": 0 if tricks is None else tricks.number,
        "spades_broken": game.spades_broken,
        "forced_lead": None
        if tricks is None or tricks.forced_lead is None
        else CODES[tricks.forced_lead],
        "deal": auction.deal,
        "last_trick": None if last is None else ([(s, CODES[c]) for s, c in last[0]], last[1]),
    }


@dataclass(slots=True)
class SavedGame:
    """A saved state read back, in the engine's own form: the game's fields, and its
    auction and tricks (None before play) sharing the restored ``log``.
    ``last_trick`` is the last trick finished before the hand's play."""

    rules: Rules
    seed: int | str
    decks: list[list[int]]
    deals: Deals | None
    first_dealer: int
    dealer: int
    hand_number: int
    phase: Phase
    seat_to_play: int
    scores: list[list[int]]
    winner: int | None
    hand_results: list[HandResult]
    log: list[LogEntry]
    table: Table
    auction: Auction
    tricks: Tricks | None
    last_trick: Taken | None


def read_state(data: GameState) -> SavedGame:
    """The game ``data`` describes (``to_state()``'s dict, or one read back from its JSON,
    with lists where it has tuples); ValueError if it is not a saved game, or a damaged
    one."""
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise ValueError("not a saved Spades game of a known format")
    try:
        return _read(data)
    except (KeyError, IndexError, TypeError, AttributeError) as error:
        raise ValueError(f"a damaged saved game: {error!r}") from error


def _read(data: GameState) -> SavedGame:
    rules = Rules.model_validate(data["rules"])
    table = Table(rules)
    log = [logged_action(seat, action) for seat, action in data["log"]]
    phase = data["phase"]
    hands = [[INDEX[code] for code in cards] for cards in data["hands"]]
    last = data["last_trick"]
    last_trick = (
        None if last is None else ([(seat, INDEX[code]) for seat, code in last[0]], last[1])
    )
    playing = phase in ("play", "over")
    auction = Auction(
        table=table,
        rules=rules.for_hand(data["hand_number"]),
        log=log,
        dealer=data["dealer"],
        phase="play" if playing else phase,
        seat=data["turn"],
        hands=hands,
        bids=list(data["bids"]),
        blind_queue=list(data["blind_queue"]),
        passers=list(data["passers"]),
        passes={seat: [INDEX[code] for code in cards] for seat, cards in data["passes"]},
        stock=[INDEX[code] for code in data["stock"]],
        stock_pos=data["stock_pos"],
        deal=[list(cards) for cards in data["deal"]],
    )
    fairness = data.get("fairness")
    tricks = None
    if playing:
        forced = data["forced_lead"]
        tricks = Tricks(
            table,
            hands,
            log,
            forced_lead=None if forced is None else INDEX[forced],
            last_trick=last_trick,
            trick=[(seat, INDEX[code]) for seat, code in data["trick"]],
            played=[(seat, INDEX[code]) for seat, code in data["played"]],
            tricks_won=list(data["tricks_won"]),
            number=data["trick_number"],
            spades_broken=data["spades_broken"],
        )
    return SavedGame(
        rules=rules,
        seed=data["seed"],
        decks=[checked_deck(rules, deck) for deck in data["decks"]],
        deals=None if fairness is None else Deals.from_state(fairness),
        first_dealer=data["first_dealer"],
        dealer=data["dealer"],
        hand_number=data["hand_number"],
        phase=phase,
        seat_to_play=data["turn"],
        scores=[list(side) for side in data["scores"]],
        winner=data["winner"],
        hand_results=[copy_result(result) for result in data["hand_results"]],
        log=log,
        table=table,
        auction=auction,
        tricks=tricks,
        last_trick=last_trick,
    )


def trick_plays(played: list[tuple[int, int]], last_taker: int, players: int) -> list[TrickPlays]:
    """A finished hand's tricks from its plays in order and its last trick's taker: each
    trick's leader, cards and taker (who leads the next one), as the store records them."""
    tricks = [played[start : start + players] for start in range(0, len(played), players)]
    takers = [trick[0][0] for trick in tricks[1:]] + [last_taker]
    return [
        {"leader": trick[0][0], "cards": seat_cards(trick), "winner": taker}
        for trick, taker in zip(tricks, takers, strict=True)
    ]
