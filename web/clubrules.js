// A club's house rules on the club page: their one-line summary for everyone, and for
// the host the rule builder to set them (`PUT /api/clubs/{id}/rules`) or clear them. The
// club's new tables take them when started without rules of their own.

import { api, el, fill } from "/static/dom.js";
import { RuleBuilder } from "/static/rulebuilder.js";

let builder = null;

/**
 * Draw the house rules into `box` (a section of the club page); the builder is made once,
 * so a refresh of the page never wipes a rule being changed.
 * @param {HTMLElement} box
 * @param {import('./protocol-types.js').ClubPage} club
 * @param {{clubId: string, hostToken: string | undefined, catalog: object | null, saved: () => void}} hooks
 */
export function renderHouseRules(box, club, { clubId, hostToken, catalog, saved }) {
  box.hidden = false;
  let line = box.querySelector(".house-summary");
  if (!line) {
    line = el("p", { class: "house-summary" });
    fill(box, el("h2", { id: "house-rules-title" }, "House rules"), line,
      el("div", { class: "house-rules-editor" }));
  }
  fill(line, club.house_summary
    ? [el("span", { class: "muted" }, "New club tables play: "), el("strong", { id: "club-house-summary" }, club.house_summary)]
    : el("span", { class: "muted" }, "None set: a new club table takes the rules of the club's latest table."));
  const editor = box.querySelector(".house-rules-editor");
  if (!club.host || !catalog || builder) return;
  const status = el("p", { class: "muted", role: "status", id: "club-rules-status" });
  const holder = el("div", { class: "rule-builder" });
  fill(editor,
    el("details", { class: "house-rules-change" },
      el("summary", {}, "Change the house rules"),
      holder,
      el("div", { class: "dialog-buttons" },
        el("button", { type: "button", class: "primary", id: "save-house-rules", onclick: () => save(builder.rules()) }, "Save the house rules"),
        club.house_rules ? el("button", { type: "button", id: "clear-house-rules", onclick: () => save(null) }, "Clear them") : null),
      status));
  builder = new RuleBuilder(holder, catalog, { id: "club", presetsLabel: "Start from", open: true });
  if (club.house_rules) builder.setRules(club.house_rules);

  async function save(rules) {
    status.textContent = "";
    try {
      await api(`/api/clubs/${encodeURIComponent(clubId)}/rules`, {
        method: "PUT", body: { rules }, token: hostToken,
      });
      status.textContent = rules ? "Saved: the club's new tables play these rules." : "Cleared.";
      saved();
    } catch (failure) {
      builder.showError(failure.message);
    }
  }
}
