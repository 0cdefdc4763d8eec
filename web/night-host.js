// The host's controls of a club night, on the night page: start the next round. Every
// request carries the club's host token; a refusal is shown in the page's words.

import { api, el, patch } from "/static/dom.js";

/**
 * Draw the host's controls into `box` for the night as it is now. `names(id)` names a
 * member, `roundDone` says whether every table of the round has finished, `refresh`
 * reads the night again, `showError(text)` shows a refusal.
 */
export function renderNightHost(box, { clubId, night, hostToken, roundDone, refresh, showError }) {
  const base = `/api/clubs/${encodeURIComponent(clubId)}/nights/${encodeURIComponent(night.id)}`;
  const send = async (path, body) => {
    showError("");
    try {
      await api(`${base}${path}`, { method: "POST", body, token: hostToken });
      await refresh();
    } catch (failure) {
      showError(failure.message);
    }
  };
  const rounds = night.schedule.length;
  const more = night.status !== "over" && night.round < rounds;
  const ready = more && (night.round === 0 || roundDone);
  patch(box,
    el("h2", { key: "title" }, "Host"),
    more ? el("button", {
      key: "next", type: "button", id: "night-next", class: "primary",
      disabled: !ready, "aria-describedby": ready ? null : "night-next-help",
      onclick: () => send("/next"),
    }, night.round === 0 ? "Start round 1" : `Start round ${night.round + 1}`) : null,
    more && !ready ? el("p", { key: "help", id: "night-next-help", class: "help muted" },
      "The next round starts once every table of this round has finished its game.") : null);
}
