#!/usr/bin/env python3
"""Speed of ragchunk's pure-Python XLM-R tokenizer (``tokenizers.unigram``), with references
measured in the same run.

Figures are the best of ``--runs`` runs; on CPython they are CPU time (HF runs one thread).

- CPython: counting MB/s of ragchunk vs HF ``tokenizers`` (its Rust tokenizer, one
  thread, the reference tokenizer.json of tests/tables/xlmr_reference.py), cold (a new
  tokenizer, empty word cache) and warm (the same text again);
- Pyodide under Node: ragchunk in Pyodide vs the npm tiktoken WASM encoder (cl100k_base)
  in the same Node process, cold and warm;
- building the tokenizer from its tables on both, and the tables' sizes raw and gzipped
  (what a browser downloads when such a model is chosen).

Two texts of about 1 MB each: the repository's Markdown plus the shared chunking corpora
(English), and words glued from XLM-R's own pieces (its ~100 languages), half of them NFD.

    python3 bench/bench_unigram.py [--runs 3] [--no-pyodide]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "pycore"), str(ROOT / "tests" / "tables")]

from ragchunk.tables import CATALOG, read  # noqa: E402
from ragchunk.tables.xlmr import parse_pieces  # noqa: E402
from ragchunk.tokenizers.unigram import load  # noqa: E402

TARGET_BYTES = 1_000_000
CORPORA = Path("/work/shared/data/chunking-evaluation/corpora")
# What load() reads (and a page downloads); xlmr-pieces and xlmr-charsmap serve the tests.
TABLES = ("xlmr-automaton", "xlmr-scores", "xlmr-normalizer", "xlmr-graphemes")


def english() -> str:
    files = sorted((ROOT / "tests" / "data" / "md").glob("*.md")) + sorted(CORPORA.glob("*.md"))
    text = "\n\n".join(path.read_text(encoding="utf-8") for path in files)
    return text.encode("utf-8")[:TARGET_BYTES].decode("utf-8", "ignore")


def multilingual() -> str:
    pieces = parse_pieces(read("xlmr-pieces"))[4:-1]
    rng = random.Random(7)
    starts = [p[1:] for p in pieces if p.startswith("\u2581") and len(p) > 1]
    inner = [p for p in pieces if not p.startswith("\u2581")]
    words, size = [], 0
    while size < TARGET_BYTES:
        word = "".join([rng.choice(starts), *rng.choices(inner, k=rng.randrange(3))])
        word = unicodedata.normalize("NFD", word) if rng.random() < 0.5 else word
        words.append(word)
        size += len(word.encode("utf-8")) + 1
    return " ".join(words)


def timed(function, *args) -> float:
    """CPU seconds of one call: on a shared machine wall time says more about the neighbours."""
    started = time.process_time()
    function(*args)
    return time.process_time() - started


def cpython(text: str, runs: int, reference) -> dict:
    megabytes = len(text.encode("utf-8")) / 1e6
    hf = [timed(lambda: reference.encode(text, add_special_tokens=False)) for _ in range(runs)]
    cold, warm = [], []
    for _ in range(runs):
        tokenizer = load()
        cold.append(timed(tokenizer.count, text))
        warm.append(timed(tokenizer.count, text))
    assert tokenizer.count(text) == len(reference.encode(text, add_special_tokens=False).ids)
    hf_rate = megabytes / min(hf)
    return {"hf": hf_rate, "cold": megabytes / min(cold), "warm": megabytes / min(warm)}


def pyodide(text: str, runs: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "text.txt"
        path.write_text(text, encoding="utf-8")
        out = subprocess.run(["node", str(ROOT / "bench" / "bench_unigram_node.mjs"), str(ROOT / "pycore"),
                              str(path), str(runs)], capture_output=True, text=True, check=True, cwd=ROOT)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["count"] == load().count(text), "Pyodide counted differently from CPython"
    megabytes = len(text.encode("utf-8")) / 1e6
    return {"wasm": megabytes / result["wasm_seconds"], "cold": megabytes / result["cold_seconds"],
            "warm": megabytes / result["warm_seconds"], "load": result["load_seconds"], "boot": result["boot"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pyodide", action="store_true")
    args = parser.parse_args()

    from xlmr_reference import reference_tokenizer

    with tempfile.TemporaryDirectory() as folder:
        reference = reference_tokenizer(Path(folder))
    reference.encode_special_tokens = True
    build = [timed(load) for _ in range(args.runs)]
    print(f"CPython {sys.version.split()[0]}: tables read + tokenizer built in {min(build):.2f} s")
    texts = {"english": english(), "multilingual": multilingual()}
    for name, text in texts.items():
        r = cpython(text, args.runs, reference)
        print(f"  {name:12} {len(text.encode()) / 1e6:.2f} MB  HF tokenizers {r['hf']:.2f} MB/s | ragchunk cold"
              f" {r['cold']:.2f} MB/s ({r['cold'] / r['hf']:.2f}x), warm {r['warm']:.2f} MB/s ({r['warm'] / r['hf']:.2f}x)")
    if not args.no_pyodide:
        for name, text in texts.items():
            r = pyodide(text, args.runs)
            if name == "english":
                print(f"Pyodide (Node): boot {r['boot']:.2f} s, tables read + tokenizer built in {r['load']:.2f} s")
            print(f"  {name:12} tiktoken WASM {r['wasm']:.2f} MB/s | ragchunk cold {r['cold']:.2f} MB/s"
                  f" ({r['cold'] / r['wasm']:.2f}x), warm {r['warm']:.2f} MB/s ({r['warm'] / r['wasm']:.2f}x)")
    print("tables (raw / gzip -9):")
    total = [0, 0]
    for name in TABLES:
        data = read(name)
        packed = len(gzip.compress(data, 9))
        total[0] += len(data)
        total[1] += packed
        print(f"  {CATALOG[name].file:22} {len(data) / 1e6:6.2f} MB / {packed / 1e6:5.2f} MB")
    print(f"  {'total':22} {total[0] / 1e6:6.2f} MB / {total[1] / 1e6:5.2f} MB"
          " (xlmr-pieces.txt and xlmr-charsmap.bin, read only by the tests, are not needed at run time)")


if __name__ == "__main__":
    main()
