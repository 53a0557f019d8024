#!/usr/bin/env python3
"""Speed of the open LLMs' encodings (ragchunk.tables.llms: llama3, qwen2, deepseek) against tiktoken's
cl100k_base on the same text in the same run, on CPython: ``count`` (tiktoken's
``encode_ordinary``) and ``encode_with_offsets``, median of ``--runs``, and each as a ratio
of cl100k_base's time (above 1: slower). Construction (rank file -> encoder) is timed once.

The text is 1 MB of real Markdown (``bench/corpus.py``) plus the page's strings in
English, Russian and Hindi, or ``--text FILE``; it is measured as it is (in NFC: an encoding
that normalizes, Qwen's, checks that and goes on) and then in NFD, every composed character
decomposed (Qwen normalizes it back and maps its offsets; the others read it as it is).

    python3 bench/bench_llm_tokenizers.py [--runs 7] [--size 1000000] [--text FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def seconds(call, text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call(text)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--text", type=Path)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "pycore"))
    sys.path.insert(0, str(ROOT / "bench"))
    from ragchunk import tables
    from ragchunk.tokenizers import CATALOG, bpe

    if args.text:
        text = args.text.read_text(encoding="utf-8")
    else:
        import corpus

        text = corpus.markdown_corpus(args.size)[0]
        catalogs = sorted((ROOT / "web" / "i18n").glob("*.json"))
        text += "\n".join(v for path in catalogs for v in json.loads(path.read_text(encoding="utf-8")).values()
                          if isinstance(v, str))
    tables._load_catalog()
    names = ["cl100k_base"] + [name for name, entry in CATALOG.items() if entry.family == "bpe"
                               and tables.CATALOG[entry.tables[0]].module == "ragchunk.tables.llms"]
    decomposed = unicodedata.normalize("NFD", text)
    print(f"{len(text):,} characters, {len(text.encode('utf-8')):,} bytes ({len(decomposed):,} characters in NFD);"
          f" median of {args.runs} runs")
    tokenizers = {}
    for name in names:
        started = time.perf_counter()
        tokenizers[name] = bpe.load(name)
        print(f"{name:<12} built in {time.perf_counter() - started:.3f} s")
    for label, sample in (("as is (NFC)", text), ("in NFD", decomposed)):
        print(f"\ntext {label}")
        print(f"{'encoding':<12} {'tokens':>10} {'count s':>8} {'× cl100k':>9} {'offsets s':>10} {'× cl100k':>9}")
        base: dict[str, float] = {}
        for name, tok in tokenizers.items():
            tokens = tok.count(sample)
            count = seconds(tok.count, sample, args.runs)
            offsets = seconds(tok.encode_with_offsets, sample, args.runs)
            base = base or {"count": count, "offsets": offsets}
            print(f"{name:<12} {tokens:>10,} {count:>8.3f} {count / base['count']:>9.2f}"
                  f" {offsets:>10.3f} {offsets / base['offsets']:>9.2f}")


if __name__ == "__main__":
    main()
