"""Comfort settings: each changes what it should on the table (a colour for each suit,
larger cards, black and white with edged cards, no motion, what is announced) and is
still set after a reload; reduced motion follows the system until the player chooses."""

from __future__ import annotations

import re

import pytest

from tests.browser.playing import seat_with_bots

pytestmark = pytest.mark.browser

# The colour of each suit's marks on a card drawn by cards.js, the size and edge of a
# card in the hand, the page's background and how long a card's move takes.
MEASURE = """async () => {
  const { cardFace } = await import('/static/cards.js');
  const colours = {};
  for (const code of ['QS', 'QH', 'QD', 'QC']) {
    const face = cardFace(code);
    document.getElementById('hand').append(face);
    colours[code[1]] = getComputedStyle(face.querySelector('.art')).color;
    face.remove();
  }
  const card = document.querySelector('#hand .card.face');
  const style = getComputedStyle(card);
  return {
    colours,
    width: card.getBoundingClientRect().width,
    edge: style.borderTopWidth,
    background: getComputedStyle(document.body).backgroundImage,
    transition: style.transitionDuration,
    announce: document.getElementById('announce-level').value,
  };
}"""

SETTINGS = ["Four-colour deck", "Larger cards", "High contrast", "Reduce motion"]


def hand_ready(page) -> None:
    page.wait_for_function("document.querySelectorAll('#hand .face').length === 13")
    page.wait_for_timeout(300)  # the hand's own motion ends


def test_each_comfort_setting_changes_the_table_and_survives_a_reload(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Cleo")
    hand_ready(page)
    plain = page.evaluate(MEASURE)
    colours = plain["colours"]
    assert colours["H"] == colours["D"] != colours["S"] == colours["C"], "two colours"
    assert plain["announce"] == "all"
    assert all(not page.get_by_label(name).is_checked() for name in SETTINGS)

    page.get_by_label("Four-colour deck").check()
    colours = page.evaluate(MEASURE)["colours"]
    assert len(set(colours.values())) == 4, f"a colour for each suit: {colours}"
    assert colours["S"] == plain["colours"]["S"] and colours["H"] == plain["colours"]["H"]

    page.get_by_label("Larger cards").check()
    width = page.evaluate(MEASURE)["width"]
    assert width == pytest.approx(plain["width"] * 1.3, rel=0.02)

    page.get_by_label("High contrast").check()
    contrast = page.evaluate(MEASURE)
    assert set(re.findall(r"rgb\([^)]*\)", contrast["background"])) == {"rgb(0, 0, 0)"}
    assert contrast["background"] != plain["background"]
    assert contrast["edge"] == "2px" != plain["edge"]

    assert set(plain["transition"].split(", ")) == {"0.2s"}
    page.get_by_label("Reduce motion").check()
    assert set(page.evaluate(MEASURE)["transition"].split(", ")) == {"0.001s"}

    page.locator("#announce-level").select_option("mine")
    chosen = page.evaluate(MEASURE)

    page.reload()
    hand_ready(page)
    assert page.evaluate(MEASURE) == chosen
    assert all(page.get_by_label(name).is_checked() for name in SETTINGS)
    assert page.locator("#announce-level").input_value() == "mine"
    # The lobby wears them too.
    page.goto("/")
    assert page.evaluate("document.documentElement.className.split(' ').sort()") == [
        "four-colour",
        "high-contrast",
        "large-cards",
        "reduce-motion",
    ]


def test_reduced_motion_follows_the_system_until_the_player_chooses(open_page) -> None:
    page = seat_with_bots(open_page, "standard", 4, "Moe")
    page.emulate_media(reduced_motion="reduce")
    page.reload()
    hand_ready(page)
    motion = page.get_by_label("Reduce motion")
    assert motion.is_checked()
    assert set(page.evaluate(MEASURE)["transition"].split(", ")) == {"0.001s"}
    motion.uncheck()
    assert set(page.evaluate(MEASURE)["transition"].split(", ")) == {"0.2s"}
    page.reload()
    hand_ready(page)
    assert not page.get_by_label("Reduce motion").is_checked(), "the player's choice wins"
