// What a player who cannot see the screen hears: every change of the game put into
// sentences ("Bot on your left plays the queen of hearts", "You take the trick, 3
// tricks", "Hand 2 scored...") and said once, politely, in the page's announcement log.
// The sentences come from comparing two consecutive states, so a burst of moves, a
// reconnect or a resync says each move once, and only what the state shows: the
// public plays and bids, and the viewer's own hand to the viewer alone.
// The player chooses what is said: everything, only what concerns them (their turn,
// the timer, their own bids, plays and tricks), or nothing; a reading asked for with a
// key (keys.js) is always said.

import { cardName, playingSuit, suitName } from "/static/cards.js";
import { isMyTurn } from "/static/cues.js";
import { comfort } from "/static/comfort.js";
import { el } from "/static/dom.js";
import { formatOf } from "/static/rules.js";
import { does, seatWords, sideWords } from "/static/seating.js";

// Lines kept in the log: a screen reader reads each line as it is added; old ones go.
const KEPT_LINES = 40;

/** "the queen of hearts", "the big joker": a card inside a sentence. */
export function cardWords(code) {
  return `the ${cardName(code).toLowerCase()}`;
}

/** "Bot on your left led the five of hearts, Ann the king of hearts": a trick's plays. */
export function playsWords(page, cards) {
  return cards.map((play, index) =>
    `${seatWords(page, play.seat)} ${index === 0 ? "led " : ""}${cardWords(play.card)}`).join(", ");
}

/** "nil", "blind nil", "4". */
export function bidWords(bid) {
  if (bid === "blind_nil") return "blind nil";
  if (bid === 0) return "nil";
  return String(bid);
}

/** "plus 71", "minus 40", "0". */
export function pointsWords(points) {
  if (points > 0) return `plus ${points}`;
  if (points < 0) return `minus ${-points}`;
  return "0";
}

export function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

// What each phase asks: [of the viewer, of the others].
const DOING = {
  blind: ["Your turn: blind nil or not?", "deciding on blind nil"],
  pass: ["Your turn: choose the cards to pass", "choosing cards to pass"],
  draw: ["Your turn: keep or discard the card", "drawing"],
  bid: ["Your turn to bid", "bidding"],
  play: ["Your turn: play a card", "to play"],
};
// The pass after the bidding, for a side with one nil (docs/rules.md §11.4).
const NIL_PASS = ["Your turn: choose the cards of the nil pass", "choosing cards for the nil pass"];

/**
 * Whose turn it is in words: "Your turn to bid", "Ann is bidding", "Bot across to
 * play"; `nameOf(seat)` names the others (the turn line uses the plates' names).
 */
export function turnWords(page, nameOf) {
  const { view, table } = page;
  if (table.status === "ended") return "";
  if (!view) {
    const seated = table.seats.filter((seat) => seat.name !== null).length;
    return `Waiting for players: ${seated} of ${table.seats.length} seats taken.`;
  }
  if (view.phase === "over") return "Game over.";
  const { turn } = view;
  const nilPass = view.phase === "pass" && Boolean(view.bids?.every((bid) => bid !== null));
  const doing = nilPass ? NIL_PASS : DOING[view.phase] || ["Your turn", "to act"];
  if (turn.includes(page.seat)) return doing[0];
  const others = turn.filter((seat) => seat !== page.seat).map(nameOf).join(" and ");
  if (!others) return "";
  const verb = view.phase === "play" ? "" : (turn.length > 1 ? "are " : "is ");
  return `${others} ${verb}${doing[1]}`;
}

/** The viewer's turn as announced: what to do, with the suit led or the card drawn. */
function yourTurn(page) {
  const { view } = page;
  const words = turnWords(page, (seat) => seatWords(page, seat));
  if (view.phase === "play" && view.trick.length) {
    return `${words}, ${suitName(playingSuit(view.trick[0].card, page.table.rules.deck))} led.`;
  }
  if (view.phase === "draw" && view.draw_card) return `Your turn: keep or discard ${cardWords(view.draw_card)}?`;
  return `${words}.`;
}

function sequence(view) {
  return [...view.played, ...view.trick];
}

function samePlays(some, others) {
  return some.every((play, index) => others[index]?.seat === play.seat && others[index].card === play.card);
}

/**
 * The plays of one hand from index `from` on, each followed, when it completes a trick,
 * by who took it and their count. `plays` is the hand so far, tricks of `players` cards;
 * a trick's taker leads the next one, and `lastTaker` took the last complete one.
 */
function playEvents(page, plays, from, lastTaker) {
  const players = page.view.players;
  const taken = new Map();
  const events = [];
  plays.forEach((play, index) => {
    const complete = (index + 1) % players === 0;
    const taker = complete ? (plays[index + 1]?.seat ?? lastTaker) : null;
    if (complete) taken.set(taker, (taken.get(taker) ?? 0) + 1);
    if (index < from) return;
    const who = seatWords(page, play.seat);
    events.push({ text: `${does(who, "play")} ${cardWords(play.card)}.`, mine: play.seat === page.seat });
    if (complete) {
      const winner = seatWords(page, taker);
      events.push({
        text: `${does(winner, "take")} the trick, ${plural(taken.get(taker), "trick")}.`,
        mine: taker === page.seat,
      });
    }
  });
  return events;
}

/** Every play since `before`, in this hand or finishing the one before it. */
function playsSince(before, page) {
  const was = before.view;
  const now = page.view;
  const lastTaker = now.last_trick?.winner ?? null;
  if (now.hand_number === was.hand_number) {
    return playEvents(page, sequence(now), sequence(was).length, lastTaker);
  }
  const events = [];
  const last = now.last_trick;
  // The hand ended: its last trick is the view's `last_trick` until the new hand's first
  // trick is complete, and its start is what the state before showed.
  if (now.hand_number === was.hand_number + 1 && last && !now.played.length && samePlays(was.trick, last.cards)) {
    const finished = [...was.played, ...last.cards];
    events.push(...playEvents(page, finished, sequence(was).length, lastTaker));
  }
  return [...events, ...playEvents(page, sequence(now), 0, lastTaker)];
}

/** New bids, in bidding order (from the dealer's left). */
function bidsSince(before, page) {
  const { view } = page;
  const players = view.players;
  const known = before.view?.hand_number === view.hand_number ? before.view.bids : [];
  return view.bids
    .map((bid, seat) => ({ bid, seat }))
    .filter(({ bid, seat }) => bid !== null && (known[seat] ?? null) === null)
    .sort((a, b) => (a.seat - view.dealer - 1 + players * 2) % players - (b.seat - view.dealer - 1 + players * 2) % players)
    .map(({ bid, seat }) => ({ text: `${does(seatWords(page, seat), "bid")} ${bidWords(bid)}.`, mine: seat === page.seat }));
}

/** Every side has its contract: the bidding is over. */
function biddingDone(view) {
  return Boolean(view.contracts?.every((contract) => contract !== null));
}

/** "You and Bot across 7; Bot on your left and Bot on your right not yet". */
export function contractWords(page) {
  return page.view.contracts
    .map((contract, index) => `${sideWords(page, index)} ${contract === null ? "not yet" : contract}`).join("; ");
}

/**
 * "Hand 2 scored. You and Bot across: bid 4 + 3, took 8, plus 71, 10 bags: -100; ...".
 * @param {object} page the table page's state
 * @param {import('./protocol-types.js').HandResult} result
 * @param {(side: import('./protocol-types.js').SideResult) => string[]} extras
 */
export function handResultWords(page, result, extras) {
  const sides = result.sides.map((side, index) => {
    const bids = side.seats.map((seat) => bidWords(result.bids[seat])).join(" + ");
    const more = extras(side).map((words) => `, ${words}`).join("");
    return `${sideWords(page, index)}: bid ${bids}, took ${side.taken}, ${pointsWords(side.points)}${more}; score ${side.score}, ${plural(side.bags, "bag")}.`;
  });
  const nils = result.sides.flatMap((side) => side.nil.map((nil) =>
    `${seatWords(page, nil.seat)}: ${nil.blind ? "blind nil" : "nil"} ${nil.made ? "made" : "failed"}, ${pointsWords(nil.points)}.`));
  const claim = result.claim
    ? [`${seatWords(page, result.claim.seat)} claimed the last ${plural(result.claim.tricks, "trick")}, showing ${result.claim.cards.map(cardWords).join(", ")}.`]
    : [];
  return [...claim, `Hand ${result.hand_number} scored.`, ...sides, ...nils].join(" ");
}

function gameOverWords(page) {
  const { view } = page;
  const winner = view.winner;
  const scores = view.scores.map((standing) => standing.score).join(" to ");
  if (winner === null) return `Game over: ${scores}.`;
  const who = sideWords(page, winner);
  const verb = page.sides[winner].length > 1 || who === "You" ? "win" : "wins";
  return `Game over: ${who} ${verb} the game, ${scores}.`;
}

function mayClaim(view) {
  return (view?.legal ?? []).some((action) => action.type === "claim");
}

/** What the game waits for: a new one after every move (a bid, a card, a draw). */
function decision(view) {
  return JSON.stringify([view.hand_number, view.phase, sequence(view).length, view.bids, view.stock_size]);
}

/** The cards the viewer got in the exchange: in the hand now, not in it before. */
function received(before, page) {
  const left = [...before.view.hand];
  return page.view.hand.filter((card) => {
    const index = left.indexOf(card);
    if (index < 0) return true;
    left.splice(index, 1);
    return false;
  });
}

/**
 * What changed from `before` ({table, view, seat} of the state before) to `page`, as
 * sentences to announce, oldest first: [{text, mine}]. `extras(side)` gives a side's
 * penalties and bonuses in words (the score pad's).
 * @param {{table: import('./protocol-types.js').PublicTable, view: object|null, seat: number|null}} before
 * @param {object} page the table page's state, the new state in it
 * @param {(side: import('./protocol-types.js').SideResult) => string[]} extras
 * @returns {Array<{text: string, mine: boolean}>}
 */
export function tableEvents(before, page, extras = () => []) {
  const was = before.view;
  const now = page.view;
  if (!now || page.table.status === "ended") return [];
  const newGame = before.table.game_number !== page.table.game_number || !was;
  const events = newGame ? [] : playsSince(before, page);
  const lastHand = now.last_hand;
  if (!newGame && lastHand && lastHand.hand_number !== was.last_hand?.hand_number) {
    events.push({ text: handResultWords(page, lastHand, extras), mine: false });
  }
  if (now.phase === "over") {
    if (was?.phase !== "over") events.push({ text: gameOverWords(page), mine: false });
    return events;
  }
  if (newGame || now.hand_number !== was.hand_number) {
    const start = newGame ? "The game starts. " : "";
    const mine = page.seat === null ? "" : " Press H to hear your hand.";
    const rotating = page.table.rules.bidding_formats?.length && now.bidding;
    const format = rotating ? formatOf(page.catalog, now.bidding) : null;
    const formatLine = format ? ` ${format.words}${format.line ? `: ${format.line}` : ""}.` : "";
    events.push({ text: `${start}Hand ${now.hand_number}: ${does(seatWords(page, now.dealer), "deal")}.${formatLine}${mine}`, mine: false });
  } else if (was.phase === "pass" && now.phase !== "pass" && was.hand && now.hand) {
    const cards = received(before, page);
    if (cards.length) events.push({ text: `You receive ${cards.map(cardWords).join(" and ")}.`, mine: true });
  }
  events.push(...bidsSince(newGame ? { view: null } : before, page));
  if (biddingDone(now) && (newGame || now.hand_number !== was.hand_number || !biddingDone(was))) {
    events.push({ text: `Bidding done. Contracts: ${contractWords(page)}.`, mine: false });
  }
  const decisionBefore = !newGame && isMyTurn(before) && decision(was) === decision(now);
  if (isMyTurn(page) && !decisionBefore) events.push({ text: yourTurn(page), mine: true });
  if (mayClaim(now) && !(decisionBefore && mayClaim(was))) {
    events.push({
      text: "You may claim the rest: every remaining trick is yours. Use the Claim the rest button, or play on.",
      mine: true,
      once: `claim ${page.table.game_number} ${now.hand_number}`,
    });
  }
  return events;
}

/**
 * The page's announcement log (a polite live region, visually hidden): `receive` says
 * what changed with each state, `say` what the player asked for.
 */
export class Announcer {
  /** @param {HTMLElement} log a role="log" region */
  constructor(log, extras) {
    this.log = log;
    this.extras = extras;
    /** The key of the last once-a-hand event said. */
    this.saidOnce = undefined;
  }

  /** "all", "mine" or "off", the player's choice remembered. */
  get level() {
    return comfort.get("announce");
  }

  /** Whether an event is said at the chosen level (`mine`: it concerns the viewer). */
  allows(mine) {
    const level = this.level;
    return level === "all" || (level === "mine" && mine);
  }

  /** Called with every state after the first: the changes since `before`. */
  receive(before, page) {
    for (const event of tableEvents(before, page, this.extras)) {
      if (event.once !== undefined) {
        // An offer that stands until taken (a claim) is said once a hand, not at every lead.
        if (event.once === this.saidOnce) continue;
        this.saidOnce = event.once;
      }
      if (this.allows(event.mine)) this.add(event.text);
    }
  }

  /** A reading the player asked for: said whatever the level. */
  say(text) {
    this.add(text);
  }

  add(text) {
    this.log.append(el("p", {}, text));
    while (this.log.childElementCount > KEPT_LINES) this.log.firstElementChild.remove();
  }
}
