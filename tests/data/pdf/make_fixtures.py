"""Regenerate the PDF fixtures of tests/unit/test_pdf_reader.py with the tools that make real PDFs.

Run from the repository root: ``python tests/data/pdf/make_fixtures.py``. It needs Python
Playwright driving Chromium at /usr/bin/chromium (see tests/requirements.txt), pypdf
(the ``pdf`` extra) and, for the AES copy only, the ``cryptography`` package.

- ``outline.pdf``: Chromium ``page.pdf(outline=True, tagged=True)`` of a three-level
  guide over several A6 pages, with a running header and "Page N of M" footers, an
  ordered list and a bulleted list whose bullets are text.
- ``fonts.pdf``: a document without outline (``outline=False``): headings only by font
  size and weight; footers with the bare page number.
- ``columns.pdf``: two narrow columns full of soft hyphens (``&shy;``) and a "well-known"
  hyphen inside a line; paragraphs run across columns and pages.
- ``scan.pdf``: a page that is only an image (no text layer).
- ``aes.pdf``: ``outline.pdf`` encrypted by pypdf's writer with AES-256 and an empty
  user password (an owner password only): readable where AES is available.
"""

from __future__ import annotations

import base64
import struct
import sys
import tempfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
OWNER_PASSWORD = "owner-only"

STYLE = """
body { font-family: 'Liberation Serif'; font-size: 11pt; line-height: 1.3; margin: 0; }
h1 { font-size: 20pt; } h2 { font-size: 15pt; } h3 { font-size: 12.5pt; }
ul.bullets { list-style-type: "\\2022  "; }
"""

RIVERS = [
    ("h1", "A field guide to rivers"),
    ("p", "Rivers carry water from the hills to the sea, and along the way they shape the land, feed the "
          "fields and give towns a reason to exist. This guide follows a river from its source to its mouth."),
    ("h2", "Sources"),
    ("p", "Every river starts somewhere high. Most begin as many small streams that gather rain and melted "
          "snow, and only far downstream does a single channel carry the name that appears on maps."),
    ("h3", "Springs"),
    ("p", "A spring is a place where ground water reaches the surface. Springs in limestone country can run "
          "all year, because the rock stores water like a sponge and releases it slowly through cracks and "
          "caves that may be many kilometres long."),
    ("h3", "Glaciers"),
    ("p", "Glaciers feed rivers in summer, when the ice melts fastest, and the water is milky with fine rock "
          "flour ground from the valley floor by the moving ice over thousands of years."),
    ("ol", ["Snow falls and is pressed into ice.", "The ice flows downhill under its own weight.",
            "Melt water leaves the snout of the glacier."]),
    ("h2", "The middle course"),
    ("p", "In its middle course a river slows down and starts to swing from side to side. The outer bank of "
          "each bend is cut away while sand and gravel settle on the inner bank, so that over the years the "
          "bends grow and wander across the valley floor, leaving old channels behind as quiet lakes."),
    ("h3", "Meanders"),
    ("p", "A meander is one of these bends. When two bends meet, the river takes the shorter path and the "
          "abandoned loop becomes an oxbow lake that slowly fills with mud and reeds."),
    ("ul", ["Outer banks erode.", "Inner banks grow.", "Oxbow lakes form when loops are cut off."]),
    ("h2", "The mouth"),
    ("p", "At its mouth a river meets the sea. Where the tides are weak, the sediment it carries builds a delta "
          "of islands and channels; where they are strong, the mouth is kept open as a wide estuary in which "
          "fresh and salt water mix with every tide."),
]

HEADER = "<div style='font-size:7pt;width:100%;text-align:center;font-family:Liberation Sans'>Field guide</div>"
FOOTER_OF = ("<div style='font-size:7pt;width:100%;text-align:center;font-family:Liberation Sans'>"
             "Page <span class='pageNumber'></span> of <span class='totalPages'></span></div>")
FOOTER_BARE = ("<div style='font-size:7pt;width:100%;text-align:center;font-family:Liberation Sans'>"
               "<span class='pageNumber'></span></div>")

COLUMNS = """
<h1>Hy&shy;phen&shy;ation in nar&shy;row col&shy;umns</h1>
<div style="column-count: 2; column-gap: 12pt; text-align: justify; hyphens: manual;">
<p>Nar&shy;row col&shy;umns force the brow&shy;ser to break long words, and soft hy&shy;phens tell it where
a break is al&shy;lowed. The well-known com&shy;pound keeps its own hy&shy;phen in the mid&shy;dle of a
line. Ev&shy;ery&shy;thing else is joined again when the text is ex&shy;tract&shy;ed: in&shy;ter&shy;na&shy;tion&shy;al
co&shy;op&shy;er&shy;a&shy;tion, ad&shy;min&shy;is&shy;tra&shy;tion, en&shy;vi&shy;ron&shy;men&shy;tal
re&shy;spon&shy;si&shy;bil&shy;i&shy;ty and com&shy;mu&shy;ni&shy;ca&shy;tion all break some&shy;where.</p>
<p>A sec&shy;ond para&shy;graph fol&shy;lows, long enough to run from the first col&shy;umn into the
sec&shy;ond one with&shy;out a stop: its sen&shy;tence goes on through the col&shy;umn break and
keeps go&shy;ing, past rivers, moun&shy;tains, for&shy;ests, vil&shy;lag&shy;es and har&shy;bours, un&shy;til
it fi&shy;nal&shy;ly reach&shy;es the end of the para&shy;graph, where it stops.</p>
<p>The third para&shy;graph is there to fill the page and to cross onto the next one: geo&shy;graph&shy;i&shy;cal
de&shy;scrip&shy;tions of un&shy;fa&shy;mil&shy;iar re&shy;gions re&shy;quire pa&shy;tience, pre&shy;ci&shy;sion and
con&shy;sid&shy;er&shy;able ex&shy;pe&shy;ri&shy;ence, be&shy;cause ev&shy;ery sin&shy;gle ob&shy;ser&shy;va&shy;tion
must be checked against maps, mea&shy;sure&shy;ments and the ac&shy;counts of ear&shy;li&shy;er trav&shy;el&shy;lers,
whose notes are of&shy;ten in&shy;com&shy;plete, con&shy;tra&shy;dic&shy;to&shy;ry or sim&shy;ply wrong, and
the re&shy;sult&shy;ing de&shy;scrip&shy;tion is only as good as the care tak&shy;en with each of these
com&shy;par&shy;i&shy;sons over many years of pa&shy;tient and me&shy;thod&shy;i&shy;cal work.</p>
</div>
"""


def rivers_html(title: str) -> str:
    body = []
    for tag, content in RIVERS:
        if tag in ("ol", "ul"):
            cls = " class='bullets'" if tag == "ul" else ""
            body.append(f"<{tag}{cls}>" + "".join(f"<li>{item}</li>" for item in content) + f"</{tag}>")
        else:
            body.append(f"<{tag}>{content}</{tag}>")
    return f"<html><head><title>{title}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>"


def png(width: int, height: int) -> bytes:
    """A grey gradient PNG (stdlib only): the 'scanned page' image."""
    rows = b"".join(b"\x00" + bytes((x * 255 // width) for x in range(width)) for _ in range(height))

    def chunk(kind: bytes, payload: bytes) -> bytes:
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))

    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def print_pdfs() -> None:
    from playwright.sync_api import sync_playwright

    image = base64.b64encode(png(300, 400)).decode()
    margins = {"top": "1.6cm", "bottom": "1.6cm", "left": "1.2cm", "right": "1.2cm"}
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page()
        page.set_content(rivers_html("A field guide to rivers"))
        page.pdf(path=str(HERE / "outline.pdf"), format="A6", outline=True, tagged=True, margin=margins,
                 display_header_footer=True, header_template=HEADER, footer_template=FOOTER_OF)
        page.set_content(rivers_html("Rivers without an outline"))
        page.pdf(path=str(HERE / "fonts.pdf"), format="A6", outline=False, tagged=False, margin=margins,
                 display_header_footer=True, header_template="<span></span>", footer_template=FOOTER_BARE)
        page.set_content(f"<html><head><title>Hyphenation</title><style>{STYLE}</style></head>"
                         f"<body>{COLUMNS}</body></html>")
        page.pdf(path=str(HERE / "columns.pdf"), format="A6", outline=True, tagged=True, margin=margins,
                 display_header_footer=True, header_template=HEADER, footer_template=FOOTER_OF)
        page.set_content(f"<html><body style='margin:0'><img src='data:image/png;base64,{image}' "
                         "style='width:100%'></body></html>")
        page.pdf(path=str(HERE / "scan.pdf"), format="A6", margin={"top": "0", "bottom": "0", "left": "0",
                                                                    "right": "0"})
        browser.close()


def encrypt_aes() -> None:
    from pypdf import PdfWriter

    writer = PdfWriter(clone_from=str(HERE / "outline.pdf"))
    writer.encrypt(user_password="", owner_password=OWNER_PASSWORD, algorithm="AES-256")
    with open(HERE / "aes.pdf", "wb") as out:
        writer.write(out)


def main() -> int:
    print_pdfs()
    encrypt_aes()
    for path in sorted(HERE.glob("*.pdf")):
        print(f"{path.name}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
