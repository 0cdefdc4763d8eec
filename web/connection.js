// The table's WebSocket: hello with the seat token (and the host token when this browser
// holds it) and last version, `back` from autoplay, `hint` requests, reconnect when the
// socket drops, ignore stale states, resync (hello again) on a suspected gap.
//
// Reconnecting: a first try soon after the drop, then one about every RETRY_MS for as
// long as the server stays away (a connection it cannot take costs it nothing), so the
// page is back within about a second of the server's return however long it was gone;
// after DOWN_PATIENCE_MS (a laptop asleep, a server down for good) the wait doubles with
// each further DOWN_PATIENCE_MS, up to MAX_DELAY_MS. A server that answered and refused the socket (1008, 1013: too many
// connections from this address, origin not allowed, too slow) is asked again only after
// REFUSED_MS, doubling up to MAX_REFUSED_MS. Each wait is spread by ±20 % so that a
// server's players do not all come back in the same millisecond. The page is back, and
// the counts start again, when the server answers its hello.

const FIRST_DELAY_MS = 250;
const RETRY_MS = 750;
const DOWN_PATIENCE_MS = 60000;
const MAX_DELAY_MS = 10000;
const REFUSED_MS = 5000;
const MAX_REFUSED_MS = 60000;
const REFUSALS = new Set([1008, 1013]);
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
    this.downSince = null; // when the socket went down, until a hello is answered
    this.attempt = 0; // tries since then
    this.refusals = 0; // refusals in a row (REFUSALS)
    this.retry = null; // the timer of the next try
    this.helloPending = false;
    this.lastResync = 0;
    this.nextId = 1;
    window.addEventListener("online", () => this.tryNow());
    document.addEventListener("visibilitychange", () => document.hidden || this.tryNow());
  }

  connect() {
    clearTimeout(this.retry);
    this.retry = null;
    const scheme = window.location.protocol === "https:" ? "wss" : "ws";
    const socket = new WebSocket(`${scheme}://${window.location.host}/ws/tables/${this.tableId}`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.hello();
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

  /** This player's own seed for the next deal (docs/fairness.md). */
  seed(value) {
    return this.send({ type: "seed", value });
  }

  /** Ask for the expert bot's choice from this seat's view; the answer is a `hint`. */
  hint() {
    const id = `h${this.nextId++}`;
    return this.send({ type: "hint", id }) ? id : null;
  }

  /** Ask what the expert bot would have chosen at each of this seat's own choices in a
   * finished hand of this game; the answer is a `review`. */
  review(hand) {
    const id = `r${this.nextId++}`;
    return this.send({ type: "review", hand, id }) ? id : null;
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
    else if (message.type === "review") this.hooks.onReview?.(message);
    else if (message.type === "error") this.hooks.onError(message);
  }

  /** @param {import('./protocol-types.js').StateMessage} message */
  receiveState(message) {
    const answersHello = this.helloPending && message.chat !== undefined;
    const stale = this.version !== null && message.version <= this.version;
    if (stale && !answersHello) return;
    if (answersHello) this.greeted();
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

  /** The server answered the hello: the page is live again, the waits start afresh. */
  greeted() {
    this.helloPending = false;
    this.downSince = null;
    this.attempt = 0;
    this.refusals = 0;
    this.hooks.onStatus("open");
  }

  /** How long to wait before the next try, after a close with `code` (see the top). */
  delay(code) {
    if (REFUSALS.has(code)) {
      this.refusals += 1;
      return Math.min(MAX_REFUSED_MS, REFUSED_MS * 2 ** (this.refusals - 1));
    }
    const now = Date.now();
    this.downSince ??= now;
    this.attempt += 1;
    if (this.attempt === 1) return FIRST_DELAY_MS;
    const late = now - this.downSince - DOWN_PATIENCE_MS;
    return late < 0 ? RETRY_MS : Math.min(MAX_DELAY_MS, RETRY_MS * 2 ** Math.ceil(late / DOWN_PATIENCE_MS));
  }

  closed(socket, event) {
    if (socket !== this.socket) return;
    clearInterval(this.pinger);
    this.socket = null;
    if (event.code === 4404) {
      this.hooks.onGone();
      return;
    }
    const delay = this.delay(event.code);
    this.hooks.onStatus("down", { delay, restarting: event.code === 1012 });
    this.retry = setTimeout(() => this.connect(), delay * (0.8 + Math.random() * 0.4));
  }

  /**
   * Try at once while down: the browser is back online, or the page is seen again (a
   * hidden page's timers may have been slowed down).
   */
  tryNow() {
    if (this.retry !== null && this.refusals === 0) this.connect();
  }
}
