"""The README's pictures (docs/screenshots/) against what the page draws now.

Each committed picture carries, in a PNG text chunk, the layout the page had when it was
taken: every landmark in the window (seat plates with their state, panels, headings,
elements with an id; with a dialog open, only the dialog's) and its box. A browser test
that takes a doc picture compares the page with it: the picture's size must be the
window's exactly, and the same landmarks must be there, each where it was. Cards, bids,
scores, names and whose turn it is differ from run to run and are left out; a plate
moved, added or highlighted beside another, a panel gone or a part of a plate that was
not there before is a difference. Regenerate the pictures with `scripts/screenshots`
(SPADES_DOC_SCREENSHOTS=1) after a change to what the page draws.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image
from PIL.PngImagePlugin import PngInfo

LAYOUT_CHUNK = "spades-layout"
# How far a landmark may sit from where it was (px): a wrapped line, a dealer's chip or a
# longer turn line move things this little; a plate or panel that moved goes further.
SLACK = 24
REGENERATE = "scripts/screenshots"

# The landmarks in the window, in document order: [key, left, top, right, bottom].
LAYOUT = """() => {
  const LANDMARKS = 'header, main, nav, aside, section, form, fieldset, dialog[open], '
    + 'h1, h2, h3, [id], .seat, .panel, .summary, button.primary';
  // Inside these, what is drawn changes with the deal and the play.
  const VOLATILE = '#hand, #trick, #chat-log, .history, .seat, .summary-sides, svg';
  // A plate's state and parts (never its words, which name the players); whose turn it
  // is changes with the deal, so only how many plates show a turn is kept.
  const SEAT_STATES = ['mine', 'empty', 'disconnected', 'autoplay'];
  const SEAT_PARTS = ['.name', '.badge.bot', '.badge.you', '.sit', '.add-bot'];
  const shown = (node) => {
    const box = node.getBoundingClientRect();
    const style = getComputedStyle(node);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden'
      && box.right > 0 && box.bottom > 0 && box.left < innerWidth && box.top < innerHeight;
  };
  const keyOf = (node) => {
    if (node.classList.contains('seat')) {
      const position = [...node.classList].find((name) => name.startsWith('pos-')) ?? '';
      const states = SEAT_STATES.filter((name) => node.classList.contains(name));
      const parts = SEAT_PARTS.filter((part) => [...node.querySelectorAll(part)].some(shown));
      return ['seat', position, ...states, ...parts].join(' ');
    }
    const id = node.id ? `#${node.id}` : '';
    return `${node.tagName.toLowerCase()}${id}`;
  };
  // An open modal dialog is what the picture shows; the page behind it is left out.
  const dialog = document.querySelector('dialog[open]');
  const within = (selector) => dialog
    ? [dialog, ...dialog.querySelectorAll(selector)].filter((node) => node.matches(selector))
    : [...document.querySelectorAll(selector)];
  const turns = within('.seat.turn').filter(shown).length;
  return within(LANDMARKS)
    .filter((node) => node.classList.contains('seat') || !node.parentElement?.closest(VOLATILE))
    .filter(shown)
    .map((node) => {
      const box = node.getBoundingClientRect();
      return [keyOf(node), ...[box.left, box.top, box.right, box.bottom].map(Math.round)];
    })
    .concat([[`plates showing a turn: ${turns}`, 0, 0, 0, 0]]);
}"""

# Scrolled to the top, until every animation that ends has ended (a card sliding in, a
# plate's highlight passing on): a picture shows the page at rest, as a player first sees
# it, as its layout says it is.
SETTLE = """() => (window.scrollTo(0, 0), Promise.all(document.getAnimations()
  .filter((animation) => animation.effect?.getComputedTiming().endTime !== Infinity)
  .map((animation) => animation.finished.catch(() => null))))"""

Landmark = list[Any]  # [key, left, top, right, bottom]


def settle(page: Any) -> None:
    """Scroll the page to its top and wait for its animations to end."""
    page.evaluate(SETTLE)


def layout_of(page: Any) -> list[Landmark]:
    """The landmarks the page draws in its window now."""
    found: list[Landmark] = page.evaluate(LAYOUT)
    return found


def save(taken: Path, doc: Path, layout: list[Landmark]) -> None:
    """Copy the picture just taken to the docs, its layout written inside it."""
    info = PngInfo()
    info.add_text(LAYOUT_CHUNK, json.dumps(layout))
    with Image.open(taken) as picture:
        picture.save(doc, pnginfo=info, optimize=True)


def differences(taken: Path, doc: Path, layout: list[Landmark]) -> list[str]:
    """How the committed picture `doc` differs from the page that drew `taken` with
    `layout`: its size, then each landmark missing, added or moved (empty: alike)."""
    if not doc.exists():
        return [f"{doc.name} is not in docs/screenshots"]
    with Image.open(taken) as now, Image.open(doc) as committed:
        if now.size != committed.size:
            (width, height), (new_width, new_height) = committed.size, now.size
            return [f"size {width}x{height}, drawn now {new_width}x{new_height}"]
        recorded = committed.text.get(LAYOUT_CHUNK) if hasattr(committed, "text") else None
    if recorded is None:
        return ["the picture records no layout (it was not taken by today's tests)"]
    return compare(json.loads(recorded), layout)


def compare(before: list[Landmark], now: list[Landmark]) -> list[str]:
    """Landmarks matched by key in document order: those only in one, and those whose box
    moved more than SLACK (by its nearer edge or its middle, on each axis)."""
    found: list[str] = []
    keys = [landmark[0] for landmark in before] + [landmark[0] for landmark in now]
    for key in dict.fromkeys(keys):
        old = [landmark[1:] for landmark in before if landmark[0] == key]
        new = [landmark[1:] for landmark in now if landmark[0] == key]
        if len(old) != len(new):
            found.append(f"{key}: {len(old)} in the picture, {len(new)} drawn now")
            continue
        for was, is_now in zip(old, new, strict=True):
            across = near(was[0], was[2], is_now[0], is_now[2])
            if not (across and near(was[1], was[3], is_now[1], is_now[3])):
                found.append(f"{key}: at {was} in the picture, {is_now} drawn now")
    return found


def near(start: int, end: int, new_start: int, new_end: int) -> bool:
    """Whether an extent [start, end] is where it was on one axis: by either edge or its
    middle, within SLACK (a plate with the dealer's chip grows from where it stands)."""
    moved = min(
        abs(start - new_start), abs(end - new_end), abs((start + end) - (new_start + new_end)) / 2
    )
    return moved <= SLACK
