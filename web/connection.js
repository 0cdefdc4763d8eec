// The table's WebSocket: hello with the seat token (and the host token when this browser
// holds it) and last version, `back` from autoplay, `hint` requests, reconnect with
// exponential back-off, ignore stale states, resync (hello again) on a suspected gap.

const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 10000;
const PING_MS = 25000;
const RESYNC_QUIET_MS = 3000;

export class TableConnection {
  /**
   * @param {string} tableId
   * @param {{token: () => string|null, hostToken?: () => string|null,
   *          onState: (message: import('./protocol-types.js').StateMessage, how: {answersHello: boolean}) => void,
   *          onChat: (message: import('./protocol-types.js').ChatMessage) => void,
   *          onError: (message: import('./protocol-types.js').ErrorMessage) => void,
   *          onHint?: (message: import('./protocol-types.js').HintMessage) => void,
   *          onStatus: Function, onGone: Function}} hooks
   */
  constructor(tableId, hooks) {
    this.tableId = tableId;
    this.hooks = hooks;
    this.version = null;
    this.socket = null;
    this.attempt = 0;
    this.helloPending = false;
    this.lastResync = 0;
    this.nextId = 1;
  }

  connect() {
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${window.location.host}/ws/tables/${this.tableId}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.attempt = 0;
      this.hello();
      this.hooks.onStatus("open");
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this.send({ type: "ping" }), PING_MS);
    });
    socket.addEventListener("message", (event) => this.receive(event.data));
    socket.addEventListener("close", (event) => this.closed(socket, event));
  }

  /** Say hello again (after a reconnect, a new seat token, or a suspected gap). */
  hello() {
    this.helloPending = true;
    const message = { type: "hello", token: this.hooks.token(), version: this.version };
    const hostToken = this.hooks.hostToken?.();
    if (hostToken) message.host_token = hostToken;
    this.send(message);
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  /** Send an action dict; returns the id the server echoes in an error, or null if down. */
  act(action) {
    const id = `a${this.nextId++}`;
    return this.send({ type: "act", action, id }) ? id : null;
  }

  chat(text) {
    return this.send({ type: "chat", text });
  }

  /** Ask for the advanced bot's choice from this seat's view; the answer is a `hint`. */
  hint() {
    const id = `h${this.nextId++}`;
    return this.send({ type: "hint", id }) ? id : null;
  }

  /** Take the seat back from the bot that plays for this player (autoplay). */
  back() {
    return this.send({ type: "back" });
  }

  /** @param {string} raw a text frame: one ServerMessage */
  receive(raw) {
    /** @type {import('./protocol-types.js').ServerMessage} */
    let message;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (message.type === "state") this.receiveState(message);
    else if (message.type === "chat") this.receiveChat(message);
    else if (message.type === "hint") this.hooks.onHint?.(message);
    else if (message.type === "error") this.hooks.onError(message);
  }

  /** @param {import('./protocol-types.js').StateMessage} message */
  receiveState(message) {
    const answersHello = this.helloPending && message.chat !== undefined;
    const stale = this.version !== null && message.version <= this.version;
    if (stale && !answersHello) return;
    if (answersHello) this.helloPending = false;
    else if (this.version !== null && message.version > this.version + 1) this.resync();
    this.version = Math.max(this.version ?? 0, message.version);
    this.hooks.onState(message, { answersHello });
  }

  /**
   * Every message carries the table version. A jump of more than one means we may have
   * missed something (a chat line; states are whole), so ask for a fresh state and the
   * chat backlog, at most once every few seconds.
   *
   * @param {import('./protocol-types.js').ChatMessage} message
   */
  receiveChat(message) {
    if (this.version !== null && message.version > this.version + 1) this.resync();
    if (this.version === null || message.version > this.version) this.version = message.version;
    this.hooks.onChat(message);
  }

  resync() {
    const now = Date.now();
    if (now - this.lastResync < RESYNC_QUIET_MS) return;
    this.lastResync = now;
    this.hello();
  }

  closed(socket, event) {
    if (socket !== this.socket) return;
    clearInterval(this.pinger);
    this.socket = null;
    if (event.code === 4404) {
      this.hooks.onGone();
      return;
    }
    const delay = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** this.attempt);
    this.attempt += 1;
    this.hooks.onStatus("down", { delay, restarting: event.code === 1012 });
    setTimeout(() => this.connect(), delay * (0.8 + Math.random() * 0.4));
  }
}
