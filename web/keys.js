// The table's single keys, for a player who follows the game by ear (and anyone
// else): each reads one thing aloud through the announcement log (turn, bids, score,
// tricks, the trick on the table, the last trick, your hand), digits and N pick a bid
// when it is your turn to bid (Enter or Space then bids), and ? opens the Keys panel
// that lists them all. Keys typed into a field, with Ctrl, Alt or Cmd, or while a
// dialog is open are left alone. The hand's own keys (arrows, Home/End) are hand.js's.

import { bidWords, contractWords, playsWords, plural, turnWords } from "/static/announce.js";
import { cardName, playingSuit, sortHand, suitName } from "/static/cards.js";
import { seatWords, sideWords } from "/static/seating.js";

// A second digit within this time makes a two-digit bid ("1" then "2": 12).
const TWO_DIGITS_MS = 1200;

/** Seats in turn order from the dealer's left (the bidding order). */
function fromDealersLeft(view) {
  return Array.from({ length: view.players }, (_, step) => (view.dealer + 1 + step) % view.players);
}

function noGame(page) {
  return turnWords(page, (seat) => seatWords(page, seat)) || "No game at this table.";
}

export function readTurn(page, secondsLeft) {
  if (!page.view) return noGame(page);
  const words = turnWords(page, (seat) => seatWords(page, seat)) || "Nobody is to act.";
  return secondsLeft === null ? `${words}.` : `${words}, ${plural(secondsLeft, "second")} left.`;
}

export function readBids(page) {
  const { view } = page;
  if (!view) return noGame(page);
  const bids = fromDealersLeft(view).map((seat) =>
    `${seatWords(page, seat)} ${view.bids[seat] === null ? "not yet" : bidWords(view.bids[seat])}`);
  const contracts = view.contracts ? ` Contracts: ${contractWords(page)}.` : "";
  return `Bids, hand ${view.hand_number}: ${bids.join(", ")}.${contracts}`;
}

export function readScore(page) {
  const standings = page.view?.scores ?? page.table.scores;
  if (!standings.length) return `No score yet. Game to ${page.table.rules.target_score}.`;
  const sides = standings.map((standing, index) =>
    `${sideWords(page, index)} ${standing.score}, ${plural(standing.bags, "bag")}`);
  return `Score: ${sides.join("; ")}. Game to ${page.table.rules.target_score}.`;
}

export function readTricks(page) {
  const { view } = page;
  if (!view) return noGame(page);
  const seats = fromDealersLeft(view).map((seat) => {
    const bid = view.bids[seat];
    return `${seatWords(page, seat)} ${view.tricks_won[seat]}${bid === null ? "" : ` (bid ${bidWords(bid)})`}`;
  });
  const sides = view.contracts
    ? ` Sides: ${view.contracts.map((contract, index) => {
      const taken = page.sides[index].reduce((sum, seat) => sum + view.tricks_won[seat], 0);
      return `${sideWords(page, index)} ${taken} of ${contract ?? "a contract not yet made"}`;
    }).join("; ")}.`
    : "";
  return `Tricks this hand: ${seats.join(", ")}.${sides}`;
}

export function readLastTrick(page) {
  const last = page.view?.last_trick;
  if (!last) return "No trick has been played yet.";
  const taker = seatWords(page, last.winner);
  return `Last trick: ${playsWords(page, last.cards)}. ${taker} took it.`;
}

export function readTrick(page) {
  const { view } = page;
  if (!view) return noGame(page);
  if (!view.trick.length) return `No cards on the table. ${readTurn(page, null)}`;
  return `On the table: ${playsWords(page, view.trick)}.`;
}

/** "Your hand, 13 cards. 4 spades: ace, queen, nine, three. 2 hearts: ..." */
export function readHand(page, spadesFirst) {
  const { view } = page;
  if (page.seat === null) return "You are watching: you hold no cards.";
  if (!view) return "The game has not started.";
  if (view.hand === null) return "Your cards are face down until you decide on blind nil.";
  if (!view.hand.length) return "Your hand is empty.";
  const deck = page.table.rules.deck;
  const groups = [];
  for (const card of sortHand(view.hand, { spadesFirst, deck })) {
    const suit = playingSuit(card, deck);
    if (groups.at(-1)?.suit !== suit) groups.push({ suit, cards: [] });
    groups.at(-1).cards.push(card);
  }
  const suits = groups.map(({ suit, cards }) => {
    const ranks = [...cards].reverse().map((card) => cardName(card).split(" of ")[0].toLowerCase());
    return `${cards.length} ${suitName(suit)}: ${ranks.join(", ")}`;
  });
  return `Your hand, ${plural(view.hand.length, "card")}. ${suits.join(". ")}.`;
}

// Where a typed key is text (or picks an option), not a command.
const TEXT_ENTRY = 'textarea, select, [contenteditable], input:not([type="checkbox"], [type="radio"], [type="button"])';

/** A key typed where it means text, or with a modifier, or under a dialog: not ours. */
function notForUs(event) {
  if (event.defaultPrevented || event.ctrlKey || event.altKey || event.metaKey) return true;
  if (event.target.closest?.(TEXT_ENTRY)) return true;
  return Boolean(document.querySelector("dialog[open]"));
}

export class TableKeys {
  /**
   * @param {{page: () => object, say: (text: string) => void, secondsLeft: () => number|null,
   *          spadesFirst: () => boolean, help: HTMLDialogElement}} hooks
   */
  constructor(hooks) {
    this.hooks = hooks;
    this.digits = { text: "", at: 0 };
    this.returnTo = null;
    const page = () => hooks.page();
    this.readings = {
      t: () => readTurn(page(), hooks.secondsLeft()),
      b: () => readBids(page()),
      s: () => readScore(page()),
      w: () => readTricks(page()),
      c: () => readTrick(page()),
      l: () => readLastTrick(page()),
      h: () => readHand(page(), hooks.spadesFirst()),
    };
    document.addEventListener("keydown", (event) => this.key(event));
    hooks.help.addEventListener("close", () => this.returnTo?.isConnected && this.returnTo.focus());
  }

  key(event) {
    if (notForUs(event)) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "?") this.openHelp();
    else if (key in this.readings) this.hooks.say(this.readings[key]());
    else if (/^[0-9n]$/.test(key)) {
      if (!this.pickBid(key)) return;
    } else return;
    event.preventDefault();
  }

  /** Open the Keys panel; closing it gives the focus back to where it was. */
  openHelp() {
    this.returnTo = document.activeElement === document.body ? null : document.activeElement;
    this.hooks.help.showModal();
  }

  /**
   * A digit (or N for nil) while the bid panel is up: focus that bid's button, so that
   * Enter or Space bids it. A digit soon after a 1 makes 10 to 13 when that is offered.
   */
  pickBid(key) {
    const panel = document.querySelector("#action-panel .bidding");
    if (!panel) return false;
    const now = Date.now();
    let wanted = key === "n" ? "nil" : key;
    const two = this.digits.text === "1" && now - this.digits.at < TWO_DIGITS_MS ? `1${key}` : null;
    if (two && panel.querySelector(`button.bid[data-bid="${two}"]`)) wanted = two;
    this.digits = { text: wanted === key ? key : "", at: now };
    const button = wanted === "nil"
      ? panel.querySelector("button.bid.nil")
      : panel.querySelector(`button.bid[data-bid="${wanted}"]`);
    if (button) button.focus();
    else this.hooks.say(wanted === "nil" ? "Nil is not a bid you can make here." : `You cannot bid ${wanted}.`);
    return true;
  }
}
