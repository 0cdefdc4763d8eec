"""A format night built with the rule builder and played in Chromium: the host starts from
the Suicide preset, sets a nil pass of 2 and the rotation Suicide, Mirror, Whiz in the
form; the host and the partner (two pages) play with two bots through the end of hand 3.
Every hand the header says its format, the bid buttons are the format's (Mirror's one
"Bid n (your spades)", Whiz's Nil and "Bid n (your spades)", Suicide's nil or a number as
the partner's bid leaves), and under Suicide the nil pass is made on both partners'
screens. The builder's screenshots at 1280 and 360 px are saved."""

from __future__ import annotations

import json
import re
import time
from urllib.parse import quote

import pytest

from tests.browser.conftest import PHONE, screenshot
from tests.browser.playing import add_bots, hand_of, page_story, sit
from tests.browser.test_axe import serious_violations
from tests.browser.test_layout import SIZES

pytestmark = pytest.mark.browser

SUMMARY = "Rotation Suicide, Mirror, Whiz · nil pass 2 · to 500"
ROTATION = ["Suicide", "Mirror", "Whiz"]


def format_of(hand: int) -> str:
    return ROTATION[(hand - 1) % len(ROTATION)]


# The decision the page offers: its kind, the bid buttons' words, the hand's format line.
OFFERED = """() => {
  const panel = document.querySelector('#action-panel .panel-inner');
  const format = document.getElementById('hand-format');
  const seen = {format: format.hidden ? '' : format.textContent};
  if (panel?.classList.contains('bidding')) {
    const buttons = [...panel.querySelectorAll('button.bid')]
      .map((b) => ({bid: Number(b.dataset.bid), words: b.textContent}));
    return {...seen, kind: 'bid', notes: panel.textContent, buttons};
  }
  if (panel?.classList.contains('pass')) {
    return {...seen, kind: panel.classList.contains('nil-pass') ? 'nil-pass' : 'pass',
            title: panel.querySelector('h2').textContent};
  }
  const card = document.querySelector('#hand button.card.playable:not([disabled])');
  return card ? {...seen, kind: 'play', card: card.dataset.card} : null;
}"""


def build_the_night(page) -> None:
    """The host's choices in the rule builder, as a player makes them."""
    page.locator('#preset-list input[value="suicide"]').check()
    page.locator("#house-rules > summary").click()
    page.locator("#rule-min_team_bid").fill("0")  # Mirror and Whiz allow no minimum
    page.locator("#rule-nil_pass").fill("2")
    page.locator("#rule-lose_score").fill("")  # three hands, whatever the scores
    rotation = page.locator("#rule-bidding_formats")
    rotation.get_by_role("button", name="Rotate formats").click()
    rotation.get_by_role("button", name="Add a hand").click()
    rotation.get_by_role("button", name="Add a hand").click()
    rotation.get_by_label("Hand 2").select_option("mirror")
    rotation.get_by_label("Hand 3").select_option("whiz")
    example = page.locator('[data-rule="bidding_formats"] details')
    example.get_by_text("Example").click()
    assert "hand 2 Mirror" in example.text_content()
    page.locator("#rules-live-summary", has_text=SUMMARY).wait_for()
    assert page.locator("#rules-error").text_content() == ""


def check_bid(offer: dict, hand: int) -> None:
    """The bid buttons are the hand's format's; under Suicide, what the partner's bid
    leaves, as the panel's line says it."""
    buttons = offer["buttons"]
    bids = sorted(button["bid"] for button in buttons)
    words = [button["words"] for button in buttons]
    if format_of(hand) == "Mirror":
        [only] = buttons
        assert re.fullmatch(r"Bid \d+ \(your spades\)|Bid nil \(no spades\)", only["words"])
    elif format_of(hand) == "Whiz":
        assert bids[0] == 0 and "Nil" in words and len(bids) <= 2, words
        assert all(re.fullmatch(r"Bid \d+ \(your spades\)", w) for w in words if w != "Nil")
    elif "Your partner bid nil: you bid at least 1." in offer["notes"]:
        assert bids == list(range(1, 14)), bids
    elif re.search(r"Your partner bid \d+: you bid nil\.", offer["notes"]):
        assert bids == [0], bids
    else:
        assert "Bid nil or at least 1: your partner then does the other." in offer["notes"]
        assert bids == list(range(14)), bids


def act(page, who: str, seen: dict) -> bool:
    """Do what the page offers (checking it against the hand's format); False if nothing."""
    offer = page.evaluate(OFFERED)
    if offer is None:
        return False
    hand = int(re.match(r"Hand (\d+)", offer["format"]).group(1)) if offer["format"] else None
    if offer["kind"] == "bid":
        assert offer["format"].startswith(f"Hand {hand} of the night: {format_of(hand)}")
        assert offer["format"] in offer["notes"], "the bid panel says the hand's format too"
        check_bid(offer, hand)
        seen.setdefault(hand, set()).add("bid")
        chosen = max(button["bid"] for button in offer["buttons"])
        page.locator(f'#action-panel button.bid[data-bid="{chosen}"]').click()
        page.wait_for_function("!document.querySelector('#action-panel .bidding')")
        return True
    if offer["kind"] in ("nil-pass", "pass"):
        assert offer["kind"] == "nil-pass", offer
        assert offer["title"].startswith("Nil pass:") and offer["title"].endswith("2 cards")
        seen.setdefault(hand, set()).add(f"nil pass by {who}")
        cards = hand_of(page)[:2]
        for card in cards:
            page.locator(f'#hand [data-card="{card}"]').click()
            page.locator(f'#hand [data-card="{card}"][aria-pressed="true"]').wait_for()
        page.locator("#action-panel").get_by_role("button", name="Pass these cards").click()
        page.wait_for_function("!document.querySelector('#action-panel .nil-pass')")
        return True
    before = ",".join(hand_of(page))
    page.locator(f'#hand button.card[data-card="{offer["card"]}"]').click()
    page.wait_for_function(
        "(before) => [...document.querySelectorAll('#hand .face')]"
        ".map(c => c.dataset.card).join(',') !== before",
        arg=before,
    )
    return True


def test_a_format_night_built_in_the_form_plays_each_format(open_page) -> None:
    host = open_page("/")
    build_the_night(host)
    screenshot(host, "rule-builder-1280")
    host.get_by_role("button", name="Play with friends").click()
    host.wait_for_url(re.compile(r"/t/"))
    host.locator("#rules-summary", has_text=SUMMARY).wait_for()
    invite = host.locator("#invite-link").input_value()
    message = host.locator("#invite-text").input_value()
    assert SUMMARY in message and invite in message
    sit(host, 0, "Hal")
    partner = open_page(invite.removeprefix(host.url.split("/t/")[0]))
    sit(partner, 2, "Pia")
    add_bots(host, [1, 3])
    assert partner.locator("#rules-summary").text_content().startswith(SUMMARY)

    seen: dict[int, set[str]] = {}
    deadline = time.monotonic() + 240
    done = """() => document.body.dataset.phase === 'over' || Number((document
      .getElementById('hand-format').textContent.match(/Hand (\\d+)/) || [0, 0])[1]) >= 4"""
    while not host.evaluate(done):
        assert time.monotonic() < deadline, f"three hands not played: {seen} {page_story(host)}"
        acted = act(host, "Hal", seen)
        acted = act(partner, "Pia", seen) or acted
        if not acted:
            host.wait_for_timeout(50)
    # Suicide: one of Hal and Pia bid nil, so both of them pass, each on their own screen.
    assert seen[1] >= {"bid", "nil pass by Hal", "nil pass by Pia"}, seen
    assert "bid" in seen[2] and "bid" in seen[3], seen
    last = host.request.get(host.url.replace("/t/", "/api/tables/") + "/history").json()
    assert len(last["hands"]) >= 3


# Controls of the rule builder that stick out of the window's width, and whether the
# page scrolls sideways.
BUILDER_FIT = """() => {
  const out = [...document.querySelectorAll(
      '#rule-builder input, #rule-builder select, #rule-builder button, #rule-builder summary')]
    .filter((node) => node.offsetParent !== null)
    .filter((node) => { const box = node.getBoundingClientRect();
                        return box.left < 0 || box.right > innerWidth; })
    .map((node) => node.id || node.textContent);
  return {out, wider: document.documentElement.scrollWidth - innerWidth};
}"""


def test_the_rule_builder_fits_every_size(open_page) -> None:
    """Opened from a "play these rules again" link: the preset chosen, the changes filled
    in, the house rules open; at every size of the table's layout checks nothing sticks
    out or scrolls sideways."""
    rules = {
        "preset": "suicide",
        "min_team_bid": 0,
        "nil_pass": 2,
        "bidding_formats": ["suicide", "mirror", "whiz"],
    }
    page = open_page(f"/?rules={quote(json.dumps(rules))}", viewport=PHONE)
    page.locator("#rules-live-summary", has_text="Rotation Suicide, Mirror, Whiz").wait_for()
    assert page.locator("#house-rules").get_attribute("open") is not None
    assert page.locator("#rule-nil_pass").input_value() == "2"
    assert page.locator('#preset-list input[value="suicide"]').is_checked()
    assert page.locator("#rule-bidding_formats select").count() == 3
    # An example opens from the keyboard, and its summary names its rule for a listener.
    example = page.locator('[data-rule="nil_pass"] details')
    example.locator("summary").focus()
    page.keyboard.press("Enter")
    assert example.get_attribute("open") is not None
    assert example.locator("summary").text_content() == "Nil pass: Example"
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(100)
        fit = page.evaluate(BUILDER_FIT)
        assert fit == {"out": [], "wider": 0}, (width, height, fit)
    page.set_viewport_size(PHONE)
    screenshot(page, "rule-builder-360")
    assert serious_violations(page) == [], "axe: the open rule builder"


# What a listener hears, built in Chromium by the shipped modules from states shaped like
# the server's: a new hand of a format night says its format; the nil pass is named.
HEARD = """async () => {
  const { tableEvents, turnWords } = await import('/static/announce.js');
  const { loadCatalog } = await import('/static/rules.js');
  const catalog = await loadCatalog();
  const table = {
    game_number: 1, status: 'playing',
    rules: { players: 4, partnerships: true, bidding_formats: ['suicide', 'mirror', 'whiz'] },
    seats: [{ name: 'Hal', bot: null }, { name: 'West bot', bot: 'expert' },
            { name: 'Pia', bot: null }, { name: 'East bot', bot: 'expert' }],
  };
  const view = (changes) => ({
    players: 4, hand_number: 1, dealer: 3, phase: 'play', turn: [1], legal: [], played: [],
    trick: [], last_trick: null, bids: [0, 3, 4, 0], contracts: [4, 3], bidding: 'suicide',
    scores: [{ score: 0, bags: 0 }, { score: 0, bags: 0 }], last_hand: null, winner: null,
    hand: ['AS', '2C'], tricks_won: [0, 0, 0, 0], ...changes,
  });
  const sides = [[0, 2], [1, 3]];
  const page = (changes) => ({ table, catalog, seat: 0, sides, view: view(changes) });
  const newHand = tableEvents(page({}), page({
    hand_number: 2, dealer: 0, phase: 'bid', bidding: 'mirror', bids: [null, null, null, null],
    contracts: [null, null], turn: [1] }), () => []).map((event) => event.text);
  const passing = page({ phase: 'pass', turn: [0, 2], legal: [{ type: 'pass', count: 2 }] });
  return { newHand, nilPass: turnWords(passing, (seat) => `seat ${seat}`) };
}"""


def test_a_listener_hears_the_hands_format_and_the_nil_pass(open_page) -> None:
    page = open_page("/")
    heard = page.evaluate(HEARD)
    assert any(
        "Hand 2:" in line and "Mirror: your bid is your spades." in line
        for line in heard["newHand"]
    ), heard
    assert heard["nilPass"] == "Your turn: choose the cards of the nil pass"
