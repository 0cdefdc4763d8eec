// The lobby: create a table from a preset plus house rules, private ("Play with
// friends") or listed ("Open table"), with an optional turn timer; list the listed open
// tables and live games; make a friends' club. Everything the server returns is rendered
// as text. The comfort settings chosen at a table apply here too; the page registers the
// app's worker.

import "/static/comfort.js";
import { api, el, fill, remembered } from "/static/dom.js";
import { registerServiceWorker } from "/static/install.js";
import { rememberCreated } from "/static/links.js";
import {
  HOUSE_RULES, PRESET_LINES, PRESET_TITLES, presetEntries, presetOf, rulesSummary,
} from "/static/rules.js";

const REFRESH_MS = 5000;
let presets = new Map();

function chosenPreset() {
  const picked = document.querySelector('input[name="preset"]:checked');
  return picked ? picked.value : "standard";
}

function renderPresets() {
  const list = document.getElementById("preset-list");
  fill(list, [...presets.keys()].map((name, index) =>
    el("label", { class: "preset" },
      el("input", {
        type: "radio", name: "preset", value: name, checked: index === 0,
        onchange: renderHouseRules,
      }),
      el("span", { class: "preset-text" },
        el("strong", {}, PRESET_TITLES[name] || name),
        el("span", { class: "muted" }, PRESET_LINES[name] || rulesSummary(presets.get(name), name))))));
}

function houseRuleControl(rule, value) {
  const id = `rule-${rule.field}`;
  let input;
  if (rule.kind === "check") {
    input = el("input", { type: "checkbox", id, checked: Boolean(value) });
  } else if (rule.kind === "select") {
    input = el("select", { id },
      rule.choices.map(([choice, words]) =>
        el("option", { value: choice, selected: choice === value }, words)));
  } else {
    input = el("input", {
      type: "number", id, min: rule.min, max: rule.max, step: rule.step || 1,
      value: value ?? "", placeholder: rule.optional ? "never" : undefined,
    });
  }
  input.dataset.field = rule.field;
  input.dataset.kind = rule.kind;
  return el("div", { class: `house-rule ${rule.kind}` },
    el("label", { for: id }, rule.label),
    input,
    el("p", { class: "help muted", id: `${id}-help` }, rule.help));
}

/** Redraw the toggles with the chosen preset's values, hiding those that cannot apply. */
function renderHouseRules() {
  const base = presets.get(chosenPreset()) || {};
  const list = document.getElementById("house-rule-list");
  fill(list, HOUSE_RULES
    .filter((rule) => !rule.show || rule.show(base))
    .map((rule) => houseRuleControl(rule, base[rule.field])));
  for (const input of list.querySelectorAll("input, select")) {
    input.setAttribute("aria-describedby", `${input.id}-help`);
  }
}

/** Only the fields that differ from the preset are sent, so the preset name stays meaningful. */
function chosenRules() {
  const preset = chosenPreset();
  const base = presets.get(preset) || {};
  const rules = { preset };
  for (const input of document.querySelectorAll("#house-rule-list [data-field]")) {
    const field = input.dataset.field;
    let value;
    if (input.dataset.kind === "check") value = input.checked;
    else if (input.dataset.kind === "number") value = input.value === "" ? null : Number(input.value);
    else value = input.value;
    if (value !== (base[field] ?? null)) rules[field] = value;
  }
  return rules;
}

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
    const body = { rules: chosenRules(), listed };
    if (seconds) body.turn_seconds = Number(seconds);
    if (name) body.name = name;
    /** @type {import('./protocol-types.js').CreatedTable} */
    const table = await api("/api/tables", { method: "POST", body });
    rememberCreated(table); // the invite and the host token are shown only this once
    window.location.assign(`${table.url || `/t/${table.id}`}?created=1`);
  } catch (failure) {
    error.textContent = failure.message;
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
      el("span", { class: "muted" }, rulesSummary(table.rules, presetOf(table.rules, presets)?.name)),
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
  try {
    presets = new Map(presetEntries(await api("/api/presets")));
  } catch (failure) {
    document.getElementById("create-error").textContent =
      `Could not load the presets: ${failure.message}`;
  }
  renderPresets();
  renderHouseRules();
  refreshTables();
  setInterval(refreshTables, REFRESH_MS);
}

start();
registerServiceWorker();
