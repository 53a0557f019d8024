"""The corpora and questions of the chunking-evaluation data set (four corpora, 373 questions).

>>> questions = [Question(0, "q?", "c", ((2, 5),))]
>>> questions[0].reference_chars
3
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import re
from pathlib import Path
from typing import NamedTuple

# The project's shared data beside the checkout (../shared/data/); RAGCHUNK_RETRIEVAL_DATA
# names another copy, e.g. a held-out set in the same layout.
DATA = Path(os.environ.get("RAGCHUNK_RETRIEVAL_DATA")
            or Path(__file__).resolve().parents[3] / "shared" / "data" / "chunking-evaluation")


class Question(NamedTuple):
    """One question and its answer spans: code-point offsets into its corpus."""

    index: int
    text: str
    corpus: str
    references: tuple[tuple[int, int], ...]
    # Per reference, the spans of every occurrence of its text in the corpus (itself
    # included): the finance corpus repeats much of its text, and the references name
    # only the first copy.
    copies: tuple[tuple[tuple[int, int], ...], ...] = ()

    @property
    def reference_chars(self) -> int:
        return sum(end - start for start, end in self.references)


def load(root: Path = DATA) -> tuple[dict[str, str], list[Question]]:
    """The corpora (name -> text, in name order) and the questions, checked against each other.

    Each reference's ``content`` must equal ``corpus[start_index:end_index]``: the spans are
    what every measure is computed from, so a mismatch stops the benchmark.
    """
    corpora = {}
    for path in sorted((root / "corpora").glob("*.md")):
        # newline="" keeps the text exactly as stored: the offsets count every code point.
        with open(path, encoding="utf-8", newline="") as handle:
            corpora[path.stem] = handle.read()
    questions = []
    with open(root / "questions.csv", encoding="utf-8", newline="") as handle:
        for index, row in enumerate(csv.DictReader(handle)):
            corpus = row["corpus_id"]
            spans = []
            for ref in json.loads(row["references"]):
                start, end = int(ref["start_index"]), int(ref["end_index"])
                if corpora[corpus][start:end] != ref["content"]:
                    raise ValueError(f"question {index}: reference {start}-{end} does not match {corpus}")
                spans.append((start, end))
            spans.sort()
            if any(b[0] < a[1] for a, b in zip(spans, spans[1:])):
                raise ValueError(f"question {index}: references overlap (the measures assume they do not)")
            copies = tuple(tuple(_occurrences(corpora[corpus], corpora[corpus][a:b])) for a, b in spans)
            questions.append(Question(index, row["question"], corpus, tuple(spans), copies))
    return corpora, questions


def _occurrences(text: str, needle: str) -> list[tuple[int, int]]:
    found = []
    at = text.find(needle)
    while at >= 0:
        found.append((at, at + len(needle)))
        at = text.find(needle, at + 1)
    return found


def fingerprint(text: str) -> str:
    """The first 12 hex digits of the SHA-256 of ``text`` in UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


# A WikiText heading line: " = Title = ", " = = Section = = ", " = = = Subsection = = = ".
_WIKI_HEADING = re.compile(r"(?m)^ ?((?:= )+)(\S[^=\n]*?) (?: ?=)+ ?$")


def markdown_headings(text: str) -> str:
    """``text`` with its WikiText heading lines written as Markdown ATX headings of the same
    depth, each padded with spaces to its old length, so that every offset (and so every
    reference span) stays where it was.

    >>> markdown_headings(" = Valkyria = \\n Text . \\n = = Plot = = \\n More . \\n")
    '# Valkyria    \\n Text . \\n## Plot       \\n More . \\n'
    """
    def atx(found: re.Match[str]) -> str:
        heading = "#" * found[1].count("=") + " " + found[2]
        return heading.ljust(len(found[0]))

    return _WIKI_HEADING.sub(atx, text)
