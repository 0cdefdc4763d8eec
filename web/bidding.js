// The panel over the hand when the player must decide something other than a card:
// the blind nil question, the card pass, the 2-player draw, the bid, and (beside the
// cards, when the server offers it) claiming the rest of the tricks. Buttons offer
// exactly the actions in the view's `legal` list; the one a hint chose is lit. Each
// panel and button has a `key`, so a state that changes nothing in it leaves the
// player's focus where it was.

import { cardFace } from "/static/cards.js";
import { el } from "/static/dom.js";
import {
  blindNilExplanation, formatOf, handFormatWords, nilExplanation, tenForTwoHundredExplanation,
} from "/static/rules.js";
import { seatName, sideOfSeat } from "/static/seating.js";

/** " hinted" on the button of the action the server's hint chose (it never acts). */
function lit(page, action) {
  const hint = page.hinted;
  if (!hint || hint.type !== action.type) return "";
  return Object.keys(action).every((field) => hint[field] === action[field]) ? " hinted" : "";
}

function legalOf(view, type) {
  return view.legal.filter((action) => action.type === type);
}

function bidWords(bid) {
  if (bid === "blind_nil") return "blind nil";
  if (bid === 0) return "nil";
  return String(bid);
}

/** "Cy bid 4 · opponents: 3 + 2": what the table has bid so far, for the hint line. */
function bidHint(page) {
  const { view, seat } = page;
  const sides = page.sides;
  const mySide = sideOfSeat(sides, seat);
  const words = [];
  for (const partner of sides[mySide]) {
    if (partner === seat) continue;
    const bid = view.bids[partner];
    words.push(bid === null
      ? `Partner ${seatName(page, partner)} has not bid yet`
      : `Partner ${seatName(page, partner)} bid ${bidWords(bid)}`);
  }
  const others = view.bids
    .map((bid, other) => ({ bid, other }))
    .filter(({ bid, other }) => bid !== null && sideOfSeat(sides, other) !== mySide);
  if (others.length) {
    words.push(`opponents: ${others.map(({ bid, other }) => `${seatName(page, other)} ${bidWords(bid)}`).join(", ")}`);
  }
  return words.join(" · ");
}

function partnerTotal(page) {
  const { view, seat } = page;
  const members = page.sides[sideOfSeat(page.sides, seat)];
  return members
    .filter((member) => member !== seat)
    .map((member) => view.bids[member])
    .filter((bid) => typeof bid === "number")
    .reduce((sum, bid) => sum + bid, 0);
}

/**
 * The bidding format's own words under the buttons: its name and line from the rules'
 * catalogue (unless the hand's format line already says them), and what the partner's
 * bid leaves under Suicide.
 */
function formatNotes(page, format, bids, named) {
  if (!["whiz", "mirror", "suicide"].includes(format)) return [];
  const { words, line } = formatOf(page.catalog, format);
  const notes = named ? [] : [`${words}: ${line}.`];
  if (format === "suicide") {
    const partner = page.sides[sideOfSeat(page.sides, page.seat)].find((member) => member !== page.seat);
    const partnerBid = partner === undefined ? null : page.view.bids[partner];
    const least = bids.filter((bid) => bid > 0)[0];
    if (partnerBid === 0 || partnerBid === "blind_nil") notes.push(`Your partner bid nil: you bid at least ${least}.`);
    else if (typeof partnerBid === "number") notes.push(`Your partner bid ${partnerBid}: you bid nil.`);
    else notes.push(`Bid nil or at least ${least}: your partner then does the other.`);
  }
  return notes;
}

/** The words on a bid's button: "Bid 3 (your spades)" where the format fixes the number. */
function bidLabel(format, bid) {
  if (format === "mirror") return bid === 0 ? "Bid nil (no spades)" : `Bid ${bid} (your spades)`;
  if (format === "whiz") return `Bid ${bid} (your spades)`;
  return String(bid);
}

function bidPanel(page, act) {
  const { view } = page;
  const rules = page.table.rules;
  const format = view.bidding ?? rules.bidding;
  const bids = legalOf(view, "bid").map((action) => action.bid).sort((a, b) => a - b);
  // Under Mirror the one bid is a button of its own, even when it is a nil.
  const nilAllowed = rules.nil !== false && bids.includes(0) && format !== "mirror";
  const numbers = bids.filter((bid) => bid !== 0 || !nilAllowed);
  const partnerBid = partnerTotal(page);
  const teamBidding = format === "team" && rules.partnerships && partnerBid > 0;
  const hintLine = bidHint(page);
  // While formats rotate, the hand's format heads the panel (the header folds on a phone).
  const night = handFormatWords(rules, view, page.catalog);
  const notes = formatNotes(page, format, bids, Boolean(night));
  if (page.sides.some((side) => side.length > 1) && !teamBidding && partnerBid > 0 && format !== "suicide") {
    notes.push(`Your side so far: ${partnerBid} + your bid.`);
  }
  const partnerToCome = format === "team" && rules.partnerships && partnerBid === 0
    && page.sides[sideOfSeat(page.sides, page.seat)].some((member) => member !== page.seat && view.bids[member] === null);
  if (partnerToCome) notes.push("Team bidding: say your own estimate; your partner then names the side's total.");
  if (teamBidding) notes.push(`Team bidding: your number is your side's whole contract (at least ${numbers[0]}).`);
  const ten = tenForTwoHundredExplanation(rules);
  if (ten && page.sides.some((side) => side.length > 1)) notes.push(ten);
  return el("div", { key: "bid", class: "panel-inner bidding", role: "group", "aria-label": "Your bid" },
    night ? el("p", { class: "hand-format-line" }, night) : null,
    el("h2", {}, format === "mirror" ? "Your bid: your spades" : "Your bid: how many tricks will you take?"),
    hintLine ? el("p", { class: "hint" }, hintLine) : null,
    el("div", { class: "bid-buttons" }, numbers.map((bid) =>
      el("button", {
        key: bid, type: "button", class: `bid${lit(page, { type: "bid", bid })}`, dataset: { bid },
        onclick: () => act({ type: "bid", bid }),
      }, bidLabel(format, bid)))),
    nilAllowed ? el("div", { class: "nil-choice" },
      el("button", {
        type: "button", class: `bid nil${lit(page, { type: "bid", bid: 0 })}`, dataset: { bid: 0 },
        onclick: () => act({ type: "bid", bid: 0 }),
      }, format === "whiz" ? "Nil" : "Bid nil"),
      el("p", { class: "explain" }, nilExplanation(rules))) : null,
    notes.map((note) => el("p", { class: "explain" }, note)));
}

function blindNilPanel(page, act) {
  const rules = page.table.rules;
  return el("div", { key: "blind_nil", class: "panel-inner blind-nil", role: "group", "aria-label": "Blind nil" },
    el("h2", {}, "Bid blind nil before you look?"),
    el("p", { class: "explain" }, blindNilExplanation(rules)),
    el("div", { class: "bid-buttons" },
      el("button", {
        type: "button", class: `blind-yes${lit(page, { type: "blind_nil", declare: true })}`,
        onclick: () => act({ type: "blind_nil", declare: true }),
      }, "Bid blind nil"),
      el("button", {
        type: "button", class: `blind-no primary${lit(page, { type: "blind_nil", declare: false })}`,
        onclick: () => act({ type: "blind_nil", declare: false }),
      }, "Show my cards")));
}

function drawPanel(page, act) {
  const card = page.view.draw_card;
  return el("div", { key: "draw", class: "panel-inner draw", role: "group", "aria-label": "Draw" },
    el("h2", {}, "Keep this card?"),
    card ? cardFace(card) : null,
    el("p", { class: "explain" },
      "Keep it and the next card is thrown away unseen, or throw it away and take the next card, whatever it is."),
    el("div", { class: "bid-buttons" },
      el("button", { type: "button", class: `draw-keep primary${lit(page, { type: "draw", keep: true })}`, onclick: () => act({ type: "draw", keep: true }) }, "Keep it"),
      el("button", { type: "button", class: `draw-discard${lit(page, { type: "draw", keep: false })}`, onclick: () => act({ type: "draw", keep: false }) }, "Discard, take the next")));
}

/**
 * How many cards the pass takes: the view's one `{"type": "pass", "count": n}` (any n
 * distinct cards of the player's own hand; docs/rules.md §5).
 */
export function passCount(view) {
  const pass = legalOf(view, "pass")[0];
  return pass ? pass.count : 0;
}

/**
 * Whether the pass under way is the nil pass (after the bidding, docs/rules.md §11.4)
 * rather than the blind nil pass (before it): every seat has bid.
 */
export function isNilPass(view) {
  return view?.phase === "pass" && Boolean(view.bids?.every((bid) => bid !== null));
}

/** The pass: the player picks cards in the hand below; the button sends them. */
function passPanel(page, act) {
  const count = passCount(page.view);
  const chosen = [...page.passChoice];
  const ready = chosen.length === count;
  const cards = `${count} card${count === 1 ? "" : "s"}`;
  const nilPass = isNilPass(page.view);
  const why = nilPass
    ? (page.view.bids[page.seat] === 0 ? "Nil pass: you bid nil, so you give your partner" : "Nil pass: your partner bid nil, so you give them")
    : "Pick";
  return el("div", { key: nilPass ? "nil-pass" : "pass", class: `panel-inner pass${nilPass ? " nil-pass" : ""}`, role: "group", "aria-label": nilPass ? "Nil pass" : "Pass cards" },
    el("h2", {}, nilPass ? `${why} ${cards}` : `Pick ${cards} to give your partner`),
    el("p", { class: "explain" }, `Click cards in your hand to choose them (${chosen.length} of ${count} chosen). Your partner passes to you at the same time.`),
    el("button", {
      type: "button", class: "pass-send primary", disabled: !ready,
      onclick: () => ready && act({ type: "pass", cards: chosen }),
    }, "Pass these cards"));
}

/**
 * The claim, offered by the server only when every remaining trick is surely the
 * player's (docs/rules.md §7.1): the cards stay playable below.
 */
function claimPanel(page, act) {
  const left = page.view.hand?.length ?? 0;
  return el("div", { key: "claim", class: "panel-inner claim", role: "group", "aria-label": "Claim" },
    el("p", { class: "explain" },
      `Every remaining trick is yours whatever the others hold: claim ${left === 1 ? "it" : `all ${left}`} and show your cards, or play on.`),
    el("button", { type: "button", class: "claim-rest primary", onclick: () => act({ type: "claim" }) },
      "Claim the rest"));
}

/** The decision panel for the viewer now, or null when there is none. */
export function decisionPanel(page, act) {
  const view = page.view;
  if (!view || page.seat === null || !view.legal.length) return null;
  const type = view.legal[0].type;
  if (type === "bid") return bidPanel(page, act);
  if (type === "blind_nil") return blindNilPanel(page, act);
  if (type === "draw") return drawPanel(page, act);
  if (type === "pass") return passPanel(page, act);
  if (legalOf(view, "claim").length) return claimPanel(page, act);
  return null;
}
