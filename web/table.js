// The table page: seats, trick, hand, decisions, score pad and chat, drawn from each
// `state` message, plus the links to the table, the rules, the series tally, the host's
// controls, the turn timer, turn cues, hints and the review of finished hands; for
// the ear and the keyboard, the announcements (announce.js) and the single keys (keys.js);
// the comfort settings (comfort.js); the service worker that makes the page installable.
// Every panel is built afresh and patched into the page (dom.js), so only what changed
// changes on screen: focus, open panels, selections and scroll positions stay.
// The only game logic here is display: the server's `legal` list says what the player
// may do, and the server decides who is the host.

import { Announcer, turnWords } from "/static/announce.js";
import { decisionPanel } from "/static/bidding.js";
import { ChatPanel } from "/static/chat.js";
import { bindComfortControls } from "/static/comfort.js";
import { TableConnection } from "/static/connection.js";
import { isMyTurn, TurnCues } from "/static/cues.js";
import { api, el, fill, patch, remembered, setText } from "/static/dom.js";
import { renderHand } from "/static/hand.js";
import { renderHostPanel } from "/static/host.js";
import { registerServiceWorker } from "/static/install.js";
import { TableKeys } from "/static/keys.js";
import {
  absoluteContinueLink, continueLink, hostKey, inviteKey, inviteLink, linkField, readFragment,
  seatKey, showLinkDialog, watchLink,
} from "/static/links.js";
import { downloadRecord, HandReview } from "/static/review.js";
import { DealSeeds, renderNextDeal, showVerification } from "/static/fairness.js";
import { handFormatWords, loadCatalog, presetOf, rulesInWords } from "/static/rules.js";
import { followNight } from "/static/night-follow.js";
import { gameOverPanel, handSummary, renderScorepad, sideExtras } from "/static/scorepad.js";
import { freeMiddle, renderSeats } from "/static/seats.js";
import { capitalised, seatName, seatPlace, sideName, sidesOf } from "/static/seating.js";
import { TurnClock } from "/static/timer.js";
import { renderLastTrick, TrickDisplay } from "/static/trick.js";

const tableId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop());
const SEAT_KEY = seatKey(tableId);
const INVITE_KEY = inviteKey(tableId);
const HOST_KEY = hostKey(tableId);
const NAME_KEY = "spades.name";
const SPADES_FIRST_KEY = "spades.spadesFirst";
// The level of bots added from this page, the player's choice remembered: "expert"
// (the default: strongest, thinks longer), "advanced" or "basic" (easier); see
// docs/rules.md, Computer players.
const BOT_LEVEL_KEY = "spades.botLevel";
const BOT_LEVELS = ["expert", "advanced", "basic"];
// Where the side panels fold away (app.css says the same).
const SMALL_SCREEN = "(max-width: 900px), (max-height: 500px)";
// A middle of the felt narrower than this shows the hand's summary in smaller type.
const NARROW_MIDDLE_PX = 260;

const $ = (id) => document.getElementById(id);

const page = {
  tableId,
  table: null,
  view: null,
  seat: null,
  sides: [],
  history: [],
  handsSeen: null,
  summary: null,
  summaryClosed: false,
  passChoice: new Set(),
  acting: false,
  host: false, // the server says this socket may use the host controls
  mayJoin: true, // a listed table, or this browser holds the invite (or the host token)
  timerMoves: [], // moves the turn timer made this hand: [{seat, action}]
  catalog: null, // the rules' catalogue (/api/rules/catalog): the table's rules name no preset
  hint: null, // the server's hint for the decision offered now: {offer, action}
  fairness: null, // the next deal: {hand, commitment, client_seeds} (docs/fairness.md)
};

// A link that carries a secret (#invite=, #seat=) is read once, before the first hello.
readFragment(tableId);

const trick = new TrickDisplay($("trick"));
const announcer = new Announcer($("announcements"), (side) => sideExtras(page.table.rules, side));
const clock = new TurnClock($("timer-alert"), () => announcer.allows(true));
const connection = new TableConnection(tableId, {
  token: () => remembered.get(SEAT_KEY)?.token ?? null,
  hostToken: () => remembered.get(HOST_KEY),
  onState: receiveState,
  onChat: (message) => chat.add(message),
  onError: receiveError,
  onHint: receiveHint,
  onReview: (message) => review.advise(message),
  onStatus: showConnection,
  onGone: () => showBanner("This table does not exist (any more).", "gone"),
});
const chat = new ChatPanel((text) => connection.chat(text), (seat) => seatName(page, seat));
const cues = new TurnCues();
const review = new HandReview($("review-dialog"), () => page, (hand) => connection.review(hand));
const dealSeeds = new DealSeeds((value) => connection.seed(value));
const keys = new TableKeys({
  page: () => page,
  say: (text) => announcer.say(text),
  secondsLeft: () => clock.secondsLeft(),
  spadesFirst: () => remembered.get(SPADES_FIRST_KEY, false),
  help: $("keys-dialog"),
});

function showBanner(text, kind = "down") {
  const banner = $("connection-banner");
  banner.textContent = text;
  banner.className = `banner ${kind}`;
  banner.hidden = !text;
}

function showConnection(status, detail = {}) {
  if (status === "open") showBanner("");
  else showBanner(detail.restarting ? "Reconnecting… (the server is restarting)" : "Reconnecting…");
}

let toastTimer = null;
function toast(text) {
  const node = $("toast");
  node.textContent = text;
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { node.hidden = true; }, 4000);
}

/** @param {import('./protocol-types.js').ErrorMessage} message */
function receiveError(message) {
  page.acting = false;
  review.refused(message);
  if (message.code === "hints_off") page.table = { ...page.table, hints: false };
  if (message.code === "bad_token") remembered.set(SEAT_KEY, null);
  toast(message.message || message.code);
  render();
}

/** Keep the stored seat in step with the server: learnt from a link, moved, or gone. */
function followSeat(message, answersHello) {
  const held = remembered.get(SEAT_KEY);
  if (!held) return;
  const { seat } = message;
  // Unseated: the hello was refused the seat, or the host removed us from it.
  if (seat === null && (answersHello || page.seat !== null)) remembered.set(SEAT_KEY, null);
  else if (seat !== null && held.seat !== seat) remembered.set(SEAT_KEY, { ...held, seat });
}

function mayJoin(table) {
  return table.listed !== false || Boolean(remembered.get(INVITE_KEY)) || Boolean(remembered.get(HOST_KEY));
}

/**
 * @param {import('./protocol-types.js').StateMessage} message
 * @param {{answersHello: boolean}} how
 */
function receiveState(message, { answersHello }) {
  followSeat(message, answersHello);
  // The host role passed on (or the token was never good): forget the host token.
  if (answersHello && message.host === false && remembered.get(HOST_KEY)) remembered.set(HOST_KEY, null);
  if (answersHello) chat.replace(message.chat);
  const handBefore = page.view?.hand_number;
  const firstState = page.table === null;
  const before = { table: page.table, view: page.view, seat: page.seat };
  const lastHand = message.state?.last_hand ?? null;
  if (lastHand && lastHand.hand_number !== page.summary?.hand_number) {
    page.summary = lastHand;
    page.summaryClosed = firstState;
  }
  if (!lastHand) page.summary = null;
  page.table = message.table;
  page.view = message.state;
  // Once the host ended the table, nothing more can be done: nothing to offer.
  if (page.table.status === "ended" && page.view) page.view = { ...page.view, legal: [], turn: [] };
  page.seat = message.seat;
  page.host = Boolean(message.host);
  page.mayJoin = mayJoin(page.table);
  page.timerMoves = message.timer_moves;
  page.fairness = message.fairness ?? null;
  dealSeeds.receive(message, page.table.game_number);
  clock.receive(message, page);
  page.sides = sidesOf(page.view, page.table.rules);
  page.acting = false;
  if (page.view?.hand_number !== handBefore || page.view?.phase !== "pass") page.passChoice.clear();
  followHistory();
  render();
  followNight(tableId, page.table.status);
  cues.receive(page);
  if (!firstState) announcer.receive(before, page);
}

/** Fetch the hand-by-hand history for the score pad whenever a hand finishes. */
async function followHistory() {
  const key = `${page.table.game_number}:${page.table.hands_played ?? 0}`;
  if (key === page.handsSeen) return;
  page.handsSeen = key;
  if (!page.table.hands_played) {
    page.history = [];
    return;
  }
  try {
    /** @type {import('./protocol-types.js').History} */
    const answer = await api(`/api/tables/${tableId}/history`);
    page.history = answer.hands;
    render();
  } catch {
    /* the pad keeps its last history; the next hand fetches again */
  }
}

function act(action) {
  if (page.acting) return;
  if (connection.act(action) === null) {
    toast("Not connected — your move was not sent. Reconnecting…");
    return;
  }
  page.acting = true;
  render();
}

async function sit(seat) {
  const input = $("player-name");
  const name = (input?.value || "").trim();
  if (!name) {
    toast("Type your name first.");
    input?.focus();
    return;
  }
  remembered.set(NAME_KEY, name);
  const body = { name };
  const invite = remembered.get(INVITE_KEY);
  const hostToken = remembered.get(HOST_KEY);
  if (invite) body.invite = invite;
  if (hostToken) body.host_token = hostToken; // the host's own seat becomes host_seat
  try {
    /** @type {import('./protocol-types.js').SeatTaken} */
    const answer = await api(`/api/tables/${tableId}/seats/${seat}`, { method: "POST", body });
    remembered.set(SEAT_KEY, { seat: answer.seat, token: answer.token });
    connection.hello();
  } catch (failure) {
    toast(failure.message);
  }
}

function botLevel() {
  const level = remembered.get(BOT_LEVEL_KEY, BOT_LEVELS[0]);
  return BOT_LEVELS.includes(level) ? level : BOT_LEVELS[0];
}

async function addBot(seat) {
  const body = { level: botLevel() };
  const invite = remembered.get(INVITE_KEY);
  if (invite) body.invite = invite;
  try {
    await api(`/api/tables/${tableId}/seats/${seat}/bot`, { method: "POST", body });
  } catch (failure) {
    toast(failure.message);
  }
}

async function leaveSeat() {
  const held = remembered.get(SEAT_KEY);
  if (!held) return;
  try {
    await api(`/api/tables/${tableId}/seats/${held.seat}`, { method: "DELETE", token: held.token });
    remembered.set(SEAT_KEY, null);
    connection.hello();
  } catch (failure) {
    toast(failure.message);
  }
}

async function rematch() {
  const held = remembered.get(SEAT_KEY);
  try {
    await api(`/api/tables/${tableId}/rematch`, { method: "POST", token: held?.token });
  } catch (failure) {
    toast(failure.message);
  }
}

/** The host's requests carry the host token when this browser holds it, else the seat's. */
const hostCall = (path, { method = "POST", body } = {}) => api(`/api/tables/${tableId}${path}`,
  { method, body, token: remembered.get(HOST_KEY) || remembered.get(SEAT_KEY)?.token });

/** A host request whose refusal is shown as a toast (null then). */
async function hostRequest(path, options) {
  try {
    return await hostCall(path, options);
  } catch (failure) {
    toast(failure.message);
    return null;
  }
}

const hostHooks = {
  remove: (seat) => hostRequest(`/seats/${seat}`, { method: "DELETE" }),
  move: (seat, to) => hostRequest(`/seats/${seat}/move`, { body: { to } }),
  standin: (seat) => hostRequest(`/seats/${seat}/standin`),
  setTimer: async (seconds) => {
    if (await hostRequest("", { method: "PATCH", body: { turn_seconds: seconds } })) {
      toast(seconds ? `Turn timer: ${seconds} seconds a move.` : "Turn timer off.");
    }
  },
  setRules: (rules) => hostCall("", { method: "PATCH", body: { rules } }), // refusals: in the panel
  endTable: () => hostRequest("", { method: "DELETE" }),
  reissue: async (seat, name) => {
    const answer = await hostRequest(`/seats/${seat}/reissue`, { body: name ? { name } : {} });
    if (!answer) return;
    const held = remembered.get(SEAT_KEY);
    if (held && held.seat === seat) remembered.set(SEAT_KEY, null); // we gave our own seat away
    showLinkDialog($("link-dialog"), {
      title: `${capitalised(seatPlace(page, seat))} for someone new`,
      text: "Send this link to the new player (or let them scan the code). Whoever opens it takes the seat; the old link no longer works.",
      link: absoluteContinueLink(tableId, answer, remembered.get(INVITE_KEY)),
      qrLabel: `QR code of the link to ${seatPlace(page, seat)}`,
    });
  },
};

function showContinueDialog() {
  const held = remembered.get(SEAT_KEY);
  if (!held?.token) return;
  showLinkDialog($("link-dialog"), {
    title: "Continue on another device",
    text: "Open this link on your phone or another computer, or scan the code, to play your seat from there. It is your seat: do not share it.",
    link: continueLink(tableId, held.token, remembered.get(INVITE_KEY)),
    qrLabel: "QR code of your seat's link",
  });
}

function imBack() {
  if (!connection.back()) toast("Not connected — reconnecting…");
}

/** Above the felt: the table was ended, or a bot is playing for you. */
function renderNotice() {
  const notice = $("notice");
  const mine = page.seat === null ? null : page.table.seats[page.seat];
  let kind = "";
  let content = null;
  if (page.table.status === "ended") {
    kind = "ended";
    content = [el("strong", {}, "The host ended this table."), " Nothing more can be played here."];
  } else if (mine?.autoplay) {
    kind = "autoplay";
    content = [
      el("strong", {}, "A bot is playing for you"),
      mine.autoplay_reason === "timer" ? " — your last two moves timed out. " : " while you were away. ",
      el("button", { type: "button", class: "primary back", onclick: imBack }, "I'm back"),
    ];
  }
  notice.className = `notice ${kind}`;
  patch(notice, content);
  notice.hidden = !content;
}

function presetName() {
  return presetOf(page.table.rules, page.catalog)?.name;
}

function renderHeader() {
  const { table } = page;
  setText($("table-name"), table.name);
  setText($("rules-summary"), table.summary ?? "");
  const format = page.view && page.view.phase !== "over" ? handFormatWords(table.rules, page.view, page.catalog) : "";
  setText($("hand-format"), format);
  $("hand-format").hidden = !format;
  renderInviteMessage();
  cues.showTurn(page);
  renderSeries();
}

/**
 * "Games won: Ann & Cy 2 · Bo & Di 1": the table's `series`, games won by each side
 * across rematches (kept by the server), once a game has been won.
 */
function renderSeries() {
  const tally = $("series-tally");
  const wins = page.table.series;
  const games = wins.reduce((sum, won) => sum + won, 0);
  tally.hidden = games === 0;
  if (!games) return;
  setText(tally, `Games won: ${page.sides.map((_, index) => `${sideName(page, index)} ${wins[index] ?? 0}`).join(" · ")}`);
  tally.title = `${games} game${games === 1 ? "" : "s"} won at this table`;
}

/** Every rule of the table in the rule builder's words and groups, the preset named first. */
function renderRulesPanel() {
  const words = rulesInWords(page.table.rules, page.catalog);
  setText($("rules-title"), `Rules: ${words.title}${words.housed ? ` with ${words.housed} house rule${words.housed === 1 ? "" : "s"}` : ""}`);
  patch($("rules-body"),
    words.line ? el("p", { class: "rules-preset muted" }, words.line) : null,
    words.groups.map((group) => el("section", { key: group.title, class: "rules-group" },
      el("h3", {}, group.title),
      el("dl", { class: "rules-list" }, group.lines.map((line) =>
        el("div", { key: line.field, class: line.changed ? "house" : "" },
          el("dt", {}, line.label),
          el("dd", {}, line.words, line.changed ? el("span", { class: "badge level house-tag" }, "house rule") : null,
            el("details", { class: "rule-example" },
              el("summary", {}, el("span", { class: "visually-hidden" }, `${line.label}: `), "Example"),
              el("p", {}, line.explain), el("p", {}, line.example)))))))),
    el("ul", { class: "rules-worth small" }, words.worth.map((line) => el("li", {}, line))),
    page.table.rules_link ? el("a", { class: "rules-again", href: page.table.rules_link }, "New table with these rules") : null);
}

function seatPicker() {
  if (!page.mayJoin) {
    return el("div", { key: "private", class: "panel-inner seat-picker private" },
      el("p", {}, "This is a private table: to sit down you need the invite link from the host. You can watch."));
  }
  const nameInput = el("input", {
    id: "player-name", maxlength: 32, autocomplete: "nickname",
    value: remembered.get(NAME_KEY, ""), placeholder: "Your name",
    onchange: (event) => remembered.set(NAME_KEY, event.target.value.trim()),
  });
  return el("div", { key: "seat-picker", class: "panel-inner seat-picker" },
    el("label", { for: "player-name" }, "Your name"),
    nameInput,
    el("p", { class: "explain" }, "Then press “Sit here” on an empty seat, or just watch. Empty seats can take a bot."));
}

function waitingPanel() {
  const missing = page.table.seats.filter((seat) => seat.name === null).length;
  return el("div", { key: "waiting", class: "panel-inner waiting" },
    el("p", {}, `You have a seat. The game starts when ${missing} more seat${missing === 1 ? " is" : "s are"} filled.`),
    el("button", { type: "button", class: "leave", onclick: leaveSeat }, "Leave seat"));
}

function closeSummary() {
  page.summaryClosed = true;
  render();
}

/** The end-of-hand summary stays through the next bidding, until closed or play resumes. */
function summaryStarted() {
  const { view } = page;
  return view?.phase === "play" && (view.trick.length > 0 || view.tricks_won.some((won) => won > 0));
}

function summaryToShow() {
  if (!page.summary || page.summaryClosed || !page.view || summaryStarted()) return null;
  const node = handSummary(page, page.summary);
  // First, so that it is in sight however little room the summary has.
  node.prepend(el("button", { type: "button", class: "close small-button", onclick: closeSummary }, "Close"));
  return node;
}

/**
 * The hand's summary keeps to the middle of the felt that no seat plate covers (and
 * scrolls inside it if it must), so the next hand's seats and bids stay in sight; a
 * narrow middle (a phone) gets it in smaller type.
 */
function fitCentre() {
  const holder = $("centre-panel");
  if (!holder) return;
  const free = holder.firstElementChild?.classList.contains("hand-summary") ? freeMiddle($("felt")) : null;
  holder.classList.toggle("fitted", free !== null);
  holder.classList.toggle("narrow", free !== null && free.width < NARROW_MIDDLE_PX);
  if (!free) return;
  holder.style.setProperty("--free-left", `${free.left + free.width / 2}px`);
  holder.style.setProperty("--free-top", `${free.top + free.height / 2}px`);
  holder.style.setProperty("--free-width", `${free.width}px`);
  holder.style.setProperty("--free-height", `${free.height}px`);
}

function renderCentre() {
  const over = page.view?.phase === "over" || page.table.status === "over";
  const centre = over ? gameOverPanel(page, rematch) : summaryToShow();
  if (over && centre && page.table.rules_link) {
    centre.append(el("a", { class: "button play-again", href: page.table.rules_link }, "Play these rules again"));
  }
  let holder = $("centre-panel");
  if (!centre) {
    holder?.remove();
    return;
  }
  if (!holder) {
    holder = el("div", { id: "centre-panel", class: "centre-panel" });
    $("felt").append(holder);
  }
  patch(holder, centre);
  fitCentre();
}

// The decision last offered: a new one takes the focus (when it is free), a state that
// leaves it as it was does not.
let offered = null;

function renderActionPanel() {
  const panel = $("action-panel");
  let content = null;
  const ended = page.table.status === "ended";
  if (ended) content = null;
  else if (page.seat === null && page.table.status === "waiting") content = seatPicker();
  else if (page.seat !== null && page.table.status === "waiting") content = waitingPanel();
  else if (!page.acting) content = decisionPanel(page, act);
  if (page.seat === null && page.table.status !== "waiting" && !ended) {
    content = el("p", { class: "watching muted" }, "You are watching this game.");
  }
  patch(panel, content);
  panel.hidden = !content;
  const decision = content && !content.classList.contains("seat-picker");
  const offer = JSON.stringify([decision ? content.className : null, page.view?.legal]);
  if (offer === offered) return;
  offered = offer;
  if (decision && focusIsFree()) panel.querySelector("button:not([disabled])")?.focus({ preventScroll: true });
}

/**
 * Moving the focus for the player is fine unless they are busy elsewhere (chat, link):
 * it is free on the page, the hand, the decision, or the table where keepFocus left it.
 */
function focusIsFree() {
  const active = document.activeElement;
  return !active || active === document.body || active === $("felt-area") ||
    $("hand").contains(active) || $("action-panel").contains(active);
}

/** Shut the last-trick panel; the focus goes back to its button if it was inside. */
function closeLastTrick() {
  const panel = $("last-trick");
  const inside = panel.contains(document.activeElement);
  panel.hidden = true;
  if (inside) $("last-trick-button").focus();
}

function renderLastTrickButton() {
  const button = $("last-trick-button");
  button.hidden = !page.view?.last_trick;
  if (!$("last-trick").hidden) renderLastTrick($("last-trick"), page, closeLastTrick);
}

function drawHand() {
  renderHand(page, {
    act,
    redraw: render,
    focusIsFree,
    say: (text) => announcer.say(text),
    spadesFirst: remembered.get(SPADES_FIRST_KEY, false),
  });
}

/**
 * A state or a move took the focused control away (a bid sent, a card played, a panel
 * closed): the focus goes to the decision offered, else the hand, else the table, never
 * back to the top of the page.
 */
function keepFocus(had) {
  if (!had || had === document.body || document.activeElement !== document.body) return;
  const next = $("action-panel").querySelector("button:not([disabled])")
    || $("hand").querySelector('[tabindex="0"]')
    || $("felt-area");
  next.focus({ preventScroll: true });
}

function render() {
  if (!page.table) return;
  const focused = document.activeElement;
  document.body.dataset.phase = page.view?.phase || page.table.status;
  document.body.dataset.role = page.seat === null ? "spectator" : "player";
  page.hinted = currentHint();
  renderHeader();
  renderNotice();
  renderSeats($("seats"), page, { sit, addBot, countdown: (seat, mine) => clock.badge(seat, mine) });
  clock.drawAll(); // the plate of a hurried seat keeps its colour
  // The level choice shows while a seat is free for a bot (and this browser may add one).
  $("bot-level-choice").hidden = !page.table.seats.some((seat) => seat.name === null) ||
    !page.mayJoin || page.table.status === "ended";
  $("continue-button").hidden = page.seat === null || !remembered.get(SEAT_KEY)?.token ||
    page.table.status === "ended";
  renderHostPanel($("host-panel"), page, hostHooks);
  trick.update(page);
  setText($("turn-label"), turnWords(page, (seat) => seatName(page, seat)));
  renderActionPanel();
  renderCentre();
  drawHand();
  renderScorepad($("scorepad"), page, page.history, {
    review: (hand) => review.open(hand),
    download: () => downloadRecord(page, page.history, presetName()),
    verify: () => showVerification($("verify-dialog"), page, page.history, dealSeeds.seenFor(page.table.game_number)),
  });
  renderNextDeal($("next-deal"), page, page.fairness, (value) => {
    if (!connection.seed(value)) toast("Not connected — your seed was not sent. Reconnecting…");
  });
  renderLastTrickButton();
  renderRulesPanel();
  renderCueSwitches();
  renderHintButton();
  keepFocus(focused);
}

/** The turn cues' switches, for a player only: a spectator has no turn to be told of. */
function renderCueSwitches() {
  $("sound-on").checked = cues.soundOn(page);
  $("notify-on").checked = cues.notifyOn();
  $("notify-on").closest("label").hidden = !("Notification" in window);
  $("cue-switches").hidden = page.seat === null;
}

/** The hint the server gave is for the decision offered now only. */
function currentHint() {
  const offer = JSON.stringify(page.view?.legal ?? []);
  return page.hint && page.hint.offer === offer ? page.hint.action : null;
}

function renderHintButton() {
  $("hint-button").hidden = !page.table.hints || !isMyTurn(page) || page.acting;
}

function askHint() {
  if (connection.hint() === null) toast("Not connected — reconnecting…");
}

/** @param {import('./protocol-types.js').HintMessage} message */
function receiveHint(message) {
  page.hint = { offer: JSON.stringify(page.view?.legal ?? []), action: message.action };
  render();
}

/** The invite as a message to send: the table, its rules in one line, and the link. */
function renderInviteMessage() {
  const holder = $("invite-message");
  const invite = remembered.get(INVITE_KEY);
  if (!holder || !invite || !page.table) return;
  const text = `Spades at “${page.table.name}” (${page.table.summary}): ${inviteLink(tableId, invite)}`;
  if (holder.dataset.text === text) return; // drawn once: its Copy button keeps its focus
  holder.dataset.text = text;
  fill(holder, linkField("invite-text", "Invite message (with the rules)", text));
}

/** The header's links: "Invite to play" (when this browser knows the invite) and "Watch". */
function setUpLinks() {
  const invite = remembered.get(INVITE_KEY);
  const links = $("links");
  fill(links,
    invite ? linkField("invite-link", "Invite to play", inviteLink(tableId, invite)) : null,
    invite ? el("div", { id: "invite-message" }) : null,
    linkField("watch-link", "Watch", watchLink(tableId)));
  if (new URLSearchParams(window.location.search).has("created")) {
    links.classList.add("fresh");
    toast(invite
      ? "Table created. Copy the invite link and send it to your friends."
      : "Table created. Copy the link and send it to your friends.");
    window.history.replaceState(null, "", `/t/${encodeURIComponent(tableId)}`);
    if (window.matchMedia(SMALL_SCREEN).matches) showPanels(true); // the links are in the panels
    links.querySelector("button.copy")?.focus();
  }
}

function setUpControls() {
  const spadesFirst = $("spades-first");
  spadesFirst.checked = remembered.get(SPADES_FIRST_KEY, false);
  spadesFirst.addEventListener("change", () => {
    remembered.set(SPADES_FIRST_KEY, spadesFirst.checked);
    drawHand();
  });
  const level = $("bot-level");
  level.value = botLevel();
  level.addEventListener("change", () => remembered.set(BOT_LEVEL_KEY, level.value));
  $("continue-button").addEventListener("click", showContinueDialog);
  $("hint-button").addEventListener("click", askHint);
  $("sound-on").addEventListener("change", (event) => cues.setSound(event.target.checked));
  $("notify-on").addEventListener("change", async (event) => {
    const wanted = event.target.checked;
    event.target.checked = await cues.setNotify(wanted);
    if (wanted && !event.target.checked) toast("This browser does not allow notifications for this page.");
  });
  $("panels-toggle").addEventListener("click", () => showPanels(!document.body.classList.contains("panels-open")));
  $("panels-close").addEventListener("click", () => showPanels(false));
  $("last-trick-button").addEventListener("click", () => {
    const panel = $("last-trick");
    panel.hidden = !panel.hidden;
    if (!panel.hidden) {
      renderLastTrick(panel, page, closeLastTrick);
      panel.querySelector("button")?.focus();
    }
  });
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    if (!$("last-trick").hidden) closeLastTrick();
    showPanels(false);
  });
  $("keys-button").addEventListener("click", () => keys.openHelp());
  $("keys-close").addEventListener("click", () => $("keys-dialog").close());
  bindComfortControls();
}

/** On small screens the side panels fold away; the toggle brings them over the table. */
function showPanels(open) {
  const wasOpen = document.body.classList.contains("panels-open");
  document.body.classList.toggle("panels-open", open);
  $("panels-toggle").setAttribute("aria-expanded", String(open));
  if (open && !wasOpen) $("panels-close").focus({ preventScroll: true });
  if (!open && wasOpen && $("side-panels").contains(document.activeElement)) $("panels-toggle").focus();
}

async function loadRules() {
  try {
    page.catalog = await loadCatalog();
    render();
  } catch {
    /* the summary still shows; the rules panel waits for the next page load */
  }
}

setUpLinks();
setUpControls();
new ResizeObserver(fitCentre).observe($("felt"));
registerServiceWorker();
loadRules();
showBanner("Connecting…", "connecting");
connection.connect();
