"""Throughput of ``ragchunk.segmentation.sentence_spans`` on about 1 MB of English prose.

The corpus is built without network access from the ``*.md``, ``*.rst`` and ``*.txt``
files of the running Python's site-packages and the docstrings of its standard library,
read in sorted path order, keeping only paragraphs that look like prose (code blocks,
tables and short lines dropped), then shuffled with a fixed seed and cut to size. If
that yields less than the target, seeded synthetic prose fills the rest, so the corpus
is the same on every run of the same environment.

Prints MB/s (median of 5 runs) for ``sentence_spans``, for a ``re.findall(r"\\S+")``
reference pass measured in the same run, and for nltk punkt / pySBD when importable.

    python3 bench/bench_sentences.py [--size BYTES]
"""

from __future__ import annotations

import argparse
import ast
import random
import re
import statistics
import sys
import sysconfig
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "pycore"))

from ragchunk.segmentation import sentence_spans  # noqa: E402

TARGET_BYTES = 1_000_000
RUNS = 5
SEED = 20240601
PER_PACKAGE = 48_000

_FENCE = re.compile(r"^\s*(```|~~~)")
_WORD = re.compile(r"[A-Za-z]{2,}")


def _prose_paragraphs(text: str) -> list[str]:
    """Paragraphs of ``text`` that read like sentences; code, tables and lists are dropped."""
    kept = []
    in_fence = False
    lines: list[str] = []
    for line in text.splitlines() + [""]:
        if _FENCE.match(line):
            in_fence = not in_fence
            lines = []
            continue
        if in_fence:
            continue
        if line.strip() == "::":
            continue
        if line.strip():
            lines.append(line)
            continue
        paragraph = "\n".join(lines)
        lines = []
        if _looks_like_prose(paragraph):
            kept.append(paragraph)
    return kept


def _looks_like_prose(paragraph: str) -> bool:
    if not paragraph or paragraph[:1].isspace() or paragraph.lstrip()[:1] in "#|=-*+.>:<{[$":
        return False
    words = paragraph.split()
    if len(words) < 12:
        return False
    real = sum(1 for w in words if _WORD.fullmatch(w.strip(".,;:!?\"'()")))
    return real / len(words) > 0.75 and ". " in paragraph + " "


def _synthetic_prose(rng: random.Random, size: int) -> str:
    """Seeded filler prose with abbreviations, numbers and quotes, ``size`` characters or more."""
    subjects = ["The parser", "Dr. Smith", "Our team", "The U.S. office", "Mrs. Jones", "It"]
    verbs = ["reads", "splits", "checks", "ignores", "counts", "returns"]
    objects = ["the file setup.py", "3.14 units", "e.g. the header", "all lines, etc.", "No. 5"]
    tails = [".", ".", ".", "?", "!", '."', "..."]
    out: list[str] = []
    total = 0
    while total < size:
        sentence = f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)}{rng.choice(tails)}"
        out.append(sentence)
        total += len(sentence) + 1
        if rng.random() < 0.1:
            out.append("\n\n")
    return " ".join(out)


def _documents() -> list[tuple[str, str, str]]:
    """``(source, top-level package, text)`` of every local document, in sorted path order."""
    paths = sysconfig.get_paths()
    docs = []
    purelib = Path(paths["purelib"])
    for path in sorted(p for ext in ("*.md", "*.rst", "*.txt") for p in purelib.rglob(ext)):
        try:
            docs.append(("site-packages", path.relative_to(purelib).parts[0], path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    stdlib = Path(paths["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        if "site-packages" in path.parts or "test" in path.parts or "tests" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        strings = [
            ast.get_docstring(node) or ""
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        ]
        docs.append(("stdlib docstrings", path.relative_to(stdlib).parts[0], "\n\n".join(strings)))
    return docs


def build_corpus(size: int) -> tuple[str, dict[str, int]]:
    """Return ``size`` characters of prose and how many characters each source gave.

    Each top-level package gives at most ``PER_PACKAGE`` characters so that one large
    package (awscli's examples) does not make the corpus monotonous.
    """
    parts: list[str] = []
    per_package: dict[str, int] = {}
    per_source: dict[str, int] = {}
    total = 0
    for source, package, text in _documents():
        for paragraph in _prose_paragraphs(text):
            key = f"{source}:{package}"
            if per_package.get(key, 0) >= PER_PACKAGE:
                break
            parts.append(paragraph)
            per_package[key] = per_package.get(key, 0) + len(paragraph) + 2
            per_source[source] = per_source.get(source, 0) + len(paragraph) + 2
            total += len(paragraph) + 2
    # Shuffled so that the cut to size takes from every source, not just the first ones.
    random.Random(SEED).shuffle(parts)
    corpus = "\n\n".join(parts)
    if len(corpus) < size:
        filler = _synthetic_prose(random.Random(SEED), size - len(corpus))
        per_source["synthetic"] = len(filler)
        corpus += "\n\n" + filler
    return corpus[:size], per_source


def median_seconds(func, text: str) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        func(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _optional_competitors() -> tuple[dict, list[str]]:
    found = {}
    missing = []
    try:
        import nltk

        nltk.sent_tokenize("Check. Punkt data.")
        found["nltk punkt"] = nltk.sent_tokenize
    except Exception as exc:  # missing package or missing punkt data: both mean "skip"
        missing.append(f"nltk ({type(exc).__name__})")
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False, char_span=False)
        found["pysbd"] = segmenter.segment
    except Exception as exc:
        missing.append(f"pysbd ({type(exc).__name__})")
    return found, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=TARGET_BYTES, help="corpus size in characters")
    args = parser.parse_args()

    corpus, per_source = build_corpus(args.size)
    megabytes = len(corpus.encode("utf-8")) / 1e6
    spans = sentence_spans(corpus)
    sources = ", ".join(f"{name} {chars // 1000} k" for name, chars in per_source.items())
    print(f"Python {sys.version.split()[0]}; corpus {megabytes:.2f} MB ({sources} chars before the cut), "
          f"{len(spans)} sentences, median of {RUNS}")

    reference = median_seconds(lambda t: re.findall(r"\S+", t), corpus)
    ours = median_seconds(sentence_spans, corpus)
    print(f"{'sentence_spans':<16} {megabytes / ours:8.1f} MB/s  ({ours * 1e3:.1f} ms)")
    label = "re \\S+ pass"
    print(f"{label:<16} {megabytes / reference:8.1f} MB/s  -> sentence_spans takes "
          f"{ours / reference:.2f}x the reference time")

    competitors, missing = _optional_competitors()
    for name, func in competitors.items():
        seconds = median_seconds(func, corpus)
        print(f"{name:<16} {megabytes / seconds:8.1f} MB/s  ({seconds / ours:.1f}x slower than ours)")
    if missing:
        print("not measured (not importable): " + ", ".join(missing))


if __name__ == "__main__":
    main()
