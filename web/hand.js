// The viewer's hand along the bottom: sorted by suit and rank, playable cards raised
// and clickable, the others dimmed when it is the viewer's turn to play. During a card
// pass, cards toggle. The card a hint chose is lit (the hint never plays it).
// For the keyboard the hand is one Tab stop (a listbox of options; a toolbar of toggle
// buttons during a pass) with a roving tabindex: ←/→ move card by card, ↓/↑ jump to
// the next or previous suit, Home/End to the lowest or highest card of the suit (again:
// of the hand), Enter or Space plays the card (or toggles it in a pass). Each card keeps
// its node across states (keyed by its code); when the focused card leaves the hand the
// focus goes to the card now in its place, so the keyboard is never dropped.

import { passCount } from "/static/bidding.js";
import { cardBack, cardFace, cardName, playingSuit, sortHand, suitName } from "/static/cards.js";
import { keyed, on, patch, setText } from "/static/dom.js";

// The card that holds the hand's Tab stop, and the turn whose first card was offered.
const roving = { card: null, offeredTurn: null };

/** The cards the server's hint lights: the card to play, or the cards to pass. */
function hintedCards(hint) {
  if (hint?.type === "play") return new Set([hint.card]);
  if (hint?.type === "pass") return new Set(hint.cards);
  return new Set();
}

/** Why a card cannot be played now, in a sentence. */
function refusal(page, code, myTurnToPlay) {
  const { view } = page;
  if (!myTurnToPlay) return "It is not your turn to play.";
  const deck = page.table.rules.deck;
  if (view.trick.length) return `You must follow ${suitName(playingSuit(view.trick[0].card, deck))}.`;
  if (playingSuit(code, deck) === "S" && !view.spades_broken) return "Spades are not broken yet: lead another suit.";
  return `${cardName(code)} cannot be played now.`;
}

function handCard(page, hooks, code, { playable, passing, myTurnToPlay, hinted }) {
  const chosen = page.passChoice.has(code);
  const card = keyed(cardFace(code, "button"), code);
  card.type = "button";
  card.tabIndex = -1;
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
    return card;
  }
  card.setAttribute("role", "option");
  if (playable && !page.acting) {
    card.classList.add("playable");
    on(card, "click", () => hooks.act({ type: "play", card: code }));
  } else {
    on(card, "click", () => page.acting || hooks.say(refusal(page, code, myTurnToPlay)));
    if (myTurnToPlay) {
      card.classList.add("dimmed");
      card.setAttribute("aria-disabled", "true");
    }
  }
  return card;
}

/** Face-down cards while the player still owes the blind nil answer. */
function backs(count) {
  return Array.from({ length: count }, (_, index) => keyed(cardBack("Your card, still face down"), `back${index}`));
}

/** The card a key moves to from `index` (or `index` itself), in hand order. */
function target(key, index, suits) {
  const suit = suits[index];
  const first = suits.indexOf(suit);
  const last = suits.lastIndexOf(suit);
  switch (key) {
    case "ArrowRight": return Math.min(index + 1, suits.length - 1);
    case "ArrowLeft": return Math.max(index - 1, 0);
    case "ArrowDown": return last + 1 < suits.length ? last + 1 : index;
    case "ArrowUp": return first > 0 ? suits.indexOf(suits[first - 1]) : index;
    case "Home": return index === first ? 0 : first;
    case "End": return index === last ? suits.length - 1 : last;
    default: return null;
  }
}

/** Give `card` the hand's Tab stop (and, with `focus`, the focus). */
function rove(container, card, focus) {
  for (const other of container.children) {
    const active = other === card;
    other.tabIndex = active ? 0 : -1;
    if (other.getAttribute("role") === "option") {
      if (active) other.setAttribute("aria-selected", "true");
      else other.removeAttribute("aria-selected");
    }
  }
  roving.card = card?.dataset.card ?? null;
  if (focus) card?.focus({ preventScroll: true });
}

function onHandKey(event) {
  const container = event.currentTarget;
  const cards = [...container.querySelectorAll(".card.face")];
  const index = cards.indexOf(event.target);
  if (index < 0 || event.altKey || event.ctrlKey || event.metaKey) return;
  const deck = container.dataset.deck;
  const moved = target(event.key, index, cards.map((card) => playingSuit(card.dataset.card, deck)));
  if (moved === null) return;
  event.preventDefault();
  rove(container, cards[moved], true);
}

function setUp(container) {
  if (container.dataset.keys) return;
  container.dataset.keys = "1";
  container.addEventListener("keydown", onHandKey);
  container.addEventListener("focusin", (event) => {
    if (event.target.matches(".card.face")) rove(container, event.target, false);
  });
}

/**
 * Draw the viewer's hand. `hooks`: act(action), redraw(), focusIsFree(), say(text) (a
 * refusal, announced), spadesFirst. Spectators have no hand; a player who still owes
 * the blind nil answer sees backs.
 */
export function renderHand(page, hooks) {
  const container = document.getElementById("hand");
  const label = document.getElementById("hand-label");
  const { view, seat } = page;
  setUp(container);
  container.closest(".hand-area").hidden = seat === null;
  container.dataset.deck = page.table.rules.deck;
  if (seat === null || !view || view.hand === null) {
    const count = seat === null || !view ? 0 : view.hand_sizes[seat];
    container.setAttribute("role", "group");
    container.removeAttribute("aria-orientation");
    patch(container, backs(count));
    setText(label, count ? "Your cards are face down until you decide." : "");
    return;
  }
  const playable = new Set(view.legal.filter((action) => action.type === "play").map((action) => action.card));
  const passing = view.legal.some((action) => action.type === "pass") && !page.acting;
  const order = sortHand(view.hand, { spadesFirst: hooks.spadesFirst, deck: page.table.rules.deck });
  const myTurnToPlay = playable.size > 0;
  const hinted = hintedCards(page.hinted);
  const focused = [...container.children].indexOf(document.activeElement);
  container.setAttribute("role", order.length ? (passing ? "toolbar" : "listbox") : "group");
  if (order.length) container.setAttribute("aria-orientation", "horizontal");
  else container.removeAttribute("aria-orientation");
  container.setAttribute("aria-label", passing ? "Your hand: choose the cards to pass" : "Your hand");
  patch(container, order.map((code) =>
    handCard(page, hooks, code, { playable: playable.has(code), passing, myTurnToPlay, hinted: hinted.has(code) })));
  for (const [index, card] of [...container.children].entries()) {
    if (card.getAttribute("role") === "option") {
      card.setAttribute("aria-posinset", String(index + 1));
      card.setAttribute("aria-setsize", String(order.length));
    }
  }
  setText(label, order.length ? `Your hand (${order.length} cards)` : "");
  const cards = [...container.children];
  // The focused card left the hand (it was played): the card now in its place.
  const lost = focused >= 0 && !container.contains(document.activeElement);
  let active = lost ? cards[Math.min(focused, cards.length - 1)] : cards.find((card) => card.dataset.card === roving.card);
  // A new turn to play: its first playable card, focused unless the keyboard is busy
  // elsewhere or already on a card that may be played.
  const turn = myTurnToPlay ? `${view.hand_number}:${view.played.length + view.trick.length}` : null;
  const offer = turn !== null && turn !== roving.offeredTurn;
  roving.offeredTurn = turn;
  const first = container.querySelector(".playable");
  const onPlayable = document.activeElement?.classList.contains("playable") && container.contains(document.activeElement);
  if (offer && first && !onPlayable) active = first;
  rove(container, active ?? cards[0], lost || (offer && !onPlayable && hooks.focusIsFree()));
}
