// The lobby: create a table with the rule builder (a preset plus house rules; a
// "play these rules again" link, `/?rules=<JSON>`, fills it in), private ("Play with
// friends") or listed ("Open table"), with an optional turn timer; list the listed open
// tables and live games with their rules' summary; make a friends' club. Everything the server returns is rendered
// as text. The comfort settings chosen at a table apply here too; the page registers the
// app's worker.

import "/static/comfort.js";
import { api, el, fill, remembered } from "/static/dom.js";
import { registerServiceWorker } from "/static/install.js";
import { rememberCreated } from "/static/links.js";
import { RuleBuilder } from "/static/rulebuilder.js";
import { loadCatalog, rulesFromAddress } from "/static/rules.js";

const REFRESH_MS = 5000;
/** @type {RuleBuilder | null} */
let builder = null;

async function createTable(event) {
  event.preventDefault();
  const buttons = document.querySelectorAll('#create-form button[type="submit"]');
  const error = document.getElementById("create-error");
  // Enter in a field submits with the first button: "Play with friends" (private).
  const listed = event.submitter?.value === "true";
  error.textContent = "";
  for (const button of buttons) button.disabled = true;
  try {
    const name = document.getElementById("table-name").value.trim();
    const seconds = document.getElementById("turn-seconds").value;
    if (!builder) throw new Error("The rules are not loaded yet: reload the page.");
    const body = { rules: builder.rules(), listed };
    if (seconds) body.turn_seconds = Number(seconds);
    if (name) body.name = name;
    /** @type {import('./protocol-types.js').CreatedTable} */
    const table = await api("/api/tables", { method: "POST", body });
    rememberCreated(table); // the invite and the host token are shown only this once
    window.location.assign(`${table.url || `/t/${table.id}`}?created=1`);
  } catch (failure) {
    // A refusal of the rules goes next to the rules; anything else under the form.
    if (builder && failure.message.startsWith("rules:")) builder.showError(failure.message);
    else error.textContent = failure.message;
    for (const button of buttons) button.disabled = false;
  }
}

function scoreWords(table) {
  if (!table.scores || table.scores.length === 0) return "";
  return table.scores.map((side) => side.score).join(" – ");
}

/** @param {import('./protocol-types.js').PublicTable} table  @param {string} action */
function tableRow(table, action) {
  const seated = table.seats.filter((seat) => seat.name !== null);
  // People by name; bots counted, since the name the server gives a bot says where it
  // sits as seen from seat 0, which means nothing here.
  const bots = seated.filter((seat) => seat.bot).length;
  const names = [
    ...seated.filter((seat) => !seat.bot).map((seat) => seat.name),
    ...(bots ? [bots === 1 ? "a bot" : `${bots} bots`] : []),
  ].join(", ");
  const url = table.url || `/t/${table.id}`;
  return el("li", { class: "table-row" },
    el("div", { class: "table-row-text" },
      el("strong", {}, table.name),
      el("span", { class: "muted rules-summary" }, table.summary),
      el("span", {}, `${seated.length} of ${table.seats.length} seats taken${names ? `: ${names}` : ""}`),
      table.status === "playing" ? el("span", { class: "score" }, `Score ${scoreWords(table)}`) : null),
    el("a", { class: "button", href: url }, action));
}

async function refreshTables() {
  try {
    /** @type {import('./protocol-types.js').Lobby} */
    const tables = await api("/api/tables");
    const open = tables.filter((table) => table.status === "waiting");
    const live = tables.filter((table) => table.status === "playing");
    fill(document.getElementById("open-tables"),
      open.length ? open.map((table) => tableRow(table, "Join"))
        : el("li", { class: "muted" }, "No open tables yet: create one."));
    fill(document.getElementById("live-tables"),
      live.length ? live.map((table) => tableRow(table, "Watch"))
        : el("li", { class: "muted" }, "No games in progress."));
  } catch {
    /* keep the last list; the next refresh tries again */
  }
}

/** A new club: its invite and host token are shown only now, so they are kept here. */
async function createClub(event) {
  event.preventDefault();
  const error = document.getElementById("club-form-error");
  error.textContent = "";
  const name = document.getElementById("club-name").value.trim();
  if (!name) {
    error.textContent = "Give the club a name.";
    return;
  }
  try {
    /** @type {import('./protocol-types.js').CreatedClub} */
    const club = await api("/api/clubs", { method: "POST", body: { name } });
    remembered.set(`spades.club.${club.id}`, { invite: club.invite, host: club.host_token });
    window.location.assign(`/c/${encodeURIComponent(club.id)}`);
  } catch (failure) {
    error.textContent = failure.message;
  }
}

async function start() {
  document.getElementById("create-form").addEventListener("submit", createTable);
  document.getElementById("club-form").addEventListener("submit", createClub);
  refreshTables();
  try {
    const given = rulesFromAddress();
    builder = new RuleBuilder(document.getElementById("rule-builder"), await loadCatalog(), { open: Boolean(given) });
    if (given) builder.setRules(given);
  } catch (failure) {
    document.getElementById("create-error").textContent =
      `Could not load the rules: ${failure.message}`;
  }
  setInterval(refreshTables, REFRESH_MS);
}

start();
registerServiceWorker();
