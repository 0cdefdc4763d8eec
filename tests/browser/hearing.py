"""What a screen reader user hears and presses, for the browser tests: a recorder of
everything the page's live regions receive, the sentences the table should say, and the
cards named in them."""

from __future__ import annotations

import re

# Installed before any script of the page: every text a live region receives (a line
# added to it, or its text replaced), with the region's id, in order.
HEAR = """
window.heard = [];
const LIVE = '[aria-live]:not([aria-live="off"]), [role="log"], [role="status"], [role="alert"]';
const regionOf = (node) => {
  const element = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
  return element ? element.closest(LIVE) : null;
};
new MutationObserver((mutations) => {
  for (const mutation of mutations) {
    if (mutation.type === 'characterData') {
      const region = regionOf(mutation.target);
      if (region) window.heard.push({region: region.id, text: region.textContent.trim()});
      continue;
    }
    for (const added of mutation.addedNodes) {
      const region = regionOf(added) ?? regionOf(mutation.target);
      const text = (added.textContent ?? "").trim();
      if (region && text) window.heard.push({region: region.id, text});
    }
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""

RANKS = {
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    "A": "ace",
}
SUITS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
JOKERS = {"BJ": "big joker", "LJ": "little joker"}
CODES = {
    **{f"{rank} of {suit}": r + s for r, rank in RANKS.items() for s, suit in SUITS.items()},
    **{words: code for code, words in JOKERS.items()},
}
CARD_IN_WORDS = re.compile(
    r"\b(?:(?:" + "|".join(RANKS.values()) + r") of (?:" + "|".join(SUITS.values()) + r")"
    r"|big joker|little joker)\b",
    re.IGNORECASE,
)


def card_words(code: str) -> str:
    """ "the queen of hearts", as the table says a card."""
    if code in JOKERS:
        return f"the {JOKERS[code]}"
    return f"the {RANKS[code[0]]} of {SUITS[code[1]]}"


def cards_named(text: str) -> list[str]:
    """The codes of every card a sentence names."""
    return [CODES[match.lower()] for match in CARD_IN_WORDS.findall(text)]


def cards_read(reading: str) -> list[str]:
    """The codes of the cards a hand's reading names ("... 2 hearts: ace, king. ...")."""
    codes = []
    for suit, ranks in re.findall(r"\d+ (spades|hearts|diamonds|clubs): ([a-z ,]+)", reading):
        for rank in ranks.split(", "):
            words = rank if rank in JOKERS.values() else f"{rank} of {suit}"
            codes.append(CODES[words])
    return codes


def does(who: str, verb: str) -> str:
    return f"{who} {verb}" if who == "You" else f"{who} {verb}s"


def bid_words(bid: int | str) -> str:
    if bid == "blind_nil":
        return "blind nil"
    return "nil" if bid == 0 else str(bid)


def heard(page, region: str | None = None) -> list[str]:
    """Every text the page's live regions received (or one region's), in order."""
    lines = page.evaluate("window.heard")
    return [line["text"] for line in lines if region is None or line["region"] == region]


def regions_heard(page) -> set[str]:
    return {line["region"] for line in page.evaluate("window.heard")}


def expected_hand(hand: dict, names: list[str], players: int) -> dict[str, list[str]]:
    """What a listener should hear of a finished hand (a history entry), by kind, in
    order: each bid (from the dealer's left), each play, each trick's taker with their
    count so far. `names[seat]` is who sits there, as said to that listener."""
    order = [(hand["dealer"] + 1 + step) % players for step in range(players)]
    bids = [f"{does(names[seat], 'bid')} {bid_words(hand['bids'][seat])}." for seat in order]
    plays, takes = [], []
    taken = [0] * players
    for trick in hand["plays"]:
        for play in trick["cards"]:
            plays.append(f"{does(names[play['seat']], 'play')} {card_words(play['card'])}.")
        winner = trick["winner"]
        taken[winner] += 1
        count = f"{taken[winner]} trick{'' if taken[winner] == 1 else 's'}"
        takes.append(f"{does(names[winner], 'take')} the trick, {count}.")
    return {"bids": bids, "plays": plays, "takes": takes}


def of_kind(lines: list[str], kind: str) -> list[str]:
    """The lines that announce a bid, a play or a trick's taker."""
    pattern = {
        "bids": r"^.+ bids? (\d+|nil|blind nil)\.$",
        "plays": r"^.+ plays? the .+\.$",
        "takes": r"^.+ takes? the trick, \d+ tricks?\.$",
    }[kind]
    return [line for line in lines if re.match(pattern, line)]
