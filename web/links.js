// The table's secrets and the links that carry them: the invite (friends may sit down),
// the host token (the host's controls) and the seat token (the seat itself). Links keep
// their secret in the URL fragment, which the browser never sends to the server; the
// table page reads it once, remembers it in localStorage and removes it from the address
// bar. Also: copying a link, and the small dialog that shows a link with its QR code.

import { el, fill, remembered } from "/static/dom.js";

export const seatKey = (tableId) => `spades.seat.${tableId}`;
export const inviteKey = (tableId) => `spades.invite.${tableId}`;
export const hostKey = (tableId) => `spades.host.${tableId}`;

/** What this browser holds for the table: {seat: {seat, token}|null, invite, hostToken}. */
export function secretsOf(tableId) {
  return {
    seat: remembered.get(seatKey(tableId)),
    invite: remembered.get(inviteKey(tableId)),
    hostToken: remembered.get(hostKey(tableId)),
  };
}

/** Keep what the lobby got when it created the table (shown by the server only then). */
export function rememberCreated(table) {
  if (table.invite) remembered.set(inviteKey(table.id), table.invite);
  if (table.host_token) remembered.set(hostKey(table.id), table.host_token);
}

/**
 * Read `#invite=…`, `#seat=…` and `#seat=…&invite=…` once, keep them, and take the
 * fragment out of the address bar (and out of the history). Returns what was found.
 */
export function readFragment(tableId) {
  const hash = window.location.hash.replace(/^#/, "");
  if (!hash) return {};
  const found = new URLSearchParams(hash);
  const invite = found.get("invite");
  const token = found.get("seat");
  if (invite) remembered.set(inviteKey(tableId), invite);
  if (token) {
    // The seat number is learnt from the server's answer to hello.
    const held = remembered.get(seatKey(tableId));
    if (held?.token !== token) remembered.set(seatKey(tableId), { seat: null, token });
  }
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
  return { invite, token };
}

const tablePath = (tableId) => `${window.location.origin}/t/${encodeURIComponent(tableId)}`;

export function watchLink(tableId) {
  return tablePath(tableId);
}

export function inviteLink(tableId, invite) {
  return `${tablePath(tableId)}#invite=${encodeURIComponent(invite)}`;
}

/** The personal link that puts another browser in this seat. */
export function continueLink(tableId, token, invite) {
  const parts = new URLSearchParams({ seat: token });
  if (invite) parts.set("invite", invite);
  return `${tablePath(tableId)}#${parts.toString()}`;
}

/** The server's `continue_url` made whole (origin, and the invite when we know it). */
export function absoluteContinueLink(tableId, answer, invite) {
  if (answer.continue_url) {
    const url = new URL(answer.continue_url, window.location.origin);
    const parts = new URLSearchParams(url.hash.replace(/^#/, ""));
    if (invite && !parts.has("invite")) parts.set("invite", invite);
    url.hash = parts.toString();
    return url.toString();
  }
  return continueLink(tableId, answer.token, invite);
}

/** Copy `text`; falls back to selecting `input` and execCommand where the API is refused. */
export async function copyText(text, input, button) {
  let copied = false;
  try {
    await navigator.clipboard.writeText(text);
    copied = true;
  } catch {
    if (input) {
      input.focus();
      input.select();
      try {
        copied = document.execCommand("copy");
      } catch {
        copied = false;
      }
    }
  }
  if (button) {
    const words = button.dataset.words || button.textContent;
    button.dataset.words = words;
    button.textContent = copied ? "Copied!" : "Select and copy";
    setTimeout(() => { button.textContent = words; }, 2000);
  }
  return copied;
}

/** A read-only link field with its Copy button: [label] [input] [Copy]. */
export function linkField(id, label, link) {
  const input = el("input", { id, readonly: true, value: link, spellcheck: "false" });
  input.addEventListener("focus", () => input.select());
  const button = el("button", {
    type: "button", class: "copy", "aria-label": `Copy: ${label}`,
    onclick: () => copyText(link, input, button),
  }, "Copy");
  return el("div", { class: "link-field" },
    el("label", { for: id }, label),
    el("span", { class: "link-row" }, input, button));
}

let qrModule = null;
async function qrOf(link, label) {
  try {
    qrModule ??= await import("/static/qr.js");
    return qrModule.qrSvg(link, { label });
  } catch {
    return el("p", { class: "muted small" }, "(No QR code here: copy the link instead.)");
  }
}

/**
 * Open the link dialog: a title, a sentence, the link with Copy, and its QR code, so a
 * phone can scan it. `dialog` is the page's <dialog>; Escape or Close shuts it.
 */
export async function showLinkDialog(dialog, { title, text, link, qrLabel }) {
  const close = el("button", { type: "button", class: "close", onclick: () => dialog.close() }, "Close");
  const qrHolder = el("div", { class: "qr-holder" });
  fill(dialog,
    el("h2", { id: "link-dialog-title" }, title),
    el("p", {}, text),
    linkField("link-dialog-link", "Link", link),
    qrHolder,
    el("div", { class: "dialog-buttons" }, close));
  dialog.setAttribute("aria-labelledby", "link-dialog-title");
  if (!dialog.open) dialog.showModal();
  dialog.querySelector("button.copy")?.focus();
  fill(qrHolder, await qrOf(link, qrLabel || `QR code of the link: ${title}`));
}
