"""Club nights: a tournament evening of a club (docs/clubs.md, "Club nights"). `Nights`
makes a night with its whole schedule (`server.clubs.pairing`), starts its rounds by
making their tables (each scheduled member's seat kept for them, a bot playing it until
they come; bots in the seats nobody is scheduled for), gives each member their seat,
and answers the night with its standings (`server.clubs.standings`).

Everything is in the database (`NightStore`, the tables' own rows): a restart, a
killed process or a second process finds the night as it was. Starting a round is
idempotent: a round whose tables were not all made and filled (a process killed in the
middle) is completed by the next `start_next`.

Who may ask is checked by the HTTP layer (`server.api.nights`); every refusal here is a
`NightRefused` that changes nothing.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

import structlog
from pydantic import ValidationError

from server.clubs.pairing import Fill, Format, Round, evenness, schedule
from server.clubs.standings import NightGame, night_status, round_over, standings
from server.engine import Rules
from server.engine.describe import rule_errors
from server.engine.rules import MAX_SCORE, RuleFields
from server.protocol import (
    ClubNight,
    NightEvenness,
    NightRound,
    NightSeat,
    NightStanding,
    NightStatus,
    NightSummary,
    NightTable,
    NightWatch,
)
from server.realtime.errors import TableError
from server.realtime.hosting import hash_token, new_id, new_token
from server.realtime.hub import TableHub
from server.store.clubs import ClubStore
from server.store.models import utcnow
from server.store.nights import NightRecord, NightStore
from server.store.records import iso

log = structlog.get_logger(__name__)

# The bot that plays the seats nobody is scheduled for.
NIGHT_BOT = "advanced"
# The nights a club's list shows.
NIGHTS_LISTED = 50
# How long a round's tables may take to make (they take well under a second): a round
# started less long ago and not all made is still being made by the request that started
# it; one started longer ago was left unfinished by a process that stopped, and the next
# "next round" finishes it.
ROUND_MAKING_SECONDS = 30


class NightRefused(Exception):
    """A night request refused with an HTTP status and a reason; nothing changed."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


def round_rules(
    base: RuleFields, hands: int | None, target_score: int | None, bidding: str | None
) -> RuleFields:
    """A round's rules: the night's, lasting `hands` hands (then no target score ends it
    sooner, unless one is given), with the round's bidding format when given."""
    fields: RuleFields = {
        name: value for name, value in base.items() if name not in ("hand_limit",)
    }
    if hands is not None:
        fields["hand_limit"] = hands
        fields["target_score"] = MAX_SCORE if target_score is None else target_score
        fields["lose_score"] = None
    elif target_score is not None:
        fields["target_score"] = target_score
    if bidding is not None:
        # The round's one format, in place of any rotation of formats by hand.
        fields["bidding"] = bidding
        fields["bidding_formats"] = None
    return fields


def checked_rules(fields: RuleFields) -> Rules:
    """The engine's rules of a round, which must be a four-player partnership game;
    ValueError (pydantic's ValidationError among them) with the reason otherwise."""
    rules = Rules.model_validate(fields)
    if rules.players != 4 or not rules.partnerships:
        raise ValueError("rules: a club night plays four-player partnership games")
    return rules


def rounds_of(night: NightRecord) -> list[Round]:
    return [
        Round([table["seats"] for table in entry["tables"]], list(entry["sitting_out"]))
        for entry in night.schedule
    ]


def stored_schedule(rounds: Sequence[Round]) -> list[NightRound]:
    return [
        NightRound(
            round=index + 1,
            tables=[NightTable(seats=list(seats)) for seats in entry.tables],
            sitting_out=list(entry.sitting_out),
        )
        for index, entry in enumerate(rounds)
    ]


def watch_url(night: NightRecord) -> str:
    return f"/c/{night.club_id}/night/{night.id}#watch={night.watch_token}"


class Nights:
    """Club nights over the night store, the club store and the table hub."""

    def __init__(self, store: NightStore, clubs: ClubStore, hub: TableHub) -> None:
        self.store = store
        self.clubs = clubs
        self.hub = hub

    # -- making a night ---------------------------------------------------------------------

    async def create(
        self,
        club_id: str,
        members: list[str],
        rounds: int,
        format: Format,
        hands: int | None,
        target_score: int | None,
        fill: Fill,
        rules: RuleFields | None,
        bidding: list[str | None] | None,
        turn_seconds: int | None,
        seed: int | None,
    ) -> ClubNight:
        await self.check_members(club_id, members)
        base = rules if rules is not None else await self.clubs.usual_rules(club_id)
        base = base or {"preset": "standard"}
        per_round = bidding or [None] * rounds
        if len(per_round) != rounds:
            raise NightRefused(422, f"bidding: give one bidding format a round ({rounds}).")
        every: list[RuleFields] = []
        for number, format_of_round in enumerate(per_round, start=1):
            fields = round_rules(base, hands, target_score, format_of_round)
            try:
                checked_rules(fields)
            except ValueError as invalid:
                raise NightRefused(422, f"round {number}: {reason(invalid)}") from None
            every.append(fields)
        seed = secrets.randbits(62) if seed is None else seed
        try:
            # Up to a second of work for 32 members: beside the loop, not on it.
            rounds_made = await asyncio.to_thread(schedule, members, rounds, format, fill, seed)
        except ValueError as invalid:
            raise NightRefused(422, f"members: {invalid}.") from None
        night = NightRecord(
            id=new_id(),
            club_id=club_id,
            format=format,
            fill=fill,
            rounds=rounds,
            hands=hands,
            rules=every,
            members=list(members),
            schedule=stored_schedule(rounds_made),
            seed=seed,
            turn_seconds=turn_seconds,
            round=0,
            paused=False,
            ended=False,
            watch_token=secrets.token_urlsafe(18),
            created=utcnow(),
        )
        await self.store.create(night)
        log.info("club night made", club=club_id, night=night.id, members=len(members))
        return await self.read(night, with_watch=True)

    async def check_members(self, club_id: str, members: Sequence[str]) -> None:
        _club, names, removed = await self.store.names(club_id)
        for member in members:
            if member not in names or member in removed:
                raise NightRefused(422, f"members: {member!r} is not a member of this club.")
        if len(set(members)) != len(members):
            raise NightRefused(422, "members: each member once.")

    # -- reading ------------------------------------------------------------------------------

    async def night(self, club_id: str, night_id: str) -> NightRecord:
        night = await self.store.get(club_id, night_id)
        if night is None:
            raise NightRefused(404, "No such night in this club.")
        return night

    async def latest(self, club_id: str) -> list[NightSummary]:
        """The club's latest nights, newest first."""
        shown = []
        for night in await self.store.latest(club_id, NIGHTS_LISTED):
            games = await self.store.games(night.id)
            shown.append(
                NightSummary(
                    id=night.id,
                    created=iso(night.created),
                    status=self.status(night, games),
                    round=night.round,
                    rounds=night.rounds,
                    format=fill_format(night),
                    members=len(night.members),
                    ended=night.ended,
                )
            )
        return shown

    async def read(
        self, night: NightRecord, with_watch: bool = True, you: str | None = None
    ) -> ClubNight:
        games = await self.store.games(night.id)
        _club, names, _removed = await self.store.names(night.club_id)
        shown = self.shown_schedule(night, games)
        measure = evenness(night.members, rounds_of(night))
        answer = ClubNight(
            id=night.id,
            club=night.club_id,
            status=self.status(night, games),
            round=night.round,
            rounds=night.rounds,
            format="pairs" if night.format == "pairs" else "rotating",
            fill="bots" if night.fill == "bots" else "sit_out",
            hands=night.hands,
            paused=night.paused,
            ended=night.ended,
            members=list(night.members),
            names={member: names.get(member, member) for member in self.everyone(night)},
            rules=[Rules.model_validate(fields).model_dump(mode="json") for fields in night.rules],
            schedule=shown,
            tables=current_tables(night, games),
            standings=self.standings(night, names, games),
            evenness=NightEvenness(
                partner_max=measure.partner_max,
                partner_ideal=measure.partner_ideal,
                opponent_max=measure.opponent_max,
                opponent_ideal=measure.opponent_ideal,
                sit_out_min=measure.sit_out_min,
                sit_out_max=measure.sit_out_max,
            ),
            you=you,
            seat=seat_of(you, night, shown),
        )
        if with_watch:
            answer["watch_url"] = watch_url(night)
        return answer

    async def watch(self, night_id: str, token: str) -> NightWatch:
        """What the watch link shows; 403 for a wrong link, whether the night exists or not."""
        night = await self.store.by_id(night_id)
        if night is None or not secrets.compare_digest(
            hash_token(night.watch_token), hash_token(token)
        ):
            raise NightRefused(403, "That watch link is not valid.")
        games = await self.store.games(night.id)
        club, names, _removed = await self.store.names(night.club_id)
        return NightWatch(
            id=night.id,
            club_name=club,
            status=self.status(night, games),
            round=night.round,
            rounds=night.rounds,
            paused=night.paused,
            names={member: names.get(member, member) for member in self.everyone(night)},
            schedule=self.shown_schedule(night, games),
            tables=current_tables(night, games),
            standings=self.standings(night, names, games),
        )

    @staticmethod
    def everyone(night: NightRecord) -> list[str]:
        """The night's members and whoever a substitution seated."""
        seen = dict.fromkeys(night.members)
        for entry in night.schedule:
            for table in entry["tables"]:
                seen.update(dict.fromkeys(m for m in table["seats"] if m is not None))
        return list(seen)

    @staticmethod
    def status(night: NightRecord, games: Sequence[NightGame]) -> NightStatus:
        return night_status(night.round, night.rounds, night.ended, night.schedule, games)

    def standings(
        self, night: NightRecord, names: dict[str, str], games: Sequence[NightGame]
    ) -> list[NightStanding]:
        rules = [Rules.model_validate(fields) for fields in night.rules]
        return standings(self.everyone(night), names, night.schedule, rules, games)

    @staticmethod
    def shown_schedule(night: NightRecord, games: Sequence[NightGame]) -> list[NightRound]:
        made = {(game.round, game.position): game for game in games}

        def shown(number: int, position: int, seats: list[str | None]) -> NightTable:
            game = made.get((number, position))
            if game is None:
                return NightTable(seats=list(seats), table=None, status=None)
            return NightTable(seats=list(seats), table=game.table_id, status=game.status)

        return [
            NightRound(
                round=entry["round"],
                tables=[
                    shown(entry["round"], p, table["seats"])
                    for p, table in enumerate(entry["tables"])
                ],
                sitting_out=list(entry["sitting_out"]),
            )
            for entry in night.schedule
        ]

    # -- the host's controls -------------------------------------------------------------------

    async def start_next(self, night: NightRecord) -> tuple[ClubNight, bool]:
        """Start the next round (True), or finish making the round being started when a
        process stopped in the middle (False); 409 while a round is being played or made
        (by another request, within ROUND_MAKING_SECONDS of its start), after the last,
        while paused, or once the night is over."""
        games = await self.store.games(night.id)
        if night.ended:
            raise NightRefused(409, "This night is over.")
        if night.round > 0 and not complete(night, games):
            if being_made(night):
                raise NightRefused(409, f"Round {night.round} is being started: one moment.")
            await self.make_round(night, night.round)
            return await self.read(await self.night(night.club_id, night.id)), False
        if night.paused:
            raise NightRefused(409, "The night is paused: resume it first.")
        if not round_over(night.round, night.schedule, games):
            raise NightRefused(409, f"Round {night.round} is still being played.")
        if night.round >= night.rounds:
            raise NightRefused(409, "The night's last round is over.")
        if not await self.store.start_round(night.id, night.round):
            raise NightRefused(409, "That round has just been started.")
        started = replace(night, round=night.round + 1)
        await self.make_round(started, started.round)
        log.info("club night round started", night=night.id, round=started.round)
        return await self.read(await self.night(night.club_id, night.id)), True

    async def make_round(self, night: NightRecord, number: int) -> None:
        """Make every table of round `number` not yet made, and fill every empty seat."""
        entry = night.schedule[number - 1]
        rules_fields = night.rules[number - 1]
        rules = checked_rules(rules_fields)
        preset = rules_fields.get("preset")
        made = await self.store.tables(night.id)
        _club, names, _removed = await self.store.names(night.club_id)
        for position, table in enumerate(entry["tables"]):
            table_id = made.get((number, position))
            if table_id is None:
                room, _invite, _host = await self.hub.create_table(
                    f"Round {number}, table {position + 1}",
                    rules,
                    listed=False,
                    turn_seconds=night.turn_seconds,
                )
                await self.clubs.attach_table(
                    night.club_id,
                    room.id,
                    preset if isinstance(preset, str) else "custom",
                    rules_fields,
                    usual=False,
                )
                if not await self.store.add_table(night.id, number, position, room.id):
                    # Another request made this table first: this one is not the night's.
                    await self.hub.close_table(room.id)
                    table_id = (await self.store.tables(night.id))[(number, position)]
                else:
                    table_id = room.id
            await self.fill(table_id, table["seats"], names)

    async def fill(self, table_id: str, seats: list[str | None], names: dict[str, str]) -> None:
        """Each empty seat: kept for its member (a bot playing for them until they come),
        or a bot's."""
        shown = await self.hub.table_info(table_id)
        for seat, member in enumerate(seats):
            if shown["seats"][seat]["name"] is not None:
                continue
            try:
                if member is None:
                    await self.hub.add_bot(table_id, seat, NIGHT_BOT, admitted=True)
                    continue
                token = new_token()
                await self.clubs.seat_member(table_id, member, hash_token(token))
                await self.hub.reserve_seat(table_id, seat, names.get(member, member), token)
            except TableError as refusal:
                # Filled meanwhile by another request: the seat is the night's already.
                if refusal.status != 409:
                    raise

    async def take_seat(self, table_id: str, seat: int, member: str) -> str | None:
        """A night's table: the member's own seat given to them with a fresh token (the
        token); 403 for a seat that is not theirs. None: not a night's table."""
        found = await self.store.night_of_table(table_id)
        if found is None:
            return None
        night, number, position = found
        seats = night.schedule[number - 1]["tables"][position]["seats"]
        if not 0 <= seat < len(seats):
            raise NightRefused(404, "No such seat at this table.")
        if seats[seat] != member:
            raise NightRefused(403, "That seat is kept for another player of the night.")
        _club, names, _removed = await self.store.names(night.club_id)
        token = new_token()
        await self.clubs.seat_member(table_id, member, hash_token(token))
        try:
            await self.hub.hand_over_seat(table_id, seat, names.get(member, member), token)
        except Exception:
            await self.clubs.unseat_member(table_id, hash_token(token))
            raise
        return token

    async def add_members(self, night: NightRecord, members: list[str]) -> ClubNight:
        """Late arrivals: the rounds not yet started are scheduled again with them."""
        if night.ended:
            raise NightRefused(409, "This night is over.")
        if any(member in night.members for member in members):
            raise NightRefused(409, "members: already in this night.")
        await self.check_members(night.club_id, members)
        everyone = [*night.members, *members]
        played = rounds_of(night)[: night.round]
        try:
            rounds_made = await asyncio.to_thread(
                schedule,
                everyone,
                night.rounds,
                fill_format(night),
                fill_of(night),
                night.seed,
                played,
            )
        except ValueError as invalid:
            raise NightRefused(422, f"members: {invalid}.") from None
        if not await self.store.reschedule(
            night.id, night.round, everyone, stored_schedule(rounds_made)
        ):
            raise NightRefused(409, "A round has just started: add them again.")
        return await self.read(await self.night(night.club_id, night.id))

    async def substitute(self, night: NightRecord, out: str, into: str) -> ClubNight:
        """`into` takes `out`'s place from the round being played on (their seat at once,
        a bot playing it until they come); in later rounds the two trade places."""
        if night.ended:
            raise NightRefused(409, "This night is over.")
        if out == into:
            raise NightRefused(422, "Choose two different members.")
        if out not in self.everyone(night):
            raise NightRefused(422, "out: that member is not in this night.")
        await self.check_members(night.club_id, [into])
        games = await self.store.games(night.id)
        going = night.round > 0 and not round_over(night.round, night.schedule, games)
        current = night.round if going else 0
        if current:
            playing = [m for t in night.schedule[current - 1]["tables"] for m in t["seats"]]
            if into in playing:
                raise NightRefused(409, "That member already plays at a table of this round.")
            if out not in playing:
                raise NightRefused(409, "That member does not play in this round.")
        first = current or night.round + 1
        swapped = [
            entry if entry["round"] < first else swap_in(entry, out, into)
            for entry in night.schedule
        ]
        members = list(night.members) + ([into] if into not in night.members else [])
        if not await self.store.reschedule(night.id, night.round, members, swapped):
            raise NightRefused(409, "A round has just started: try again.")
        if current:
            made = await self.store.tables(night.id)
            _club, names, _removed = await self.store.names(night.club_id)
            for position, table in enumerate(swapped[current - 1]["tables"]):
                if into in table["seats"] and (current, position) in made:
                    table_id = made[(current, position)]
                    token = new_token()
                    await self.clubs.seat_member(table_id, into, hash_token(token))
                    seat = table["seats"].index(into)
                    await self.hub.hand_over_seat(table_id, seat, names.get(into, into), token)
        return await self.read(await self.night(night.club_id, night.id))

    async def pause(self, night: NightRecord, paused: bool) -> ClubNight:
        if night.ended:
            raise NightRefused(409, "This night is over.")
        await self.store.set_paused(night.id, paused)
        return await self.read(await self.night(night.club_id, night.id))

    async def end(self, night: NightRecord) -> ClubNight:
        """The night ends now: the games still being played stop (never rated)."""
        if night.ended:
            raise NightRefused(409, "This night is already over.")
        await self.store.end(night.id)
        for game in await self.store.games(night.id):
            if not game.finished and game.status != "ended":
                try:
                    await self.hub.close_table(game.table_id)
                except TableError:
                    continue
        return await self.read(await self.night(night.club_id, night.id))


def seat_of(member: str | None, night: NightRecord, shown: list[NightRound]) -> NightSeat | None:
    """Where `member` sits in the round being played, if anywhere."""
    if member is None or night.round == 0 or night.ended:
        return None
    for table in shown[night.round - 1]["tables"]:
        if member in table["seats"]:
            return NightSeat(
                round=night.round, table=table.get("table"), seat=table["seats"].index(member)
            )
    return None


def being_made(night: NightRecord) -> bool:
    """Whether the round being played was started so recently that the request which
    started it may still be making its tables (not a process that stopped midway)."""
    started = night.round_started
    return started is not None and utcnow() - started < timedelta(seconds=ROUND_MAKING_SECONDS)


def complete(night: NightRecord, games: Sequence[NightGame]) -> bool:
    """Whether every table of the round being played was made and filled."""
    made = [game for game in games if game.round == night.round]
    expected = len(night.schedule[night.round - 1]["tables"])
    return len(made) == expected and all(game.status != "waiting" for game in made)


def current_tables(night: NightRecord, games: Sequence[NightGame]) -> list[str]:
    return [game.table_id for game in games if game.round == night.round]


def swap_in(entry: NightRound, out: str, into: str) -> NightRound:
    def trade(member: str | None) -> str | None:
        return into if member == out else out if member == into else member

    return NightRound(
        round=entry["round"],
        tables=[NightTable(seats=[trade(m) for m in t["seats"]]) for t in entry["tables"]],
        sitting_out=[m for m in (trade(m) for m in entry["sitting_out"]) if m is not None],
    )


def fill_format(night: NightRecord) -> Format:
    return "pairs" if night.format == "pairs" else "rotating"


def fill_of(night: NightRecord) -> Fill:
    return "bots" if night.fill == "bots" else "sit_out"


def reason(invalid: ValueError) -> str:
    """A refused rule as one readable line naming each field."""
    return rule_errors(invalid) if isinstance(invalid, ValidationError) else str(invalid)
