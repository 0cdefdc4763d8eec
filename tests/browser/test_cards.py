"""Card names, short forms and hand order, run in Chromium from the shipped module."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

CHECKS = """async () => {
  const cards = await import('/static/cards.js');
  const face = cards.cardFace('QS', 'button');
  return {
    names: ['QS', 'TH', '2C', 'AD', 'BJ', 'LJ'].map(cards.cardName),
    shorts: ['TD', 'AS'].map(cards.cardShort),
    standard: cards.sortHand(['AS', '2H', 'KD', '3S', '9C', 'QH']),
    spadesFirst: cards.sortHand(['AS', '2H', 'KD', '3S', '9C', 'QH'], {spadesFirst: true}),
    deuces: cards.sortHand(['2D', 'AS', 'BJ', '2S', 'KD', 'LJ'], {deck: 'jokers_deuces'}),
    jokers: cards.sortHand(['BJ', 'AS', '3H', 'LJ'], {deck: 'jokers'}),
    label: face.getAttribute('aria-label'),
    text: face.textContent,
    red: cards.cardFace('QH').querySelector('.art').classList.contains('red'),
  };
}"""


def test_cards_have_spoken_names_symbols_and_hand_order(open_page) -> None:
    page = open_page("/")
    result = page.evaluate(CHECKS)
    assert result["names"] == [
        "Queen of spades",
        "Ten of hearts",
        "Two of clubs",
        "Ace of diamonds",
        "Big joker",
        "Little joker",
    ]
    assert result["shorts"] == ["10♦", "A♠"]
    assert result["standard"] == ["2H", "QH", "9C", "KD", "3S", "AS"]
    assert result["spadesFirst"] == ["3S", "AS", "2H", "QH", "9C", "KD"]
    # Under jokers_deuces the 2♦ is a spade between the little joker and the 2♠.
    assert result["deuces"] == ["KD", "AS", "2S", "2D", "LJ", "BJ"]
    assert result["jokers"] == ["3H", "AS", "LJ", "BJ"]
    assert result["label"] == "Queen of spades"
    assert "♠" in result["text"] and "Q" in result["text"]
    assert result["red"] is True


JOKERS = """async () => {
  const cards = await import('/static/cards.js');
  const read = (code) => {
    const face = cards.cardFace(code);
    return {
      corners: [...face.querySelectorAll('.corner')].map((corner) => corner.textContent),
      centre: face.querySelector('.joker-centre').textContent,
      colour: face.querySelector('.art').classList.contains('red') ? 'red' : 'black',
    };
  };
  return { big: read('BJ'), little: read('LJ') };
}"""


def test_big_and_little_jokers_differ_in_both_corners_and_the_centre(open_page) -> None:
    jokers = open_page("/").evaluate(JOKERS)
    assert jokers["big"]["corners"] == ["B★", "B★"]
    assert jokers["little"]["corners"] == ["L★", "L★"]
    assert jokers["big"]["centre"] == "★BIG"
    assert jokers["little"]["centre"] == "☆LITTLE"
    assert jokers["big"]["colour"] != jokers["little"]["colour"]
