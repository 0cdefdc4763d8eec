// The club page's club nights: every member sees that a night is on, with the way to it;
// the host starts one in a few taps: who is here (4 to 32 members), rotating partners or
// fixed pairs, how many rounds, how many hands a round lasts, each round's bidding (the
// club's rules, or a format for that round) and, when the count does not fill every
// table, bots or members sitting out in turn. The form is drawn once and kept across the
// page's refreshes; only its list of members follows the club.

import { api, el, fill, patch } from "/static/dom.js";
import { nightPath } from "/static/night-follow.js";

// The server's bounds of a night.
const MIN_PLAYERS = 4;
const MAX_PLAYERS = 32;
const MAX_ROUNDS = 40;
const MAX_HANDS = 100;
// A round's bidding: the club's rules, or one format for every table of the round.
const ROUND_RULES = [
  ["", "The club's rules"],
  ["individual", "Individual bids"],
  ["team", "Team bid"],
  ["whiz", "Whiz (your spades or nil)"],
  ["mirror", "Mirror (bid your spades)"],
  ["suicide", "Suicide (one partner bids nil)"],
];

const $ = (id) => document.getElementById(id);

/** The club's nights still on, from GET /api/clubs/{id}/nights (newest first). */
async function nightsOn(clubId, token) {
  /** @type {import('./protocol-types.js').ClubNights} */
  const answer = await api(`/api/clubs/${encodeURIComponent(clubId)}/nights`, { token });
  return answer.nights.filter((night) => night.status !== "over");
}

/** @param {import('./protocol-types.js').NightSummary} night */
function roundsOn(night) {
  if (night.status === "waiting") return `${night.rounds} round${night.rounds === 1 ? "" : "s"}, starting soon`;
  return `round ${night.round} of ${night.rounds}`;
}

function renderOn(box, clubId, nights) {
  patch(box, nights.map((night) =>
    el("div", { key: night.id, class: "night-on", dataset: { night: night.id } },
      el("p", {}, el("strong", {}, "A club night is on: "), roundsOn(night), "."),
      el("a", { class: "button primary open-night", href: nightPath(clubId, night.id) }, "Go to the night"),
      el("a", { class: "button", href: `${nightPath(clubId, night.id)}/standings` }, "Standings"))));
}

const chosen = () => [...document.querySelectorAll("#night-members input:checked")].map((box) => box.value);

/** Members ticked, and whether that count fills whole tables. */
function renderCount() {
  const count = chosen().length;
  const words = count < MIN_PLAYERS ? `${count} chosen: a night needs at least ${MIN_PLAYERS}.`
    : count > MAX_PLAYERS ? `${count} chosen: at most ${MAX_PLAYERS}.`
      : `${count} chosen: ${Math.floor(count / 4)} table${count >= 8 ? "s" : ""}${count % 4 ? `, ${count % 4} over` : ""}.`;
  $("night-count").textContent = words;
  renderPairs();
  $("night-fill").hidden = count % 4 === 0;
}

/** With fixed pairs, the partners as the night will make them: ticked members two by two. */
function renderPairs() {
  const pairs = document.querySelector('input[name="night-format"]:checked')?.value === "pairs";
  const names = [...document.querySelectorAll("#night-members input:checked")].map((box) => box.dataset.name);
  const line = $("night-pairs");
  line.hidden = !pairs;
  if (!pairs) return;
  const partners = [];
  for (let index = 0; index + 1 < names.length; index += 2) partners.push(`${names[index]} & ${names[index + 1]}`);
  line.textContent = names.length % 2
    ? "Fixed pairs need an even number of members."
    : `Partners, in the list's order: ${partners.join(" · ") || "tick the members who are here"}.`;
}

/** One bidding choice per round, kept when the number of rounds changes. */
function renderRoundRules() {
  const rounds = Math.min(MAX_ROUNDS, Math.max(1, Number($("night-rounds").value) || 1));
  const list = $("night-round-rules");
  const before = [...list.querySelectorAll("select")].map((select) => select.value);
  fill(list, Array.from({ length: rounds }, (_, index) => {
    const id = `night-round-rule-${index + 1}`;
    const select = el("select", { id, dataset: { round: String(index + 1) } },
      ROUND_RULES.map(([value, words]) => el("option", { value }, words)));
    select.value = before[index] ?? "";
    return el("div", { class: "field round-rule" }, el("label", { for: id }, `Round ${index + 1}`), select);
  }));
}

/** What the form says, as the night's creation asks for it. */
function nightRequest() {
  const bidding = [...document.querySelectorAll("#night-round-rules select")].map((select) => select.value || null);
  const body = {
    members: chosen(),
    rounds: Number($("night-rounds").value),
    format: document.querySelector('input[name="night-format"]:checked').value,
    hands: Number($("night-hands").value),
    fill: document.querySelector('input[name="night-fill"]:checked').value,
  };
  if (bidding.some((format) => format !== null)) body.bidding = bidding;
  return body;
}

async function startNight(event, clubId, hostToken) {
  event.preventDefault();
  const error = $("night-form-error");
  error.textContent = "";
  const count = chosen().length;
  if (count < MIN_PLAYERS || count > MAX_PLAYERS) {
    error.textContent = `Choose ${MIN_PLAYERS} to ${MAX_PLAYERS} members who are here.`;
    $("night-members").querySelector("input")?.focus();
    return;
  }
  try {
    const night = await api(`/api/clubs/${encodeURIComponent(clubId)}/nights`, {
      method: "POST", body: nightRequest(), token: hostToken,
    });
    window.location.assign(nightPath(clubId, night.id));
  } catch (failure) {
    error.textContent = failure.message;
  }
}

function radio(name, value, words, checked) {
  return el("label", { class: "choice" }, el("input", { type: "radio", name, value, checked }), ` ${words}`);
}

function numberField(id, label, value, max, help) {
  return el("div", { class: "field" },
    el("label", { for: id }, label),
    el("input", { id, type: "number", min: "1", max: String(max), step: "1", value: String(value), "aria-describedby": `${id}-help` }),
    el("p", { id: `${id}-help`, class: "help muted" }, help));
}

function buildForm(form, clubId, hostToken) {
  form.addEventListener("submit", (event) => startNight(event, clubId, hostToken));
  fill(form,
    el("h2", { id: "night-form-title" }, "Start a club night"),
    el("fieldset", { class: "night-who" },
      el("legend", {}, "Who is here"),
      el("div", { id: "night-members", class: "night-members" }),
      el("p", { id: "night-count", class: "help muted", "aria-live": "polite" }),
      el("button", {
        type: "button", id: "night-everyone",
        onclick: () => {
          for (const box of document.querySelectorAll("#night-members input")) box.checked = true;
          renderCount();
        },
      }, "Everyone")),
    el("fieldset", { class: "night-format" },
      el("legend", {}, "Partners"),
      radio("night-format", "rotating", "Rotating: new partners each round", true),
      radio("night-format", "pairs", "Fixed pairs for the whole night", false),
      el("p", { id: "night-pairs", class: "help muted", "aria-live": "polite", hidden: true })),
    numberField("night-rounds", "Rounds", 3, MAX_ROUNDS, "Each round is one game at every table."),
    numberField("night-hands", "Hands a round", 4, MAX_HANDS, "A round's game ends after this many hands."),
    el("fieldset", { class: "night-rules" },
      el("legend", {}, "Each round's bidding"),
      el("div", { id: "night-round-rules", class: "night-round-rules" })),
    el("fieldset", { id: "night-fill", class: "night-fill", hidden: true },
      el("legend", {}, "When the count does not fill every table"),
      radio("night-fill", "bots", "Bots fill the empty seats", true),
      radio("night-fill", "sit_out", "Members sit out in turn", false)),
    el("p", { id: "night-form-error", class: "error", role: "alert" }),
    el("button", { id: "start-night", class: "primary", type: "submit" }, "Start the night"));
  $("night-members").addEventListener("change", renderCount);
  form.querySelector(".night-format").addEventListener("change", renderPairs);
  $("night-rounds").addEventListener("input", renderRoundRules);
  renderRoundRules();
}

/**
 * The club page's night section in `box`: the nights on, and for the host the form.
 * `held` is what this browser holds for the club ({member, host, invite}).
 */
export async function renderClubNight(box, { clubId, club, held }) {
  if (!box.childElementCount) {
    fill(box, el("div", { id: "nights-on", class: "nights-on" }),
      el("form", { id: "night-form", class: "start night-form", novalidate: true, hidden: true,
        "aria-labelledby": "night-form-title" }));
  }
  try {
    renderOn($("nights-on"), clubId, await nightsOn(clubId, held.member || held.host));
  } catch {
    /* the list stays as it was; the next refresh asks again */
  }
  const form = $("night-form");
  // The host token in this browser, whether or not the page was read as a member.
  form.hidden = !held.host;
  if (!held.host) return;
  if (!form.childElementCount) buildForm(form, clubId, held.host);
  patch($("night-members"), club.members.filter((member) => !member.removed).map((member) =>
    el("label", { key: member.id, class: "choice" },
      el("input", { type: "checkbox", value: member.id, dataset: { member: member.id, name: member.name } }),
      ` ${member.name}`, member.id === club.you ? " (you)" : "")));
  renderCount();
}
