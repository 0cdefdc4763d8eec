// The host's controls of a club night, on the night page: start the next round, pause
// (no round starts; the games go on) and resume, a member substituted for another from
// the round being played on, late arrivals added to the rounds to come, and the end of
// the night (asked twice: the games being played stop). Every request carries the
// club's host token; a refusal is shown in the server's words.

import { api, el, patch } from "/static/dom.js";

const asking = { end: false };

/** The night's members in the round being played (or, between rounds, in the next). */
function playingNow(night) {
  const number = night.round || 1;
  const round = night.schedule.find((entry) => entry.round === number);
  return round ? round.tables.flatMap((table) => table.seats).filter((member) => member !== null) : [];
}

function choice(id, label, options) {
  return el("div", { key: id, class: "field" },
    el("label", { for: id }, label),
    el("select", { id }, options.map(([value, words]) => el("option", { value, key: value }, words))));
}

/**
 * Draw the host's controls into `box` for the night as it is now. `members` are the
 * club's members ({id, name, removed}), `roundDone` whether every table of the round
 * has finished, `refresh` reads the night again, `showError(text)` shows a refusal.
 */
export function renderNightHost(box, { clubId, night, members, hostToken, roundDone, refresh, showError }) {
  const base = `/api/clubs/${encodeURIComponent(clubId)}/nights/${encodeURIComponent(night.id)}`;
  const send = async (path, body) => {
    showError("");
    try {
      await api(`${base}${path}`, { method: "POST", body, token: hostToken });
      await refresh();
      return true;
    } catch (failure) {
      showError(failure.message);
      return false;
    }
  };
  const value = (id) => box.querySelector(`#${id}`)?.value;
  const on = night.status !== "over";
  const more = on && night.round < night.rounds;
  const ready = more && !night.paused && (night.round === 0 || roundDone);
  const why = night.paused ? "The night is paused: resume it to start the next round."
    : "The next round starts once every table of this round has finished its game.";
  const named = (id) => night.names[id] ?? members.find((member) => member.id === id)?.name ?? "a member";
  const playing = playingNow(night);
  const others = members.filter((member) => !member.removed && !playing.includes(member.id));
  const late = members.filter((member) => !member.removed && !night.members.includes(member.id));
  patch(box,
    el("h2", { key: "title" }, "Host"),
    more ? el("div", { key: "next", class: "night-host-row" },
      el("button", {
        type: "button", id: "night-next", class: "primary",
        disabled: !ready, "aria-describedby": ready ? null : "night-next-help",
        onclick: () => send("/next"),
      }, `Start round ${night.round + 1}`),
      ready ? null : el("p", { id: "night-next-help", class: "help muted" }, why)) : null,
    on ? el("button", {
      key: "pause", type: "button", id: "night-pause", "aria-pressed": String(Boolean(night.paused)),
      onclick: () => send("/pause", { paused: !night.paused }),
    }, night.paused ? "Resume the night" : "Pause the night") : null,
    on && playing.length && others.length ? el("details", { key: "substitute", class: "night-host-more", id: "night-substitute" },
      el("summary", {}, "Substitute a member"),
      choice("night-sub-out", "Who leaves", playing.map((id) => [id, named(id)])),
      choice("night-sub-in", "Who takes their seat", others.map((member) => [member.id, member.name])),
      el("button", {
        type: "button", id: "night-sub-go",
        onclick: () => send("/substitute", { out: value("night-sub-out"), in: value("night-sub-in") }),
      }, "Substitute")) : null,
    on && late.length ? el("details", { key: "late", class: "night-host-more", id: "night-late" },
      el("summary", {}, "Add late arrivals"),
      el("fieldset", { class: "night-members" },
        el("legend", { class: "visually-hidden" }, "Late arrivals"),
        late.map((member) => el("label", { key: member.id, class: "choice" },
          el("input", { type: "checkbox", value: member.id }), ` ${member.name}`))),
      el("button", {
        type: "button", id: "night-late-go",
        onclick: async () => {
          const chosen = [...box.querySelectorAll("#night-late input:checked")].map((input) => input.value);
          if (!chosen.length) showError("Tick who has arrived first.");
          else await send("/members", { members: chosen });
        },
      }, "Add them to the rounds to come")) : null,
    on ? el("div", { key: "end", class: "night-host-row" },
      asking.end
        ? [el("p", { class: "help" }, "End the night now? The games being played stop and are not rated."),
          el("button", {
            type: "button", id: "night-end-sure", class: "danger",
            onclick: async () => { asking.end = false; await send("/end"); },
          }, "End it now"),
          el("button", { type: "button", id: "night-end-keep", onclick: () => { asking.end = false; refresh(); } }, "Keep playing")]
        : el("button", { type: "button", id: "night-end", onclick: () => { asking.end = true; refresh(); } }, "End the night"))
      : null);
}
