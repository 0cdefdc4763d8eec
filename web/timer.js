// The turn timer: a countdown in seconds on the seat plate of each seat to act, read
// from the state's `deadline` and corrected by `server_time` (the server's clock when it
// made the message), so a wrong clock on this device does not matter. In the last
// HURRY seconds the player whose turn it is sees it in colour and in words, and a
// screen reader hears it once (unless the player turned announcements off).

import { el } from "/static/dom.js";

const HURRY_SECONDS = 5;
const TICK_MS = 250;

/** Milliseconds since 1970 of the server's ISO-8601 time, or null for none. */
function timeOf(iso) {
  return iso === null ? null : Date.parse(iso);
}

export class TurnClock {
  /**
   * @param {HTMLElement} announcer an aria-live region for the one "seconds left" alert
   * @param {() => boolean} allowed whether the player wants it said
   */
  constructor(announcer, allowed = () => true) {
    this.announcer = announcer;
    this.allowed = allowed;
    this.deadline = null;
    this.offset = 0; // server clock minus ours
    this.mine = false;
    this.announced = null;
    setInterval(() => this.tick(), TICK_MS);
  }

  /**
   * Called with every state message (its `deadline` and `server_time`).
   * @param {import('./protocol-types.js').StateMessage} message  @param {object} page the table page's state
   */
  receive(message, page) {
    this.offset = timeOf(message.server_time) - Date.now();
    this.deadline = timeOf(message.deadline);
    const turn = page.view?.turn ?? [];
    // A player a bot stands in for is not hurried: the bot moves at once.
    this.mine = page.seat !== null && turn.includes(page.seat) && !page.table.seats[page.seat]?.autoplay;
    if (this.deadline === null || !this.mine) this.announcer.textContent = "";
  }

  /** Whole seconds left (never below 0), or null without a deadline. */
  secondsLeft() {
    if (this.deadline === null) return null;
    return Math.max(0, Math.ceil((this.deadline - (Date.now() + this.offset)) / 1000));
  }

  /** The countdown for a seat plate, or null when that seat has no deadline. */
  badge(seat, isMine) {
    if (this.deadline === null) return null;
    const node = el("span", { class: "countdown", dataset: { seat, mine: isMine ? "1" : "" } });
    this.draw(node);
    return node;
  }

  draw(node) {
    const left = this.secondsLeft();
    if (left === null) return;
    const hurry = left <= HURRY_SECONDS;
    const mine = node.dataset.mine === "1";
    const words = mine && hurry ? `${left} s left!` : `${left} s left`;
    if (node.lastChild?.textContent !== words) {
      node.replaceChildren(el("span", { class: "clock", "aria-hidden": "true" }), words);
    }
    node.title = mine ? "Time left for your move; then the timer moves for you." : "Time left for this move.";
    node.classList.toggle("hurry", hurry);
    node.closest(".seat")?.classList.toggle("hurry", hurry && mine);
  }

  /** Every countdown on the seat plates, now (after each tick, and after a redraw). */
  drawAll() {
    for (const node of document.querySelectorAll(".seat .countdown")) this.draw(node);
  }

  tick() {
    if (this.deadline === null) return;
    this.drawAll();
    const left = this.secondsLeft();
    if (this.mine && left !== null && left <= HURRY_SECONDS && left > 0 && this.announced !== this.deadline) {
      this.announced = this.deadline;
      if (this.allowed()) this.announcer.textContent = `${left} seconds left for your move!`;
    }
  }
}
