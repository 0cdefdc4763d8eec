// The viewer's hand along the bottom: sorted by suit and rank, playable cards raised
// and clickable (buttons, so Enter and Space play them too), the others disabled and,
// when it is the viewer's turn to play, dimmed. During a card pass, cards toggle.

import { passCardsCount } from "/static/bidding.js";
import { cardBack, cardFace, sortHand } from "/static/cards.js";
import { fill, unchanged } from "/static/dom.js";

function handCard(page, hooks, code, { playable, passing, myTurnToPlay }) {
  const chosen = page.passChoice.has(code);
  const card = cardFace(code, "button");
  card.type = "button";
  if (passing) {
    card.classList.add("selectable");
    card.classList.toggle("chosen", chosen);
    card.setAttribute("aria-pressed", String(chosen));
    card.addEventListener("click", () => {
      if (chosen) page.passChoice.delete(code);
      else if (page.passChoice.size < passCardsCount(page.view)) page.passChoice.add(code);
      hooks.redraw();
    });
  } else if (playable && !page.acting) {
    card.classList.add("playable");
    card.addEventListener("click", () => hooks.act({ type: "play", card: code }));
  } else {
    card.disabled = true;
    if (myTurnToPlay) card.classList.add("dimmed");
  }
  return card;
}

/**
 * Draw the viewer's hand. `hooks`: act(action), redraw(), focusIsFree(), spadesFirst.
 * Spectators have no hand; a player who still owes the blind nil answer sees backs.
 */
export function renderHand(page, hooks) {
  const container = document.getElementById("hand");
  const label = document.getElementById("hand-label");
  const { view, seat } = page;
  const area = container.closest(".hand-area");
  area.hidden = seat === null;
  if (seat === null) {
    container.dataset.key = "";
    fill(container);
    return;
  }
  const focused = document.activeElement?.dataset?.card;
  if (!view) {
    container.dataset.key = "";
    fill(container);
    label.textContent = "";
    return;
  }
  if (view.hand === null || view.hand === undefined) {
    const count = view.hand_sizes?.[seat] ?? 0;
    container.dataset.key = "";
    fill(container, Array.from({ length: count }, () => cardBack("Your card, still face down")));
    label.textContent = count ? "Your cards are face down until you decide." : "";
    return;
  }
  const playable = new Set((view.legal || []).filter((action) => action.type === "play").map((action) => action.card));
  const passing = (view.legal || []).some((action) => action.type === "pass") && !page.acting;
  const order = sortHand(view.hand, {
    spadesFirst: hooks.spadesFirst,
    deck: page.table.rules?.deck,
  });
  const myTurnToPlay = playable.size > 0;
  const key = JSON.stringify([order, [...playable], passing, [...page.passChoice], page.acting]);
  if (unchanged(container, key)) return;
  fill(container, order.map((code) =>
    handCard(page, hooks, code, { playable: playable.has(code), passing, myTurnToPlay })));
  label.textContent = order.length ? `Your hand (${order.length} cards)` : "";
  const again = focused && container.querySelector(`[data-card="${focused}"]:not([disabled])`);
  if (again) again.focus({ preventScroll: true });
  else if (myTurnToPlay && hooks.focusIsFree()) container.querySelector(".playable")?.focus({ preventScroll: true });
}
