// Table chat in a collapsible side panel. Every name and line is set as text.

import { el, fill, remembered } from "/static/dom.js";

const OPEN_KEY = "spades.chatOpen";
const MAX_LINES = 200;

export class ChatPanel {
  constructor(send) {
    this.log = document.getElementById("chat-log");
    this.body = document.getElementById("chat-body");
    this.toggle = document.getElementById("chat-toggle");
    this.input = document.getElementById("chat-text");
    this.seenVersions = new Set();
    const narrow = window.matchMedia("(max-width: 700px)").matches;
    this.setOpen(remembered.get(OPEN_KEY, !narrow));
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
    const who = message.name || (message.seat === null ? "Spectator" : `Seat ${message.seat + 1}`);
    return el("li", {}, el("strong", { class: "who" }, `${who}: `), el("span", { class: "text" }, message.text));
  }

  /** The backlog sent with the answer to hello replaces what we have. */
  replace(lines) {
    this.seenVersions = new Set(lines.map((message) => message.version));
    fill(this.log, lines.slice(-MAX_LINES).map((message) => this.line(message)));
    this.log.scrollTop = this.log.scrollHeight;
  }

  add(message) {
    if (message.version !== undefined && this.seenVersions.has(message.version)) return;
    this.seenVersions.add(message.version);
    this.log.append(this.line(message));
    while (this.log.children.length > MAX_LINES) this.log.firstChild.remove();
    this.log.scrollTop = this.log.scrollHeight;
    if (this.body.hidden) this.toggle.textContent = "Chat ▸ (new)";
  }
}
