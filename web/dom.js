// Building elements from text only: user data (names, chat, table names) never goes
// through innerHTML, so it can never become markup. And patching a panel in place: a
// panel is built afresh from each state with el(), then patch() carries over only what
// differs into the nodes already on screen, so focus, open <details>, text selection and
// scroll positions survive every state message.

const HANDLERS = Symbol("handlers");
const KEY = Symbol("key");
const OWN = Symbol("own");

// One listener per node and event type, calling whatever handler the node holds now:
// patch() swaps handlers without adding or removing listeners.
function dispatch(event) {
  this[HANDLERS]?.[event.type]?.call(this, event);
}

/** Handle `type` events on `node` (the way el() sets "onclick" and friends). */
export function on(node, type, handler) {
  node[HANDLERS] ??= {};
  node[HANDLERS][type] = handler;
  node.addEventListener(type, dispatch);
  return node;
}

/** Give a node built elsewhere (a card face) its `key` for patch(), as el() does. */
export function keyed(node, key) {
  node[KEY] = String(key);
  return node;
}

function asNode(child) {
  return child instanceof Node ? child : document.createTextNode(String(child));
}

function present(children) {
  return children.flat(Infinity).filter((child) => child !== undefined && child !== null && child !== false);
}

/**
 * el("button", {class: "x", onclick: f, "aria-label": "y", key: 3}, "text", child, ...).
 * `key` names the node among its siblings for patch() (a seat, a card, a hand number);
 * `own: true` marks a node whose children something else draws (patch() never touches
 * them once it is on screen: the rule builder's).
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "key") {
      keyed(node, value);
    } else if (name === "own") {
      node[OWN] = true;
    } else if (name.startsWith("on") && typeof value === "function") {
      on(node, name.slice(2), value);
    } else if (name === "class") {
      node.className = value;
    } else if (name === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(name, "");
    } else {
      node.setAttribute(name, String(value));
    }
  }
  node.append(...present(children).map(asNode));
  return node;
}

/** Replace all children of `node` (text or nodes): for what is drawn once, like a dialog. */
export function fill(node, ...children) {
  node.replaceChildren(...present(children).map(asNode));
  return node;
}

/**
 * Make the children of `container` look like `children` (built with el(), text, or
 * null), keeping every node that can stay: a child with a `key` stays when a sibling
 * of the same tag and key is there, one without stays when the node in its place has
 * its tag. Kept nodes take the new attributes, handlers and children, except what the
 * player owns: whether a <details> is open and what an input holds, and the children of
 * an `own` node.
 */
export function patch(container, ...children) {
  patchChildren(container, present(children).map(asNode));
  return container;
}

function sameKind(old, next) {
  return old.nodeName === next.nodeName && old[KEY] === next[KEY];
}

const nameOf = (node) => `${node.nodeName}:${node[KEY]}`;

function patchChildren(parent, wanted) {
  // Keyed nodes that go, go first: then a kept node moves only when the order of the
  // kept ones changes (a node moved loses the focus).
  const names = new Set(wanted.filter((next) => next[KEY] !== undefined).map(nameOf));
  const keyed = new Map();
  for (const child of [...parent.childNodes]) {
    if (child[KEY] === undefined) continue;
    if (names.has(nameOf(child))) keyed.set(nameOf(child), child);
    else child.remove();
  }
  let cursor = parent.firstChild;
  for (const next of wanted) {
    let kept = null;
    if (next[KEY] !== undefined) {
      kept = keyed.get(nameOf(next)) ?? null;
      keyed.delete(nameOf(next));
    } else if (cursor && sameKind(cursor, next)) {
      kept = cursor;
    }
    if (kept === null) {
      parent.insertBefore(next, cursor);
      continue;
    }
    patchNode(kept, next);
    if (kept === cursor) cursor = cursor.nextSibling;
    else parent.insertBefore(kept, cursor);
  }
  while (cursor) {
    const after = cursor.nextSibling;
    cursor.remove();
    cursor = after;
  }
}

function patchNode(old, next) {
  if (old.nodeType !== Node.ELEMENT_NODE) {
    if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
    return;
  }
  patchAttributes(old, next);
  old[HANDLERS] = next[HANDLERS];
  for (const type of Object.keys(next[HANDLERS] ?? {})) old.addEventListener(type, dispatch);
  if (!old[OWN]) patchChildren(old, [...next.childNodes]);
}

/** The player's own state of a kept node, which a redraw must not undo. */
function ownedByPlayer(node, name) {
  return (node.nodeName === "DETAILS" && name === "open") || (node.nodeName === "INPUT" && name === "value");
}

function patchAttributes(old, next) {
  for (const { name } of [...old.attributes]) {
    if (!next.hasAttribute(name) && !ownedByPlayer(old, name)) old.removeAttribute(name);
  }
  for (const { name, value } of next.attributes) {
    if (old.getAttribute(name) !== value && !ownedByPlayer(old, name)) old.setAttribute(name, value);
  }
}

/** Set a node's text only when it differs (a live region would announce it again). */
export function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** Read and write small JSON values in localStorage without throwing (private mode). */
export const remembered = {
  get(key, fallback = null) {
    try {
      const raw = localStorage.getItem(key);
      return raw === null ? fallback : JSON.parse(raw);
    } catch {
      return fallback;
    }
  },
  set(key, value) {
    try {
      if (value === null || value === undefined) localStorage.removeItem(key);
      else localStorage.setItem(key, JSON.stringify(value));
    } catch {
      /* storage full or disabled: the page still works, it just forgets */
    }
  },
};

/** fetch JSON; throws an Error whose message is the server's `detail` when refused. */
export async function api(path, { method = "GET", body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let payload = null;
  try {
    payload = text ? JSON.parse(text) : null;
  } catch {
    payload = text;
  }
  if (!response.ok) {
    const error = new Error(describeDetail(payload, response.status));
    error.status = response.status;
    throw error;
  }
  return payload;
}

function describeDetail(payload, status) {
  const detail = payload && typeof payload === "object" ? payload.detail : payload;
  if (typeof detail === "string" && detail) return detail;
  if (Array.isArray(detail)) {
    return detail.map((item) => item.msg || JSON.stringify(item)).join("; ");
  }
  return `The server refused (${status}).`;
}
