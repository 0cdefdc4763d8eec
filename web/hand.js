// The viewer's hand along the bottom: sorted by suit and rank, playable cards raised
// and clickable (buttons, so Enter and Space play them too), the others disabled and,
// when it is the viewer's turn to play, dimmed. During a card pass, cards toggle. The
// card a hint chose is lit (the hint never plays it).
// Each card keeps its node across states (keyed by its code), so the focus stays on it.

import { passCount } from "/static/bidding.js";
import { cardBack, cardFace, cardName, sortHand } from "/static/cards.js";
import { keyed, on, patch, setText } from "/static/dom.js";

/** The cards the server's hint lights: the card to play, or the cards to pass. */
function hintedCards(hint) {
  if (hint?.type === "play") return new Set([hint.card]);
  if (hint?.type === "pass") return new Set(hint.cards);
  return new Set();
}

function handCard(page, hooks, code, { playable, passing, myTurnToPlay, hinted }) {
  const chosen = page.passChoice.has(code);
  const card = keyed(cardFace(code, "button"), code);
  card.type = "button";
  if (hinted) {
    card.classList.add("hinted");
    card.setAttribute("aria-label", `${cardName(code)} (the hint's choice)`);
  }
  if (passing) {
    card.classList.add("selectable");
    card.classList.toggle("chosen", chosen);
    card.setAttribute("aria-pressed", String(chosen));
    on(card, "click", () => {
      if (chosen) page.passChoice.delete(code);
      else if (page.passChoice.size < passCount(page.view)) page.passChoice.add(code);
      hooks.redraw();
    });
  } else if (playable && !page.acting) {
    card.classList.add("playable");
    on(card, "click", () => hooks.act({ type: "play", card: code }));
  } else {
    card.disabled = true;
    if (myTurnToPlay) card.classList.add("dimmed");
  }
  return card;
}

/** Face-down cards while the player still owes the blind nil answer. */
function backs(count) {
  return Array.from({ length: count }, (_, index) => keyed(cardBack("Your card, still face down"), `back${index}`));
}

/**
 * Draw the viewer's hand. `hooks`: act(action), redraw(), focusIsFree(), spadesFirst.
 * Spectators have no hand; a player who still owes the blind nil answer sees backs.
 */
export function renderHand(page, hooks) {
  const container = document.getElementById("hand");
  const label = document.getElementById("hand-label");
  const { view, seat } = page;
  container.closest(".hand-area").hidden = seat === null;
  if (seat === null || !view) {
    patch(container);
    setText(label, "");
    return;
  }
  if (view.hand === null) {
    const count = view.hand_sizes[seat];
    patch(container, backs(count));
    setText(label, count ? "Your cards are face down until you decide." : "");
    return;
  }
  const playable = new Set(view.legal.filter((action) => action.type === "play").map((action) => action.card));
  const passing = view.legal.some((action) => action.type === "pass") && !page.acting;
  const order = sortHand(view.hand, { spadesFirst: hooks.spadesFirst, deck: page.table.rules.deck });
  const myTurnToPlay = playable.size > 0;
  const hinted = hintedCards(page.hinted);
  patch(container, order.map((code) =>
    handCard(page, hooks, code, { playable: playable.has(code), passing, myTurnToPlay, hinted: hinted.has(code) })));
  setText(label, order.length ? `Your hand (${order.length} cards)` : "");
  // Your turn to play, and the keyboard is not busy with a card or elsewhere: offer one.
  const onCard = container.contains(document.activeElement) && !document.activeElement.disabled;
  if (myTurnToPlay && !onCard && hooks.focusIsFree()) container.querySelector(".playable")?.focus({ preventScroll: true });
}
