// The club page (/c/{id}): join from the club's link, the links to invite friends and to
// continue on another device (with their QR codes), start a club table and sit at one as
// yourself, the leaderboard, each member's figures, the games played; the host renames
// the club, removes members and gives out a fresh link. Secrets come in the URL fragment
// (never sent to the server) and are kept in localStorage under spades.club.<id>.

import "/static/comfort.js";
import { renderClubNight } from "/static/club-night.js";
import { api, el, fill, patch, remembered } from "/static/dom.js";
import { linkField, rememberCreated, seatKey, showLinkDialog } from "/static/links.js";
import { CLUB_FIGURES } from "/static/protocol-types.js";
import { renderHouseRules } from "/static/clubrules.js";
import { loadCatalog, presetTitle } from "/static/rules.js";

const REFRESH_MS = 4000;
const clubId = decodeURIComponent(window.location.pathname.split("/").pop() || "");
const key = `spades.club.${clubId}`;
const $ = (id) => document.getElementById(id);
/** @type {import('./protocol-types.js').ClubPage | null} */
let club = null;
let catalog = null; // the rules' catalogue: presets' titles, the house rules' builder

/** {invite, member, host}: what this browser holds for the club. */
function held() {
  return remembered.get(key, {}) || {};
}

function keep(more) {
  remembered.set(key, { ...held(), ...more });
}

/** Read `#invite=…`, `#member=…` and `#host=…` once, keep them, clear the address bar. */
function readFragment() {
  const hash = window.location.hash.replace(/^#/, "");
  if (!hash) return;
  const found = new URLSearchParams(hash);
  const more = {};
  for (const name of ["invite", "member", "host"]) {
    if (found.get(name)) more[name] = found.get(name);
  }
  keep(more);
  window.history.replaceState(null, "", window.location.pathname);
}

const token = () => held().member || held().host;
const origin = window.location.origin;
const clubLink = (invite) => `${origin}/c/${encodeURIComponent(clubId)}#invite=${encodeURIComponent(invite)}`;
const memberLink = (member) => `${origin}/c/${encodeURIComponent(clubId)}#member=${encodeURIComponent(member)}`;

function nameOf(id) {
  return club?.members.find((member) => member.id === id)?.name ?? "a former member";
}

async function join(event) {
  event.preventDefault();
  const name = $("member-name").value.trim();
  $("club-error").textContent = "";
  if (!name) {
    $("club-error").textContent = "Type the name your friends know you by.";
    return;
  }
  try {
    const joined = await api(`/api/clubs/${encodeURIComponent(clubId)}/members`, {
      method: "POST", body: { name, invite: held().invite },
    });
    keep({ member: joined.token });
    await refresh();
  } catch (failure) {
    $("club-error").textContent = failure.message;
  }
}

/** Sit at `tableId`'s `seat` as this member, then go to the table. */
async function sit(tableId, seat) {
  const answer = await api(`/api/tables/${encodeURIComponent(tableId)}/seats/${seat}`, {
    method: "POST", body: { name: nameOf(club?.you ?? ""), member_token: held().member },
  });
  remembered.set(seatKey(tableId), { seat: answer.seat, token: answer.token });
  window.location.assign(`/t/${encodeURIComponent(tableId)}`);
}

async function startTable(event) {
  event.preventDefault();
  $("club-error").textContent = "";
  try {
    // The club's usual changes carry over to the same game only; "" is the house rules,
    // which the server applies to a club table given no rules.
    const preset = $("start-preset").value;
    const body = { club: clubId };
    if (preset) {
      const rules = club?.rules?.preset === preset ? { ...club.rules } : { preset };
      const target = Number($("start-target").value);
      if (target) rules.target_score = target;
      body.rules = rules;
    }
    if (held().member) body.member_token = held().member;
    else body.host_token = held().host;
    const table = await api("/api/tables", { method: "POST", body });
    rememberCreated(table);
    if (held().member) await sit(table.id, 0);
    else window.location.assign(`/t/${encodeURIComponent(table.id)}`);
  } catch (failure) {
    $("club-error").textContent = failure.message;
  }
}

function renderLinks() {
  const mine = held();
  const links = [];
  if (mine.invite) {
    links.push(linkField("club-invite-link", "Club link: send it to friends", clubLink(mine.invite)));
    links.push(el("button", {
      type: "button", class: "qr-button",
      onclick: () => showLinkDialog($("link-dialog"), {
        title: "Invite friends", text: "Friends open this link to join the club.", link: clubLink(mine.invite),
      }),
    }, "Show the club link's QR code"));
  }
  if (mine.member) {
    links.push(el("button", {
      type: "button", class: "qr-button",
      onclick: () => showLinkDialog($("link-dialog"), {
        title: "Continue on another device",
        text: "Opening this link makes that browser you in this club. Keep it to yourself.",
        link: memberLink(mine.member),
      }),
    }, "Continue on another device"));
  }
  fill($("club-links"), links);
}

function renderHost() {
  const box = $("host-controls");
  box.hidden = !club?.host;
  // Drawn once: a refresh must not wipe a name being typed.
  if (!club?.host || box.childElementCount) return;
  const rename = el("input", { id: "club-rename", maxlength: "64", value: club.name });
  fill(box,
    el("h2", {}, "Host"),
    el("div", { class: "field" }, el("label", { for: "club-rename" }, "Club name"), rename),
    el("button", {
      type: "button", id: "rename",
      onclick: async () => {
        try {
          await api(`/api/clubs/${encodeURIComponent(clubId)}`, {
            method: "PATCH", body: { name: rename.value.trim() }, token: held().host,
          });
          await refresh();
        } catch (failure) { $("club-error").textContent = failure.message; }
      },
    }, "Rename"),
    el("button", {
      type: "button", id: "fresh-link",
      onclick: async () => {
        try {
          const fresh = await api(`/api/clubs/${encodeURIComponent(clubId)}/invite`, {
            method: "POST", token: held().host,
          });
          keep({ invite: fresh.invite });
          renderLinks();
        } catch (failure) { $("club-error").textContent = failure.message; }
      },
    }, "New club link (the old one stops working)"));
}

/** A member's figures (a member's own, or a preset's), each under its label (the server
 * declares them, CLUB_FIGURES). */
function figuresList(figures) {
  return el("dl", { class: "figures" }, CLUB_FIGURES.map(([name, label]) =>
    [el("dt", {}, label), el("dd", {}, String(figures[name]))]));
}

function renderMembers() {
  const board = $("leaderboard").querySelector("tbody");
  patch(board, club.leaderboard.map((id) => {
    const member = club.members.find((m) => m.id === id);
    return el("tr", { key: id, dataset: { member: id } },
      el("th", { scope: "row" }, member.name, id === club.you ? " (you)" : ""),
      el("td", {}, `${member.rating.toFixed(1)} (${member.mu.toFixed(1)} ± ${(3 * member.sigma).toFixed(1)})`),
      el("td", {}, String(member.games)),
      el("td", {}, String(member.wins)));
  }));
  // Patched in place: a member's open figures stay open across refreshes.
  patch($("members"), club.members.map((member) => el("details", { key: member.id, class: "member", dataset: { member: member.id } },
    el("summary", {}, member.name, member.removed ? " (removed)" : ""),
    figuresList(member),
    Object.entries(member.presets).map(([preset, figures]) =>
      el("div", { class: "preset-figures" }, el("h3", {}, presetTitle(catalog, preset)), figuresList(figures))),
    club.host && !member.removed ? el("button", {
      type: "button", class: "remove-member",
      onclick: async () => {
        try {
          await api(`/api/clubs/${encodeURIComponent(clubId)}/members/${encodeURIComponent(member.id)}`, {
            method: "DELETE", token: held().host,
          });
          await refresh();
        } catch (failure) { $("club-error").textContent = failure.message; }
      },
    }, `Remove ${member.name} from the club`) : null)));
}

function renderTables() {
  patch($("club-tables"), club.tables.length ? club.tables.map((table) => {
    const free = table.seats.findIndex((name) => name === null);
    const mine = remembered.get(seatKey(table.id));
    return el("li", { key: table.id, class: "table-row", dataset: { table: table.id } },
      el("div", { class: "table-row-text" },
        el("strong", {}, table.name),
        el("span", {}, table.seats.map((name) => name ?? "(free)").join(", "))),
      held().member && free >= 0 && !mine
        ? el("button", { type: "button", class: "sit-club", onclick: () => sit(table.id, free).catch((failure) => { $("club-error").textContent = failure.message; }) }, "Sit down")
        : null,
      el("a", { class: "button", href: `/t/${encodeURIComponent(table.id)}` }, mine ? "Back to the table" : "Watch"));
  }) : el("li", { class: "muted" }, "None yet."));
}

// Older finished games, read on demand (the page's answer lists the latest 100).
let older = [];

async function moreGames() {
  try {
    const shown = club.games.filter((game) => !game.abandoned).length + older.length;
    const answer = await api(`/api/clubs/${encodeURIComponent(clubId)}/games?offset=${shown}`, { token: token() });
    older = older.concat(answer.games);
    renderGames();
  } catch (failure) { $("club-error").textContent = failure.message; }
}

function renderGames() {
  const games = club.games.concat(older);
  const more = games.length < club.games_total
    ? el("li", { key: "more" }, el("button", { type: "button", id: "more-games", onclick: moreGames }, "Show older games"))
    : null;
  patch($("club-games"), games.length ? [...games.map((game) => {
    const sides = game.sides.map((side) =>
      `${side.members.map(nameOf).join(" & ") || "bots"}: ${side.score}`).join(" — ");
    const when = game.ended ? new Date(game.ended).toLocaleString() : "";
    const flags = game.abandoned ? "abandoned, not rated"
      : [game.rated ? "rated" : "not rated", game.bots ? "bots or guests played" : null].filter(Boolean).join(", ");
    return el("li", { key: `${game.table}.${game.ended}`, class: "table-row club-game" },
      el("div", { class: "table-row-text" },
        el("strong", {}, when || "Unfinished"),
        el("span", {}, sides || "—"),
        game.winner !== null ? el("span", {}, `Won by ${game.sides[game.winner]?.members.map(nameOf).join(" & ") || "bots"}`) : null,
        el("span", { class: "muted" }, `${presetTitle(catalog, game.preset)}; ${flags}`)),
      el("a", { class: "button", href: `/t/${encodeURIComponent(game.table)}` }, "Review"),
      game.rules_link ? el("a", { class: "button play-again", href: game.rules_link }, "Play these rules again") : null);
  }), more] : el("li", { class: "muted" }, "No games yet."));
}

function renderStart() {
  const form = $("start-form");
  form.hidden = false;
  const preset = $("start-preset");
  const house = club.house_summary ? `House rules: ${club.house_summary}` : null;
  if (!catalog) return;
  if (!preset.options.length || (preset.options[0].value === "") !== Boolean(house)) {
    fill(preset,
      house ? el("option", { value: "" }, house) : null,
      catalog.presets.map((entry) => el("option", { value: entry.name }, entry.title)));
    preset.value = house ? "" : club.rules?.preset || "standard";
    $("start-target").value = club.rules?.target_score ?? 500;
  } else if (house) {
    preset.options[0].textContent = house;
  }
  $("start-target").closest(".field").hidden = preset.value === "";
}

async function refresh() {
  const mine = held();
  $("join-form").hidden = !(mine.invite && !mine.member);
  if (!token()) {
    $("club-status").textContent = mine.invite
      ? "You are invited: join with your name."
      : "This club is private: open the link a member sent you.";
    renderLinks();
    return;
  }
  try {
    club = await api(`/api/clubs/${encodeURIComponent(clubId)}`, { token: token() });
  } catch (failure) {
    $("club-status").textContent = failure.message;
    return;
  }
  document.title = `Spades — ${club.name}`;
  $("club-title").textContent = club.name;
  $("club-status").textContent = club.you ? `You are ${nameOf(club.you)}.` : "You are the club's host.";
  renderLinks();
  renderHost();
  renderStart();
  renderHouseRules($("house-rules-section"), club, {
    clubId, hostToken: held().host, catalog, saved: refresh,
  });
  renderClubNight($("club-night"), { clubId, club, held: held() });
  renderMembers();
  renderTables();
  renderGames();
}

readFragment();
$("join-form").addEventListener("submit", join);
$("start-form").addEventListener("submit", startTable);
$("start-preset").addEventListener("change", () => {
  $("start-target").closest(".field").hidden = $("start-preset").value === "";
});
loadCatalog().then((loaded) => { catalog = loaded; }).catch(() => {}).finally(refresh);
setInterval(refresh, REFRESH_MS);
