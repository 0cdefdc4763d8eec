// QR codes drawn in the page as SVG, from the vendored qrcode-generator (no service,
// no image request): qrSvg("http://host/t/id#seat=...", {label: "..."}) -> <svg>.

import qrcode from "/static/vendor/qrcode-generator.js";

const SVG = "http://www.w3.org/2000/svg";
const QUIET = 4; // modules of white around the symbol, as the standard asks

/**
 * An <svg role="img"> encoding `text` in byte mode as UTF-8, error correction M, the
 * smallest version that fits (a 200-character link is version 10). It has a viewBox
 * and no width or height, so CSS sizes it. Throws if the text is too long for a QR code.
 * @param {string} text
 * @param {{label?: string}} [options] the accessible name; "QR code" by default
 * @returns {SVGSVGElement}
 */
export function qrSvg(text, { label } = {}) {
  const qr = qrcode(0, "M"); // 0: choose the version from the data
  // The library's byte mode keeps the low 8 bits of each UTF-16 unit, so hand it the
  // UTF-8 bytes as a one-char-per-byte string rather than patching its global encoder.
  qr.addData(String.fromCharCode(...new TextEncoder().encode(text)), "Byte");
  qr.make();

  const count = qr.getModuleCount();
  const size = count + 2 * QUIET;
  // One path of horizontal runs of dark modules: a few KB of markup, not a rect each.
  let d = "";
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; ) {
      if (!qr.isDark(row, col)) {
        col += 1;
        continue;
      }
      let end = col;
      while (end < count && qr.isDark(row, end)) end += 1;
      d += `M${col + QUIET} ${row + QUIET}h${end - col}v1h${col - end}z`;
      col = end;
    }
  }

  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", label || "QR code");
  svg.setAttribute("shape-rendering", "crispEdges");
  svg.setAttribute("class", "qr");
  const background = document.createElementNS(SVG, "rect");
  background.setAttribute("width", String(size));
  background.setAttribute("height", String(size));
  background.setAttribute("fill", "#fff");
  const modules = document.createElementNS(SVG, "path");
  modules.setAttribute("d", d);
  modules.setAttribute("fill", "#000");
  svg.append(background, modules);
  return svg;
}
