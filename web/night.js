// A club night's page (/c/{club}/n/{night}) and its standings board
// (/c/{club}/n/{night}/standings, for the room's screen or a phone): the round, the
// standings, the round's tables to watch and the night's rounds, read again every few
// seconds. A member's page follows them: when a round starts it takes their seat with
// their member token and opens their table; the table page brings them back here when
// the game is over (night-follow.js), for the break and the standings. The board never
// moves. The host's controls come from night-host.js. Tokens are the club page's
// (localStorage spades.club.<club id>), or arrive in the URL fragment.

import "/static/comfort.js";
import { api, el, patch, remembered, setText } from "/static/dom.js";
import { linkField, seatKey, showLinkDialog } from "/static/links.js";
import { nightPath, rememberNightTable } from "/static/night-follow.js";
import { renderNightHost } from "/static/night-host.js";
import { seatPosition } from "/static/seating.js";

const POLL_MS = 3000;
const [clubId = "", nightId = "", mode = ""] = window.location.pathname.split("/").slice(2)
  .filter((_, index) => index !== 1).map(decodeURIComponent);
const board = mode === "standings";
const clubKey = `spades.club.${clubId}`;
const $ = (id) => document.getElementById(id);

const state = {
  /** @type {import('./protocol-types.js').ClubNight | null} */
  night: null,
  /** @type {import('./protocol-types.js').ClubPage | null} */
  club: null,
  /** Each table of the round being played, as anyone may see it (GET /api/tables/{id}). */
  tables: new Map(),
  seenRound: null, // the round when this page first read the night
  leaving: false, // on the way to a table
  refused: null, // a table whose seat was refused: not tried again by itself
  said: null, // the standings the live region last spoke of
  polling: false,
};

function held() {
  return remembered.get(clubKey, {}) || {};
}

/** Read `#member=…`, `#host=…` or `#watch=…` once, keep them, clear the address bar. */
function readFragment() {
  const hash = window.location.hash.replace(/^#/, "");
  if (!hash) return;
  const found = new URLSearchParams(hash);
  const more = {};
  for (const name of ["member", "host"]) {
    if (found.get(name)) more[name] = found.get(name);
  }
  if (found.get("watch")) more.watch = { ...(held().watch || {}), [nightId]: found.get("watch") };
  remembered.set(clubKey, { ...held(), ...more });
  window.history.replaceState(null, "", window.location.pathname);
}

const watchToken = () => held().watch?.[nightId] ?? state.night?.watch ?? null;
const token = () => held().member || held().host || watchToken();
const you = () => (board ? null : state.club?.you ?? null);

function nameOf(id) {
  if (id === null) return "Bot";
  const named = state.night?.names?.[id] ?? state.club?.members.find((member) => member.id === id)?.name;
  return named ?? "a member";
}

const who = (id) => (id !== null && id === you() ? "you" : nameOf(id));

/** The night's rounds as scheduled: round number -> {tables: [{seats}], sitting_out}. */
function roundOf(number) {
  return state.night?.schedule.find((round) => round.round === number) ?? null;
}

/** Where a member sits in a round: {table (index), seat, id (the table's id or null)}. */
function placeOf(member, number) {
  const round = roundOf(number);
  if (!round || member === null) return null;
  for (const [table, { seats }] of round.tables.entries()) {
    const seat = seats.indexOf(member);
    if (seat >= 0) {
      const id = number === state.night.round ? state.night.tables[table] ?? null : null;
      return { table, seat, id };
    }
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

/** "Table 2: your partner Bo across, Cy on your left, Di on your right." */
function seatWords(place, seats) {
  const others = seats.map((member, seat) => [member, seat]).filter(([, seat]) => seat !== place.seat)
    .map(([member, seat]) => {
      const where = PLACES[seatPosition(seat, seats.length, place.seat)];
      const partner = seats.length === 4 && where === "across" ? "your partner " : "";
      return `${partner}${member === null ? "a bot" : nameOf(member)} ${where}`;
    });
  return `${tableLabel(place.table)}: ${others.join(", ")}.`;
}

const over = (info) => info?.status === "over" || info?.status === "ended";

/** Whether every table of the round being played has finished its game. */
function roundDone() {
  const { night } = state;
  return night.round > 0 && night.tables.length > 0 && night.tables.every((id) => over(state.tables.get(id)));
}

function statusWords() {
  const { night } = state;
  const rounds = night.schedule.length;
  if (night.status === "over") return "The night is over: the final standings.";
  if (night.status === "paused") return `The host paused the night after round ${night.round} of ${rounds}.`;
  if (night.round === 0) return `${rounds} round${rounds === 1 ? "" : "s"} tonight. Round 1 starts when the host says so.`;
  if (roundDone()) {
    return `Round ${night.round} of ${rounds} is over: a short break. Round ${night.round + 1} starts when the host says so.`;
  }
  return `Round ${night.round} of ${rounds} is being played.`;
}

async function goToSeat(place) {
  if (state.leaving) return;
  state.leaving = true;
  $("night-error").textContent = "";
  try {
    /** @type {import('./protocol-types.js').SeatTaken} */
    const answer = await api(`/api/tables/${encodeURIComponent(place.id)}/seats/${place.seat}`, {
      method: "POST", body: { name: nameOf(you()).slice(0, 32), member_token: held().member },
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
  if (board || !you() || night.status !== "playing") return;
  const place = placeOf(you(), night.round);
  if (!place?.id || state.refused === place.id) return;
  const info = state.tables.get(place.id);
  if (!info || over(info)) return;
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
  const playing = night.status === "playing" && now?.id && !over(state.tables.get(now.id));
  const next = night.status !== "over" && !playing ? night.round + 1 : null;
  const lines = [];
  if (playing) {
    lines.push(el("p", { key: "now" }, el("strong", {}, `Round ${night.round}: `), seatWords(now, roundOf(night.round).tables[now.table].seats)));
    lines.push(el("button", { key: "go", type: "button", class: "primary go-seat", onclick: () => goToSeat(now) },
      state.leaving ? "Taking your seat…" : "Go to your seat"));
  } else if (night.status === "playing" && night.round > 0 && !now) {
    lines.push(el("p", { key: "out" }, `You sit out round ${night.round}.`));
  }
  if (next !== null && roundOf(next)) {
    const then = placeOf(member, next);
    lines.push(el("p", { key: "next" }, el("strong", {}, `Round ${next}: `),
      then ? seatWords(then, roundOf(next).tables[then.table].seats) : "you sit out."));
  }
  if (night.status === "over") {
    const rank = ranked().find((row) => row.member === member);
    lines.push(el("p", { key: "end" }, rank ? `You finished ${ordinal(rank.rank)}. Thanks for playing!` : "Thanks for playing!"));
  }
  patch(box, el("h2", { key: "title" }, "Your seat"), lines);
}

function ordinal(rank) {
  const tail = rank % 100 >= 11 && rank % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" }[rank % 10] ?? "th");
  return `${rank}${tail}`;
}

/** The standings as the server orders them, each with its rank (equal figures share one). */
function ranked() {
  const rows = state.night.standings;
  let last = 0;
  return rows.map((row, index) => {
    const before = rows[index - 1];
    const tied = before && ["points", "wins", "contracts_made"].every((field) => before[field] === row[field]);
    last = row.rank ?? (tied ? last : index + 1);
    return { ...row, rank: last };
  });
}

function renderStandings() {
  const rows = ranked();
  const made = rows.some((row) => row.contracts_made !== undefined);
  $("standings").classList.toggle("no-contracts", !made);
  patch($("standings").querySelector("tbody"), rows.length ? rows.map((row) =>
    el("tr", { key: row.member, dataset: { member: row.member }, class: row.member === you() ? "you" : null },
      el("td", {}, String(row.rank)),
      el("th", { scope: "row" }, nameOf(row.member), row.member === you() ? " (you)" : ""),
      el("td", { class: "points" }, String(row.points)),
      el("td", {}, String(row.games)),
      el("td", {}, String(row.wins)),
      el("td", {}, made ? String(row.contracts_made ?? 0) : "—"))) :
    el("tr", { key: "none" }, el("td", { colspan: "6", class: "muted" }, "No game of the night has finished yet.")));
  // Said once for each change: the first three, so a listener hears who leads.
  const heard = JSON.stringify(rows.map((row) => [row.member, row.points, row.games, row.wins]));
  if (state.said !== null && heard !== state.said && rows.some((row) => row.games > 0)) {
    const top = rows.slice(0, 3).map((row) => `${ordinal(row.rank)} ${nameOf(row.member)}, ${row.points} points`);
    setText($("standings-news"), `Standings updated: ${top.join("; ")}.`);
  }
  state.said = heard;
}

function tableStatus(info) {
  if (!info) return "";
  if (info.status === "waiting") return "waiting for players";
  if (info.status === "ended") return "ended by the host";
  const score = info.scores.map((side) => side.score).join(" to ");
  if (info.status === "over") return `game over${score ? `, ${score}` : ""}`;
  return `hand ${info.hands_played + 1}${score ? `, ${score}` : ""}`;
}

function renderTables() {
  const { night } = state;
  const round = roundOf(night.round);
  setText($("tables-title"), night.round ? `Round ${night.round}'s tables` : "Tables");
  patch($("night-tables"), round && night.tables.length ? night.tables.map((id, index) => {
    const seats = round.tables[index]?.seats ?? [];
    const mine = you() !== null && seats.includes(you());
    return el("li", { key: id, class: "table-row night-table", dataset: { table: id } },
      el("div", { class: "table-row-text" },
        el("strong", {}, tableLabel(index)),
        el("span", {}, sidesWords(seats)),
        el("span", { class: "muted table-state" }, tableStatus(state.tables.get(id)))),
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

function boardLink() {
  const watch = watchToken();
  const path = `${nightPath(clubId, nightId)}/standings`;
  return `${window.location.origin}${path}${watch ? `#watch=${encodeURIComponent(watch)}` : ""}`;
}

function renderLinks() {
  if (board) return;
  const link = boardLink();
  patch($("night-links"),
    el("h2", { key: "h" }, "Standings for everyone"),
    watchToken() ? linkField("night-watch-link", "Standings link: anyone with it can follow the night", link) : null,
    el("a", { key: "board", class: "button", href: link }, "Open the standings board"),
    watchToken() ? el("button", {
      key: "qr", type: "button", class: "qr-button",
      onclick: () => showLinkDialog($("link-dialog"), {
        title: "The night's standings", text: "Scan to follow the standings and watch any table.", link,
      }),
    }, "Show its QR code") : null);
}

function render() {
  const { night, club } = state;
  const title = `${club?.name ?? night.club_name ?? "Club"} night`;
  document.title = `Spades — ${title}${board ? " standings" : ""}`;
  setText($("night-title"), board ? `${title}: standings` : title);
  setText($("night-status"), statusWords());
  renderYou();
  renderStandings();
  renderTables();
  renderLinks();
  const host = $("night-host");
  host.hidden = board || !held().host;
  if (!host.hidden) {
    renderNightHost(host, {
      clubId, night, names: nameOf, hostToken: held().host, roundDone: roundDone(),
      refresh: poll, showError: (text) => { $("night-error").textContent = text; },
    });
  }
}

async function readTables() {
  const ids = state.night.tables;
  const answers = await Promise.all(ids.map((id) =>
    api(`/api/tables/${encodeURIComponent(id)}`).catch(() => state.tables.get(id) ?? null)));
  state.tables = new Map(ids.map((id, index) => [id, answers[index]]));
}

async function poll() {
  if (state.polling) return;
  state.polling = true;
  try {
    if (!token()) {
      setText($("night-status"), "This night is private: open it from the club page, or with the standings link.");
      return;
    }
    const path = `/api/clubs/${encodeURIComponent(clubId)}/nights/${encodeURIComponent(nightId)}`;
    state.night = await api(path, { token: token() });
    if (!state.club && (held().member || held().host)) {
      state.club = await api(`/api/clubs/${encodeURIComponent(clubId)}`, { token: held().member || held().host });
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
document.body.classList.toggle("night-board", board);
poll();
setInterval(poll, POLL_MS);
