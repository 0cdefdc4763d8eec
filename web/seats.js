// The seat plates around the felt: name, bot marker, connected dot (with words), dealer
// chip, turn marker (with words), tricks won / bid, cards left; or the buttons to sit
// down or add a bot while the seat is empty.

import { el, fill } from "/static/dom.js";
import { seatPosition } from "/static/seating.js";

function bidWords(bid) {
  if (bid === null || bid === undefined) return null;
  if (bid === "blind_nil") return "Blind nil";
  if (bid === 0) return "Nil";
  return String(bid);
}

function presence(seatInfo) {
  if (seatInfo.bot) {
    return el("span", { class: "badge bot", title: `A computer player, level ${seatInfo.bot}` }, "Bot");
  }
  const online = seatInfo.connected;
  return el("span", { class: `presence ${online ? "online" : "offline"}` },
    el("span", { class: "dot", "aria-hidden": "true" }),
    el("span", { class: `words${online ? " quiet" : ""}` },
      online ? "online" : (seatInfo.autoplay ? "away (bot plays)" : "disconnected")));
}

function tricksLine(view, seat) {
  const bid = bidWords(view.bids?.[seat]);
  const won = view.tricks_won?.[seat] ?? 0;
  if (bid === null) {
    return el("span", { class: "tricks muted" }, view.phase === "bid" ? "no bid" : "");
  }
  const spoken = `${won} tricks won, bid ${bid}`;
  return el("span", { class: "tricks", "aria-label": spoken, title: spoken }, `${won} / ${bid}`);
}

function emptySeat(seat, hooks, canSit) {
  return [
    el("span", { class: "name muted" }, "Empty seat"),
    el("span", { class: "seat-buttons" },
      canSit ? el("button", { type: "button", class: "sit", onclick: () => hooks.sit(seat), dataset: { seat } }, "Sit here") : null,
      el("button", { type: "button", class: "add-bot", onclick: () => hooks.addBot(seat), dataset: { seat } }, "Add bot")),
  ];
}

function occupiedSeat(seat, seatInfo, page) {
  const { view, seat: mySeat } = page;
  const isTurn = Boolean(view && view.phase !== "over" && view.turn?.includes(seat));
  const parts = [
    el("span", { class: "name-line" },
      el("span", { class: "name" }, seatInfo.name),
      presence(seatInfo),
      seat === mySeat ? el("span", { class: "badge you" }, "You") : null,
      view && view.dealer === seat ? el("span", { class: "chip dealer", title: "Dealer" }, "Dealer") : null),
  ];
  if (view) {
    parts.push(tricksLine(view, seat));
    const left = view.hand_sizes?.[seat];
    if (seat !== mySeat && left) parts.push(el("span", { class: "cards-left muted" }, `${left} cards`));
  }
  if (isTurn) parts.push(el("span", { class: "turn-marker" }, seat === mySeat ? "▶ Your turn" : "▶ Their turn"));
  return { parts, isTurn };
}

/** Draw every seat plate. `hooks`: {sit(seat), addBot(seat)}. */
export function renderSeats(container, page, hooks) {
  const { table } = page;
  const players = table.rules?.players ?? table.seats.length;
  const canSit = page.seat === null && table.status === "waiting";
  fill(container, table.seats.map((seatInfo) => {
    const seat = seatInfo.seat;
    const position = seatPosition(seat, players, page.seat);
    const plate = el("div", {
      class: `seat pos-${position}`, dataset: { seat }, role: "group",
      "aria-label": `Seat ${seat + 1}${seatInfo.name ? `: ${seatInfo.name}` : ", empty"}`,
    });
    if (seatInfo.name === null) {
      plate.classList.add("empty");
      plate.append(...emptySeat(seat, hooks, canSit));
    } else {
      const { parts, isTurn } = occupiedSeat(seat, seatInfo, page);
      plate.classList.toggle("turn", isTurn);
      plate.classList.toggle("disconnected", !seatInfo.connected && !seatInfo.bot);
      plate.append(...parts);
    }
    return plate;
  }));
}
