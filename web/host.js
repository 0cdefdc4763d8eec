// The host's controls, shown only when the server says this socket is the host
// (`"host": true` in the state): before the game, remove or move whoever sits where and
// change the table's rules (the lobby's rule builder, rulebuilder.js); during it, let a
// bot play for an away player or give a seat to someone new; the turn timer; ending the
// table. The server checks every request again (403 for non-hosts).
// The panel is patched in place (dom.js), so the keyboard stays where it was; handlers
// read the controls on the page by id, never the nodes of one drawing. Seats are named
// as the host's own screen shows them ("On your left: Bot (expert)"), never by number.

import { el, patch } from "/static/dom.js";
import { RuleBuilder } from "/static/rulebuilder.js";
import { loadCatalog, presetOf } from "/static/rules.js";
import { placeHeading, seatName, seatPlace } from "/static/seating.js";

export const TIMER_CHOICES = [null, 15, 30, 60, 120];

export function timerWords(seconds) {
  return seconds ? `${seconds} s a move` : "off";
}

// What the host has opened and typed, kept across redraws (states arrive all the time).
const ui = { confirm: null, newName: "", moveTo: {} };

// The table's rules while the host changes them: whether the builder is open, the
// catalogue it was opened with, the builder (made in its `own` node once that is on
// screen, from the rules as they are then), and what the last save said.
const rulesEdit = { open: false, catalog: null, builder: null, said: "" };

/** "Ann", "Bot (expert)", "empty": who sits in a seat, its place said beside it. */
function occupant(info) {
  if (info.name === null) return "empty";
  return info.bot ? `Bot (${info.bot})` : info.name;
}

/** "On your left: Bot (expert)", "Your seat: Hal", "Across: Fay (away, bot plays)". */
function rowWords(page, info) {
  const notes = [];
  if (info.autoplay) notes.push(info.autoplay_reason === "timer" ? "bot plays, timed out" : "away, bot plays");
  else if (info.name !== null && !info.bot && !info.connected) notes.push("away");
  return `${placeHeading(page, info.seat)}: ${occupant(info)}${notes.length ? ` (${notes.join(", ")})` : ""}`;
}

function moveControl(page, info, hooks) {
  const id = `host-move-${info.seat}`;
  const others = page.table.seats.filter((other) => other.seat !== info.seat);
  const chosen = ui.moveTo[info.seat] ?? String(others[0]?.seat ?? "");
  const select = el("select", { id, onchange: (event) => { ui.moveTo[info.seat] = event.target.value; } },
    others.map((other) => el("option", { value: other.seat, selected: String(other.seat) === chosen },
      `${placeHeading(page, other.seat)} (${other.name === null ? "empty" : `swap with ${other.bot ? "the bot" : other.name}`})`)));
  const who = seatName(page, info.seat);
  return el("span", { key: "move", class: "host-move" },
    el("label", { for: id, class: "visually-hidden" }, `New seat for ${who}`),
    select,
    el("button", {
      type: "button", class: "move", "aria-label": `Move ${who} to the chosen seat`, title: "Move to the chosen seat (or swap)",
      onclick: () => hooks.move(info.seat, Number(document.getElementById(id).value)),
    }, "Move"));
}

function reissueControl(page, info, hooks, redraw) {
  const label = `Give ${seatPlace(page, info.seat)} to someone new`;
  if (ui.confirm !== `reissue:${info.seat}`) {
    return el("button", {
      key: "reissue", type: "button", class: "reissue", "aria-label": label,
      onclick: () => { ui.confirm = `reissue:${info.seat}`; ui.newName = ""; redraw(`#host-new-name-${info.seat}`); },
    }, "Give seat to someone new…");
  }
  const id = `host-new-name-${info.seat}`;
  const give = () => {
    ui.confirm = null;
    hooks.reissue(info.seat, ui.newName.trim() || null);
    redraw();
  };
  const input = el("input", {
    id, maxlength: 32, value: ui.newName, placeholder: "optional", autocomplete: "off",
    oninput: (event) => { ui.newName = event.target.value; },
    onkeydown: (event) => { if (event.key === "Enter") give(); },
  });
  return el("div", { key: "reissue", class: "host-confirm", role: "group", "aria-label": label },
    el("p", {}, info.bot
      ? "A new person takes this seat instead of the bot."
      : `${info.name}'s link stops working; you get a new link to send to the new player.`),
    el("label", { for: id }, "New player's name"),
    input,
    el("span", { class: "host-buttons" },
      el("button", { type: "button", class: "primary give", onclick: give }, "Give seat"),
      el("button", { type: "button", onclick: () => { ui.confirm = null; redraw(`.host-seat[data-seat="${info.seat}"] .reissue`); } }, "Cancel")));
}

function seatRow(page, info, hooks, redraw) {
  const waiting = page.table.status === "waiting";
  const controls = [];
  const who = seatName(page, info.seat);
  if (info.name !== null && waiting) {
    controls.push(el("button", {
      key: "remove", type: "button", class: "remove",
      "aria-label": info.bot ? `Remove ${who}` : `Remove ${who} from ${seatPlace(page, info.seat)}`,
      onclick: () => hooks.remove(info.seat),
    }, "Remove"));
    controls.push(moveControl(page, info, hooks));
  } else if (!waiting && info.name !== null) {
    if (!info.bot && !info.connected && !info.autoplay) {
      controls.push(el("button", {
        key: "standin", type: "button", class: "standin primary", "aria-label": `Let a bot play for ${who}`,
        onclick: () => hooks.standin(info.seat),
      }, "Let a bot play"));
    }
    controls.push(reissueControl(page, info, hooks, redraw));
  }
  return el("li", { key: info.seat, class: "host-seat", dataset: { seat: info.seat } },
    el("span", { class: "who" }, rowWords(page, info)),
    controls.length ? el("span", { class: "host-buttons" }, controls) : null);
}

function timerControl(page, hooks) {
  const current = page.table.turn_seconds;
  const choices = TIMER_CHOICES.includes(current) ? TIMER_CHOICES : [...TIMER_CHOICES, current];
  const select = el("select", { id: "host-turn-seconds" },
    choices.map((seconds) => el("option", { value: seconds ?? "", selected: seconds === current },
      seconds ? `${seconds} seconds` : "Off")));
  return el("div", { class: "host-timer" },
    el("label", { for: "host-turn-seconds" }, "Turn timer"),
    select,
    el("button", {
      type: "button", class: "set-timer",
      onclick: () => {
        const { value } = document.getElementById("host-turn-seconds");
        hooks.setTimer(value === "" ? null : Number(value));
      },
    }, "Set timer"),
    el("p", { class: "muted small" }, `Now: ${timerWords(current)}. When a player takes longer, a bot makes that one move.`));
}

async function openRules(page, redraw) {
  try {
    rulesEdit.catalog = page.catalog ?? await loadCatalog();
  } catch (failure) {
    rulesEdit.said = `The rules could not be loaded: ${failure.message}`;
    redraw();
    return;
  }
  rulesEdit.open = true;
  rulesEdit.said = "";
  redraw("#host-preset-list input:checked");
}

/** The builder, made in its node just put on screen, with the table's rules in it. */
function mountRules(container, page) {
  const root = rulesEdit.open ? container.querySelector("#host-rule-builder") : null;
  if (!root || rulesEdit.builder?.root === root) return;
  const { catalog } = rulesEdit;
  rulesEdit.builder = new RuleBuilder(root, catalog, { id: "host", presetsLabel: "Start from" });
  rulesEdit.builder.setRules({ ...page.table.rules, preset: presetOf(page.table.rules, catalog)?.name });
}

function closeRules(said = "") {
  rulesEdit.open = false;
  rulesEdit.builder = null;
  rulesEdit.said = said;
}

async function saveRules(hooks, redraw) {
  const { builder } = rulesEdit;
  try {
    const table = await hooks.setRules(builder.rules());
    if (rulesEdit.builder !== builder) return;
    closeRules(`Saved: ${table.summary}`);
    redraw(".change-rules");
  } catch (failure) {
    if (rulesEdit.builder === builder) builder.showError(failure.message);
  }
}

/** Before the game: the rules in one line, and the builder to change them. */
function rulesControl(page, hooks, redraw) {
  if (page.table.status !== "waiting") {
    closeRules();
    return null;
  }
  const said = el("p", { key: "said", class: "muted small", id: "host-rules-said", role: "status" }, rulesEdit.said);
  if (!rulesEdit.open) {
    return el("div", { key: "rules", class: "host-rules" },
      el("h3", { id: "host-rules-title" }, "Table rules"),
      el("p", { class: "host-rules-now", id: "host-rules-now" }, page.table.summary),
      el("button", {
        type: "button", class: "change-rules", "aria-describedby": "host-rules-now",
        onclick: () => openRules(page, redraw),
      }, "Change the rules…"),
      said);
  }
  return el("div", { key: "rules", class: "host-rules", role: "group", "aria-labelledby": "host-rules-title" },
    el("h3", { id: "host-rules-title" }, "Table rules"),
    el("p", { class: "muted small" }, "Before the game starts, choose the rules everyone plays. Whoever sits keeps the seat."),
    el("div", { key: "builder", own: true, id: "host-rule-builder", class: "rule-builder host-rule-builder" }),
    el("span", { class: "host-buttons" },
      el("button", { type: "button", class: "primary save-rules", onclick: () => saveRules(hooks, redraw) }, "Save rules"),
      el("button", { type: "button", class: "cancel-rules", onclick: () => { closeRules(); redraw(".change-rules"); } }, "Cancel")),
    said);
}

function endControl(hooks, redraw) {
  if (ui.confirm !== "end") {
    return el("button", {
      type: "button", class: "danger end-table", onclick: () => { ui.confirm = "end"; redraw(".host-end .cancel"); },
    }, "End table…");
  }
  return el("div", { class: "host-confirm", role: "group", "aria-label": "End the table?" },
    el("p", {}, "End the table for everyone? Nobody can play on at this table."),
    el("span", { class: "host-buttons" },
      el("button", { type: "button", class: "danger confirm-end", onclick: () => { ui.confirm = null; hooks.endTable(); } }, "Yes, end the table"),
      el("button", { type: "button", class: "cancel", onclick: () => { ui.confirm = null; redraw(".end-table"); } }, "Cancel")));
}

/**
 * Draw the host panel into `container` (hidden unless `page.host`). `hooks`: remove(seat),
 * move(seat, to), standin(seat), reissue(seat, name), setRules(rules) (answers the table,
 * throws the server's refusal), setTimer(seconds), endTable().
 */
export function renderHostPanel(container, page, hooks) {
  const show = Boolean(page.host) && page.table.status !== "ended";
  container.hidden = !show;
  if (!show) {
    closeRules();
    patch(container);
    return;
  }
  const redraw = (focus = null) => {
    renderHostPanel(container, page, hooks);
    if (focus) container.querySelector(focus)?.focus();
  };
  patch(container,
    el("h2", { id: "host-title" }, "Host controls"),
    el("p", { class: "muted small" }, "Only the host sees these."),
    el("ul", { class: "host-seats", "aria-label": "Seats" },
      page.table.seats.map((info) => seatRow(page, info, hooks, redraw))),
    rulesControl(page, hooks, redraw),
    timerControl(page, hooks),
    el("div", { class: "host-end" }, endControl(hooks, redraw)));
  mountRules(container, page);
}
