"""The announcements' sentences, built in Chromium by the shipped module from states
shaped like the server's: a resync says nothing, a jump of several moves says each once
and in order, the end of a hand says the rest of its last trick, the result and the next
deal, a pass says what the player received (to that player only), the end of the game
says who won; seats are named from the listener's own seat."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# The table both scripts below speak of: Ann and Cy against two bots.
TABLE = """
  const table = {
    game_number: 1, status: 'playing', rules: { players: 4, deck: 'standard' },
    seats: [{ name: 'Ann', bot: null }, { name: 'West bot', bot: 'basic' },
            { name: 'Cy', bot: null }, { name: 'East bot', bot: 'basic' }],
  };
"""

EVENTS = (
    """async () => {
  const { tableEvents } = await import('/static/announce.js');
"""
    + TABLE
    + """  const view = (changes) => ({
    players: 4, hand_number: 1, dealer: 3, phase: 'play', turn: [1], legal: [],
    played: [], trick: [], last_trick: null, bids: [2, 3, 4, 1], contracts: [6, 4],
    scores: [{ score: 0, bags: 0 }, { score: 0, bags: 0 }], last_hand: null, winner: null,
    hand: ['AS', '2C'], stock_size: 0, tricks_won: [0, 0, 0, 0], ...changes,
  });
  const page = (seat, changes) => ({ table, seat, sides: [[0, 2], [1, 3]], view: view(changes) });
  const say = (seat, before, after) =>
    tableEvents({ table, view: before.view, seat }, after, () => []).map((event) => event.text);
  const plays = (...codes) => codes.map(([seat, card]) => ({ seat, card }));
  const first = plays([0, '2H'], [1, 'KH'], [2, '5H'], [3, 'AH']);
  const result = {
    hand_number: 1, bids: [2, 3, 4, 1], tricks: [3, 4, 5, 1],
    sides: [
      { seats: [0, 2], contract: 6, taken: 8, points: 62, score: 62, bags: 2, nil: [] },
      { seats: [1, 3], contract: 4, taken: 5, points: 41, score: 41, bags: 1, nil: [] },
    ],
  };
  const before = page(0, { trick: plays([0, '2H']), turn: [1] });
  return {
    resync: say(0, before, page(0, { trick: plays([0, '2H']), turn: [1] })),
    jump: say(0, before, page(0, { played: first, trick: plays([3, '9C'], [0, 'TC']), turn: [1],
                                    last_trick: { cards: first, winner: 3 } })),
    spectator: say(null, page(null, { trick: plays([0, '2H']) }),
                   page(null, { trick: plays([0, '2H'], [1, 'KH']) })),
    handEnd: say(2, page(2, { trick: plays([0, '2H'], [1, 'KH'], [2, '5H']), turn: [3] }),
                 page(2, { hand_number: 2, dealer: 0, phase: 'bid', bids: [null, null, null, null],
                           contracts: [null, null], last_trick: { cards: first, winner: 3 },
                           last_hand: result, turn: [1] })),
    passed: say(0, page(0, { phase: 'pass', hand: ['AS', '2C', '3D'], turn: [0, 2] }),
                page(0, { phase: 'play', hand: ['AS', '4H', 'KD'], turn: [1] })),
    watcherOfPass: say(null, page(null, { phase: 'pass', hand: null }),
                       page(null, { phase: 'play', hand: null })),
    over: say(0, page(0, { last_hand: null }),
              page(0, { phase: 'over', winner: 0, last_hand: { ...result, hand_number: 1 },
                        scores: [{ score: 512, bags: 2 }, { score: 430, bags: 1 }] })),
  };
}"""
)


def test_each_move_is_said_once_in_order_named_from_the_listeners_seat(open_page) -> None:
    said = open_page("/").evaluate(EVENTS)
    assert said["resync"] == []
    assert said["jump"] == [
        "Bot on your left plays the king of hearts.",
        "Cy plays the five of hearts.",
        "Bot on your right plays the ace of hearts.",
        "Bot on your right takes the trick, 1 trick.",
        "Bot on your right plays the nine of clubs.",
        "You play the ten of clubs.",
    ]
    assert said["spectator"] == ["Bot on the left plays the king of hearts."]
    assert said["handEnd"] == [
        "Bot on your left plays the ace of hearts.",
        "Bot on your left takes the trick, 1 trick.",
        "Hand 1 scored. Ann and You: bid 2 + 4, took 8, plus 62; score 62, 2 bags. "
        "Bot on your right and Bot on your left: bid 3 + 1, took 5, plus 41; score 41, 1 bag.",
        "Hand 2: Ann deals. Press H to hear your hand.",
    ]
    assert said["passed"] == ["You receive the four of hearts and the king of diamonds."]
    assert said["watcherOfPass"] == []
    assert said["over"] == [
        "Hand 1 scored. You and Cy: bid 2 + 4, took 8, plus 62; score 62, 2 bags. "
        "Bot on your left and Bot on your right: bid 3 + 1, took 5, plus 41; score 41, 1 bag.",
        "Game over: You and Cy win the game, 512 to 430.",
    ]


CLAIM_OFFERS = (
    """async () => {
  const { Announcer } = await import('/static/announce.js');
"""
    + TABLE
    + """  const claim = [{ type: 'play', card: 'AS' }, { type: 'claim' }];
  const view = (changes) => ({
    players: 4, hand_number: 1, dealer: 3, phase: 'play', turn: [0], legal: [],
    played: [], trick: [], last_trick: null, bids: [2, 3, 4, 1], contracts: [6, 4],
    scores: [{ score: 0, bags: 0 }, { score: 0, bags: 0 }], last_hand: null, winner: null,
    hand: ['AS', 'KS'], stock_size: 0, tricks_won: [11, 0, 0, 0], ...changes,
  });
  const page = (changes) => ({ table, seat: 0, sides: [[0, 2], [1, 3]], view: view(changes) });
  localStorage.setItem('spades.announce', JSON.stringify('all'));
  const log = document.createElement('div');
  const announcer = new Announcer(log, () => []);
  const states = [
    page({ turn: [3], trick: [{ seat: 3, card: '2C' }], played: [] }),
    page({ legal: claim }),                                         // the offer: said
    page({ turn: [1], trick: [{ seat: 0, card: 'AS' }], hand: ['KS'] }),
    page({ legal: [{ type: 'play', card: 'KS' }, { type: 'claim' }], hand: ['KS'],
           played: [{ seat: 0, card: 'AS' }], tricks_won: [12, 0, 0, 0] }),  // played on: not again
    page({ hand_number: 2, legal: claim, tricks_won: [11, 0, 0, 0] }),       // a new hand: said
  ];
  for (let i = 1; i < states.length; i++) announcer.receive(states[i - 1], states[i]);
  return [...log.children].map((line) => line.textContent)
    .filter((text) => text.startsWith('You may claim the rest'));
}"""
)


def test_the_claim_offer_is_said_once_a_hand_not_at_every_lead(open_page) -> None:
    offers = open_page("/").evaluate(CLAIM_OFFERS)
    assert len(offers) == 2, offers
