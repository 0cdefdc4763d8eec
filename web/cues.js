// Turn cues, so a player in another tab or on a phone does not miss a turn: a short
// sound when it becomes their turn and when a trick or a hand ends (made with WebAudio,
// no sound files), "● Your turn" in the tab title and a dot on the favicon while the
// page is hidden, and a browser notification if the player switched that on (the
// browser asks for permission only then). Sound is on by default for players, and the
// player's own choice is remembered; a spectator has no turn, and no sound.

import { remembered } from "/static/dom.js";

const SOUND_KEY = "spades.sound";
const NOTIFY_KEY = "spades.notify";
const FAVICON = "/static/favicon.svg";
const FAVICON_TURN = "/static/favicon-turn.svg";

// Each cue: notes of [frequency in Hz, start in s, length in s]. Short and soft.
const TUNES = {
  turn: [[660, 0, 0.12], [880, 0.12, 0.18]],
  trick: [[520, 0, 0.07]],
  hand: [[784, 0, 0.12], [659, 0.12, 0.12], [523, 0.24, 0.22]],
};
const VOLUME = 0.12;

function trickKey(view) {
  const last = view?.last_trick;
  return last ? `${view.hand_number}:${last.cards.map((play) => play.seat + play.card).join(",")}` : null;
}

/** It is the viewer's turn: they hold a seat and the view offers them something to do. */
export function isMyTurn(page) {
  const { view, seat } = page;
  return Boolean(view && seat !== null && view.phase !== "over" && view.turn.includes(seat) && view.legal.length);
}

export class TurnCues {
  constructor() {
    this.audio = null;
    this.seen = null; // what the last state showed: {myTurn, trick, hand}
    this.page = null;
    // Browsers let a page make sound only after the player touched it once.
    const unlock = () => this.context()?.resume?.();
    document.addEventListener("pointerdown", unlock, { once: true });
    document.addEventListener("keydown", unlock, { once: true });
    document.addEventListener("visibilitychange", () => this.page && this.showTurn(this.page));
  }

  /** Sound on for a player unless they said otherwise; never for a spectator. */
  soundOn(page) {
    return page.seat !== null && remembered.get(SOUND_KEY, true);
  }

  setSound(on) {
    remembered.set(SOUND_KEY, on);
    if (on) this.context()?.resume?.();
  }

  notifyOn() {
    return remembered.get(NOTIFY_KEY, false) && "Notification" in window && Notification.permission === "granted";
  }

  /** Switch notifications on (asking the browser's permission now) or off; true when on. */
  async setNotify(on) {
    if (on && "Notification" in window && Notification.permission === "default") {
      await Notification.requestPermission();
    }
    remembered.set(NOTIFY_KEY, on && "Notification" in window && Notification.permission === "granted");
    return this.notifyOn();
  }

  context() {
    if (this.audio === null) {
      const Context = window.AudioContext || window.webkitAudioContext;
      this.audio = Context ? new Context() : false;
    }
    return this.audio || null;
  }

  play(tune) {
    const audio = this.context();
    if (!audio || audio.state === "closed") return;
    const start = audio.currentTime + 0.01;
    for (const [frequency, at, length] of TUNES[tune]) {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.type = "sine";
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0, start + at);
      gain.gain.linearRampToValueAtTime(VOLUME, start + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + at + length);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + at);
      tone.stop(start + at + length + 0.02);
    }
  }

  /** Called with every state: cue what changed since the last one (never the first). */
  receive(page) {
    this.page = page;
    const now = { myTurn: isMyTurn(page), trick: trickKey(page.view), hand: page.view?.last_hand?.hand_number ?? null };
    const before = this.seen;
    this.seen = now;
    this.showTurn(page);
    if (before === null) return;
    const sound = this.soundOn(page);
    const handEnded = now.hand !== null && now.hand !== before.hand;
    if (sound && handEnded) this.play("hand");
    else if (sound && now.trick !== null && now.trick !== before.trick) this.play("trick");
    if (now.myTurn && !before.myTurn) {
      // After a trick's or a hand's cue, the turn's a moment later, so both are heard.
      if (sound) setTimeout(() => this.play("turn"), handEnded || now.trick !== before.trick ? 350 : 0);
      if (document.hidden && this.notifyOn()) this.notify(page);
    }
  }

  notify(page) {
    try {
      const note = new Notification("Your turn at Spades", { body: page.table.name, tag: `spades-${page.tableId}` });
      note.onclick = () => window.focus();
    } catch {
      /* some browsers allow notifications only from a service worker: the title still shows it */
    }
  }

  /** The tab's title and favicon: "● Your turn" while the page is hidden and it is. */
  showTurn(page) {
    const waiting = document.hidden && isMyTurn(page);
    const title = `${page.table.name} — Spades`;
    const wanted = waiting ? `● Your turn — ${title}` : title;
    if (document.title !== wanted) document.title = wanted;
    const icon = document.getElementById("favicon");
    const href = waiting ? FAVICON_TURN : FAVICON;
    if (icon && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  }
}
