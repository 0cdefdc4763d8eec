"""QR codes drawn by web/qr.js in Chromium, photographed and read back by a real decoder."""

from __future__ import annotations

import io

import pytest
import zxingcpp
from PIL import Image

from tests.browser.conftest import SCREENSHOTS

pytestmark = pytest.mark.browser

# The link a player scans to continue on another device: table id, then a 32-character
# url-safe seat token in the fragment.
CONTINUE_LINK = "http://192.168.1.20:8000/t/AbC123xY#seat=Zq-8_Lm3vR0tYx7KpW2n_cD5eHs9Ja4B"
NON_ASCII = "Table « Pique-Dame » — ♠ Pik-König, 黑桃 🂡 Ærøskøbing"
LONGEST = ("http://spades-table.example.org:8000/t/AbC123xY?from=lobby#seat=" + "Ab-_9" * 30)[:200]

DRAW = """async ([text, label, width]) => {
  const { qrSvg } = await import('/static/qr.js');
  const svg = qrSvg(text, label === null ? {} : { label });
  const box = document.createElement('div');
  box.id = 'qr-box';
  box.style.cssText = 'position:fixed;top:0;left:0;z-index:1000;background:#fff;'
    + `width:${width}px;line-height:0`;
  svg.style.width = '100%';
  svg.style.display = 'block';
  box.append(svg);
  document.body.append(box);
  const path = svg.querySelector('path').getBBox();
  return {
    viewBox: svg.getAttribute('viewBox'),
    crisp: svg.getAttribute('shape-rendering'),
    namespace: svg.namespaceURI,
    modules: [path.x, path.y, path.width, path.height],
  };
}"""


def draw(page, text: str, label: str | None = None, width: int = 260) -> dict:
    return page.evaluate(DRAW, [text, label, width])


def decode(png: bytes):
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)).convert("L"))
    assert len(found) == 1, f"expected one QR code in the screenshot, decoded {found}"
    return found[0]


@pytest.mark.parametrize(
    ("name", "text", "width"),
    [("link", CONTINUE_LINK, 260), ("non-ascii", NON_ASCII, 260), ("200-chars", LONGEST, 330)],
)
def test_qr_code_in_the_page_decodes_to_its_text(
    open_page, name: str, text: str, width: int
) -> None:
    page = open_page("/")
    drawn = draw(page, text, "Continue on another device", width)
    assert drawn["namespace"] == "http://www.w3.org/2000/svg"
    assert drawn["crisp"] == "crispEdges"
    # A square viewBox with 4 white modules on each side of the dark ones.
    origin_x, origin_y, size, size_again = (int(n) for n in drawn["viewBox"].split())
    assert (origin_x, origin_y) == (0, 0)
    assert size == size_again
    assert drawn["modules"] == [4, 4, size - 8, size - 8]
    assert (size - 8 - 17) % 4 == 0, "a QR symbol is 17 + 4·version modules wide"

    # The element's own pixels as Chromium drew them, kept in the screenshots folder.
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    png = page.locator("#qr-box svg").screenshot(path=SCREENSHOTS / f"qr-{name}.png")
    barcode = decode(png)
    assert barcode.format.name == "QRCode"
    assert barcode.ec_level == "M"
    assert barcode.bytes == text.encode("utf-8")
    assert barcode.text == text


def test_qr_code_has_an_accessible_name(open_page) -> None:
    page = open_page("/")
    draw(page, CONTINUE_LINK, "Continue on another device: scan this code")
    named = page.get_by_role("img", name="Continue on another device: scan this code")
    assert named.count() == 1
    assert named.evaluate("svg => svg.tagName") == "svg"

    draw(page, "http://192.168.1.20:8000/t/AbC123xY")
    assert page.get_by_role("img", name="QR code", exact=True).count() == 1
