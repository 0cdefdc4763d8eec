"""The basic level: the rules of thumb a club player learns first.

- **Bidding** counts likely tricks: aces, guarded kings and queens, high spades, spade
  length beyond the share an average hand holds, and ruffs from short side suits. It bids
  nil with a really weak hand and takes blind nil only when far behind.
- **Play** wins tricks cheaply while the contract still needs them (second hand low,
  third hand high, the lowest card that wins, trump when void), ducks as a nil bidder,
  covers a nil partner, and once the contract is made avoids needless bags (plays low,
  never overtakes a partner's winning card) unless the opponents can still be set.
"""

from __future__ import annotations

from collections import Counter

from server.engine.bots.evaluation import hand_strength, nil_danger
from server.engine.bots.knowledge import (
    Decision,
    Rng,
    SeatState,
    bid_numbers,
    pass_count,
    play_actions,
    seat_state,
)
from server.engine.bots.preferences import preferences
from server.engine.cards import SPADES, CardOrder, card_index, card_order
from server.engine.rules import Rules
from server.engine.scoring import is_nil
from server.engine.shapes import (
    Bid,
    BidAction,
    BlindNilAction,
    DrawAction,
    LegalAction,
    PassAction,
    PlayAction,
    View,
)

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
# Suicide: the side's first bidder takes the nil with a hand weaker than about half of
# all hands (nil danger and strength near their medians on random deals), leaving the
# numbers to a partner who is then more likely the stronger.
SUICIDE_NIL_DANGER = 8.0
SUICIDE_NIL_STRENGTH = 2.5
# Blind nil is a gamble worth taking only this far behind (or further, if the table
# demands more).
BLIND_NIL_DEFICIT = 200
# Once the contract is made, keep fighting for tricks only while the opponents need
# nearly every trick that is left: then a trick or two sets them.
SET_MARGIN = 2


def choose_draw(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> DrawAction:
    """Keep spades, aces and kings; anything less is worth no more than the unseen next
    card."""
    code = view.get("draw_card")
    keep = False
    if isinstance(code, str):
        order = card_order(rules.deck)
        card = card_index(code)
        keep = order.suit[card] == SPADES or order.power[card] >= KEEP_FROM_RANK
    return {"type": "draw", "keep": keep}


def choose_blind(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> BlindNilAction:
    """Declare blind nil only when allowed, far behind, and the partner has not."""
    state = seat_state(rules, view, rng)
    scores = [entry["score"] for entry in view.get("scores") or []]
    my_index = state.sides.index(state.side_of(state.seat))
    others = [score for i, score in enumerate(scores) if i != my_index]
    deficit = max(others) - scores[my_index] if others else 0
    needed = max(BLIND_NIL_DEFICIT, rules.blind_nil_behind_by or 0)
    partner_declared = any(state.bids[s] == "blind_nil" for s in state.teammates)
    declare = deficit >= needed and not partner_declared
    return {"type": "blind_nil", "declare": declare}


def choose_pass(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> PassAction:
    """The nil bidder (blind nil, or a nil of the nil pass) gives away its most dangerous
    cards (top spades, then the highest side cards); its partner gives the lowest side
    cards, which a nil can duck with, and keeps its spades and honours to cover."""
    state = seat_state(rules, view, rng)
    nil = is_nil(state.bids[state.seat])
    chosen = passed_cards(state.order, state.hand, nil, pass_count(legal))
    return {"type": "pass", "cards": state.order.sorted_codes(chosen)}


def passed_cards(order: CardOrder, hand: list[int], nil: bool, count: int) -> list[int]:
    """The ``count`` cards a nil bidder (``nil``) passes, its most dangerous (top spades,
    then the highest), or its partner passes, its lowest side cards (spades last)."""
    prefer = preferences(order)
    if nil:
        ranked = sorted(hand, key=prefer.danger.__getitem__)
        return ranked[len(ranked) - count :]
    return sorted(hand, key=prefer.keep.__getitem__)[:count]


def choose_bid(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> BidAction:
    """Bid the counted tricks (nil with a really weak hand), the nearest legal number."""
    state = seat_state(rules, view, rng)
    hand = view.get("hand") or []
    numbers = bid_numbers(legal)
    strength = hand_strength(hand, rules.deck, rules.players)
    partner_bids = [bid for s in state.teammates if (bid := state.bids[s]) is not None]
    suicide = suicide_nil(rules, hand, numbers)
    if suicide is not None:
        if suicide:
            return {"type": "bid", "bid": 0}
    elif 0 in numbers and _nil_is_sensible(rules, hand, strength, partner_bids):
        return {"type": "bid", "bid": 0}
    slope, intercept = TRICKS_FROM_STRENGTH[rules.players]
    margin = BID_MARGIN_PARTNERS if state.teammates else BID_MARGIN_SOLO
    wanted = max(int(slope * strength + intercept + 0.5 - margin), 1)
    if rules.bidding == "team":
        wanted += sum(b for b in partner_bids if isinstance(b, int))
    candidates = [n for n in numbers if n > 0] or numbers
    return {"type": "bid", "bid": min(candidates, key=lambda n: (abs(n - wanted), n))}


def suicide_nil(rules: Rules, hand: list[str], numbers: list[int]) -> bool | None:
    """Under Suicide, for the side's first bidder (offered nil and numbers): whether to
    take the side's nil, a hand weaker than about half of all hands. None for any other
    seat or format (the second bidder's choice is made for it)."""
    if rules.bidding != "suicide" or 0 not in numbers or len(numbers) < 2:
        return None
    return (
        nil_danger(hand, rules.deck, rules.players) <= SUICIDE_NIL_DANGER
        and hand_strength(hand, rules.deck, rules.players) <= SUICIDE_NIL_STRENGTH
    )


def _nil_is_sensible(
    rules: Rules, hand: list[str], strength: float, partner_bids: list[Bid]
) -> bool:
    if strength > NIL_MAX_STRENGTH or nil_danger(hand, rules.deck, rules.players) > NIL_MAX_DANGER:
        return False
    if any(is_nil(b) for b in partner_bids):
        return False
    # A nil would raise a low partner bid to the team minimum: not worth it.
    return not any(isinstance(b, int) and b < rules.min_team_bid - 1 for b in partner_bids)


def choose_play(rules: Rules, view: View, legal: list[LegalAction], rng: Rng) -> PlayAction:
    state = seat_state(rules, view, rng)
    plays = play_actions(legal)
    cards = [card_index(action["card"]) for action in plays]
    if state.is_nil(state.seat):
        card = _follow_as_nil(state, cards) if state.trick else _lead_to_lose(state, cards)
    elif any(state.is_nil(s) for s in state.teammates):
        card = _follow_covering(state, cards) if state.trick else _lead_covering(state, cards)
    elif _wants_tricks(state):
        card = _follow_for_tricks(state, cards) if state.trick else _lead_for_tricks(state, cards)
    else:
        card = _follow_ducking(state, cards) if state.trick else _lead_to_lose(state, cards)
    return plays[cards.index(card)]


def _wants_tricks(state: SeatState) -> bool:
    """Still short of the contract, or the opponents can be set (a failed nil, whose
    tricks are only bags, just stays out of the way)."""
    if state.tricks_won[state.seat] and is_nil(state.bids[state.seat]):
        return False
    if state.need(state.side_of(state.seat)) > 0:
        return True
    left = len(state.hand)
    opponent_sides = [side for side in state.sides if state.seat not in side]
    needs = [state.need(side) for side in opponent_sides]
    return any(0 < need <= left < need + SET_MARGIN + 1 for need in needs)


def _seats_after(state: SeatState) -> list[int]:
    """Seats still to play to this trick after this one."""
    n = state.players
    return [(state.seat + k) % n for k in range(1, n - len(state.trick))]


def _split(state: SeatState, cards: list[int]) -> tuple[list[int], list[int]]:
    """(cards that would win the trick now, cards that would not)."""
    winners = [c for c in cards if state.wins_with(c) == len(state.trick)]
    return winners, [c for c in cards if c not in winners]


def _follow_as_nil(state: SeatState, cards: list[int]) -> int:
    """Duck with the highest card that still loses; if every card wins, hope a later
    player overtakes the lowest, or (last to play) shed the highest."""
    winners, losers = _split(state, cards)
    if losers:
        return state.pick(losers, preferences(state.order).danger.__getitem__)
    return state.highest(winners) if not _seats_after(state) else state.lowest(winners)


def _lead_to_lose(state: SeatState, cards: list[int]) -> int:
    """Lead the card most likely to be beaten (as a nil, or once the contract is made):
    a side card with many unseen cards above it."""
    return state.pick(
        cards,
        lambda c: (state.order.suit[c] != SPADES, state.stronger_unseen(c), -state.order.power[c]),
    )


def _follow_covering(state: SeatState, cards: list[int]) -> int:
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


def _lead_covering(state: SeatState, cards: list[int]) -> int:
    """Lead high, so the nil partner can play under it: a boss card first, else the
    highest side card."""
    bosses = [c for c in cards if state.is_boss(c)]
    if bosses:
        return state.highest(bosses)
    side = [c for c in cards if state.order.suit[c] != SPADES]
    return state.pick(side or cards, lambda c: state.order.power[c])


def _follow_for_tricks(state: SeatState, cards: list[int]) -> int:
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


def _shed_under(state: SeatState, losers: list[int]) -> int:
    """Stay under the winning card with the highest side card that does: it sheds a
    card that could win an unwanted trick later, and spades stay in hand for when a
    trick is wanted."""
    return state.pick(losers, preferences(state.order).shed.__getitem__)


def _holds(state: SeatState, card: int, seats: list[int]) -> bool:
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


def _discard(state: SeatState, cards: list[int]) -> int:
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


def _lead_for_tricks(state: SeatState, cards: list[int]) -> int:
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


def _lead_at_nil(state: SeatState, cards: list[int], nils: list[int]) -> int:
    """Lead the lowest card of a suit the nil bidder still holds, so that it may be
    forced to win."""
    voids = state.voids
    live = [c for c in cards if not any(state.order.suit[c] in voids.get(s, ()) for s in nils)]
    return state.pick(
        live or cards, lambda c: (state.order.suit[c] != SPADES, -state.order.power[c])
    )


def _unseen_in_suit(state: SeatState, suit: int) -> int:
    return sum(n for c, n in state.unseen.items() if n > 0 and state.order.suit[c] == suit)


def _follow_ducking(state: SeatState, cards: list[int]) -> int:
    """Contract made: play under the winning card (never over a partner), shedding the
    highest card that still loses; forced to win, win with the lowest card if someone
    may still overtake, else with the highest."""
    winners, losers = _split(state, cards)
    if losers:
        return _shed_under(state, losers)
    return state.highest(winners) if not _seats_after(state) else state.lowest(winners)


DECISIONS: dict[str, Decision] = {
    "draw": choose_draw,
    "blind": choose_blind,
    "pass": choose_pass,
    "bid": choose_bid,
    "play": choose_play,
}
