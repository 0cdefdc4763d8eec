// The seat plates around the felt: name (a bot is "Bot" and its level, never the
// server's compass name), connected dot (with words), dealer chip, turn marker (with
// words), tricks won / bid, cards left, the turn timer's countdown and its "timer" note;
// or the buttons to sit down or add a bot while the seat is empty. Each plate is named
// for screen readers by who sits there and where on this screen ("Ann, on your left").
// Each plate keeps its node across states (keyed by seat), so a button with the keyboard
// focus keeps it.

import { el, patch } from "/static/dom.js";
import { placeWords, seatName, seatPosition } from "/static/seating.js";

function bidWords(bid) {
  if (bid === null) return null;
  if (bid === "blind_nil") return "Blind nil";
  if (bid === 0) return "Nil";
  return String(bid);
}

function presence(seatInfo) {
  if (seatInfo.bot) {
    return [
      el("span", { class: "badge bot", title: `A computer player, level ${seatInfo.bot}` }, "Bot"),
      el("span", { class: "badge level" }, seatInfo.bot),
    ];
  }
  const online = seatInfo.connected;
  let words = online ? "online" : "disconnected";
  if (seatInfo.autoplay) words = seatInfo.autoplay_reason === "timer" ? "bot plays (timed out)" : "away (bot plays)";
  return el("span", { class: `presence ${online ? "online" : "offline"}${seatInfo.autoplay ? " autoplay" : ""}` },
    el("span", { class: "dot", "aria-hidden": "true" }),
    el("span", { class: `words${online && !seatInfo.autoplay ? " quiet" : ""}` }, words));
}

/** "(clock) timer" on a seat the timer moved for this hand, with the count in words. */
function timerNote(moves) {
  if (!moves) return null;
  const words = `The timer moved for this seat ${moves === 1 ? "once" : `${moves} times`} this hand`;
  return el("span", { class: "timer-note", title: words },
    el("span", { class: "clock", "aria-hidden": "true" }),
    el("span", { "aria-hidden": "true" }, moves === 1 ? "timer" : `timer ×${moves}`),
    el("span", { class: "visually-hidden" }, words));
}

function tricksLine(view, seat) {
  const bid = bidWords(view.bids[seat]);
  const won = view.tricks_won[seat];
  if (bid === null) {
    return el("span", { class: "tricks muted" }, view.phase === "bid" ? "no bid" : "");
  }
  const spoken = `${won} tricks won, bid ${bid}`;
  return el("span", { class: "tricks", "aria-label": spoken, title: spoken }, `${won} / ${bid}`);
}

function emptySeat(seat, hooks, { canSit, canAddBot }) {
  return [
    el("span", { class: "name muted" }, "Empty seat"),
    canSit || canAddBot ? el("span", { class: "seat-buttons" },
      canSit ? el("button", { key: "sit", type: "button", class: "sit", onclick: () => hooks.sit(seat), dataset: { seat } }, "Sit here") : null,
      canAddBot ? el("button", { key: "add-bot", type: "button", class: "add-bot", onclick: () => hooks.addBot(seat), dataset: { seat } }, "Add bot") : null) : null,
  ];
}

function occupiedSeat(seat, seatInfo, page, hooks) {
  const { view, seat: mySeat } = page;
  const isTurn = Boolean(view && view.phase !== "over" && view.turn.includes(seat));
  const parts = [
    el("span", { class: "name-line" },
      seatInfo.bot ? null : el("span", { class: "name" }, seatInfo.name),
      presence(seatInfo),
      seat === mySeat ? el("span", { class: "badge you" }, "You") : null,
      view && view.dealer === seat ? el("span", { class: "chip dealer", title: "Dealer" }, "Dealer") : null),
  ];
  if (view) {
    const timed = page.timerMoves.filter((move) => move.seat === seat).length;
    const left = view.hand_sizes[seat];
    parts.push(el("span", { class: "stat-line" },
      tricksLine(view, seat),
      seat !== mySeat && left ? el("span", { class: "cards-left muted" }, `${left} cards`) : null,
      timerNote(timed)));
  }
  if (isTurn) {
    // Bots (and players a bot stands in for) never wait for the timer: no countdown.
    const timed = hooks.countdown && !seatInfo.bot && !seatInfo.autoplay;
    parts.push(el("span", { class: "turn-line" },
      el("span", { class: "turn-marker" }, seat === mySeat ? "▶ Your turn" : "▶ Their turn"),
      timed ? hooks.countdown(seat, seat === mySeat) : null));
  }
  return { parts, isTurn };
}

/** "Ann, on your left", "Ann, you", "Bot across (expert)", "Empty seat on the left". */
function plateLabel(page, seatInfo) {
  const { seat } = seatInfo;
  if (seatInfo.bot) return `${seatName(page, seat)} (${seatInfo.bot})`;
  if (seatInfo.name === null) return seatName(page, seat);
  return `${seatInfo.name}, ${seat === page.seat ? "you" : placeWords(page, seat)}`;
}

/**
 * Draw every seat plate. `hooks`: {sit(seat), addBot(seat), countdown(seat, mine)};
 * `page.mayJoin`: this browser may take seats (a listed table, or it holds the invite).
 */
export function renderSeats(container, page, hooks) {
  const { table } = page;
  const players = table.rules.players;
  const allowed = page.mayJoin && table.status !== "ended";
  const rights = { canSit: allowed && page.seat === null && table.status === "waiting", canAddBot: allowed };
  patch(container, table.seats.map((seatInfo) => {
    const seat = seatInfo.seat;
    const position = seatPosition(seat, players, page.seat);
    const empty = seatInfo.name === null;
    const { parts, isTurn } = empty ? { parts: emptySeat(seat, hooks, rights), isTurn: false }
      : occupiedSeat(seat, seatInfo, page, hooks);
    const plate = el("div", {
      key: seat, class: `seat pos-${position}`, dataset: { seat }, role: "group",
      "aria-label": plateLabel(page, seatInfo),
    }, parts);
    plate.classList.toggle("empty", empty);
    plate.classList.toggle("mine", seat === page.seat);
    plate.classList.toggle("turn", isTurn);
    plate.classList.toggle("disconnected", !empty && !seatInfo.connected && !seatInfo.bot);
    plate.classList.toggle("autoplay", Boolean(seatInfo.autoplay));
    return plate;
  }));
}

// Room left between a panel in the middle and the plates around it, in pixels.
const CLEARANCE = 4;

/**
 * The middle of the felt that no seat plate covers, in the felt's own coordinates
 * ({left, top, width, height}): inside the plates on the left and right, below those at
 * the top, above the one at the bottom. A panel kept inside it hides no seat.
 * @param {HTMLElement} felt
 */
export function freeMiddle(felt) {
  const box = felt.getBoundingClientRect();
  const inside = { left: box.left + felt.clientLeft, top: box.top + felt.clientTop };
  let left = inside.left;
  let top = inside.top;
  let right = inside.left + felt.clientWidth;
  let bottom = inside.top + felt.clientHeight;
  for (const plate of felt.querySelectorAll(".seat")) {
    const edge = plate.getBoundingClientRect();
    if (plate.classList.contains("pos-bottom")) bottom = Math.min(bottom, edge.top - CLEARANCE);
    else if (plate.classList.contains("pos-left")) left = Math.max(left, edge.right + CLEARANCE);
    else if (plate.classList.contains("pos-right")) right = Math.min(right, edge.left - CLEARANCE);
    else top = Math.max(top, edge.bottom + CLEARANCE);
  }
  return {
    left: left - inside.left, top: top - inside.top,
    width: Math.max(0, right - left), height: Math.max(0, bottom - top),
  };
}
