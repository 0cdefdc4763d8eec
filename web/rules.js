// The table's rules in plain words: preset lines, house-rule toggles, summaries and the
// one-line explanations shown next to nil and 10-for-200. Field names are docs/rules.md's.

export const PRESET_LINES = {
  standard: "4 players in two partnerships, nil allowed, bags count, game to 500.",
  competitive:
    "Tournament partnership: team bidding with a 4-trick minimum, blind nil, 10 for 200, lowest club leads.",
  cutthroat: "3 players, each for themselves, 17 cards each.",
  two_player: "2 players draw their hands from the stock, one card at a time.",
  six_player: "6 players, each for themselves, two decks (a later identical card wins).",
};

export const PRESET_TITLES = {
  standard: "Standard",
  competitive: "Competitive",
  cutthroat: "Cutthroat (3)",
  two_player: "Two players",
  six_player: "Six players",
};

/**
 * House-rule toggles for the lobby. `kind`: "check" (boolean), "select" (choices) or
 * "number". `show(rules)` hides toggles that cannot apply to the chosen preset.
 */
export const HOUSE_RULES = [
  {
    field: "deck", kind: "select", label: "Deck",
    choices: [
      ["standard", "52 cards"],
      ["jokers", "Jokers: big and little joker are the top spades"],
      ["jokers_deuces", "Jokers and deuces: BJ, LJ, 2♦, 2♠ are the top spades"],
    ],
    help: "Jokers replace the 2♣ and 2♦ (or 2♥) with four players.",
  },
  {
    field: "nil", kind: "check", label: "Nil bids",
    help: "A player may bid to take no tricks at all, for a bonus or a penalty.",
  },
  {
    field: "bags", kind: "check", label: "Bags (sandbagging)",
    help: "Tricks over your contract are counted; every 10 of them cost 100 points.",
  },
  {
    field: "blind_nil", kind: "check", label: "Blind nil",
    help: "A side far behind may bid nil before looking at its cards, for double points.",
    show: (rules) => rules.nil !== false,
  },
  {
    field: "ten_for_two_hundred", kind: "check", label: "10 for 200",
    help: "A side contract of 10 tricks or more scores 20 a trick (a flat loss if set).",
    show: (rules) => rules.partnerships,
  },
  {
    field: "all_tricks", kind: "select", label: "Taking all 13 tricks",
    choices: [
      ["none", "Scores as usual"],
      ["bonus", "Boston: +200 bonus"],
      ["win", "Wins the game at once"],
    ],
    help: "What happens when one side takes every trick of a hand.",
  },
  {
    field: "first_lead", kind: "select", label: "First lead",
    choices: [
      ["left_of_dealer", "Player left of the dealer leads anything"],
      ["two_clubs", "Whoever holds the 2♣ leads it"],
      ["lowest_club", "Everyone plays their lowest club to the first trick"],
    ],
    help: "Who starts the first trick of each hand.",
  },
  {
    field: "spades_broken_to_lead", kind: "check", label: "Spades must be broken",
    help: "No spade may be led until a spade has been played, unless you hold only spades.",
  },
  {
    field: "bidding", kind: "select", label: "Bidding",
    choices: [
      ["individual", "Each player bids their own tricks"],
      ["team", "Team bid: the second partner names the side's total"],
    ],
    help: "How partners arrive at their side's contract.",
    show: (rules) => rules.partnerships,
  },
  {
    field: "min_team_bid", kind: "number", label: "Minimum side bid", min: 0, max: 13,
    help: "A side must bid at least this many tricks (0: no minimum).",
  },
  {
    field: "nil_tricks", kind: "select", label: "Tricks of a failed nil",
    choices: [
      ["bags", "Count as bags for the side"],
      ["contract", "Help the partner make the contract"],
    ],
    help: "Where the tricks of a player who bid nil and took some go.",
    show: (rules) => rules.nil !== false && rules.partnerships,
  },
  {
    field: "target_score", kind: "number", label: "Play to", min: 1, max: 5000,
    help: "The game ends when a side reaches this score.",
  },
  {
    field: "lose_score", kind: "number", label: "Lose at", min: -5000, max: 0,
    optional: true,
    help: "A side falling to this score ends the game (blank: never).",
  },
];

/** "Bags: 10 bags: -100" style penalty line used in summaries. */
export function bagPenaltyWords(rules) {
  if (!rules || rules.bags === false) return "No bag penalty.";
  return `${rules.bag_limit ?? 10} bags: -${rules.bag_penalty ?? 100}`;
}

/** One line saying what nil is worth under these rules. */
export function nilExplanation(rules) {
  const bonus = rules?.nil_bonus ?? 100;
  const penalty = rules?.nil_penalty ?? 100;
  return `Nil: take no tricks at all for +${bonus}; take any and lose ${penalty}.`;
}

export function blindNilExplanation(rules) {
  const bonus = rules?.blind_nil_bonus ?? 200;
  const penalty = rules?.blind_nil_penalty ?? 200;
  const pass = rules?.blind_nil_pass ?? 0;
  const passing = pass > 0 && rules?.partnerships
    ? ` You and your partner then swap ${pass} card${pass === 1 ? "" : "s"}.`
    : "";
  return `Blind nil: bid nil before seeing your cards: +${bonus} if you take no tricks, -${penalty} if you take any.${passing}`;
}

export function tenForTwoHundredExplanation(rules) {
  if (!rules?.ten_for_two_hundred) return "";
  const set = rules.ten_for_two_hundred_set ?? 200;
  return `10 for 200: a side contract of 10 or more scores 20 a trick (made) or -${set} (set).`;
}

/**
 * The preset a table's rules start from: the table's rules do not name it, so it is the
 * preset (of the same number of players) that the fewest fields differ from. Returns
 * {name, changed: [field, ...]}, or null before the presets are known.
 */
export function presetOf(rules, presets) {
  let best = null;
  for (const [name, values] of presets) {
    if (values.players !== rules.players) continue;
    const changed = Object.keys(values).filter((field) =>
      field in rules && JSON.stringify(values[field]) !== JSON.stringify(rules[field]));
    if (!best || changed.length < best.changed.length) best = { name, changed };
  }
  return best;
}

/** A house rule's value in the lobby's words: "Yes", the chosen choice's words, a number. */
export function ruleValueWords(rule, value) {
  if (rule.kind === "check") return value ? "Yes" : "No";
  if (rule.kind === "select") return rule.choices.find(([choice]) => choice === value)?.[1] ?? String(value);
  if (value === null || value === undefined) return rule.optional ? "never" : "–";
  return String(value);
}

/**
 * Every rule of a table in plain words, as the lobby words them: the preset's title and
 * line, then each house rule that applies ({field, label, words, help, changed}), then
 * what nil, blind nil, 10 for 200 and bags are worth.
 */
export function rulesInWords(rules, preset) {
  const changed = new Set(preset?.changed ?? []);
  const lines = HOUSE_RULES
    .filter((rule) => !rule.show || rule.show(rules))
    .map((rule) => ({
      field: rule.field,
      label: rule.label,
      words: ruleValueWords(rule, rules[rule.field]),
      help: rule.help,
      changed: changed.has(rule.field),
    }));
  const worth = [
    `${rules.players} players, ${rules.partnerships ? "in partnerships" : "each for themselves"}.`,
    rules.nil !== false ? nilExplanation(rules) : null,
    rules.blind_nil ? blindNilExplanation(rules) : null,
    tenForTwoHundredExplanation(rules) || null,
    rules.bags === false ? "No bag penalty." : `Bags: ${bagPenaltyWords(rules)}.`,
  ].filter(Boolean);
  return {
    title: preset ? PRESET_TITLES[preset.name] || preset.name : "Custom rules",
    line: preset ? PRESET_LINES[preset.name] : "",
    housed: lines.filter((line) => line.changed).length,
    lines,
    worth,
  };
}

/** Short rules summary for lobby rows and the table header; `presetName` leads it. */
export function rulesSummary(rules, presetName = rules?.preset) {
  if (!rules) return "";
  const parts = [];
  const title = PRESET_TITLES[presetName] || presetName;
  if (title) parts.push(title);
  parts.push(`${rules.players ?? 4} players`);
  parts.push(rules.partnerships ? "partners" : "solo");
  if (rules.deck && rules.deck !== "standard") parts.push(rules.deck === "jokers" ? "jokers" : "jokers & deuces");
  if (rules.nil === false) parts.push("no nil");
  if (rules.blind_nil) parts.push("blind nil");
  if (rules.bags === false) parts.push("no bags");
  if (rules.ten_for_two_hundred) parts.push("10 for 200");
  if (rules.all_tricks === "bonus") parts.push("Boston +200");
  if (rules.all_tricks === "win") parts.push("all tricks win");
  if (rules.bidding === "team") parts.push("team bidding");
  if (rules.min_team_bid) parts.push(`min bid ${rules.min_team_bid}`);
  if (rules.first_lead === "two_clubs") parts.push("2♣ leads");
  if (rules.first_lead === "lowest_club") parts.push("lowest club");
  if (rules.hand_limit) parts.push(`${rules.hand_limit} hands`);
  else parts.push(`to ${rules.target_score ?? 500}`);
  if (rules.lose_score !== null && rules.lose_score !== undefined) parts.push(`lose at ${rules.lose_score}`);
  return parts.join(" · ");
}

/** Presets come as {name: rules} or [rules...]; always return [[name, rules], ...]. */
export function presetEntries(payload) {
  if (Array.isArray(payload)) {
    return payload.map((rules) => [rules.preset || rules.name, rules]);
  }
  if (payload && typeof payload === "object") {
    const inner = payload.presets ?? payload;
    if (Array.isArray(inner)) return presetEntries(inner);
    return Object.entries(inner);
  }
  return [];
}
