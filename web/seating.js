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

/** "Ann & Cy", or "Seat 1" for an empty chair, for score pad and summaries. */
export function sideName(sides, index, seatNames) {
  return sides[index].map((seat) => seatNames[seat] || `Seat ${seat + 1}`).join(" & ");
}

// Where a seat is, in words, for a player (from their seat) and for a spectator (who
// looks from seat 0's side): a bot is named by its place on this screen, never by the
// compass name the server gives it, which would not match the screen of every viewer.
const PLACE_WORDS = {
  bottom: ["", "at the bottom"],
  left: ["on your left", "on the left"],
  "top-left": ["across on your left", "at the top left"],
  top: ["across", "at the top"],
  "top-right": ["across on your right", "at the top right"],
  right: ["on your right", "on the right"],
};

/**
 * Who sits in `seat`, as said to the viewer: "You", a person's name, "Bot on your left"
 * ("Bot on the left" to a spectator), or "Empty seat across".
 */
export function seatWords(page, seat) {
  if (seat === page.seat) return "You";
  const info = page.table.seats[seat];
  if (info?.name && !info.bot) return info.name;
  const place = PLACE_WORDS[seatPosition(seat, page.table.rules.players, page.seat)][page.seat === null ? 1 : 0];
  return `${info?.bot ? "Bot" : "Empty seat"} ${place}`;
}

/** "You and Bot across": the members of side `index` in seatWords. */
export function sideWords(page, index) {
  return page.sides[index].map((seat) => seatWords(page, seat)).join(" and ");
}
