"""Table-change notices and bot claims between server processes.

After a process commits a change to a table it publishes `(table id, version)` on the
table's own channel; every other process that holds the table in memory (and so listens
there: `watch` on load, `unwatch` on drop) reloads it from the database and broadcasts
to its own sockets. A process hears nothing of the tables it does not hold, so a move
costs only the processes that serve its table, however many there are. Once a new
table's subscription is in place, `on_watched` lets the hub read its version again, for
a change made between loading it and listening.

A notice nobody else hears is not sent. With a table's sockets kept on one process (the
proxy's hash on its path), no other process usually listens on its channel: when the
count Redis answers to a publish says only this process heard it, the table is marked
*alone* and its next changes are not published. A process that starts to listen on a
table's channel greets it (a notice with `greet`); a holder that hears the greeting
unmarks the table and publishes its newest version at once, so the newcomer misses
nothing between its own reload and the holder's next publish. While the subscription is
broken no greeting can be heard, so every mark is dropped and every change published.
`LocalNotices` is the single-process case (nothing to tell anyone); `RedisNotices` uses
Redis pub/sub. The database stays the only source of truth: a lost notice only delays
an update until the next one. When the subscription breaks (Redis restarted, a network
blip) the listener subscribes again with back-off, and once it is back asks the hub to
reload every table it serves (`on_resync`), since notices sent meanwhile are gone.

A move never waits on Redis: `publish` only hands the notice to a sender task, which
sends what it holds (the newest version per table, so at most one notice a table waits)
in one pipeline, and while Redis does not take them tries again with back-off; the other
processes meanwhile read the versions from the database (server/realtime/sync.py). A
server starts even while Redis is down (`/readyz` says so); it catches up the same way.

On PostgreSQL the notices do not stop while Redis is down: the database's own channel
(`server.store.feed.DatabaseChannel`, LISTEN/NOTIFY) carries them instead. While its
subscription is broken a process listens there (and, once it does, reloads the tables
that changed meanwhile), and sends there what Redis does not take, so that a table split
across processes keeps its pace; once Redis is back, each process stops listening there
and reloads every table, as after any broken subscription.

Every process serving a table would drive its bots; `claim_bots` lets one process at a
time do it: a redis-py lock on the key `spades:bots:<table>` holding the process's id,
with an expiry that the driver renews before each bot action. A
process that dies stops renewing, the key expires and another process takes over. If
two processes ever drive at once (an expired claim, Redis down), the version check on
writes still lets only one action land.

Seat presence across processes: a player may have sockets on several processes at once
(two tabs, a reconnect sent elsewhere while the old socket is still closing). Each seat
has a sorted set `spades:presence:<table>:<seat>` with one member per process that holds
a socket for it, scored with the time (Redis's clock, in ms) at which the entry expires.
A process adds its entry when a socket for the seat opens, renews every entry it holds
(`renew_seats`) well before the expiry, and removes it when its last socket for the seat
closes. A process that dies stops renewing, so its entries stop counting at their expiry:
presence never depends on clean-up. A graceful stop leaves its entries to expire too: its
players, sent to reconnect (1012), reach another process meanwhile without showing away.
`LocalNotices` keeps nothing: one process knows all of its sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import structlog
from redis.asyncio.lock import Lock
from redis.exceptions import LockNotOwnedError

from server.observability import TABLE_NOTICES
from server.store.feed import DatabaseChannel

log = structlog.get_logger(__name__)

# Every process listens here (a notice for any table); a table's notices go to its own.
CHANNEL = "spades:table-changed"
TABLE_CHANNEL = CHANNEL + ":{}"
BOT_CLAIM_KEY = "spades:bots:{}"
PRESENCE_KEY = "spades:presence:{}:{}"

# Redis's clock in ms, so that the processes' own clocks never have to agree.
_NOW = """
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
"""
# Add or renew this process's entry in every seat's set (ARGV: origin, ms to live); drop
# the expired entries of dead processes; each key lives as long as its latest entry.
_RENEW = (
    _NOW
    + """
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[2]), ARGV[1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  redis.call('PEXPIREAT', key, last[2])
end
return #KEYS
"""
)
# Remove this process's entry; answer how many live processes still hold the seat.
_CLOSE = (
    _NOW
    + """
redis.call('ZREM', KEYS[1], ARGV[1])
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
"""
)
# How many live processes hold each seat.
_HELD = (
    _NOW
    + """
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('ZCOUNT', key, '(' .. now, '+inf')
end
return counts
"""
)

OnChange = Callable[[str, int], Awaitable[None]]
OnResync = Callable[[], Awaitable[None]]
OnWatched = Callable[[list[str]], Awaitable[None]]
# Back-off between attempts to subscribe again, in seconds.
RESUBSCRIBE_FIRST, RESUBSCRIBE_MAX = 0.2, 5.0
# How long closing waits for the listener to wind up, and for the notices still unsent.
CLOSE_SECONDS = 5.0
FLUSH_SECONDS = 1.0
# A command to a Redis that stopped answering fails after this long (presence, bot claims,
# greetings; never a move, whose notice the sender sends).
COMMAND_SECONDS = 2.0
Seat = tuple[str, int]


class TableNotices(Protocol):
    @property
    def listening(self) -> bool:
        """Whether other processes' notices reach this one now (False while they cannot:
        the hub then reads the versions of its tables from the database instead)."""
        ...

    async def publish(self, table_id: str, version: int) -> None: ...

    async def start(self, on_change: OnChange, on_resync: OnResync, on_watched: OnWatched) -> None:
        """Call `on_change` for every other process's notice of a watched table;
        `on_resync` when notices may have been missed (the subscription broke and is
        back); `on_watched` with tables whose notices have just begun to arrive."""
        ...

    def watch(self, table_id: str) -> None:
        """This process holds the table now: hear its notices (from a moment later)."""
        ...

    def unwatch(self, table_id: str) -> None:
        """This process no longer holds the table."""
        ...

    async def close(self) -> None: ...

    async def claim_bots(self, table_id: str, seconds: float) -> bool:
        """Whether this process may drive the table's bots for the next `seconds`."""
        ...

    async def release_bots(self, table_id: str) -> None: ...

    async def renew_seats(self, seats: list[Seat], seconds: float) -> None:
        """This process holds a socket for each `(table id, seat)`: count it as present
        there for the next `seconds` (a socket that opens, and the periodic renewal)."""
        ...

    async def seat_closed(self, table_id: str, seat: int) -> int | None:
        """This process's last socket for the seat closed: how many live processes still
        hold one, or None when nobody can tell (no Redis, Redis down)."""
        ...

    async def seats_held(self, seats: list[Seat]) -> list[int] | None:
        """How many live processes hold a socket for each seat; None when nobody can tell."""
        ...


class LocalNotices:
    """One process: every socket is ours, there is nobody to notify."""

    listening = True

    async def publish(self, table_id: str, version: int) -> None:
        return None

    async def claim_bots(self, table_id: str, seconds: float) -> bool:
        return True

    async def release_bots(self, table_id: str) -> None:
        return None

    async def renew_seats(self, seats: list[Seat], seconds: float) -> None:
        return None

    async def seat_closed(self, table_id: str, seat: int) -> int | None:
        return None

    async def seats_held(self, seats: list[Seat]) -> list[int] | None:
        return None

    async def start(self, on_change: OnChange, on_resync: OnResync, on_watched: OnWatched) -> None:
        return None

    def watch(self, table_id: str) -> None:
        return None

    def unwatch(self, table_id: str) -> None:
        return None

    async def close(self) -> None:
        return None


class RedisNotices:
    """Redis pub/sub on one channel; a process ignores its own notices. `listener`, the
    client the subscription uses, must not retry by itself (`from_url` makes one): a
    client that reconnects and subscribes again silently hides that notices were missed,
    and that greetings were not heard."""

    def __init__(
        self, redis: Any, listener: Any = None, fallback: DatabaseChannel | None = None
    ) -> None:
        self.redis = redis
        self.fallback = fallback
        self.listener = listener if listener is not None else redis
        self.origin = secrets.token_hex(8)
        self._task: asyncio.Task[None] | None = None
        self._pubsub: Any = None
        # Notices handed over and not sent yet: table id -> newest version. The sender
        # sends them; `_sent` is set whenever it has nothing left to send.
        self._unsent: dict[str, int] = {}
        self._sender: asyncio.Task[None] | None = None
        self._sent = asyncio.Event()
        self._sent.set()
        # The bot claims this process holds or tried to take, by table id.
        self._bot_claims: dict[str, Lock] = {}
        # Whether the Redis subscription is in place, and whether the database's channel
        # is heard instead (`fallback`, while it is not).
        self._subscription_up = False
        self._fallback_heard = False
        self._fallback_task: asyncio.Task[None] | None = None
        # The tables this process holds, and those whose channels the subscription in
        # use listens to; `_resubscribe` brings the second to the first.
        self._watched: set[str] = set()
        self._subscribed: set[str] = set()
        self._changed = asyncio.Event()
        self._subscriber: asyncio.Task[None] | None = None
        # Tables whose last notice only this process heard, with no greeting since: their
        # changes are not published. `_epoch` counts greetings and subscription changes,
        # so that a publish's answer marks a table only if neither came while it was out.
        self._alone: set[str] = set()
        self._epoch = 0
        # The newest version of each watched table this process has committed, published
        # or not: what a greeting is answered with.
        self._newest: dict[str, int] = {}

    @property
    def listening(self) -> bool:
        """Whether other processes' notices reach this one now: through Redis, or through
        the database's channel while Redis is down."""
        return self._subscription_up or self._fallback_heard

    @classmethod
    def from_url(cls, url: str, fallback: DatabaseChannel | None = None) -> RedisNotices:
        """Notices through the Redis at `url`: a client for commands, and one for the
        subscription that gives up at the first broken connection; through `fallback`
        while Redis is down."""
        from redis.asyncio import Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        # A Redis that cannot be reached, or stops answering, must fail fast: commands
        # are tried once more at once (a pooled connection Redis closed), never after a
        # back-off of redis-py's own.
        return cls(
            Redis.from_url(
                url,
                socket_connect_timeout=COMMAND_SECONDS,
                socket_timeout=COMMAND_SECONDS,
                retry=Retry(NoBackoff(), 1),
            ),
            Redis.from_url(url, socket_connect_timeout=2, retry=Retry(NoBackoff(), 0)),
            fallback,
        )

    async def publish(self, table_id: str, version: int) -> None:
        """Hand the notice of a committed change to the sender; nothing here waits on
        Redis (the table's other processes hear of it once Redis takes it, and read it
        from the database while it does not)."""
        if table_id in self._watched:
            self._newest[table_id] = version
        if table_id in self._alone and self._subscription_up:
            TABLE_NOTICES.labels("unheard").inc()
            return
        self._unsent[table_id] = max(version, self._unsent.get(table_id, 0))
        self._sent.clear()
        if self._sender is None or self._sender.done():
            self._sender = asyncio.create_task(self._send_unsent())

    async def flush(self, timeout: float) -> bool:
        """Wait, at most `timeout` seconds, until every notice handed over has been sent;
        whether it was."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._sent.wait()
        return self._sent.is_set()

    async def _send_unsent(self) -> None:
        """Send the notices handed over, all those waiting in one pipeline, until none is
        left; while Redis does not take them, through the database's channel, or (none)
        again with back-off (a newer version handed over meanwhile replaces a table's
        older one). Redis is not tried while the subscription is broken and the channel
        is there: every process is listening on the channel then, or soon will be, and
        reloads every table once Redis is back."""
        delay = RESUBSCRIBE_FIRST
        while self._unsent:
            batch, self._unsent = self._unsent, {}
            try:
                if self.fallback is not None and not self._subscription_up:
                    await self._send_by_database(batch)
                else:
                    await self._send(batch)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("table notices not sent", tables=len(batch), error=repr(error))
                if self.fallback is not None and self._subscription_up:
                    with contextlib.suppress(Exception):
                        await self._send_by_database(batch)
                        continue
                for table_id, version in batch.items():
                    self._unsent[table_id] = max(version, self._unsent.get(table_id, 0))
                await asyncio.sleep(delay)
                delay = min(delay * 2, RESUBSCRIBE_MAX)
                continue
            delay = RESUBSCRIBE_FIRST
        self._sent.set()

    async def _send(self, batch: dict[str, int]) -> None:
        """PUBLISH each table's notice. A table whose notice only this process heard (its
        own subscription counts once it is in place) is marked alone: nobody else needs
        its notices until a greeting says otherwise."""
        epoch = self._epoch
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id, version in batch.items():
                pipe.publish(TABLE_CHANNEL.format(table_id), self._notice_text(table_id, version))
            answers = await pipe.execute()
        TABLE_NOTICES.labels("sent").inc(len(batch))
        for table_id, heard in zip(batch, answers, strict=True):
            if (
                int(heard) <= 1
                and epoch == self._epoch
                and self._subscription_up
                and table_id in self._subscribed
                and table_id in self._watched
            ):
                self._alone.add(table_id)

    def _notice_text(self, table_id: str, version: int) -> str:
        return json.dumps({"id": table_id, "version": version, "origin": self.origin})

    async def _send_by_database(self, batch: dict[str, int]) -> None:
        assert self.fallback is not None
        await self.fallback.notify([self._notice_text(t, v) for t, v in batch.items()])
        TABLE_NOTICES.labels("database").inc(len(batch))

    async def _hear_database(self, on_change: OnChange, on_resync: OnResync) -> None:
        """While the subscription is broken: hear the notices on the database's channel
        (trying again every few seconds if it cannot be listened to). Once listening, the
        tables served are read again, for what changed between Redis going and now."""
        assert self.fallback is not None
        delay = RESUBSCRIBE_FIRST
        while True:
            try:
                async with self.fallback.listen() as heard:
                    self._fallback_heard = True
                    log.info("table notices through the database while redis is down")
                    await on_resync()
                    delay = RESUBSCRIBE_FIRST
                    while True:
                        await self._notice(await heard.get(), on_change)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("database notices not heard", error=repr(error))
            finally:
                self._fallback_heard = False
            await asyncio.sleep(delay)
            delay = min(delay * 2, RESUBSCRIBE_MAX)

    async def _greet(self, tables: list[str]) -> None:
        """Tell the processes holding `tables` that this one listens there now, with the
        newest version of each that this process committed, if any (after a broken
        subscription, a notice it sent may have been skipped for one no longer heard)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for table_id in tables:
                greeting: dict[str, object] = {"id": table_id, "greet": True, "origin": self.origin}
                if table_id in self._newest:
                    greeting["version"] = self._newest[table_id]
                pipe.publish(TABLE_CHANNEL.format(table_id), json.dumps(greeting))
            await pipe.execute()

    async def _greeted(self, table_id: str) -> None:
        """Another process listens on the table now: publish its changes again, starting
        with the newest, which that process may have missed."""
        self._epoch += 1
        self._alone.discard(table_id)
        newest = self._newest.get(table_id)
        if newest is not None:
            await self.publish(table_id, newest)

    def watch(self, table_id: str) -> None:
        self._watched.add(table_id)
        self._changed.set()

    def unwatch(self, table_id: str) -> None:
        self._watched.discard(table_id)
        self._alone.discard(table_id)
        self._newest.pop(table_id, None)
        self._changed.set()

    async def _resubscribe(self, on_watched: OnWatched) -> None:
        """For ever: subscribe the subscription in use to the tables watched since, and
        unsubscribe it from those dropped. A failure is left to the listener, which
        subscribes a new subscription to every watched table."""
        while True:
            await self._changed.wait()
            self._changed.clear()
            pubsub = self._pubsub
            if not self._subscription_up or pubsub is None:
                continue
            new = sorted(self._watched - self._subscribed)
            gone = sorted(self._subscribed - self._watched)
            try:
                if new:
                    await pubsub.subscribe(*(TABLE_CHANNEL.format(t) for t in new))
                    await self._greet(new)
                if gone:
                    await pubsub.unsubscribe(*(TABLE_CHANNEL.format(t) for t in gone))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("redis subscription not changed", tables=len(new) + len(gone))
                continue
            if self._pubsub is not pubsub:  # the listener made a new one meanwhile
                self._changed.set()
                continue
            self._subscribed = (self._subscribed | set(new)) - set(gone)
            if new:
                await on_watched(new)

    async def claim_bots(self, table_id: str, seconds: float) -> bool:
        claim = self._bot_claims.get(table_id)
        if claim is None:
            claim = self._bot_claims[table_id] = self.redis.lock(
                BOT_CLAIM_KEY.format(table_id),
                blocking=False,
                thread_local=False,
                raise_on_release_error=False,
            )
        claim.timeout = seconds
        try:
            if claim.local.token is not None:  # ours unless it expired: renew it
                with contextlib.suppress(LockNotOwnedError):
                    return bool(await claim.reacquire())
                claim.local.token = None
            return bool(await claim.acquire(token=self.origin))
        except Exception:  # without Redis, drive anyway: the version check keeps it safe
            log.warning("redis bot claim failed", table=table_id)
            return True

    async def release_bots(self, table_id: str) -> None:
        claim = self._bot_claims.pop(table_id, None)
        if claim is None or claim.local.token is None:
            return
        try:
            await claim.release()  # only if still ours: it may have expired and gone on
        except Exception:  # the claim expires by itself
            log.warning("redis bot release failed", table=table_id)

    async def renew_seats(self, seats: list[Seat], seconds: float) -> None:
        keys = [PRESENCE_KEY.format(table_id, seat) for table_id, seat in seats]
        if not keys:
            return
        try:
            await self.redis.eval(_RENEW, len(keys), *keys, self.origin, int(seconds * 1000))
        except Exception:  # the next renewal tries again; until then others may see away
            log.warning("redis presence renewal failed", seats=len(keys))

    async def seat_closed(self, table_id: str, seat: int) -> int | None:
        key = PRESENCE_KEY.format(table_id, seat)
        try:
            return int(await self.redis.eval(_CLOSE, 1, key, self.origin))
        except Exception:
            log.warning("redis presence update failed", table=table_id, seat=seat)
            return None

    async def seats_held(self, seats: list[Seat]) -> list[int] | None:
        if not seats:
            return []
        keys = [PRESENCE_KEY.format(table_id, seat) for table_id, seat in seats]
        try:
            return [int(count) for count in await self.redis.eval(_HELD, len(keys), *keys)]
        except Exception:
            log.warning("redis presence read failed", seats=len(keys))
            return None

    async def start(self, on_change: OnChange, on_resync: OnResync, on_watched: OnWatched) -> None:
        """Subscribe in the background; return once the first attempt has succeeded or
        failed (a failure is retried: the server starts without Redis)."""
        first_attempt = asyncio.Event()
        self._task = asyncio.create_task(
            self._listen(on_change, on_resync, on_watched, first_attempt)
        )
        self._subscriber = asyncio.create_task(self._resubscribe(on_watched))
        await first_attempt.wait()

    async def _listen(
        self,
        on_change: OnChange,
        on_resync: OnResync,
        on_watched: OnWatched,
        first_attempt: asyncio.Event,
    ) -> None:
        """Subscribe and pass notices on, for ever: a broken subscription is made again,
        to every table watched then."""
        delay = RESUBSCRIBE_FIRST
        missed = False
        while True:
            self._pubsub = pubsub = self.listener.pubsub()
            try:
                watched = sorted(self._watched)
                await pubsub.subscribe(CHANNEL, *(TABLE_CHANNEL.format(t) for t in watched))
                if watched:
                    await self._greet(watched)
                self._subscribed = set(watched)
                self._epoch += 1
                self._subscription_up = True
                await self._stop_hearing_database()
                self._changed.set()  # tables watched while subscribing
                first_attempt.set()
                if missed:
                    log.info("redis notices resumed; reloading served tables")
                    missed = False
                    await on_resync()
                elif watched:
                    await on_watched(watched)
                delay = RESUBSCRIBE_FIRST
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        await self._notice(message["data"], on_change)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("redis notices lost; subscribing again", error=repr(error))
            finally:
                # Greetings may be missed from now on: every table is published again.
                self._subscription_up = False
                self._alone.clear()
                self._epoch += 1
                first_attempt.set()
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            missed = True
            if self.fallback is not None and self._fallback_task is None:
                self._fallback_task = asyncio.create_task(self._hear_database(on_change, on_resync))
            await asyncio.sleep(delay)
            delay = min(delay * 2, RESUBSCRIBE_MAX)

    async def _stop_hearing_database(self) -> None:
        task, self._fallback_task = self._fallback_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _notice(self, data: Any, on_change: OnChange) -> None:
        try:
            notice = json.loads(data)
            if notice["origin"] == self.origin:
                return
            if notice.get("greet"):
                await self._greeted(str(notice["id"]))
                if "version" not in notice:
                    return
            await on_change(str(notice["id"]), int(notice["version"]))
        except Exception:
            log.exception("table notice failed")

    async def close(self) -> None:
        """Stop listening and sending; bounded, so that a Redis gone silent never holds
        up a server's stop."""
        if self.listening:  # the last changes' notices, if they are taken at once
            await self.flush(FLUSH_SECONDS)
        await self._stop_hearing_database()
        tasks = [t for t in (self._task, self._sender, self._subscriber) if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=CLOSE_SECONDS)
        if self.listener is not self.redis:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_SECONDS):
                    await self.listener.aclose()
