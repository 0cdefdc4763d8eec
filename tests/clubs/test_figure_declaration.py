"""The club figures are declared once (`server.clubs.figures.FIGURES`): the answer's
shape (a member's figures at its top level, a preset's in `ClubStats`), the stored columns
and the statements adding to them, the tally and the club page's labels all follow it; and
a new figure, given to the same builders, shows up in each. (That the migrations build
these columns: tests/store/test_migrations.py compares the models, `club_stats` included,
with the migrated database.)"""

from __future__ import annotations

from pathlib import Path

from pydantic import TypeAdapter
from sqlalchemy import Integer, MetaData

from server.clubs.figures import AVERAGES, FIGURES, STORED, Figure, SeatHand
from server.clubs.stats import HandFacts, Tally, tally_game
from server.engine import Rules
from server.engine.scoring import score_sides
from server.protocol import ClubStats, figures_shape, member_shape
from server.realtime.messages import club_figures, protocol_schema
from server.store.club_results import ADD_STATS, stats_add, stats_insert
from server.store.models import CLUB_STATS, club_stats_table

ROOT = Path(__file__).resolve().parents[2]
NAMES = [figure.name for figure in FIGURES]
LABELS = [(figure.name, figure.label) for figure in FIGURES] + [
    (average.name, average.label) for average in AVERAGES
]


def test_every_place_follows_the_declaration() -> None:
    schema = protocol_schema()["$defs"]["ClubStats"]
    assert [(name, part["title"]) for name, part in schema["properties"].items()] == LABELS
    member = protocol_schema()["$defs"]["ClubMember"]["properties"]
    assert [name for name in member][: len(LABELS)] == [name for name, _label in LABELS]
    assert member["presets"]["additionalProperties"] == {"$ref": "#/$defs/ClubStats"}
    assert [column.name for column in CLUB_STATS.columns][2:] == NAMES == list(STORED)
    assert set(ADD_STATS.compile().params) == {"c_member", "c_preset"} | {
        f"c_{name}" for name in NAMES
    }
    assert list(Tally()) == NAMES
    assert list(Tally().shown()) == [name for name, _label in LABELS]
    typedefs = (ROOT / "web" / "protocol-types.js").read_text()
    assert club_figures(protocol_schema()) in typedefs
    assert all(f'["{name}", "{label}"]' in typedefs for name, label in LABELS)
    assert "CLUB_FIGURES.map" in (ROOT / "web" / "club.js").read_text()
    tally = Tally(games=1, bags=3)
    assert stats_insert("m", "all", tally) == {"member_id": "m", "preset": "all", **tally}
    assert stats_add("m", "all", tally)["c_bags"] == 3


def test_a_new_figure_is_one_declaration() -> None:
    """A Boston (a side taking every trick) declared beside the others: the shape, the
    table and the labels have it, and it counts the hands it should."""
    boston = Figure("bostons", "Bostons", hand=lambda hand: int(hand.side["all_tricks"]))
    declared = (*FIGURES, boston)

    shape = figures_shape(declared, AVERAGES)
    properties = TypeAdapter(shape).json_schema()["properties"]
    assert properties["bostons"] == {"title": "Bostons", "type": "integer"}
    table = club_stats_table(MetaData(), declared)
    assert isinstance(table.c.bostons.type, Integer) and not table.c.bostons.nullable
    labels = club_figures({"$defs": {"ClubStats": TypeAdapter(shape).json_schema()}})
    assert '["bostons", "Bostons"]' in labels
    member = TypeAdapter(member_shape(declared, AVERAGES)).json_schema()
    assert member["properties"]["bostons"] == {"title": "Bostons", "type": "integer"}
    assert "bostons" in member["$defs"]["ClubStats"]["properties"]

    rules = Rules.preset("standard")
    bids, tricks = [4, 3, 5, 1], [7, 0, 6, 0]
    sides = score_sides(rules, bids, tricks, [{"score": 0, "bags": 0}] * 2)
    north = SeatHand(rules, 0, sides[0], bags=0, nil=None)
    east = SeatHand(rules, 1, sides[1], bags=0, nil=None)
    assert boston.hand is not None and (boston.hand(north), boston.hand(east)) == (1, 0)


def test_the_tally_counts_each_declared_figure() -> None:
    rules = Rules.preset("standard")
    bids, tricks = [4, 3, 0, 5], [6, 3, 1, 3]
    hand = HandFacts(bids, tricks, score_sides(rules, bids, tricks, [{"score": 0, "bags": 0}] * 2))
    tallies = tally_game(rules, [hand], {0: "north", 2: "south"}, winner=0)
    assert set(tallies["north"]) == set(STORED)
    shown: ClubStats = tallies["south"].shown()
    assert shown["nils"] == 1 and shown["wins"] == 1 and shown["bags_per_hand"] == 3.0
