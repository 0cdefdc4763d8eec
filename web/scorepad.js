// The score pad (each side's score and bags, this hand's contract and tricks, the
// hand-by-hand history with the moves the turn timer made, the target score) and the
// end-of-hand / end-of-game summaries with penalties in plain words. The pad is patched
// in place (dom.js), so its toggle keeps the focus and the history stays open and
// scrolled where the player left it while states arrive.

import { cardFace, cardName, cardShort } from "/static/cards.js";
import { el, patch, remembered } from "/static/dom.js";
import { bagPenaltyWords } from "/static/rules.js";
import { seatName, sideName } from "/static/seating.js";

const OPEN_KEY = "spades.scorepadOpen";

function signed(points) {
  return points > 0 ? `+${points}` : String(points);
}

function bidWords(bid) {
  if (bid === null) return "–";
  if (bid === "blind_nil") return "blind nil";
  if (bid === 0) return "nil";
  return String(bid);
}

/** A side's name in a column or row head: wraps between words, and inside one only if it must. */
function sideLabel(page, index) {
  return el("span", { class: "side-name" }, sideName(page, index));
}

// Before the first game the table's scores are an empty list: every side stands at 0.
const NO_STANDING = { score: 0, bags: 0 };

/** Each side's standing: the game's, else the table's (empty before the first game). */
function standings(page) {
  return page.view?.scores ?? page.table.scores;
}

function currentRows(page) {
  const { view } = page;
  return page.sides.map((members, index) => {
    const standing = standings(page)[index] ?? NO_STANDING;
    const taken = members.reduce((sum, seat) => sum + (view?.tricks_won[seat] ?? 0), 0);
    // The engine's contract of the side (docs/rules.md §6), null until the bidding ends.
    const contract = view?.contracts?.[index] ?? null;
    return el("tr", { key: index, dataset: { side: index } },
      el("th", { scope: "row" }, sideLabel(page, index)),
      el("td", { class: "score" }, String(standing.score)),
      el("td", {}, String(standing.bags)),
      el("td", {}, contract === null ? "–" : String(contract)),
      el("td", {}, view ? String(taken) : "–"));
  });
}

function historyRows(page, history, hooks) {
  return history.map((hand) =>
    el("tr", { key: hand.hand },
      el("th", { scope: "row" }, String(hand.hand)),
      hand.sides.map((side, index) =>
        el("td", {},
          el("span", { class: "points" }, signed(side.points)),
          el("span", { class: "standing" }, ` ${side.score}`),
          el("span", { class: "bids muted" }, `bid ${page.sides[index].map((seat) => bidWords(hand.bids[seat])).join(" + ")}`),
          el("span", { class: "bags muted" }, `${side.bags} bag${side.bags === 1 ? "" : "s"}`))),
      el("td", { class: "replay-cell" },
        el("button", {
          type: "button", class: "small-button replay", dataset: { hand: hand.hand },
          "aria-label": `Replay hand ${hand.hand}`, title: `Replay hand ${hand.hand} trick by trick`,
          onclick: () => hooks.review(hand),
        }, "▶"))));
}

/**
 * A move the timer made, in words: "played 5♥", "bid 3". A timed-out pass, draw or
 * blind nil decision comes with its type only, and stays private: "card pass".
 * @param {import('./protocol-types.js').TimerMove['action']} action
 */
export function timerMoveWords(action) {
  if (action.type === "play") return `played ${cardShort(action.card)}`;
  if (action.type === "bid") return `bid ${bidWords(action.bid)}`;
  return { pass: "card pass", draw: "draw", blind_nil: "blind nil decision" }[action.type];
}

/** "Hand 2: Ann (played 5♥), Bo (bid 3)": the moves the turn timer made, by hand. */
function timerMoveLines(page, history) {
  const hands = history.filter((hand) => hand.timer_moves.length);
  if (!hands.length) return null;
  return el("div", { class: "timer-moves" },
    el("h3", {}, el("span", { class: "clock", "aria-hidden": "true" }), "Moves the turn timer made"),
    el("ul", {}, hands.map((hand) => el("li", { key: hand.hand, dataset: { hand: hand.hand } },
      el("strong", {}, `Hand ${hand.hand}: `),
      hand.timer_moves.map((move) => `${seatName(page, move.seat)} (${timerMoveWords(move.action)})`).join(", ")))));
}

/**
 * Draw the pad. `history`: finished hands from GET /api/tables/{id}/history; `hooks`:
 * review(hand) replays a hand, download() saves the game's record, verify() recomputes
 * every deal (docs/fairness.md).
 * @param {HTMLElement} container
 * @param {object} page the table page's state
 * @param {Array<import('./protocol-types.js').FinishedHand>} history
 * @param {object} hooks
 */
export function renderScorepad(container, page, history, hooks) {
  const target = page.table.rules.target_score;
  const open = remembered.get(OPEN_KEY, true);
  const toggle = el("button", {
    type: "button", class: "panel-toggle", "aria-expanded": String(open), "aria-controls": "scorepad-body",
    onclick: () => {
      remembered.set(OPEN_KEY, !open);
      renderScorepad(container, page, history, hooks);
    },
  }, "Score pad", el("span", { class: "target" }, `Game to ${target}`));
  const compact = el("p", { class: "compact-scores" },
    page.sides.map((_, index) => {
      const standing = standings(page)[index] ?? NO_STANDING;
      return el("span", { key: index }, `${sideName(page, index)}: ${standing.score}`);
    }));
  const body = el("div", { id: "scorepad-body", hidden: !open },
    el("table", { class: "scores" },
      el("caption", { class: "visually-hidden" }, "Scores"),
      el("thead", {}, el("tr", {},
        el("th", { scope: "col" }, "Side"), el("th", { scope: "col" }, "Score"),
        el("th", { scope: "col" }, "Bags"), el("th", { scope: "col" }, "Bid"),
        el("th", { scope: "col" }, "Won"))),
      el("tbody", {}, currentRows(page))),
    // Open at first while short; after that, open or closed is the player's choice.
    history.length ? el("details", { key: "history", class: "history", open: history.length <= 6 },
      el("summary", {}, `Hand by hand (${history.length})`),
      el("div", { class: "history-hands" },
        el("table", {},
          el("thead", {}, el("tr", {}, el("th", { scope: "col" }, "Hand"),
            page.sides.map((_, index) => el("th", { scope: "col" }, sideLabel(page, index))),
            el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Replay")))),
          el("tbody", {}, historyRows(page, history, hooks)))),
        el("button", { type: "button", class: "small-button download-record", onclick: hooks.download },
          "Download this game (JSON)"),
        el("button", { type: "button", class: "small-button verify-deals", onclick: hooks.verify },
          "Verify the deals")) : null,
    timerMoveLines(page, history),
    el("p", { key: "bags", class: "muted small" }, bagPenaltyWords(page.table.rules)));
  patch(container, toggle, compact, body);
  container.classList.toggle("collapsed", !open);
}

function nilLines(page, result) {
  return result.sides.flatMap((side) => side.nil.map((nil) => {
    const who = seatName(page, nil.seat);
    return `${who}'s ${nil.blind ? "blind nil" : "nil"} ${nil.made ? "made" : "failed"}: ${signed(nil.points)}`;
  }));
}

/** Penalties and bonuses of one side in plain words ("10 bags: -100"). */
export function sideExtras(rules, side) {
  const words = [];
  if (side.bag_penalty) {
    const times = Math.max(1, Math.round(side.bag_penalty / (rules.bag_penalty || side.bag_penalty)));
    words.push(`${rules.bag_limit * times} bags: -${side.bag_penalty}`);
  }
  if (side.all_tricks && rules.all_tricks === "bonus") words.push(`All tricks: +${rules.all_tricks_bonus}`);
  if (side.all_tricks && rules.all_tricks === "win") words.push("Took every trick: wins the game");
  if (rules.ten_for_two_hundred && side.contract >= 10) {
    words.push(side.taken >= side.contract ? `10 for 200: ${side.contract} × 20` : `10 for 200 set: -${rules.ten_for_two_hundred_set}`);
  }
  return words;
}

/**
 * The end-of-hand summary from the view's `last_hand`: bids, tricks, points and bags
 * per side (the engine's breakdown, contract included), penalties in words.
 * @param {object} page the table page's state
 * @param {import('./protocol-types.js').HandResult} result
 */
export function handSummary(page, result) {
  const rules = page.table.rules;
  const number = result.hand_number;
  const nils = nilLines(page, result);
  return el("div", { key: `hand-${number}`, class: "summary hand-summary", role: "group", "aria-label": `Hand ${number} summary` },
    el("h2", {}, `Hand ${number} scored`),
    el("ul", { class: "summary-sides" }, result.sides.map((side, index) => {
      const bids = side.seats.map((seat) => bidWords(result.bids[seat])).join(" + ");
      return el("li", { key: index, dataset: { side: index } },
        el("strong", {}, sideName(page, index)),
        // In phrases that keep together, so that a narrow summary breaks the line between
        // them, never inside "took 11".
        el("span", { class: "contract" },
          el("span", { class: "phrase" }, `bid ${bids}`), " ",
          el("span", { class: "phrase" }, `(contract ${side.contract}),`), " ",
          el("span", { class: "phrase" }, `took ${side.taken}`)),
        el("span", { class: "to-points" }, ": "),
        el("b", { class: "points" }, signed(side.points)),
        sideExtras(rules, side).map((words) => el("span", { class: words.includes("-") ? "penalty" : "bonus" }, words)),
        el("span", { class: "muted" }, `score ${side.score}, ${side.bags} bag${side.bags === 1 ? "" : "s"}`));
    })),
    nils.length ? el("ul", { class: "summary-nils" }, nils.map((line) => el("li", {}, line))) : null,
    result.claim ? claimLaidDown(page, result.claim) : null);
}

/**
 * A claim's cards, laid down for everyone: who claimed how many tricks, and the cards.
 * @param {object} page  @param {import('./protocol-types.js').HandClaim} claim
 */
function claimLaidDown(page, claim) {
  const tricks = `${claim.tricks} trick${claim.tricks === 1 ? "" : "s"}`;
  return el("div", { class: "claim-laid-down" },
    el("p", {}, `${seatName(page, claim.seat)} claimed the last ${tricks}, showing:`),
    el("div", { class: "claim-cards", role: "group", "aria-label": `Claimed with ${claim.cards.map(cardName).join(", ")}` },
      claim.cards.map((card) => cardFace(card))));
}

/** Game over: the winner, the final scores, and (for seated players) the rematch button. */
export function gameOverPanel(page, onRematch) {
  const winner = page.view?.winner ?? page.table.winner;
  const scores = standings(page);
  const winnerName = winner === null ? "Nobody" : sideName(page, winner);
  const youWon = page.seat !== null && page.sides[winner]?.includes(page.seat);
  const last = page.view?.last_hand;
  return el("div", { key: "game-over", class: "summary game-over", role: "group", "aria-label": "Game over" },
    el("h2", {}, youWon ? `You win! ${winnerName}` : `${winnerName} win${page.sides[winner]?.length > 1 ? "" : "s"} the game`),
    el("ul", { class: "summary-sides" }, scores.map((standing, index) =>
      el("li", { class: index === winner ? "winner" : "" },
        el("strong", {}, sideName(page, index)),
        el("span", {}, `${standing.score} points, ${standing.bags} bag${standing.bags === 1 ? "" : "s"}`)))),
    last ? el("details", {}, el("summary", {}, "Last hand"), handSummary(page, last)) : null,
    page.seat !== null
      ? el("button", { type: "button", class: "primary rematch", onclick: onRematch }, "Rematch")
      : el("p", { class: "muted" }, "The players may start a rematch."));
}
