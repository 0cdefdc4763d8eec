// The trick in the middle of the felt. Each card sits toward the seat that played it; a
// completed trick stays a moment, then slides to the winner's side. The hand below is
// never blocked while this plays out. Also the one-click review of the last trick.

import { cardFace, cardName, cardShort } from "/static/cards.js";
import { el, fill } from "/static/dom.js";
import { seatPosition } from "/static/seating.js";

const LINGER_MS = 1000;
const SLIDE_MS = 250;

/** The view's last trick as {cards: [{seat, card}], winner}, whatever its exact shape. */
export function lastTrickOf(view) {
  const last = view?.last_trick;
  if (!last) return null;
  if (Array.isArray(last)) return last.length ? { cards: last, winner: null } : null;
  const cards = last.cards || last.trick || last.plays || [];
  return cards.length ? { cards, winner: last.winner ?? null } : null;
}

function trickKey(handNumber, trick) {
  return trick ? `${handNumber}:${trick.cards.map((play) => `${play.seat}${play.card}`).join(",")}` : "";
}

export class TrickDisplay {
  constructor(container) {
    this.container = container;
    this.seenLastTrick = null;
    this.shown = [];
    this.lingering = null;
    this.page = null;
  }

  placed(play, page, extraClass = "") {
    const players = page.table.rules?.players ?? page.table.seats.length;
    const position = seatPosition(play.seat, players, page.seat);
    const card = cardFace(play.card);
    card.classList.add("in-trick", `from-${position}`);
    if (extraClass) card.classList.add(...extraClass.split(" ").filter(Boolean));
    const name = page.table.seats[play.seat]?.name || `Seat ${play.seat + 1}`;
    card.setAttribute("aria-label", `${name}: ${cardName(play.card)}`);
    return card;
  }

  /** Called with every new state. Starts the linger when a trick has just completed. */
  update(page) {
    this.page = page;
    const view = page.view;
    const last = lastTrickOf(view);
    const key = trickKey(view?.hand_number, last);
    const firstSight = this.seenLastTrick === null;
    if (key !== this.seenLastTrick) {
      this.seenLastTrick = key;
      if (!firstSight && last) this.linger(last);
    }
    if (!this.lingering) this.drawCurrent();
  }

  linger(last) {
    clearTimeout(this.lingering?.timer);
    this.container.className = "trick";
    const page = this.page;
    const players = page.table.rules?.players ?? page.table.seats.length;
    const winnerName = last.winner === null ? null
      : page.table.seats[last.winner]?.name || `Seat ${last.winner + 1}`;
    fill(this.container,
      last.cards.map((play) => this.placed(play, page, play.seat === last.winner ? "winner" : "")),
      winnerName ? el("p", { class: "trick-winner" }, `${winnerName} takes it`) : null);
    this.container.classList.add("done");
    const towards = last.winner === null ? "bottom" : seatPosition(last.winner, players, page.seat);
    const timer = setTimeout(() => {
      this.container.classList.add(`to-${towards}`);
      this.lingering.timer = setTimeout(() => this.endLinger(), SLIDE_MS);
    }, LINGER_MS);
    this.lingering = { timer };
  }

  endLinger() {
    this.container.className = "trick";
    this.lingering = null;
    this.shown = [];
    this.drawCurrent();
  }

  drawCurrent() {
    const page = this.page;
    const trick = page.view?.trick || [];
    const before = new Set(this.shown.map((play) => `${play.seat}${play.card}`));
    fill(this.container, trick.map((play) =>
      this.placed(play, page, before.has(`${play.seat}${play.card}`) ? "" : "arrive")));
    this.shown = trick;
  }
}

/** The last-trick review panel: who played what, and who took it. */
export function renderLastTrick(container, page) {
  const last = lastTrickOf(page.view);
  if (!last) {
    fill(container, el("p", {}, "No trick has been played yet."));
    return;
  }
  const nameOf = (seat) => page.table.seats[seat]?.name || `Seat ${seat + 1}`;
  fill(container,
    el("h2", {}, "Last trick"),
    el("ol", { class: "last-trick-list" }, last.cards.map((play) =>
      el("li", { class: play.seat === last.winner ? "winner" : "" },
        el("span", {}, nameOf(play.seat)),
        el("span", { class: `short ${"HD".includes(play.card[1]) || play.card === "BJ" ? "red" : "black"}`, "aria-label": cardName(play.card) }, cardShort(play.card)),
        play.seat === last.winner ? el("strong", {}, " took it") : null))),
    el("button", { type: "button", class: "close", onclick: () => { container.hidden = true; } }, "Close"));
}
