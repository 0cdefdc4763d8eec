// Building elements from text only: user data (names, chat, table names) never goes
// through innerHTML, so it can never become markup.

/** el("button", {class: "x", onclick: f, "aria-label": "y"}, "text", child, ...) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      node.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      node.className = value;
    } else if (key === "dataset") {
      Object.assign(node.dataset, value);
    } else if (value === true) {
      node.setAttribute(key, "");
    } else {
      node.setAttribute(key, String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace all children of `node` (text or nodes). */
export function fill(node, ...children) {
  node.replaceChildren();
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Redraw a panel only when what it shows has changed, so that a state that changes
 * nothing in it (presence, chat, someone else's move) neither replays its animation
 * nor takes the keyboard focus away from the player.
 */
export function unchanged(node, key) {
  if (node.dataset.key === key) return true;
  node.dataset.key = key;
  return false;
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
