"""Members' ratings: Weng-Lin Bayesian ratings (the `openskill` library's Plackett-Luce
model), which rate teams as well as free-for-alls and keep each rating's uncertainty.

Partners are one team and share the result; at a table without partnerships every seat
is its own team. Only members are rated: a side with no member is left out, and a game
needs two rated sides to count. A member plays one seat of a game (`one_seat_each`): a
game where one held two is never rated or counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative value shown as `rating`: mu - 3 sigma."""
        return self.mu - 3 * self.sigma


def fresh() -> Rating:
    rating = MODEL.rating()
    return Rating(rating.mu, rating.sigma)


def one_seat_each(members: Iterable[str]) -> bool:
    """Whether no member appears twice among a game's seated members (one id a seat a
    member played): the rule of every club table and club night, checked when a member
    sits down and again by whatever rates or counts a game.

    >>> one_seat_each(["ann", "bob"]), one_seat_each(["ann", "bob", "ann"])
    (True, False)
    """
    seen: set[str] = set()
    for member in members:
        if member in seen:
            return False
        seen.add(member)
    return True


def places(scores: Sequence[int], winner: int | None) -> list[int]:
    """Each side's place (1 best): the winner first, then by score; equal scores share.

    >>> places([120, 80, 80], 0)
    [1, 2, 2]
    >>> places([-40, 20], 0)
    [1, 2]
    """
    keys = [(index == winner, score) for index, score in enumerate(scores)]
    return [1 + sum(other > key for other in keys) for key in keys]


def rate(
    teams: Sequence[Sequence[str]],
    ratings: Mapping[str, Rating],
    scores: Sequence[int],
    winner: int | None,
) -> dict[str, Rating]:
    """The new rating of every member of `teams` (one list of member ids a side, empty
    for a side without members, which is left out) after a game with these final
    `scores`; {} when fewer than two sides have members, or one member is on two seats."""
    rated = [index for index, team in enumerate(teams) if team]
    if len(rated) < 2 or not one_seat_each(member for team in teams for member in team):
        return {}
    ranks = places(scores, winner)
    before = [
        [MODEL.rating(mu=ratings[m].mu, sigma=ratings[m].sigma, name=m) for m in teams[index]]
        for index in rated
    ]
    after = MODEL.rate(before, ranks=[ranks[index] for index in rated])
    return {
        member: Rating(new.mu, new.sigma)
        for team, new_team in zip((teams[i] for i in rated), after, strict=True)
        for member, new in zip(team, new_team, strict=True)
    }
