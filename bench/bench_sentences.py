"""Sentence boundaries: pySBD's Golden Rules passed, and throughput on about 1 MB of English prose.

Golden Rules: every case of ``tests/data/golden_rules/{english,russian}.json`` (taken from
pySBD's tests, MIT) is split by ``ragchunk.sentences`` and, when importable, by pySBD
(``Segmenter(language, clean=False, char_span=False)``, as pySBD's own tests do); pySBD's
segments are stripped as its tests strip them, ours are already trimmed. Prints the cases
passed per language and, with ``--show-misses``, the cases each one misses.

Throughput: the corpus is built without network access from the ``*.md``, ``*.rst`` and
``*.txt`` files of the running Python's site-packages and the docstrings of its standard
library, read in sorted path order, keeping only paragraphs that look like prose (code
blocks, tables and short lines dropped), then shuffled with a fixed seed and cut to
size. If that yields less than the target, seeded synthetic prose fills the rest, so the
corpus is the same on every run of the same environment.

Prints MB/s (median of ``--runs``, default 5) for ``sentence_spans`` and, measured in the
same run on the same text, one tiktoken ``cl100k_base`` pass (``encode_ordinary``, the
table built by ``build.py``), a ``re.findall(r"\\S+")`` pass, and nltk punkt / pySBD when
importable (pySBD takes tens of seconds per MB: ``--peer-runs``, default 1).

    python3 bench/bench_sentences.py [--size CHARS] [--runs N] [--peer-runs N] [--show-misses]
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import statistics
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "pycore"))

from ragchunk.text.segmentation import sentence_spans, sentences  # noqa: E402

TARGET_BYTES = 1_000_000
RUNS = 5
SEED = 20240601
PER_PACKAGE = 48_000
GOLDEN_RULES = ROOT / "tests" / "data" / "golden_rules"
LANGUAGES = {"english": "en", "russian": "ru"}

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


def median_seconds(func, text: str, runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        func(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _pysbd_segmenters() -> tuple[dict, str | None]:
    """pySBD's segmenter per language of :data:`LANGUAGES`, or why there is none."""
    try:
        import pysbd

        return {lang: pysbd.Segmenter(language=code, clean=False, char_span=False)
                for lang, code in LANGUAGES.items()}, None
    except Exception as exc:  # missing package: report and measure ours alone
        return {}, f"pysbd ({type(exc).__name__})"


def golden_rules(pysbd: dict) -> dict[str, dict[str, list[str]]]:
    """``{splitter: {language: [ids of the cases missed]}}`` plus the case counts under ``"cases"``."""
    splitters = {"ragchunk": {lang: sentences for lang in LANGUAGES}}
    if pysbd:
        splitters["pysbd"] = {lang: (lambda text, seg=seg: [s.strip() for s in seg.segment(text)])
                              for lang, seg in pysbd.items()}
    misses: dict[str, dict[str, list[str]]] = {name: {} for name in splitters}
    counts = {}
    for lang in LANGUAGES:
        cases = json.loads((GOLDEN_RULES / f"{lang}.json").read_text(encoding="utf-8"))["cases"]
        counts[lang] = len(cases)
        for name, by_lang in splitters.items():
            misses[name][lang] = [case["from"] for case in cases if by_lang[lang](case["text"]) != case["expected"]]
    return {"cases": counts, **misses}


def _tiktoken_pass():
    """``encode_ordinary`` of cl100k_base built from the project's table, or why it is unavailable."""
    try:
        from ragchunk.tokenizers import get_tokenizer

        encoding = get_tokenizer("cl100k_base")._encoding
        encoding.encode_ordinary("warm up")
        return encoding.encode_ordinary, None
    except Exception as exc:  # tiktoken missing or tables not prepared (build.py)
        return None, f"tiktoken ({type(exc).__name__}: {exc})"[:160]


def _optional_competitors(pysbd: dict) -> tuple[dict, list[str]]:
    found = {}
    missing = []
    try:
        import nltk

        nltk.sent_tokenize("Check. Punkt data.")
        found["nltk punkt"] = nltk.sent_tokenize
    except Exception as exc:  # missing package or missing punkt data: both mean "skip"
        missing.append(f"nltk ({type(exc).__name__})")
    if pysbd:
        found["pysbd"] = pysbd["english"].segment
    return found, missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=TARGET_BYTES, help="corpus size in characters")
    parser.add_argument("--runs", type=int, default=RUNS, help="timed runs of ours and the references (median)")
    parser.add_argument("--peer-runs", type=int, default=1, help="timed runs of nltk and pySBD (median)")
    parser.add_argument("--show-misses", action="store_true", help="list the Golden Rules cases each one misses")
    args = parser.parse_args()

    pysbd, pysbd_missing = _pysbd_segmenters()
    rules = golden_rules(pysbd)
    counts = rules.pop("cases")
    print("pySBD Golden Rules passed (" + ", ".join(f"{lang} {n} cases" for lang, n in counts.items()) + ")")
    for name, missed in rules.items():
        line = ", ".join(f"{lang} {counts[lang] - len(ids)}/{counts[lang]}" for lang, ids in missed.items())
        print(f"  {name:<10} {line}")
        if args.show_misses:
            for lang, ids in missed.items():
                print(f"    {lang} misses: {', '.join(ids) or '-'}")
    if pysbd_missing:
        print(f"  not scored (not importable): {pysbd_missing}")
    print()

    corpus, per_source = build_corpus(args.size)
    megabytes = len(corpus.encode("utf-8")) / 1e6
    spans = sentence_spans(corpus)
    sources = ", ".join(f"{name} {chars // 1000} k" for name, chars in per_source.items())
    print(f"Python {sys.version.split()[0]}; corpus {megabytes:.2f} MB ({sources} chars before the cut), "
          f"{len(spans)} sentences; median of {args.runs} runs ({args.peer_runs} for peers)")

    references = {"re \\S+ pass": lambda t: re.findall(r"\S+", t)}
    tiktoken_pass, tiktoken_missing = _tiktoken_pass()
    if tiktoken_pass is not None:
        references = {"tiktoken pass": tiktoken_pass, **references}
    timed = {name: median_seconds(func, corpus, args.runs) for name, func in references.items()}
    ours = median_seconds(sentence_spans, corpus, args.runs)
    print(f"{'sentence_spans':<16} {megabytes / ours:8.1f} MB/s  ({ours * 1e3:.1f} ms)")
    for name, seconds in timed.items():
        print(f"{name:<16} {megabytes / seconds:8.1f} MB/s  -> sentence_spans takes "
              f"{ours / seconds:.2f}x its time")

    competitors, missing = _optional_competitors(pysbd)
    for name, func in competitors.items():
        seconds = median_seconds(func, corpus, args.peer_runs)
        versus = "".join(f", {seconds / timed[ref]:.0f}x a {ref}" for ref in timed if ref == "tiktoken pass")
        print(f"{name:<16} {megabytes / seconds:8.1f} MB/s  ({seconds / ours:.1f}x slower than ours{versus})")
    missing += [m for m in (pysbd_missing, tiktoken_missing) if m]
    if missing:
        print("not measured (not importable): " + ", ".join(missing))


if __name__ == "__main__":
    main()
