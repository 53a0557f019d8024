"""Packing sibling sections together or keeping each apart: which retrieves better?

Builds a questions file from the Python FAQ that Debian's ``python3-doc`` installs
(``apt-get install -y python3-doc``; HTML under /usr/share/doc/python3.11/html/faq): each
question is a FAQ entry's heading (a question itself), each answer the first sentence of
the entry's first paragraph, quoted. The heading is in the document right above its answer, so
these questions favour any chunk that holds its heading; with ``--no-heading-words`` the
query keeps only the heading words the answer's sentence does not use, so BM25 cannot match
the quote on the question's own words.

Then runs ``python -m ragchunk evaluate`` on those pages twice, ``--siblings pack`` and
``--siblings apart``, at the default sizes, and prints the rows side by side.

    python bench/bench_sections.py [--retriever bm25] [--faq DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import html.parser
import json
import os
import re
import subprocess
import sys
from pathlib import Path

FAQ = Path("/usr/share/doc/python3.11/html/faq")
CORE = Path(__file__).resolve().parents[1] / "pycore"
PAGES = ("general", "programming", "design", "library", "extending", "windows", "gui", "installed")
_SENTENCE = re.compile(r"(.+?[.!?])(?:\s|$)", re.S)
_WORD = re.compile(r"[a-z0-9]+")
_BACKREF = re.compile(r'<a class="toc-backref"[^>]*>(.*?)</a>', re.S)


class _Entries(html.parser.HTMLParser):
    """(heading, first paragraph) of each h2-h4 in a Sphinx page's body."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[tuple[str, str]] = []
        self.depth = 0  # inside div.body
        self.tag = ""
        self.buffer: list[str] = []
        self.heading = ""
        self.want_paragraph = False
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("class") == "headerlink":
            self.skip += 1
        if tag in ("h2", "h3", "h4"):
            self.tag, self.buffer = tag, []
        elif tag == "p" and self.want_paragraph:
            self.tag, self.buffer = "p", []

    def handle_endtag(self, tag):
        if tag == "a" and self.skip:
            self.skip -= 1
        if tag == self.tag and tag in ("h2", "h3", "h4"):
            self.heading = " ".join("".join(self.buffer).split())
            self.want_paragraph, self.tag = True, ""
        elif tag == self.tag == "p":
            self.entries.append((self.heading, " ".join("".join(self.buffer).split())))
            self.want_paragraph, self.tag = False, ""

    def handle_data(self, data):
        if self.tag and not self.skip:
            self.buffer.append(data)


def questions(faq: Path, drop_heading_words: bool) -> list[dict]:
    made = []
    for page in PAGES:
        parser = _Entries()
        parser.feed((faq / f"{page}.html").read_text(encoding="utf-8"))
        for heading, paragraph in parser.entries:
            found = _SENTENCE.match(paragraph)
            if not heading.endswith("?") or not found or len(found.group(1)) < 30:
                continue
            answer = found.group(1)[:300]
            query = heading
            if drop_heading_words:
                used = set(_WORD.findall(answer.lower()))
                query = " ".join(w for w in heading.split() if not set(_WORD.findall(w.lower())) <= used)
                if not query.strip("? "):
                    continue
            made.append({"id": f"{page}-{len(made)}", "question": query, "answers": [answer]})
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--faq", type=Path, default=FAQ)
    ap.add_argument("--out", type=Path, default=Path("bench-sections-out"))
    ap.add_argument("--retriever", default="bm25")
    ap.add_argument("--by", default="headings,paragraphs")
    ap.add_argument("--no-heading-words", action="store_true",
                    help="drop from each query the heading words its answer sentence uses")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    made = questions(args.faq, args.no_heading_words)
    qfile = args.out / "faq-questions.jsonl"
    qfile.write_text("".join(json.dumps(q) + "\n" for q in made), encoding="utf-8")
    print(f"{len(made)} questions from {args.faq} -> {qfile}", file=sys.stderr)
    # The FAQ's entry headings are whole links back to the page's contents (Sphinx's
    # toc-backref); ragchunk's HTML reader leaves such headings out as navigation, so the
    # links are unwrapped (their text kept) in copies of the pages.
    pages = []
    for page in PAGES:
        copy = args.out / f"{page}.html"
        source = (args.faq / f"{page}.html").read_text(encoding="utf-8")
        copy.write_text(_BACKREF.sub(r"\1", source), encoding="utf-8")
        pages.append(str(copy))
    rows = {}
    for siblings in ("pack", "apart"):
        run = subprocess.run([sys.executable, "-m", "ragchunk", "evaluate", *pages, "--questions", str(qfile),
                              "--by", args.by, "--retriever", args.retriever, "--siblings", siblings, "--json"],
                             capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(CORE), os.environ.get("PYTHONPATH"))))})
        data = json.loads(run.stdout)
        (args.out / f"evaluate-{siblings}-{args.retriever}.json").write_text(run.stdout, encoding="utf-8")
        for row in data["results"]:
            rows[(row["retriever"], row["by"], row["size"], siblings)] = row
        print(f"{siblings}: {data['questions']} questions, {len(data['not_found'])} quotes not found", file=sys.stderr)
    print(f"{'retriever':<10}{'setting':<16}{'siblings':<9}{'recall %':>9}{'interval':>14}{'IoU %':>7}{'prec. %':>8}"
          f"{'hit %':>7}{'MRR':>6}{'read':>7}{'chunks':>8}")
    for (retriever, by, size, siblings), row in sorted(rows.items()):
        low, high = row["recall_interval"]
        print(f"{retriever:<10}{by + ' ' + str(size):<16}{siblings:<9}{row['recall'] * 100:>9.1f}"
              f"{f'{low * 100:.1f}–{high * 100:.1f}':>14}{row['iou'] * 100:>7.2f}{row['precision'] * 100:>8.2f}"
              f"{row['hit_rate'] * 100:>7.1f}{row['mrr']:>6.2f}{row['tokens_read']:>7.0f}{row['chunks']:>8}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
