// The table's rules in plain words. Every rule's label, group, explanation and example
// come from the server's catalogue (`GET /api/rules/catalog`), and a table's one-line
// summary from the server too (`table.summary`); this module only reads them: which
// rules apply, a value in words, every rule of a table, and the value-dependent lines
// shown beside nil, blind nil and 10-for-200. Field names are docs/rules.md's.

import { api } from "/static/dom.js";

let catalogLoad = null;

/**
 * The rule builder's catalogue, fetched once per page.
 * @returns {Promise<import('./protocol-types.js').RuleCatalog>}
 */
export function loadCatalog() {
  if (!catalogLoad) {
    catalogLoad = api("/api/rules/catalog").catch((failure) => {
      catalogLoad = null;
      throw failure;
    });
  }
  return catalogLoad;
}

/** A preset's title ("Cutthroat (3)"), or its name before the catalogue is known. */
export function presetTitle(catalog, name) {
  return catalog?.presets.find((preset) => preset.name === name)?.title ?? name;
}

/** Whether a rule (or a choice) applies with these rules: each field it `needs` matches. */
export function applies(entry, rules) {
  return Object.entries(entry.needs ?? {}).every(([field, values]) =>
    values.includes(rules[field] ?? null));
}

/** Every rule of the catalogue, with its group's id: [{group, rule}]. */
export function everyRule(catalog) {
  return catalog.groups.flatMap((group) => group.rules.map((rule) => ({ group, rule })));
}

/** A bidding format's name ("Whiz") and line ("bid your spades or nil"). */
export function formatOf(catalog, format) {
  const choices = catalog?.groups.flatMap((group) => group.rules)
    .find((rule) => rule.field === "bidding")?.choices ?? [];
  return choices.find((choice) => choice.value === format)
    ?? { value: format, words: format ? format[0].toUpperCase() + format.slice(1) : "", line: "" };
}

/**
 * "Hand 3 of the night: Mirror — your bid is your spades": the hand's bidding format,
 * said while formats rotate (the view's `bidding` and `hand_number`), else "".
 */
export function handFormatWords(rules, view, catalog) {
  if (!rules?.bidding_formats?.length || !view?.bidding || !view.hand_number) return "";
  const format = formatOf(catalog, view.bidding);
  return `Hand ${view.hand_number} of the night: ${format.words}${format.line ? ` — ${format.line}` : ""}`;
}

/** A rule's value in the builder's words: "Yes", the choice's words, a number, "never". */
export function valueWords(rule, value) {
  if (rule.kind === "check") return value ? "Yes" : "No";
  if (rule.kind === "select") return rule.choices.find((choice) => choice.value === value)?.words ?? String(value);
  if (rule.kind === "formats") {
    return value?.length
      ? value.map((format) => rule.choices.find((choice) => choice.value === format)?.words ?? format).join(", ")
      : "Off";
  }
  if (value === null || value === undefined) return rule.blank ?? "–";
  return String(value);
}

/**
 * The preset a table's rules start from: the one (of the same number of players) that
 * the fewest fields differ from. Returns {name, title, line, changed: [field, ...]}.
 */
export function presetOf(rules, catalog) {
  let best = null;
  for (const preset of catalog?.presets ?? []) {
    if (preset.rules.players !== rules.players) continue;
    const changed = Object.keys(preset.rules).filter((field) =>
      field in rules && JSON.stringify(preset.rules[field]) !== JSON.stringify(rules[field]));
    if (!best || changed.length < best.changed.length) best = { ...preset, changed };
  }
  return best;
}

/**
 * Every rule of a table, grouped as the builder groups them: the preset first, then
 * [{title, lines: [{field, label, words, explain, example, changed}]}] for the rules
 * that apply, then what nil, blind nil, 10 for 200 and bags are worth.
 */
export function rulesInWords(rules, catalog) {
  const preset = presetOf(rules, catalog);
  const changed = new Set(preset?.changed ?? []);
  const groups = (catalog?.groups ?? []).map((group) => ({
    title: group.title,
    lines: group.rules.filter((rule) => applies(rule, rules) && rule.field in rules).map((rule) => ({
      field: rule.field,
      label: rule.label,
      words: valueWords(rule, rules[rule.field]),
      explain: rule.explain,
      example: rule.example,
      changed: changed.has(rule.field),
    })),
  })).filter((group) => group.lines.length);
  const worth = [
    `${rules.players} players, ${rules.partnerships ? "in partnerships" : "each for themselves"}.`,
    rules.nil !== false ? nilExplanation(rules) : null,
    rules.blind_nil ? blindNilExplanation(rules) : null,
    tenForTwoHundredExplanation(rules) || null,
    rules.bags === false ? "No bag penalty." : `Bags: ${bagPenaltyWords(rules)}.`,
  ].filter(Boolean);
  return {
    title: preset ? preset.title : "Custom rules",
    line: preset ? preset.line : "",
    housed: changed.size,
    groups,
    worth,
  };
}

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

/** The rules of a "play these rules again" link (`?rules=<JSON>`), or null. */
export function rulesFromAddress(search = window.location.search) {
  const text = new URLSearchParams(search).get("rules");
  if (!text) return null;
  try {
    const rules = JSON.parse(text);
    return rules && typeof rules === "object" && !Array.isArray(rules) ? rules : null;
  } catch {
    return null;
  }
}
