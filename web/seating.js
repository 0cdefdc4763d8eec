// Where each seat sits on screen, seen from the viewer's seat (bottom). Play goes
// clockwise, so the next seat is on the viewer's left. Spectators look from seat 0.

const LAYOUTS = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  6: ["bottom", "left", "top-left", "top", "top-right", "right"],
};

/** Screen position ("bottom", "left", ...) of `seat` at a table of `players`. */
export function seatPosition(seat, players, viewerSeat) {
  const layout = LAYOUTS[players] || LAYOUTS[4];
  const from = viewerSeat ?? 0;
  return layout[(seat - from + players) % players] || "top";
}

/** The seats of each side: the view's `sides`, or before the game those of docs/rules.md §1. */
export function sidesOf(view, rules) {
  if (view) return view.sides;
  const { players } = rules;
  if (rules.partnerships && players % 2 === 0) {
    const half = players / 2;
    return Array.from({ length: half }, (_, seat) => [seat, seat + half]);
  }
  return Array.from({ length: players }, (_, seat) => [seat]);
}

export function sideOfSeat(sides, seat) {
  return sides.findIndex((members) => members.includes(seat));
}

// Where a seat is, in words, for a player (from their seat) and for a spectator (who
// looks from seat 0's side). Every name of a place on the page comes from here, so it
// matches the screen of the one who reads it: never a seat number, and never the
// compass name the server gives a bot ("South bot"), which is right for one viewer only.
const PLACE_WORDS = {
  bottom: ["", "at the bottom"],
  left: ["on your left", "on the left"],
  "top-left": ["across on your left", "at the top left"],
  top: ["across", "at the top"],
  "top-right": ["across on your right", "at the top right"],
  right: ["on your right", "on the right"],
};

/**
 * Where `seat` sits on this viewer's screen: "on your left", "across" ("on the left",
 * "at the top" to a spectator); "" for the viewer's own seat.
 */
export function placeWords(page, seat) {
  return PLACE_WORDS[seatPosition(seat, page.table.rules.players, page.seat)][page.seat === null ? 1 : 0];
}

/** A seat as a place: "your seat", "the seat on your left", "the seat at the top". */
export function seatPlace(page, seat) {
  return seat === page.seat ? "your seat" : `the seat ${placeWords(page, seat)}`;
}

/**
 * Who sits in `seat`, for a label: a person's name (the viewer's own included), "Bot on
 * your left" ("Bot on the left" to a spectator), or "Empty seat across".
 */
export function seatName(page, seat) {
  const info = page.table.seats[seat];
  if (info?.name && !info.bot) return info.name;
  return `${info?.bot ? "Bot" : "Empty seat"} ${placeWords(page, seat)}`.trimEnd();
}

/** Who sits in `seat`, in a sentence: "You" for the viewer, else as seatName. */
export function seatWords(page, seat) {
  return seat === page.seat ? "You" : seatName(page, seat);
}

/** "You play" / "Ann plays": the verb agrees with seatWords' subject. */
export function does(who, verb) {
  return who === "You" ? `${who} ${verb}` : `${who} ${verb}s`;
}

/**
 * "Ann & Bot across": the members of side `index` by seatName (score pad, summaries);
 * `sides` the page's unless given (a finished hand's own).
 */
export function sideName(page, index, sides = page.sides) {
  return sides[index].map((seat) => seatName(page, seat)).join(" & ");
}

/** "You and Bot across": the members of side `index` in seatWords, for sentences. */
export function sideWords(page, index) {
  return page.sides[index].map((seat) => seatWords(page, seat)).join(" and ");
}

/** "the seat across" -> "The seat across": words that begin a title or a line. */
export function capitalised(words) {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "On your left", "Across"; "Your seat" for the viewer's own: a seat's heading. */
export function placeHeading(page, seat) {
  return capitalised(seat === page.seat ? "your seat" : placeWords(page, seat));
}
