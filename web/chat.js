// Table chat in a collapsible side panel. Every name and line is set as text. Lines are
// keyed by version: a resync's backlog keeps the lines already shown (and a selection in
// them), and the log follows new lines only while the player is reading the newest.

import { el, patch, remembered } from "/static/dom.js";

const OPEN_KEY = "spades.chatOpen";
const MAX_LINES = 200;

export class ChatPanel {
  /** `send(text)` sends a line; `nameOf(seat)` names a seat whose line came without a name. */
  constructor(send, nameOf) {
    this.nameOf = nameOf;
    this.log = document.getElementById("chat-log");
    this.body = document.getElementById("chat-body");
    this.toggle = document.getElementById("chat-toggle");
    this.input = document.getElementById("chat-text");
    this.seenVersions = new Set();
    this.setOpen(remembered.get(OPEN_KEY, true));
    this.toggle.addEventListener("click", () => {
      this.setOpen(this.body.hidden);
      remembered.set(OPEN_KEY, !this.body.hidden);
    });
    document.getElementById("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (text && send(text)) this.input.value = "";
    });
  }

  setOpen(open) {
    this.body.hidden = !open;
    this.toggle.setAttribute("aria-expanded", String(open));
    this.toggle.textContent = open ? "Chat ▾" : "Chat ▸";
  }

  line(message) {
    const who = message.name || (message.seat === null ? "Spectator" : this.nameOf(message.seat));
    return el("li", { key: message.version }, el("strong", { class: "who" }, `${who}: `), el("span", { class: "text" }, message.text));
  }

  /** The player is reading the newest lines (or the log does not scroll yet). */
  atBottom() {
    return this.log.scrollHeight - this.log.scrollTop - this.log.clientHeight < 8;
  }

  /** Keep the log on its newest line, unless the player had scrolled back to read. */
  follow(wasAtBottom) {
    if (wasAtBottom) this.log.scrollTop = this.log.scrollHeight;
  }

  /**
   * The backlog sent with the answer to hello replaces what we have.
   * @param {Array<import('./protocol-types.js').ChatLine>} lines
   */
  replace(lines) {
    const wasAtBottom = this.atBottom();
    this.seenVersions = new Set(lines.map((message) => message.version));
    patch(this.log, lines.slice(-MAX_LINES).map((message) => this.line(message)));
    this.follow(wasAtBottom);
  }

  /** @param {import('./protocol-types.js').ChatMessage} message */
  add(message) {
    if (this.seenVersions.has(message.version)) return;
    const wasAtBottom = this.atBottom();
    this.seenVersions.add(message.version);
    this.log.append(this.line(message));
    while (this.log.children.length > MAX_LINES) this.log.firstChild.remove();
    this.follow(wasAtBottom);
    if (this.body.hidden) this.toggle.textContent = "Chat ▸ (new)";
  }
}
