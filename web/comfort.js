// Comfort settings, remembered per browser (localStorage): what the announcements say,
// a four-colour deck, larger cards, high contrast and reduced motion. Each one is a
// class on <html> that app.css reads (announcements excepted: announce.js reads it),
// applied on every page as soon as this module loads. Reduced motion follows the
// system's `prefers-reduced-motion` until the player says otherwise.

import { remembered } from "/static/dom.js";

const REDUCED_MOTION = "(prefers-reduced-motion: reduce)";

// Each setting: its localStorage key, its default, and the <html> class it sets (if any).
const SETTINGS = {
  announce: { key: "spades.announce", fallback: () => "all", choices: ["all", "mine", "off"] },
  fourColour: { key: "spades.fourColour", fallback: () => false, className: "four-colour" },
  largeCards: { key: "spades.largeCards", fallback: () => false, className: "large-cards" },
  highContrast: { key: "spades.highContrast", fallback: () => false, className: "high-contrast" },
  reduceMotion: {
    key: "spades.reduceMotion",
    fallback: () => window.matchMedia(REDUCED_MOTION).matches,
    className: "reduce-motion",
  },
};

export const comfort = {
  get(name) {
    const setting = SETTINGS[name];
    const value = remembered.get(setting.key, null);
    const valid = setting.choices ? setting.choices.includes(value) : typeof value === "boolean";
    return valid ? value : setting.fallback();
  },

  set(name, value) {
    remembered.set(SETTINGS[name].key, value);
    applyComfort();
  },
};

/** Put each setting's class on <html> (or take it off). */
export function applyComfort() {
  for (const [name, setting] of Object.entries(SETTINGS)) {
    if (setting.className) document.documentElement.classList.toggle(setting.className, comfort.get(name));
  }
}

/**
 * Wire the page's controls to the settings: every element with `data-comfort="name"`
 * (a checkbox, or a <select> of the setting's choices) shows and changes its setting.
 */
export function bindComfortControls(root = document) {
  for (const control of root.querySelectorAll("[data-comfort]")) {
    const name = control.dataset.comfort;
    const value = comfort.get(name);
    if (control.type === "checkbox") control.checked = value;
    else control.value = value;
    control.addEventListener("change", () => {
      comfort.set(name, control.type === "checkbox" ? control.checked : control.value);
    });
  }
}

applyComfort();
window.matchMedia(REDUCED_MOTION).addEventListener("change", applyComfort);
