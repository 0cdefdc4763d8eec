// Hand review: a finished hand replayed trick by trick with every hand face up, from the
// history the server keeps (each seat's `deal` and the hand's `plays`; the server shows
// a hand only once it is over). Step 0 is the deal; step k shows the k-th trick in the
// middle, who took it, and what each seat still held after it. Bids, tricks taken so
// far and the hand's score change are always shown. ←/→ step, Home/End jump; each step
// is also said in words (a polite live region), and closing gives the focus back.
// A seated player also sees, at each of their own bids and plays, what the expert bot
// would have chosen there from their view then (the server's `review`, asked once per
// hand). Also the game's record as a JSON file.

import { bidWords as bidSaid, cardWords, playsWords } from "/static/announce.js";
import { cardFace, cardName, sortHand } from "/static/cards.js";
import { el, keyed, patch } from "/static/dom.js";
import { seatName, seatWords, sideName } from "/static/seating.js";

function signed(points) {
  return points > 0 ? `+${points}` : String(points);
}

function bidWords(bid) {
  if (bid === null || bid === undefined) return "no bid";
  if (bid === "blind_nil") return "blind nil";
  if (bid === 0) return "nil";
  return `bid ${bid}`;
}

/**
 * What the table looked like after `step` tricks: cards left per seat, tricks taken.
 * @param {import('./protocol-types.js').FinishedHand} hand  @param {number} step
 */
export function replayAt(hand, step) {
  const plays = (hand.plays ?? []).slice(0, step);
  // Each card played leaves its seat's hand once (a two-deck table holds two of a card).
  const left = hand.deal.map((cards) => [...cards]);
  for (const trick of plays) {
    for (const play of trick.cards) left[play.seat].splice(left[play.seat].indexOf(play.card), 1);
  }
  const taken = hand.deal.map(() => 0);
  for (const trick of plays) taken[trick.winner] += 1;
  return { left, taken, trick: plays[step - 1] ?? null };
}

/** "your bid of 4", "the king of hearts": one choice in words. */
function choiceWords(action) {
  if (action.type === "play") return cardWords(action.card);
  if (action.type === "bid") return `a bid of ${bidSaid(action.bid)}`;
  if (action.type === "blind_nil") return action.declare ? "blind nil" : "no blind nil";
  if (action.type === "claim") return "to claim the rest";
  return action.type;
}

function sameChoice(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

export class HandReview {
  /**
   * @param {HTMLDialogElement} dialog  @param {() => object} pageOf the table page's state
   * @param {(hand: number) => string | null} ask sends a `review` of a hand; its id or null
   */
  constructor(dialog, pageOf, ask = () => null) {
    this.dialog = dialog;
    this.pageOf = pageOf;
    this.ask = ask;
    // The expert's reviews by "game:hand" (a ReviewMessage, or "asked" while awaited).
    this.advice = new Map();
    this.asked = new Map(); // request id -> "game:hand"
    this.hand = null;
    this.step = 0;
    this.returnTo = null;
    document.addEventListener("keydown", (event) => this.dialog.open && this.key(event));
    dialog.addEventListener("close", () => this.returnTo?.isConnected && this.returnTo.focus());
  }

  get steps() {
    return this.hand?.plays?.length ?? 0;
  }

  /** @param {import('./protocol-types.js').FinishedHand} hand */
  open(hand) {
    if (!this.dialog.open) this.returnTo = document.activeElement;
    this.hand = hand;
    this.askAdvice();
    this.step = this.steps; // the end of the hand first: the score change, the last trick
    this.draw();
    if (!this.dialog.open) this.dialog.showModal();
    this.keepFocus();
  }

  adviceKey() {
    return `${this.pageOf().table.game_number}:${this.hand.hand}`;
  }

  /** A seated player's first look at a hand asks the server for the expert's review. */
  askAdvice() {
    const page = this.pageOf();
    const key = this.adviceKey();
    if (page.seat === null || page.seat === undefined || this.advice.has(key)) return;
    const id = this.ask(this.hand.hand);
    if (id === null) return;
    this.advice.set(key, "asked");
    this.asked.set(id, key);
  }

  /** @param {import('./protocol-types.js').ReviewMessage} message */
  advise(message) {
    this.advice.set(`${message.game_number}:${message.hand}`, message);
    if (this.dialog.open && this.hand) this.draw();
  }

  /** An error answering a `review` of ours: the next look asks again. */
  refused(message) {
    const key = this.asked.get(message.id);
    if (key === undefined) return;
    this.asked.delete(message.id);
    if (this.advice.get(key) === "asked") this.advice.delete(key);
    if (this.dialog.open && this.hand) this.draw();
  }

  go(step) {
    this.step = Math.max(0, Math.min(this.steps, step));
    this.draw();
    this.keepFocus();
  }

  /** A step button that became disabled (at either end) drops the focus: catch it. */
  keepFocus() {
    if (this.dialog.contains(document.activeElement) && !document.activeElement.disabled) return;
    this.dialog.querySelector(".review-steps button:not([disabled])")?.focus();
  }

  key(event) {
    const moves = { ArrowLeft: this.step - 1, ArrowRight: this.step + 1, Home: 0, End: this.steps };
    if (!(event.key in moves) || event.target.closest?.("input, select")) return;
    event.preventDefault();
    this.go(moves[event.key]);
  }

  draw() {
    const page = this.pageOf();
    const { hand, step } = this;
    const nameOf = (seat) => seatName(page, seat);
    const state = replayAt(hand, step);
    const deck = page.table.rules.deck;
    const recorded = hand.plays !== null && hand.plays !== undefined;
    const where = !recorded ? "The deal (the tricks of this hand were not recorded)"
      : step === 0 ? "The deal" : `Trick ${step} of ${this.steps}`;
    patch(this.dialog,
      el("div", { key: "head", class: "review-head" },
        el("h2", { id: "review-title" }, `Hand ${hand.hand} — ${where}`),
        el("button", { type: "button", class: "close", onclick: () => this.dialog.close() }, "Close")),
      el("div", { key: "steps", class: "review-steps", role: "group", "aria-label": "Step through the hand" },
        el("button", { type: "button", class: "review-first", disabled: step === 0, onclick: () => this.go(0) }, "« Deal"),
        el("button", { type: "button", class: "review-prev", disabled: step === 0, onclick: () => this.go(step - 1) }, "◀ Previous"),
        el("button", { type: "button", class: "review-next primary", disabled: step >= this.steps, onclick: () => this.go(step + 1) }, "Next ▶"),
        el("button", { type: "button", class: "review-last", disabled: step >= this.steps, onclick: () => this.go(this.steps) }, "Last »"),
        el("span", { class: "muted small" }, "Keys: ← → Home End")),
      this.trickBox(state.trick, nameOf),
      el("ol", { key: "seats", class: "review-seats" }, state.left.map((cards, seat) =>
        el("li", { key: seat, class: `review-seat${state.trick?.winner === seat ? " winner" : ""}`, dataset: { seat } },
          el("p", { class: "review-who" },
            el("strong", {}, nameOf(seat)),
            ` · ${bidWords(hand.bids[seat])} · took ${state.taken[seat]}`,
            hand.dealer === seat ? el("span", { class: "chip dealer" }, "Dealer") : null),
          el("div", { class: "review-cards", role: "group", "aria-label": `${nameOf(seat)}'s cards` },
            sortHand(cards, { deck }).map((card, index) => keyed(cardFace(card), `${card}${index}`)))))),
      hand.claim ? this.claimNote(page, hand.claim, deck) : null,
      this.scoreChange(page),
      this.adviceBox(page),
      el("p", { key: "said", class: "visually-hidden", "aria-live": "polite" }, this.stepWords(page, state.trick)));
  }

  /**
   * A hand a claim ended: who claimed how many tricks, with the cards laid down (the
   * claimed tricks were not played, so the steps stop before them).
   * @param {import('./protocol-types.js').HandClaim} claim
   */
  claimNote(page, claim, deck) {
    const tricks = `${claim.tricks} trick${claim.tricks === 1 ? "" : "s"}`;
    return el("div", { key: "claim", class: "review-claim", role: "note" },
      el("p", {}, el("strong", {}, "Claimed: "), `${seatName(page, claim.seat)} claimed the last ${tricks} with these cards.`),
      el("div", { class: "review-cards", role: "group", "aria-label": `Claimed with ${claim.cards.map(cardName).join(", ")}` },
        sortHand(claim.cards, { deck }).map((card, index) => keyed(cardFace(card), `claim-${card}${index}`))));
  }

  /** The step in words: "Trick 3 of 13: You led the five of hearts, ... Ann took it." */
  stepWords(page, trick) {
    const claim = this.hand.claim;
    const claimed = claim && this.step === this.steps
      ? ` Then ${seatWords(page, claim.seat)} claimed the last ${claim.tricks === 1 ? "trick" : `${claim.tricks} tricks`}.`
      : "";
    if (!trick) return `Hand ${this.hand.hand}: the deal.${claimed}`;
    return `Trick ${this.step} of ${this.steps}: ${playsWords(page, trick.cards)}. ${seatWords(page, trick.winner)} took it.${claimed}`;
  }

  trickBox(trick, nameOf) {
    if (!trick) return el("div", { key: "trick", class: "review-trick empty" }, el("p", { class: "muted" }, "No trick played yet."));
    return el("div", { key: "trick", class: "review-trick", role: "group", "aria-label": "This trick" },
      el("ol", { class: "review-trick-cards" }, trick.cards.map((play, index) => {
        const face = keyed(cardFace(play.card), `${play.seat}${play.card}`);
        face.setAttribute("aria-label", `${nameOf(play.seat)}: ${cardName(play.card)}`);
        return el("li", { key: `${play.seat}`, class: play.seat === trick.winner ? "winner" : "", dataset: { seat: play.seat } },
          face, el("span", { class: "small" }, `${index === 0 ? "led · " : ""}${nameOf(play.seat)}`));
      })),
      el("p", { class: "review-winner" }, `${nameOf(trick.winner)} took it`));
  }

  /** The expert's choices beside the player's own at this step (the bid at the deal). */
  adviceBox(page) {
    if (page.seat === null || page.seat === undefined) return null;
    const advice = this.advice.get(this.adviceKey());
    const box = (...children) => el("section", { key: "advice", class: "review-advice", "aria-label": "The expert's view" },
      el("h3", {}, "The expert's view"), ...children);
    if (advice === undefined) return null;
    if (advice === "asked") return box(el("p", { class: "muted" }, "The expert is looking at your choices…"));
    const { choices } = advice;
    const agreed = choices.filter((choice) => sameChoice(choice.action, choice.expert)).length;
    const here = choices.filter((choice) => choice.trick === this.step);
    const lines = here.map((choice, index) => {
      const same = sameChoice(choice.action, choice.expert);
      return el("li", { key: index, class: same ? "agreed" : "differs" }, same
        ? `You chose ${choiceWords(choice.action)}; the expert agrees.`
        : `You chose ${choiceWords(choice.action)}; the expert would have chosen ${choiceWords(choice.expert)}.`);
    });
    return box(
      el("p", { class: "small" }, choices.length
        ? `The expert agrees with ${agreed} of your ${choices.length} choices in this hand.`
        : "You had no choice to make in this hand."),
      lines.length ? el("ul", {}, lines) : el("p", { class: "muted small" }, this.step === 0
        ? "No bid of yours to look at here." : "No choice of yours in this trick."));
  }

  scoreChange(page) {
    const sides = this.hand.sides.map((side) => side.seats);
    return el("ul", { key: "score", class: "review-score", "aria-label": "Score change of this hand" },
      this.hand.sides.map((side, index) =>
        el("li", { key: index },
          el("strong", {}, sideName(page, index, sides)),
          ` contract ${side.contract}, took ${side.taken}: `,
          el("b", {}, signed(side.points)),
          ` → ${side.score} (${side.bags} bag${side.bags === 1 ? "" : "s"})`)));
  }
}

/** The game's record: rules, seats' names, and every hand's history, as a JSON download. */
export function downloadRecord(page, history, presetName) {
  const record = {
    table: { id: page.tableId, name: page.table.name, preset: presetName ?? null, rules: page.table.rules },
    game_number: page.table.game_number,
    seats: page.table.seats.map((seat) => ({ seat: seat.seat, name: seat.name, bot: seat.bot })),
    series: page.table.series,
    hands: history,
  };
  const blob = new Blob([JSON.stringify(record, null, 2)], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob), download: `spades-${page.tableId}-game-${page.table.game_number}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
