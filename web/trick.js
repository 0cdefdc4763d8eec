// The trick in the middle of the felt. Each card sits toward the seat that played it; a
// completed trick stays a moment, then slides to the winner's side. The hand below is
// never blocked while this plays out. Also the one-click review of the last trick.
// Cards are keyed by seat and card, so a card already on the felt is not drawn again.

import { cardFace, cardName, cardShort, suitClasses } from "/static/cards.js";
import { el, keyed, patch } from "/static/dom.js";
import { does, seatName, seatPosition, seatWords } from "/static/seating.js";

const LINGER_MS = 1000;
const SLIDE_MS = 250;

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
    const players = page.table.rules.players;
    const position = seatPosition(play.seat, players, page.seat);
    const card = keyed(cardFace(play.card), `${play.seat}${play.card}`);
    card.classList.add("in-trick", `from-${position}`);
    if (extraClass) card.classList.add(...extraClass.split(" ").filter(Boolean));
    card.setAttribute("aria-label", `${seatName(page, play.seat)}: ${cardName(play.card)}`);
    return card;
  }

  /** Called with every new state. Starts the linger when a trick has just completed. */
  update(page) {
    this.page = page;
    const view = page.view;
    const last = view?.last_trick ?? null;
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
    const players = page.table.rules.players;
    patch(this.container,
      last.cards.map((play) => this.placed(play, page, play.seat === last.winner ? "winner" : "")),
      el("p", { class: "trick-winner" }, `${does(seatWords(page, last.winner), "take")} it`));
    this.container.classList.add("done");
    const towards = seatPosition(last.winner, players, page.seat);
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
    const trick = page.view?.trick ?? [];
    const before = new Set(this.shown.map((play) => `${play.seat}${play.card}`));
    patch(this.container, trick.map((play) =>
      this.placed(play, page, before.has(`${play.seat}${play.card}`) ? "" : "arrive")));
    this.shown = trick;
  }
}

/** The last-trick review panel: who played what, and who took it; `close()` shuts it. */
export function renderLastTrick(container, page, close) {
  const last = page.view?.last_trick ?? null;
  if (!last) {
    patch(container, el("p", {}, "No trick has been played yet."));
    return;
  }
  patch(container,
    el("h2", {}, "Last trick"),
    el("ol", { class: "last-trick-list" }, last.cards.map((play) =>
      el("li", { class: play.seat === last.winner ? "winner" : "" },
        el("span", {}, seatName(page, play.seat)),
        el("span", { class: `short ${suitClasses(play.card)}`, "aria-label": cardName(play.card) }, cardShort(play.card)),
        play.seat === last.winner ? el("strong", {}, " took it") : null))),
    el("button", { type: "button", class: "close", onclick: close }, "Close"));
}
