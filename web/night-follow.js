// A club night's tables on the table page: the night page remembers which night a table
// belongs to when it seats a member there, and when that table's game ends while the
// member watches, the table page takes them back to the night (its standings, the break
// and their next seat) after a few seconds, with a button to go at once or to stay. A
// rematch, which the night would not count, is not offered at such a table.

import { el, fill, remembered } from "/static/dom.js";

// Long enough to read the final score, short enough to be back for the next round.
const RETURN_MS = 6000;
const nightOfKey = (tableId) => `spades.nightOf.${tableId}`;

/** The night page's address. */
export function nightPath(clubId, nightId) {
  return `/c/${encodeURIComponent(clubId)}/night/${encodeURIComponent(nightId)}`;
}

/** Remember that `tableId` is a table of this club night (the night page seats a member). */
export function rememberNightTable(tableId, clubId, nightId) {
  remembered.set(nightOfKey(tableId), { club: clubId, night: nightId });
}

const follow = { status: null, timer: null, stayed: false };

function goBack(path) {
  clearTimeout(follow.timer);
  window.location.assign(path);
}

/**
 * After each state of the table page: for a night's table whose game is over, a line
 * with "Back to the night" (and, when the game ended while this page watched, the
 * return a few seconds later unless the member chooses to stay). Nothing otherwise.
 */
export function followNight(tableId, status) {
  const night = remembered.get(nightOfKey(tableId));
  const before = follow.status;
  follow.status = status;
  if (!night) return;
  // The night's game is the table's only one that counts: no rematch offered here.
  document.body.classList.add("night-table");
  const done = status === "over" || status === "ended";
  let box = document.getElementById("night-return");
  if (!done) {
    if (box) box.hidden = true;
    return;
  }
  if (!box) {
    box = el("div", { id: "night-return", class: "notice night-return", role: "status" });
    const notice = document.getElementById("notice");
    notice.parentElement.insertBefore(box, notice);
  }
  const path = nightPath(night.club, night.night);
  const justEnded = before !== null && before !== status && !follow.stayed && follow.timer === null;
  if (justEnded) follow.timer = setTimeout(() => goBack(path), RETURN_MS);
  const going = follow.timer !== null && !follow.stayed;
  box.hidden = false;
  if (box.dataset.going === String(going)) return;
  box.dataset.going = String(going);
  fill(box,
    el("strong", {}, "This round's game is over."),
    going ? " Back to the club night in a few seconds. " : " ",
    el("button", { type: "button", class: "primary night-back", onclick: () => goBack(path) }, "Back to the night"),
    going ? el("button", {
      type: "button", class: "night-stay",
      onclick: () => {
        clearTimeout(follow.timer);
        follow.stayed = true;
        follow.timer = null;
        followNight(tableId, follow.status);
        box.querySelector(".night-back")?.focus();
      },
    }, "Stay at this table") : null);
}
