// Deals anyone can verify (docs/fairness.md): this player's own seed for each deal, sent
// by itself when a new commitment appears (or typed), and "Verify the deals": every
// finished hand recomputed in the page from its revealed seeds (WebCrypto's SHA-256 and
// HMAC), compared with the commitments this page saw before each deal.

import { el, patch } from "/static/dom.js";

const SUITS = "CDHS";
const RANKS = "23456789TJQKA";
const ORDER = [...[...SUITS].flatMap((suit) => [...RANKS].map((rank) => rank + suit)), "LJ", "BJ"];
const encoder = new TextEncoder();

function hex(bytes) {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function unhex(text) {
  if (!/^([0-9a-f]{2})*$/.test(text)) throw new Error("not hex");
  return new Uint8Array(text.match(/../g)?.map((pair) => parseInt(pair, 16)) ?? []);
}

async function sha256Hex(bytes) {
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

/** A random seed of this page's own: 16 random bytes as hex. */
export function randomSeed() {
  return hex(crypto.getRandomValues(new Uint8Array(16)));
}

/** The table's cards sorted: suits C D H S, ranks 2..A, then LJ, BJ (docs/rules.md §2). */
export function startingDeck(players, deck) {
  const cards = ORDER.slice(0, 52);
  let one;
  if (deck === "standard") one = players === 3 || players === 6 ? cards.filter((c) => c !== "2C") : cards;
  else if (players === 3 || players === 6) one = [...cards, "LJ", "BJ"];
  else {
    const removed = deck === "jokers" ? ["2C", "2D"] : ["2C", "2H"];
    one = [...cards.filter((c) => !removed.includes(c)), "LJ", "BJ"];
  }
  const both = players === 6 ? [...one, ...one] : one;
  return both.sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b));
}

function bigMod(bytes, modulus) {
  let rest = 0;
  for (const byte of new Uint8Array(bytes)) rest = (rest * 256 + byte) % modulus;
  return rest;
}

async function shuffled(start, keyBytes, tableId, hand, seeds) {
  const lines = Object.keys(seeds).sort((a, b) => Number(a) - Number(b)).map((seat) => `${seat}=${seeds[seat]}`);
  const mix = await sha256Hex(encoder.encode(lines.join("\n")));
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const deck = [...start];
  for (let i = deck.length - 1; i > 0; i--) {
    const digest = await crypto.subtle.sign("HMAC", key, encoder.encode(`${tableId}|${hand}|${mix}|${i}`));
    const j = bigMod(digest, i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  return { deck, key };
}

function sameCards(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

function dealtFrom(deck, dealer, held, players, partners) {
  if (held.length !== players) return false;
  if (players === 2) {
    for (const seat of [0, 1]) {
      const pairs = [];
      for (let turn = 0; turn < deck.length / 2; turn++) {
        if ((dealer + 1 + turn) % 2 === seat) pairs.push(deck.slice(2 * turn, 2 * turn + 2));
      }
      if (held[seat].length !== pairs.length) return false;
      if (pairs.some((pair) => pair.filter((card) => held[seat].includes(card)).length !== 1)) return false;
    }
    return true;
  }
  const shares = held.map((_, seat) => deck.filter((_, i) => (dealer + 1 + i) % players === seat));
  return held.every((_, seat) => {
    const group = partners && players % 2 === 0 ? [seat, (seat + players / 2) % players] : [seat];
    return sameCards(group.flatMap((s) => shares[s]), group.flatMap((s) => held[s]));
  });
}

/**
 * Every finished hand recomputed: [{hand, problems: [words]}] (no problem: all matched).
 * `seen`: the commitments this page saw before each deal, by hand number.
 */
export async function verifyDeals(tableId, rules, history, seen = {}) {
  const start = startingDeck(rules.players, rules.deck);
  const results = [];
  for (const hand of history) {
    const proof = hand.fairness;
    if (!proof) {
      results.push({ hand: hand.hand, problems: ["not dealt from seeds: nothing to recompute"] });
      continue;
    }
    const problems = [];
    let keyBytes;
    try {
      keyBytes = unhex(proof.server_seed);
    } catch {
      keyBytes = new Uint8Array();
    }
    if (keyBytes.length !== 32) {
      results.push({ hand: hand.hand, problems: ["the server seed is not 32 bytes"] });
      continue;
    }
    if (await sha256Hex(keyBytes) !== proof.commitment) problems.push("the server seed does not hash to its commitment");
    if (seen[hand.hand] && seen[hand.hand] !== proof.commitment) problems.push("the commitment is not the one this page was shown before the deal");
    const { deck, key } = await shuffled(start, keyBytes, tableId, hand.hand, proof.client_seeds);
    if (deck.join() !== proof.deck.join()) problems.push("the deck is not the one the seeds shuffle");
    if (hand.dealer === null || !dealtFrom(deck, hand.dealer, hand.deal, rules.players, rules.partnerships)) {
      problems.push("the seats' cards are not the ones dealt from the deck");
    }
    if (hand.hand === 1) {
      const digest = await crypto.subtle.sign("HMAC", key, encoder.encode(`${tableId}|dealer`));
      if (bigMod(digest, rules.players) !== hand.dealer) problems.push("the first dealer is not the one hand 1's server seed draws");
    }
    results.push({ hand: hand.hand, problems });
  }
  return results;
}

/**
 * This player's part: a seed of its own for every new commitment (unless the seat has one
 * in already), the commitments seen before each deal, and the typed seed.
 */
export class DealSeeds {
  /** @param {(value: string) => boolean} send sends a `seed` message; false while offline */
  constructor(send) {
    this.send = send;
    this.sentFor = null; // the commitment this page last sent a seed for
    this.seen = {}; // "game:hand" -> the commitment shown before that deal
  }

  /** A `state` arrived: remember the commitment, and add our seed to a new one. */
  receive(message, gameNumber) {
    const next = message.fairness;
    if (!next) return;
    const game = message.table.status === "playing" ? gameNumber : gameNumber + 1;
    this.seen[`${game}:${next.hand}`] = next.commitment;
    if (message.seat === null || message.seat === undefined || message.table.status === "ended") return;
    if (String(message.seat) in next.client_seeds || this.sentFor === next.commitment) return;
    if (this.send(randomSeed())) this.sentFor = next.commitment;
  }

  /** The commitments seen before each deal of game `gameNumber`, by hand number. */
  seenFor(gameNumber) {
    const found = {};
    for (const [key, value] of Object.entries(this.seen)) {
      const [game, hand] = key.split(":").map(Number);
      if (game === gameNumber) found[hand] = value;
    }
    return found;
  }
}

/** The next deal's line in the score pad: its commitment, the seeds in, a typed seed. */
export function renderNextDeal(container, page, fairness, typeSeed) {
  if (!fairness) {
    patch(container);
    return;
  }
  const mine = page.seat === null ? undefined : fairness.client_seeds[String(page.seat)];
  const seeds = Object.keys(fairness.client_seeds).length;
  patch(container,
    el("p", { class: "small next-deal" },
      `Next deal (hand ${fairness.hand}): commitment `,
      el("code", { class: "commitment", title: fairness.commitment }, fairness.commitment.slice(0, 16) + "…"),
      `, ${seeds} player seed${seeds === 1 ? "" : "s"} in.`),
    page.seat === null || page.table.status === "ended" ? null : el("form", {
      class: "seed-form",
      onsubmit: (event) => {
        event.preventDefault();
        const input = event.target.querySelector("input");
        if (input.value) typeSeed(input.value);
      },
    },
    el("label", { for: "own-seed" }, "Your seed "),
    el("input", { id: "own-seed", name: "seed", maxlength: "64", autocomplete: "off", placeholder: mine ?? "" }),
    el("button", { type: "submit", class: "small-button" }, "Use mine")));
}

/** The "Verify the deals" dialog: each hand, matched or not, in plain words. */
export async function showVerification(dialog, page, history, seen) {
  patch(dialog, el("h2", { id: "verify-title" }, "Verify the deals"), el("p", { role: "status" }, "Recomputing…"));
  if (!dialog.open) dialog.showModal();
  let results;
  try {
    results = await verifyDeals(page.tableId, page.table.rules, history, seen);
  } catch (failure) {
    results = null;
    patch(dialog, el("h2", { id: "verify-title" }, "Verify the deals"),
      el("p", { role: "status" }, `Could not recompute the deals: ${failure.message}`),
      el("form", { method: "dialog" }, el("button", { class: "small-button" }, "Close")));
    return;
  }
  const failed = results.filter((result) => result.problems.length);
  const verdict = !results.length ? "No finished hand to verify yet."
    : failed.length ? `${failed.length} of ${results.length} deals did not match.`
      : results.length === 1 ? "The deal matched." : `All ${results.length} deals matched.`;
  patch(dialog,
    el("h2", { id: "verify-title" }, "Verify the deals"),
    el("p", { role: "status", class: failed.length ? "verify-verdict failed" : "verify-verdict" }, verdict),
    el("ul", { class: "verify-hands" }, results.map((result) => el("li", { key: result.hand },
      el("strong", {}, `Hand ${result.hand}: `),
      result.problems.length ? `did not match: ${result.problems.join("; ")}.`
        : `matched (commitment, deck and cards dealt${result.hand === 1 ? ", first dealer" : ""}).`))),
    el("form", { method: "dialog" }, el("button", { class: "small-button" }, "Close")));
}
