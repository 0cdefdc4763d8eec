// A club night's page (/c/{club}/night/{night}) and its standings board (the same page
// opened from the night's watch link, or at …/standings: for the room's screen or a
// phone): the round, the standings, the round's tables to watch and the night's rounds,
// read again every few seconds. A member's page follows them: when a round starts it
// takes their seat with their member token and opens their table; the table page brings
// them back here when the game is over (night-follow.js), for the break and the
// standings. The board never moves. The host's controls come from night-host.js.
// Tokens are the club page's (localStorage spades.club.<club id>), or the watch link's
// (spades.night.<night id>), arriving in the URL fragment.

import "/static/comfort.js";
import { api, el, patch, remembered, setText } from "/static/dom.js";
import { linkField, seatKey, showLinkDialog } from "/static/links.js";
import { nightPath, rememberNightTable } from "/static/night-follow.js";
import { renderNightHost } from "/static/night-host.js";
import { seatPosition } from "/static/seating.js";

const POLL_MS = 3000;
const [clubId = "", nightId = "", mode = ""] = window.location.pathname.split("/").slice(2)
  .filter((_, index) => index !== 1).map(decodeURIComponent);
const clubKey = `spades.club.${clubId}`;
const nightKey = `spades.night.${nightId}`;
const $ = (id) => document.getElementById(id);

const state = {
  board: mode === "standings",
  /** @type {import('./protocol-types.js').ClubNight | import('./protocol-types.js').NightWatch | null} */
  night: null,
  you: null, // the member this browser is (from the club page's answer)
  clubName: null,
  members: [], // the club's members, for the host's substitutes and late arrivals
  /** Each table of the round being played, as anyone may see it (GET /api/tables/{id}). */
  tables: new Map(),
  seenRound: null, // the round when this page first read the night
  leaving: false, // on the way to a table
  refused: null, // a table whose seat was refused: not tried again by itself
  said: null, // the standings the live region last spoke of
  polling: false,
};

const clubHeld = () => remembered.get(clubKey, {}) || {};
const watchToken = () => remembered.get(nightKey, {})?.watch ?? null;

/**
 * Read `#member=…`, `#host=…` (kept as the club page keeps them) or `#watch=…` (the
 * standings board's link) once; clear the address bar. The watch link opens the board.
 */
function readFragment() {
  const hash = window.location.hash.replace(/^#/, "");
  if (!hash) return;
  const found = new URLSearchParams(hash);
  const more = {};
  for (const name of ["member", "host"]) {
    if (found.get(name)) more[name] = found.get(name);
  }
  if (Object.keys(more).length) remembered.set(clubKey, { ...clubHeld(), ...more });
  let path = window.location.pathname;
  if (found.get("watch")) {
    remembered.set(nightKey, { watch: found.get("watch") });
    state.board = true;
    if (mode !== "standings") path = `${nightPath(clubId, nightId)}/standings`;
  }
  window.history.replaceState(null, "", path);
}

/** The token the night is read with: a member's or the host's, else the watch link's. */
function reader() {
  const held = clubHeld();
  if (held.member || held.host) return { token: held.member || held.host };
  const watch = watchToken();
  return watch ? { watch } : null;
}

const you = () => (state.board ? null : state.you);

function nameOf(id) {
  if (id === null) return "Bot";
  return state.night?.names?.[id] ?? "a member";
}

const who = (id) => (id !== null && id === you() ? "you" : nameOf(id));

/** A round of the night's schedule: {round, tables: [{seats, table}], sitting_out}. */
function roundOf(number) {
  return state.night?.schedule.find((round) => round.round === number) ?? null;
}

/** Where a member sits in a round: {table (its place in the round), seat, id (once made)}. */
function placeOf(member, number) {
  const round = roundOf(number);
  if (!round || member === null) return null;
  for (const [table, { seats, table: id }] of round.tables.entries()) {
    const seat = seats.indexOf(member);
    if (seat >= 0) return { table, seat, id: id ?? null };
  }
  return null;
}

const tableLabel = (index) => `Table ${index + 1}`;

/** "Ann & Cy against Bo & Bot": the table's sides (partners sit across). */
function sidesWords(seats) {
  if (seats.length !== 4) return seats.map(who).join(", ");
  return `${who(seats[0])} & ${who(seats[2])} against ${who(seats[1])} & ${who(seats[3])}`;
}

const PLACES = { left: "on your left", top: "across", right: "on your right" };

/** "Table 2: your partner Bo across, Cy on your left, a bot on your right." */
function seatWords(place, seats) {
  const others = seats.map((member, seat) => [member, seat]).filter(([, seat]) => seat !== place.seat)
    .map(([member, seat]) => {
      const where = PLACES[seatPosition(seat, seats.length, place.seat)];
      const partner = seats.length === 4 && where === "across" ? "your partner " : "";
      return `${partner}${member === null ? "a bot" : nameOf(member)} ${where}`;
    });
  return `${tableLabel(place.table)}: ${others.join(", ")}.`;
}

/** A table's status: the night's own word for it, else what the table said last. */
function statusOf(id) {
  for (const round of state.night.schedule) {
    const found = round.tables.find((table) => table.table === id);
    if (found?.status) return found.status;
  }
  return state.tables.get(id)?.status ?? null;
}

const over = (id) => ["over", "ended"].includes(statusOf(id));

/** Whether every table of the round being played has finished its game. */
function roundDone() {
  const { night } = state;
  return night.round > 0 && night.tables.length > 0 && night.tables.every(over);
}

function statusWords() {
  const { night } = state;
  const { rounds } = night;
  if (night.status === "over") {
    return night.ended ? "The host ended the night: the final standings." : "The night is over: the final standings.";
  }
  const paused = night.paused ? " The host paused the night." : "";
  if (night.round === 0) return `${rounds} round${rounds === 1 ? "" : "s"} tonight. Round 1 starts when the host says so.${paused}`;
  if (roundDone()) {
    return `Round ${night.round} of ${rounds} is over: a short break. Round ${night.round + 1} starts when the host says so.${paused}`;
  }
  return `Round ${night.round} of ${rounds} is being played.${paused}`;
}

async function goToSeat(place) {
  if (state.leaving) return;
  state.leaving = true;
  $("night-error").textContent = "";
  try {
    /** @type {import('./protocol-types.js').SeatTaken} */
    const answer = await api(`/api/tables/${encodeURIComponent(place.id)}/seats/${place.seat}`, {
      method: "POST", body: { name: nameOf(you()).slice(0, 32), member_token: clubHeld().member },
    });
    remembered.set(seatKey(place.id), { seat: answer.seat, token: answer.token });
    rememberNightTable(place.id, clubId, nightId);
    window.location.assign(`/t/${encodeURIComponent(place.id)}`);
  } catch (failure) {
    state.leaving = false;
    state.refused = place.id;
    $("night-error").textContent = failure.message;
  }
}

/**
 * A member's page goes to their seat by itself when a round starts while it is open,
 * or when it opens on a round whose table they have not been to yet; back from a table
 * whose game still runs, it offers the way back instead.
 */
function follow() {
  const { night } = state;
  if (!you() || night.status !== "playing") return;
  const place = placeOf(you(), night.round);
  if (!place?.id || state.refused === place.id) return;
  if (statusOf(place.id) === null || over(place.id)) return;
  if (remembered.get(seatKey(place.id)) && state.seenRound === night.round) return;
  goToSeat(place);
}

function renderYou() {
  const box = $("night-you");
  const { night } = state;
  const member = you();
  box.hidden = member === null || !night.schedule.some((round) =>
    round.sitting_out.includes(member) || round.tables.some((table) => table.seats.includes(member)));
  if (box.hidden) return;
  const now = placeOf(member, night.round);
  const playing = night.status === "playing" && now?.id && !over(now.id);
  const next = night.status !== "over" && !playing ? night.round + 1 : null;
  const lines = [];
  if (playing) {
    lines.push(el("p", { key: "now" }, el("strong", {}, `Round ${night.round}: `),
      seatWords(now, roundOf(night.round).tables[now.table].seats)));
    lines.push(el("button", { key: "go", type: "button", id: "go-seat", class: "primary", onclick: () => goToSeat(now) },
      state.leaving ? "Taking your seat…" : "Go to your seat"));
  } else if (night.status === "playing" && night.round > 0 && !now) {
    lines.push(el("p", { key: "out" }, `You sit out round ${night.round}.`));
  }
  if (next !== null && roundOf(next)) {
    const then = placeOf(member, next);
    lines.push(el("p", { key: "next", id: "night-next-seat" }, el("strong", {}, `Round ${next}: `),
      then ? seatWords(then, roundOf(next).tables[then.table].seats) : "you sit out."));
  }
  if (night.status === "over") {
    const row = night.standings.find((standing) => standing.member === member);
    lines.push(el("p", { key: "end" }, row ? `You finished ${ordinal(row.place)}. Thanks for playing!` : "Thanks for playing!"));
  }
  patch(box, el("h2", { key: "title" }, "Your seat"), lines);
}

function ordinal(place) {
  const teen = place % 100 >= 11 && place % 100 <= 13;
  return `${place}${teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[place % 10] ?? "th")}`;
}

function renderStandings() {
  const rows = state.night.standings;
  const live = state.night.status === "playing" && !roundDone();
  const placed = rows.map((row, index) => ({ ...row, shared: rows.some((other, at) => at !== index && other.place === row.place) }));
  patch($("standings").querySelector("tbody"), placed.map((row) =>
    el("tr", { key: row.member, dataset: { member: row.member }, class: row.member === you() ? "you" : null },
      el("td", {}, row.shared ? `=${row.place}` : String(row.place)),
      el("th", { scope: "row" }, row.name, row.member === you() ? " (you)" : ""),
      el("td", { class: "points" }, String(row.points)),
      el("td", {}, String(row.wins)),
      el("td", {}, String(row.games)),
      el("td", {}, `${row.contracts_made} of ${row.contracts}`),
      el("td", { class: "live" }, live && row.live_points !== row.points ? signed(row.live_points - row.points) : "—"))));
  // Said once for each change: the first three, so a listener hears who leads.
  const heard = JSON.stringify(rows.map((row) => [row.member, row.place, row.points, row.live_points, row.wins]));
  if (state.said !== null && heard !== state.said) {
    const top = rows.slice(0, 3).map((row) => `${ordinal(row.place)} ${row.name}, ${row.points} points`);
    setText($("standings-news"), `Standings updated: ${top.join("; ")}.`);
  }
  state.said = heard;
}

const signed = (value) => (value > 0 ? `+${value}` : String(value));

function tableStatus(id) {
  const status = statusOf(id);
  const info = state.tables.get(id);
  const score = info?.scores.map((side) => side.score).join(" to ") ?? "";
  if (status === "waiting") return "waiting for players";
  if (status === "ended") return "ended by the host";
  if (status === "over") return `game over${score ? `, ${score}` : ""}`;
  if (status === "playing") return `hand ${(info?.hands_played ?? 0) + 1}${score ? `, ${score}` : ""}`;
  return "";
}

function renderTables() {
  const { night } = state;
  const round = roundOf(night.round);
  setText($("tables-title"), night.round ? `Round ${night.round}'s tables` : "Tables");
  const tables = round ? round.tables.filter((table) => table.table) : [];
  patch($("night-tables"), tables.length ? tables.map(({ seats, table: id }, index) => {
    const mine = you() !== null && seats.includes(you());
    return el("li", { key: id, class: "table-row night-table", dataset: { table: id } },
      el("div", { class: "table-row-text" },
        el("strong", {}, tableLabel(index)),
        el("span", {}, sidesWords(seats)),
        el("span", { class: "muted table-state" }, tableStatus(id))),
      el("a", {
        class: "button watch", href: `/t/${encodeURIComponent(id)}`,
        "aria-label": `${mine ? "Your table" : "Watch"}: ${tableLabel(index)}`,
      }, mine ? "Your table" : "Watch"));
  }) : el("li", { class: "muted" }, "No round has started yet."));
  patch($("night-schedule"), night.schedule.map((scheduled) =>
    el("li", { key: String(scheduled.round), class: scheduled.round === night.round ? "current" : null },
      el("strong", {}, `Round ${scheduled.round}${scheduled.round === night.round ? " (now)" : ""}`),
      el("ul", {},
        scheduled.tables.map((table, index) => el("li", {}, `${tableLabel(index)}: ${sidesWords(table.seats)}`)),
        scheduled.sitting_out.length
          ? el("li", {}, `Sitting out: ${scheduled.sitting_out.map(who).join(", ")}`) : null))));
}

/** The standings board's link: the night's watch link, on the board's own path. */
function boardLink() {
  const url = state.night.watch_url ? new URL(state.night.watch_url, window.location.origin) : null;
  return `${window.location.origin}${nightPath(clubId, nightId)}/standings${url?.hash ?? ""}`;
}

function renderLinks() {
  const box = $("night-links");
  box.hidden = state.board;
  if (state.board) return;
  const link = boardLink();
  patch(box,
    el("h2", { key: "title" }, "The standings for everyone"),
    el("p", { key: "about", class: "muted" }, "For the room's screen or anyone's phone: the standings as they change, and every table to watch."),
    linkField("night-watch-link", "Standings link", link),
    el("div", { key: "buttons", class: "night-link-buttons" },
      el("a", { class: "button", href: link, id: "open-board" }, "Open the standings"),
      el("button", {
        type: "button", class: "qr-button",
        onclick: () => showLinkDialog($("link-dialog"), {
          title: "The night's standings", text: "Scan to follow the standings and watch any table.", link,
        }),
      }, "Show its QR code")));
}

function render() {
  const { night } = state;
  const club = state.clubName ?? night.club_name;
  const title = `${club ? `${club}: ` : ""}club night${state.board ? " standings" : ""}`;
  document.body.classList.toggle("night-board", state.board);
  document.title = `Spades — ${title}`;
  setText($("night-title"), title.charAt(0).toUpperCase() + title.slice(1));
  setText($("night-status"), statusWords());
  $("club-link").hidden = state.board && !clubHeld().member && !clubHeld().host;
  renderYou();
  renderStandings();
  renderTables();
  renderLinks();
  const host = $("night-host");
  host.hidden = state.board || !clubHeld().host;
  if (!host.hidden) {
    renderNightHost(host, {
      clubId, night, members: state.members, hostToken: clubHeld().host, roundDone: roundDone(), refresh: poll,
      showError: (text) => { $("night-error").textContent = text; },
    });
  }
}

/** The round's tables as anyone may see them (the scores and hands for the list). */
async function readTables() {
  const ids = state.night.tables;
  const answers = await Promise.all(ids.map((id) =>
    api(`/api/tables/${encodeURIComponent(id)}`).catch(() => state.tables.get(id) ?? null)));
  state.tables = new Map(ids.map((id, index) => [id, answers[index]]));
}

async function readNight(how) {
  if (how.token) {
    return api(`/api/clubs/${encodeURIComponent(clubId)}/nights/${encodeURIComponent(nightId)}`, { token: how.token });
  }
  return api(`/api/nights/${encodeURIComponent(nightId)}/watch`, { token: how.watch });
}

async function poll() {
  // A page nobody looks at asks nothing; it asks at once when it is seen again.
  if (state.polling || document.hidden) return;
  const how = reader();
  if (!how) {
    setText($("night-status"), "This night is private: open it from the club page, or with the night's standings link.");
    return;
  }
  state.polling = true;
  try {
    state.night = await readNight(how);
    if (how.token && state.clubName === null) {
      /** @type {import('./protocol-types.js').ClubPage} */
      const club = await api(`/api/clubs/${encodeURIComponent(clubId)}`, { token: how.token });
      state.clubName = club.name;
      state.you = club.you;
      state.members = club.members;
    }
    state.seenRound ??= state.night.round;
    await readTables();
    $("night-error").textContent = "";
    render();
    follow();
  } catch (failure) {
    $("night-error").textContent = failure.message;
  } finally {
    state.polling = false;
  }
}

readFragment();
$("club-link").href = `/c/${encodeURIComponent(clubId)}`;
poll();
setInterval(poll, POLL_MS);
document.addEventListener("visibilitychange", poll);
