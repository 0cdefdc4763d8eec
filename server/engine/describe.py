"""The rules in players' words: the rule builder's catalogue and a table's one-line summary.

Each rule a table can change is declared here once (its group, label, one-line
explanation and worked example), and every page renders it from this catalogue
(`GET /api/rules/catalog`). The summary line ("Whiz · jokers · to 300 · no bags") is
made here too, for the lobby, the table page and the invite; and `compact` turns a
table's rules back into a preset plus changes, for "play these rules again".

Everything works on rules as plain data (`Rules.model_dump()`, or rules stored by an
older server): a field that is missing reads as the standard preset's.

>>> summary(Rules.preset("standard"))
'Standard · to 500'
>>> summary(Rules.preset("standard", deck="jokers", target_score=300, bags=False))
'Standard · jokers · to 300 · no bags'
>>> compact(Rules.preset("cutthroat", target_score=250))
{'preset': 'cutthroat', 'target_score': 250}
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache
from typing import Any, Literal, NotRequired

from pydantic import ValidationError
from typing_extensions import TypedDict

from server.engine.rules import PRESETS, RuleFields, Rules

RuleKind = Literal["check", "select", "number", "formats"]
# Rules as data, possibly stored by an older server (fields missing) or with lists.
RulesData = Mapping[str, Any]
# Rules as fields: every field, or a preset and changes.
RuleValues = RuleFields


class RuleChoice(TypedDict):
    """One value of a `select` rule (or a format of a rotation): its words, and when some
    other field must have one of some values for it to apply (`needs`)."""

    value: str
    words: str
    line: str
    needs: NotRequired[dict[str, list[bool | int | str | None]]]


class RuleEntry(TypedDict):
    """One rule of the builder: `field` is the `Rules` field it sets; `explain` one plain
    line; `example` a worked example shown on demand; `needs` hides it unless each named
    field has one of the listed values; `min`/`max` bound a number, `blank` names what an
    empty number means (a field that may be null)."""

    field: str
    label: str
    kind: RuleKind
    explain: str
    example: str
    choices: NotRequired[list[RuleChoice]]
    needs: NotRequired[dict[str, list[bool | int | str | None]]]
    min: NotRequired[int]
    max: NotRequired[int]
    blank: NotRequired[str]


class RuleGroup(TypedDict):
    """A group of the builder: bidding, nil, scoring and bags, end of game, deck, first
    lead."""

    id: str
    title: str
    rules: list[RuleEntry]


class PresetEntry(TypedDict):
    """A preset as a starting point: its title, one line, its summary and every field."""

    name: str
    title: str
    line: str
    summary: str
    rules: RuleValues


class RuleCatalog(TypedDict):
    """What the rule builder renders: the presets, then the groups of rules."""

    presets: list[PresetEntry]
    groups: list[RuleGroup]


PARTNERS: dict[str, list[bool | int | str | None]] = {"partnerships": [True]}
WITH_NIL: dict[str, list[bool | int | str | None]] = {"nil": [True]}

PRESET_WORDS: dict[str, tuple[str, str]] = {
    "standard": (
        "Standard",
        "4 players in two partnerships, nil allowed, bags count, game to 500.",
    ),
    "competitive": (
        "Competitive",
        "Tournament partnership: team bidding with a 4-trick minimum, blind nil, "
        "10 for 200, lowest club leads.",
    ),
    "cutthroat": ("Cutthroat (3)", "3 players, each for themselves, 17 cards each."),
    "two_player": ("Two players", "2 players draw their hands from the stock, one card at a time."),
    "six_player": (
        "Six players",
        "6 players, each for themselves, two decks (a later identical card wins).",
    ),
    "whiz": ("Whiz", "Partnerships; bid nil or exactly your spades. Lose at -200."),
    "mirror": ("Mirror", "Partnerships; everyone bids exactly their spades. Lose at -200."),
    "suicide": (
        "Suicide",
        "Partnerships; one partner of each side must bid nil, the other at least 4. Lose at -200.",
    ),
}

FORMATS: list[RuleChoice] = [
    {
        "value": "individual",
        "words": "Standard",
        "line": "each player bids their own tricks",
    },
    {
        "value": "team",
        "words": "Team bidding",
        "line": "the second partner names the side's total",
        "needs": PARTNERS,
    },
    {"value": "whiz", "words": "Whiz", "line": "bid your spades or nil"},
    {"value": "mirror", "words": "Mirror", "line": "your bid is your spades"},
    {
        "value": "suicide",
        "words": "Suicide",
        "line": "one partner bids nil, the other at least 4",
        "needs": PARTNERS,
    },
]


def _choice(value: str, words: str, line: str = "") -> RuleChoice:
    return {"value": value, "words": words, "line": line}


GROUPS: list[RuleGroup] = [
    {
        "id": "bidding",
        "title": "Bidding",
        "rules": [
            {
                "field": "bidding",
                "label": "Bidding format",
                "kind": "select",
                "choices": FORMATS,
                "explain": "How each player arrives at a bid.",
                "example": "Whiz: bid your spades or nil — with ♠A K 7 you bid 3 or Nil. "
                "Mirror: with ♠A K 7 your bid is 3. Suicide: your partner bid nil, so you "
                "bid at least 4.",
            },
            {
                "field": "bidding_formats",
                "label": "Format rotation",
                "kind": "formats",
                "choices": FORMATS,
                "explain": "Hand by hand, the formats take turns (this replaces the format "
                "above); off when empty.",
                "example": "Suicide, Mirror, Whiz: hand 1 is Suicide, hand 2 Mirror, hand 3 "
                "Whiz, hand 4 Suicide again, and so on.",
            },
            {
                "field": "min_team_bid",
                "label": "Minimum side bid",
                "kind": "number",
                "min": 0,
                "max": 13,
                "explain": "A side must bid at least this many tricks (0: no minimum).",
                "example": "With 4: your partner bid 1, so you must bid at least 3.",
            },
        ],
    },
    {
        "id": "nil",
        "title": "Nil",
        "rules": [
            {
                "field": "nil",
                "label": "Nil bids",
                "kind": "check",
                "explain": "A player may bid to take no tricks at all, for a bonus or a penalty.",
                "example": "You bid nil and take no trick: +100. You take one: -100.",
            },
            {
                "field": "nil_bonus",
                "label": "Nil is worth",
                "kind": "number",
                "min": 0,
                "max": 10000,
                "needs": WITH_NIL,
                "explain": "Points for a nil made (and, below, lost for one failed).",
                "example": "At 50: a nil made scores +50.",
            },
            {
                "field": "nil_penalty",
                "label": "A failed nil costs",
                "kind": "number",
                "min": 0,
                "max": 10000,
                "needs": WITH_NIL,
                "explain": "Points lost when the nil bidder takes a trick.",
                "example": "At 50: a nil bidder who takes a trick loses 50.",
            },
            {
                "field": "nil_tricks",
                "label": "Tricks of a failed nil",
                "kind": "select",
                "choices": [
                    _choice("bags", "Count as bags for the side"),
                    _choice("contract", "Help the partner make the contract"),
                ],
                "needs": {"nil": [True], "partnerships": [True]},
                "explain": "Where the tricks of a player who bid nil and took some go.",
                "example": "Partner bid 4 and took 3, your failed nil took 1: with "
                "\u201chelp\u201d the 4 is made.",
            },
            {
                "field": "nil_pass",
                "label": "Nil pass",
                "kind": "number",
                "min": 0,
                "max": 3,
                "needs": {"nil": [True], "partnerships": [True]},
                "explain": "After the bidding, a nil bidder and their partner swap this "
                "many cards (0: no pass).",
                "example": "With 2: you bid nil, you give your partner your ♥K and ♠Q and "
                "get two low cards back, both chosen at once.",
            },
            {
                "field": "blind_nil",
                "label": "Blind nil",
                "kind": "check",
                "needs": WITH_NIL,
                "explain": "A side far behind may bid nil before looking at its cards, "
                "for double points.",
                "example": "Behind by 100 or more, you bid blind nil: +200 with no trick, "
                "-200 with any.",
            },
            {
                "field": "blind_nil_behind_by",
                "label": "Blind nil when behind by",
                "kind": "number",
                "min": 0,
                "max": 100000,
                "blank": "any time",
                "needs": {"blind_nil": [True]},
                "explain": "Blind nil is offered only to a side this far behind.",
                "example": "At 100: you have 150, they have 260, so you may bid blind nil.",
            },
            {
                "field": "blind_nil_pass",
                "label": "Blind nil pass",
                "kind": "number",
                "min": 0,
                "max": 4,
                "needs": {"blind_nil": [True], "partnerships": [True]},
                "explain": "After a blind nil, the bidder and their partner swap this many cards.",
                "example": "With 2: after a blind nil, the bidder gives their partner 2 cards "
                "and gets 2 back, both chosen at once.",
            },
        ],
    },
    {
        "id": "scoring",
        "title": "Scoring and bags",
        "rules": [
            {
                "field": "bags",
                "label": "Bags (sandbagging)",
                "kind": "check",
                "explain": "Tricks over your contract are counted; every 10 of them cost "
                "100 points.",
                "example": "Your side bid 5 and took 7: +52, and 2 bags. At 10 bags: -100.",
            },
            {
                "field": "bag_limit",
                "label": "Bags before the penalty",
                "kind": "number",
                "min": 1,
                "max": 1000,
                "needs": {"bags": [True]},
                "explain": "How many bags cost the penalty.",
                "example": "At 5: your 5th bag costs the penalty and the count drops to 0.",
            },
            {
                "field": "bag_penalty",
                "label": "Bag penalty",
                "kind": "number",
                "min": 0,
                "max": 10000,
                "needs": {"bags": [True]},
                "explain": "Points lost each time the bags reach the limit.",
                "example": "At 50: 10 bags cost 50 points.",
            },
            {
                "field": "ten_for_two_hundred",
                "label": "10 for 200",
                "kind": "check",
                "needs": PARTNERS,
                "explain": "A side contract of 10 tricks or more scores 20 a trick (a flat "
                "loss if set).",
                "example": "Your side bids 10 and takes 10: +200 instead of +100.",
            },
            {
                "field": "all_tricks",
                "label": "Taking every trick",
                "kind": "select",
                "choices": [
                    _choice("none", "Scores as usual"),
                    _choice("bonus", "Boston: +200 bonus"),
                    _choice("win", "Wins the game at once"),
                ],
                "explain": "What happens when one side takes every trick of a hand.",
                "example": "Boston: your side bid 9 and took all 13: +94 and +200.",
            },
        ],
    },
    {
        "id": "end",
        "title": "End of game",
        "rules": [
            {
                "field": "target_score",
                "label": "Play to",
                "kind": "number",
                "min": 1,
                "max": 100000,
                "explain": "The game ends when a side reaches this score.",
                "example": "To 300: a side at 280 that makes a 4 (+40) ends the game at 320.",
            },
            {
                "field": "lose_score",
                "label": "Lose at",
                "kind": "number",
                "min": -100000,
                "max": -1,
                "blank": "never",
                "explain": "A side falling to this score ends the game (blank: never).",
                "example": "At -200: a side at -150 that is set on 6 (-60) ends the game.",
            },
            {
                "field": "mercy_margin",
                "label": "Mercy margin",
                "kind": "number",
                "min": 1,
                "max": 100000,
                "blank": "off",
                "explain": "A side this far ahead of every other side ends the game (blank: off).",
                "example": "At 300: 350 to 40 after a hand, and the game is over.",
            },
        ],
    },
    {
        "id": "deck",
        "title": "Deck",
        "rules": [
            {
                "field": "deck",
                "label": "Deck",
                "kind": "select",
                "choices": [
                    _choice("standard", "52 cards"),
                    _choice("jokers", "Jokers: big and little joker are the top spades"),
                    _choice(
                        "jokers_deuces", "Jokers and deuces: BJ, LJ, 2♦, 2♠ are the top spades"
                    ),
                ],
                "explain": "Jokers replace the 2♣ and 2♦ (or 2♥) with four players.",
                "example": "With jokers, the big joker beats the little joker, which beats ♠A.",
            },
        ],
    },
    {
        "id": "lead",
        "title": "First lead",
        "rules": [
            {
                "field": "first_lead",
                "label": "First lead",
                "kind": "select",
                "choices": [
                    _choice("left_of_dealer", "Player left of the dealer leads anything"),
                    _choice("two_clubs", "Whoever holds the 2♣ leads it"),
                    _choice("lowest_club", "Everyone plays their lowest club to the first trick"),
                ],
                "explain": "Who starts the first trick of each hand.",
                "example": "Two of clubs: the 2♣ is led, whoever holds it; the others follow.",
            },
            {
                "field": "spades_broken_to_lead",
                "label": "Spades must be broken",
                "kind": "check",
                "explain": "No spade may be led until a spade has been played, unless you "
                "hold only spades.",
                "example": "Nobody has played a spade yet: you may not lead your ♠A.",
            },
        ],
    },
]

_FORMAT_WORDS = {choice["value"]: choice["words"] for choice in FORMATS}
_FIRST_LEAD = {"two_clubs": "2♣ leads", "lowest_club": "lowest club"}
_STANDARD = PRESETS["standard"]


# Rules as a hashable key (lists as tuples), for the caches below: the lobby and every
# table's answer describe the same few rule sets over and over.
Frozen = tuple[tuple[str, Any], ...]


def frozen(data: RulesData) -> Frozen:
    """`data` as a hashable key."""
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in data.items())


def thawed(key: Frozen) -> RuleValues:
    """The rules `frozen` made a key of."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in key}


@cache
def _preset_values() -> dict[str, RuleValues]:
    """Every preset's full rules, made once (tables' summaries and links compare them)."""
    return {name: Rules.preset(name).model_dump() for name in PRESETS}


def catalog() -> RuleCatalog:
    """The rule builder's catalogue: the presets (with their full rules), then the groups.

    >>> groups = catalog()["groups"]
    >>> [group["id"] for group in groups]
    ['bidding', 'nil', 'scoring', 'end', 'deck', 'lead']
    >>> all(rule["field"] in Rules.model_fields for g in groups for rule in g["rules"])
    True
    """
    presets = []
    for name in PRESETS:
        rules = Rules.preset(name).model_dump(mode="json")
        title, line = PRESET_WORDS.get(name, (name.replace("_", " ").capitalize(), ""))
        presets.append(
            PresetEntry(name=name, title=title, line=line, summary=summary(rules), rules=rules)
        )
    groups = [
        RuleGroup(
            id=group["id"],
            title=group["title"],
            rules=[rule for rule in group["rules"] if rule["field"] in Rules.model_fields],
        )
        for group in GROUPS
    ]
    return RuleCatalog(presets=presets, groups=groups)


def format_words(bidding: str) -> str:
    """A bidding format's name: "Whiz", "Team bidding".

    >>> format_words("mirror"), format_words("team")
    ('Mirror', 'Team bidding')
    """
    return _FORMAT_WORDS.get(bidding, bidding.capitalize())


def _players(rules: RulesData) -> str:
    players, partners = rules["players"], rules["partnerships"]
    if players == 4 and partners:
        return ""
    if players == 3 and not partners:
        return "Cutthroat"
    if players == 2:
        return "Two players"
    return f"{players} players" + (" in pairs" if partners else " solo")


def _format(rules: RulesData) -> str:
    formats = rules.get("bidding_formats")
    if formats:
        return "Rotation " + ", ".join(format_words(str(each)) for each in formats)
    bidding = str(rules["bidding"])
    return "" if bidding == "individual" else format_words(bidding)


def summary(rules: Rules | RulesData) -> str:
    """One line of the rules that matter at a glance, the same everywhere it is shown.

    >>> summary(Rules.preset("competitive"))
    'Team bidding · min bid 4 · blind nil · to 500 · 10 for 200 · all tricks win · lowest club'
    >>> summary(Rules.preset("cutthroat", nil=False, lose_score=-200))
    'Cutthroat · no nil · to 500 · lose at -200'
    >>> summary({"players": 4, "bidding": "whiz", "deck": "jokers", "target_score": 300,
    ...          "bags": False, "blind_nil": False})
    'Whiz · jokers · to 300 · no bags'
    >>> summary({"bidding": "suicide", "bidding_formats": ["suicide", "mirror", "whiz"],
    ...          "nil_pass": 2, "min_team_bid": 4, "mercy_margin": 300})
    'Rotation Suicide, Mirror, Whiz · min bid 4 · nil pass 2 · to 500 · mercy 300'
    >>> summary({"preset": "cutthroat", "target_score": 300})
    'Cutthroat · to 300'
    >>> summary({"preset": "standard", "hand_limit": 2})
    'Standard · 2 hands'
    """
    data: RulesData = rules.model_dump() if isinstance(rules, Rules) else rules
    return _summary(frozen(data))


@lru_cache(maxsize=1024)
def _summary(key: Frozen) -> str:
    data = thawed(key)
    preset = PRESETS.get(str(data.get("preset", "standard")), _STANDARD)
    values = {**_STANDARD, **preset, **data}
    head = [part for part in (_players(values), _format(values)) if part] or ["Standard"]
    parts = head[:]
    if values["deck"] != "standard":
        parts.append("jokers" if values["deck"] == "jokers" else "jokers & deuces")
    if values["min_team_bid"]:
        parts.append(f"min bid {values['min_team_bid']}")
    if not values["nil"]:
        parts.append("no nil")
    elif (values["nil_bonus"], values["nil_penalty"]) != (100, 100):
        parts.append(f"nil +{values['nil_bonus']}/-{values['nil_penalty']}")
    if values.get("nil_pass") and values["partnerships"]:
        parts.append(f"nil pass {values['nil_pass']}")
    if values["blind_nil"]:
        parts.append("blind nil")
    if values.get("hand_limit"):
        parts.append(f"{values['hand_limit']} hands")
    else:
        parts.append(f"to {values['target_score']}")
    if values["lose_score"] is not None:
        parts.append(f"lose at {values['lose_score']}")
    if values.get("mercy_margin"):
        parts.append(f"mercy {values['mercy_margin']}")
    if not values["bags"]:
        parts.append("no bags")
    elif (values["bag_limit"], values["bag_penalty"]) != (10, 100):
        parts.append(f"{values['bag_limit']} bags -{values['bag_penalty']}")
    if values["ten_for_two_hundred"] and values["partnerships"]:
        parts.append("10 for 200")
    if values["all_tricks"] == "bonus":
        parts.append("Boston +200")
    elif values["all_tricks"] == "win":
        parts.append("all tricks win")
    if values["first_lead"] in _FIRST_LEAD:
        parts.append(_FIRST_LEAD[values["first_lead"]])
    if not values["spades_broken_to_lead"]:
        parts.append("spades led any time")
    return " · ".join(parts)


def compact(rules: Rules | RulesData) -> RuleValues:
    """The rules as the preset they differ least from, plus the fields that differ (a
    preset of the same number of players; the first in order on a tie).

    >>> compact(Rules.preset("competitive", bags=False))
    {'preset': 'competitive', 'bags': False}
    >>> compact(Rules.preset("standard"))
    {'preset': 'standard'}
    """
    data: RulesData = rules.model_dump() if isinstance(rules, Rules) else rules
    return thawed(_compact(frozen(data)))


@lru_cache(maxsize=1024)
def _compact(key: Frozen) -> Frozen:
    data = thawed(key)
    best: RuleValues | None = None
    for name, values in _preset_values().items():
        if values["players"] != data.get("players", 4):
            continue
        changed = {
            field: data[field] for field in values if field in data and data[field] != values[field]
        }
        if best is None or len(changed) < len(best) - 1:
            best = {"preset": name, **changed}
    return frozen(best if best is not None else {"preset": "standard", **data})


def rule_errors(invalid: ValidationError) -> str:
    """Refused rules as one line a player can read, naming each field at fault (the
    422 of a table's or a night's rules)."""
    parts = []
    for problem in invalid.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in problem["loc"])
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where and not message.startswith(where) else message)
    return "rules: " + "; ".join(parts)
