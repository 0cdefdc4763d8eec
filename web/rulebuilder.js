// The rule builder: presets as starting points, then the rules grouped as the server's
// catalogue groups them (bidding, nil, scoring and bags, end of game, deck, first lead),
// each with its one-line explanation and a worked example in a <details>; a live
// one-line summary from the server (`POST /api/rules/check`), and the server's reason,
// naming the field, when the rules do not hold together. Choosing a preset fills every
// field; any field can then be changed. Used by the lobby's create form, the club's
// house rules and the host panel's table rules (before the game starts).

import { api, el, fill } from "/static/dom.js";
import { applies } from "/static/rules.js";

const CHECK_DELAY_MS = 250;

export class RuleBuilder {
  /**
   * @param {HTMLElement} root where the builder goes (emptied)
   * @param {import('./protocol-types.js').RuleCatalog} catalog
   * @param {{id?: string, presetsLabel?: string, open?: boolean}} options `id` prefixes
   *   every element id (the lobby's is "" so its fields are `#rule-<field>`)
   */
  constructor(root, catalog, { id = "", presetsLabel = "Game", open = false } = {}) {
    this.root = root;
    this.catalog = catalog;
    this.prefix = id ? `${id}-` : "";
    this.presetName = catalog.presets[0]?.name ?? "standard";
    this.values = { ...(catalog.presets[0]?.rules ?? {}) };
    this.checked = null; // the server's last answer: {rules, summary, link} or {error}
    this.timer = null;
    this.asked = 0;
    this.render(presetsLabel, open);
    this.refresh();
  }

  idOf(name) {
    return `${this.prefix}${name}`;
  }

  preset(name = this.presetName) {
    return this.catalog.presets.find((preset) => preset.name === name);
  }

  render(presetsLabel, open) {
    const presets = el("fieldset", { class: "presets" },
      el("legend", {}, presetsLabel),
      el("div", { class: "preset-list", id: this.idOf("preset-list") },
        this.catalog.presets.map((preset, index) => el("label", { class: "preset" },
          el("input", {
            type: "radio", name: this.idOf("preset"), value: preset.name, checked: index === 0,
            onchange: () => this.choosePreset(preset.name),
          }),
          el("span", { class: "preset-text" },
            el("strong", {}, preset.title),
            el("span", { class: "muted" }, preset.line))))));
    this.groupsBox = el("div", { class: "house-rule-list rule-groups", id: this.idOf("house-rule-list") },
      this.catalog.groups.map((group) => this.groupBox(group)));
    this.details = el("details", { class: "house-rules", id: this.idOf("house-rules"), open },
      el("summary", {}, "House rules"),
      el("p", { class: "help muted" }, "Start from the game above, then change any rule. Each rule's example opens under it."),
      this.groupsBox);
    this.summaryLine = el("output", { class: "rules-live-summary", id: this.idOf("rules-live-summary") });
    this.error = el("p", { class: "error", id: this.idOf("rules-error"), role: "alert" });
    fill(this.root, presets, this.details,
      el("p", { class: "rules-summary-line" }, el("span", { class: "muted" }, "This table: "), this.summaryLine),
      this.error);
    this.fillFields();
  }

  groupBox(group) {
    return el("fieldset", { class: "rule-group", dataset: { group: group.id } },
      el("legend", {}, group.title),
      group.rules.map((rule) => this.ruleBox(rule)));
  }

  ruleBox(rule) {
    const id = this.idOf(`rule-${rule.field}`);
    const help = `${id}-help`;
    let input;
    if (rule.kind === "check") {
      input = el("input", { type: "checkbox", id, onchange: () => this.read(rule) });
    } else if (rule.kind === "select") {
      input = el("select", { id, onchange: () => this.read(rule) },
        rule.choices.map((choice) => el("option", { value: choice.value }, choice.words)));
    } else if (rule.kind === "number") {
      input = el("input", {
        type: "number", id, min: rule.min, max: rule.max, step: 1, inputmode: "numeric",
        placeholder: rule.blank, oninput: () => this.read(rule),
      });
    } else {
      input = el("div", { class: "format-list", id, role: "group", "aria-labelledby": `${id}-label` });
    }
    input.dataset.field = rule.field;
    input.dataset.kind = rule.kind;
    if (rule.kind !== "formats") input.setAttribute("aria-describedby", help);
    const label = rule.kind === "formats"
      ? el("span", { class: "rule-label", id: `${id}-label` }, rule.label)
      : el("label", { for: id }, rule.label);
    return el("div", { class: `house-rule ${rule.kind}`, dataset: { rule: rule.field } },
      label,
      input,
      el("p", { class: "help muted", id: help }, rule.explain),
      el("details", { class: "rule-example" },
        el("summary", {}, el("span", { class: "visually-hidden" }, `${rule.label}: `), "Example"),
        el("p", {}, rule.example)));
  }

  /** Put `this.values` into the fields, and hide the rules that do not apply. */
  fillFields() {
    for (const input of this.root.querySelectorAll("[data-field]")) {
      const field = input.dataset.field;
      const value = this.values[field];
      if (input.dataset.kind === "check") input.checked = Boolean(value);
      else if (input.dataset.kind === "select") input.value = value ?? "";
      else if (input.dataset.kind === "number") input.value = value ?? "";
      else this.fillFormats(input, value ?? []);
    }
    this.showApplying();
  }

  showApplying() {
    for (const { rule, box } of this.ruleBoxes()) {
      box.hidden = !applies(rule, this.values);
      for (const option of box.querySelectorAll("option")) {
        const choice = rule.choices?.find((each) => each.value === option.value);
        option.disabled = Boolean(choice && !applies(choice, this.values));
      }
    }
  }

  *ruleBoxes() {
    for (const group of this.catalog.groups) {
      for (const rule of group.rules) {
        const box = this.root.querySelector(`[data-rule="${rule.field}"]`);
        if (box) yield { rule, box };
      }
    }
  }

  /** The rotation: one select per hand, "Add a hand", a remove button for each. */
  fillFormats(box, formats) {
    const rule = this.catalog.groups.flatMap((group) => group.rules).find((each) => each.field === box.dataset.field);
    const change = (next) => {
      this.values[rule.field] = next.length ? next : null;
      this.fillFormats(box, next);
      this.changed();
    };
    fill(box,
      el("ol", { class: "format-hands" }, formats.map((format, index) => el("li", {},
        el("label", { for: `${box.id}-${index}` }, `Hand ${index + 1}`),
        el("select", {
          id: `${box.id}-${index}`, class: "format-hand",
          onchange: (event) => change(formats.map((each, at) => (at === index ? event.target.value : each))),
        }, rule.choices.map((choice) => el("option", {
          value: choice.value, selected: choice.value === format, disabled: !applies(choice, this.values),
        }, choice.words))),
        el("button", {
          type: "button", class: "small-button format-remove",
          onclick: () => change(formats.filter((_, at) => at !== index)),
        }, el("span", { "aria-hidden": "true" }, "✕"), el("span", { class: "visually-hidden" }, `Remove hand ${index + 1}`))))),
      formats.length < 13 ? el("button", {
        type: "button", class: "small-button format-add", "aria-describedby": `${box.id}-help`,
        onclick: () => change([...formats, formats.at(-1) ?? this.values.bidding ?? "individual"]),
      }, formats.length ? "Add a hand" : "Rotate formats") : null);
  }

  /** A field was changed by the player. */
  read(rule) {
    const input = this.root.querySelector(`#${CSS.escape(this.idOf(`rule-${rule.field}`))}`);
    let value;
    if (rule.kind === "check") value = input.checked;
    else if (rule.kind === "number") value = input.value === "" ? null : Number(input.value);
    else value = input.value;
    this.values[rule.field] = value;
    this.showApplying();
    this.changed();
  }

  choosePreset(name) {
    this.presetName = name;
    this.values = { ...this.preset().rules };
    this.fillFields();
    this.changed();
  }

  /**
   * Start from given rules (a preset and changes, as a "play these rules again" link
   * carries them): the preset is chosen, the changes filled in.
   */
  setRules(given) {
    const name = this.preset(given.preset) ? given.preset : this.presetName;
    this.presetName = name;
    const radio = this.root.querySelector(`input[name="${this.idOf("preset")}"][value="${CSS.escape(name)}"]`);
    if (radio) radio.checked = true;
    const { preset: _preset, ...changes } = given;
    this.values = { ...this.preset().rules, ...changes };
    this.fillFields();
    this.changed();
  }

  /** Only the fields that differ from the preset, so the preset name stays meaningful. */
  rules() {
    const base = this.preset()?.rules ?? {};
    const rules = { preset: this.presetName };
    for (const [field, value] of Object.entries(this.values)) {
      if (JSON.stringify(value ?? null) !== JSON.stringify(base[field] ?? null)) rules[field] = value;
    }
    return rules;
  }

  changed() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.refresh(), CHECK_DELAY_MS);
  }

  /** Ask the server for the summary (or the reason the rules are refused). */
  async refresh() {
    const asked = ++this.asked;
    try {
      /** @type {import('./protocol-types.js').RulesChecked} */
      const checked = await api("/api/rules/check", { method: "POST", body: { rules: this.rules() } });
      if (asked !== this.asked) return;
      this.checked = checked;
      this.summaryLine.textContent = checked.summary;
      this.error.textContent = "";
    } catch (failure) {
      if (asked !== this.asked) return;
      this.checked = { error: failure.message };
      this.error.textContent = failure.message;
    }
  }

  /** Show a refusal from elsewhere (the create request's 422) next to the rules. */
  showError(message) {
    this.error.textContent = message;
  }
}
