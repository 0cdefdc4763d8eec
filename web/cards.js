// Card codes ("QS", "TD", "BJ") -> names, symbols, sort order and drawn faces.
// Faces are plain DOM + CSS: no images or fonts, so they load offline and scale.

const RANKS = "23456789TJQKA";
const RANK_NAMES = {
  2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six", 7: "Seven", 8: "Eight",
  9: "Nine", T: "Ten", J: "Jack", Q: "Queen", K: "King", A: "Ace",
};
const RANK_LABELS = { T: "10" };

const SUITS = {
  S: { name: "spades", symbol: "♠", colour: "black" },
  H: { name: "hearts", symbol: "♥", colour: "red" },
  D: { name: "diamonds", symbol: "♦", colour: "red" },
  C: { name: "clubs", symbol: "♣", colour: "black" },
};

// The two jokers differ at a glance, even fanned: the corner's letter (B / L), the
// centre's star (filled / hollow), its word and the colour.
const JOKERS = {
  BJ: { name: "Big joker", corner: "B", star: "★", label: "BIG", colour: "red" },
  LJ: { name: "Little joker", corner: "L", star: "☆", label: "LITTLE", colour: "black" },
};

function isJoker(code) {
  return code in JOKERS;
}

/** "spades", "hearts": a suit letter (S, H, D, C) in words. */
export function suitName(suit) {
  return SUITS[suit].name;
}

/** "Queen of spades", "Ten of hearts", "Big joker": what a screen reader says. */
export function cardName(code) {
  if (isJoker(code)) return JOKERS[code].name;
  return `${RANK_NAMES[code[0]]} of ${SUITS[code[1]].name}`;
}

/** The classes that colour a card's marks: "red suit-hearts" (two colours or four), "red" for the big joker. */
export function suitClasses(code) {
  if (isJoker(code)) return JOKERS[code].colour;
  const suit = SUITS[code[1]];
  return `${suit.colour} suit-${suit.name}`;
}

/** "Q♠": the short form used in logs, summaries and the last-trick review. */
export function cardShort(code) {
  if (isJoker(code)) return code === "BJ" ? "Big ★" : "Little ★";
  return `${RANK_LABELS[code[0]] || code[0]}${SUITS[code[1]].symbol}`;
}

/**
 * The suit a card follows: jokers, and the 2 of diamonds under `jokers_deuces`, are
 * spades for every purpose (docs/rules.md §2), so they sort with the spades.
 */
export function playingSuit(code, deck) {
  if (isJoker(code)) return "S";
  if (deck === "jokers_deuces" && code === "2D") return "S";
  return code[1];
}

function trumpStrength(code, deck) {
  if (code === "BJ") return 100;
  if (code === "LJ") return 99;
  if (deck === "jokers_deuces") {
    if (code === "2D") return 98;
    if (code === "2S") return 97;
  }
  return RANKS.indexOf(code[0]);
}

/**
 * Hand order: suits grouped (spades first or last, the player's choice), colours
 * alternating where possible, low to high within a suit as most card rooms do.
 */
export function sortHand(cards, { spadesFirst = false, deck = "standard" } = {}) {
  const others = ["H", "C", "D"];
  const order = spadesFirst ? ["S", ...others] : [...others, "S"];
  return [...cards].sort((a, b) => {
    const sa = order.indexOf(playingSuit(a, deck));
    const sb = order.indexOf(playingSuit(b, deck));
    if (sa !== sb) return sa - sb;
    return trumpStrength(a, deck) - trumpStrength(b, deck);
  });
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function jokerFace(node, code) {
  const joker = JOKERS[code];
  node.classList.add("joker", `joker-${joker.label.toLowerCase()}`, joker.colour);
  const corner = el("span", "corner");
  corner.append(el("span", "rank", joker.corner), el("span", "suit", "★"));
  const low = corner.cloneNode(true);
  low.classList.add("corner-low");
  const centre = el("span", "pip joker-centre");
  centre.append(el("span", "joker-star", joker.star), el("span", "joker-label", joker.label));
  node.append(corner, centre, low);
  return node;
}

function fillFace(node, code) {
  if (isJoker(code)) return jokerFace(node, code);
  const suit = SUITS[code[1]];
  const rank = RANK_LABELS[code[0]] || code[0];
  node.classList.add(suit.colour, `suit-${suit.name}`);
  const corner = el("span", "corner");
  corner.append(el("span", "rank", rank), el("span", "suit", suit.symbol));
  node.append(corner, el("span", "pip", suit.symbol));
  const low = corner.cloneNode(true);
  low.classList.add("corner-low");
  node.append(low);
  return node;
}

/**
 * A face-up card. `tag` "button" for a card the player may click, "div" otherwise.
 * Decorations are aria-hidden; the accessible name is the card's spoken name.
 */
export function cardFace(code, tag = "div") {
  const node = el(tag, "card face");
  node.dataset.card = code;
  node.setAttribute("aria-label", cardName(code));
  if (tag !== "button") node.setAttribute("role", "img");
  const art = el("span", "art");
  art.setAttribute("aria-hidden", "true");
  node.append(fillFace(art, code));
  return node;
}

/** A face-down card: its back, named so that a screen reader says what it is. */
export function cardBack(label = "Face-down card") {
  const node = el("div", "card back");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", label);
  return node;
}
