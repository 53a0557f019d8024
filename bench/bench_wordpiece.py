#!/usr/bin/env python3
"""Speed of the pure-Python bert-base-uncased tokenizer, each figure against a reference
measured in the same run:

- CPython: counting MB/s (a new tokenizer: cold; the same one again: warm) vs HF
  ``tokenizers`` single-threaded (``RAYON_NUM_THREADS=1``) on the same text, whole and
  per paragraph (``encode_batch``), its faster figure taken; ``encode_with_offsets`` too;
- Pyodide (npm ``pyodide`` under Node): the same counts vs the npm tiktoken WASM encoder
  (``cl100k_base``, ``encode_ordinary``, called from JS) in the same Node process;
- construction (tables -> tokenizer) on both: first (reading and hash-checking the table
  files) and again (tables already read).

The text is 1 MB of real Markdown (``bench/corpus.py``), or ``--text FILE``.

    python3 bench/bench_wordpiece.py [--runs 5] [--size 1000000] [--text FILE] [--no-pyodide]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE_SCRIPT = Path(__file__).with_name("bench_wordpiece_node.cjs")


def measure(text: str, runs: int) -> dict[str, float]:
    """Seconds (median of ``runs``) of construction and of each pass; runs on CPython and in Pyodide."""
    from ragchunk import tables
    from ragchunk.tokenizers import wordpiece

    started = time.perf_counter()
    wordpiece.load()
    first = time.perf_counter() - started
    figures: dict[str, list[float]] = {"construct_again": [], "count_cold": [], "count_warm": [],
                                       "offsets_cold": [], "offsets_warm": []}
    counts = set()
    for _ in range(runs):
        started = time.perf_counter()
        tok = wordpiece.load()
        figures["construct_again"].append(time.perf_counter() - started)
        fresh = wordpiece.load()  # its caches are empty for the offsets' cold pass
        for name, call in (("count", tok.count), ("offsets", fresh.encode_with_offsets)):
            for phase in ("cold", "warm"):
                started = time.perf_counter()
                result = call(text)
                figures[f"{name}_{phase}"].append(time.perf_counter() - started)
                counts.add(result if name == "count" else len(result.ids))
    assert len(counts) == 1, counts
    out = {name: statistics.median(values) for name, values in figures.items()}
    out["construct_first"] = first
    out["tokens"] = counts.pop()
    out["digest"] = digest(tok, text)
    out["tables_read"] = float(tables.loaded("bert-uncased-vocab"))
    return out


HOSTILE = ("Ünïcödé ΣΊΣΥΦΟΣ İstanbul straße ﬁ 日本語の文章。中文，한국어 e\u0301 \x00a\x85b\u200bc\u3000d\xa0e "
           "ｆｕｌｌ ①Ⅻ ภาษาไทย नमस्ते \U0001d15e\U0001d165 \U000e0041 \ufffd [SEP] " + "x" * 120)


def digest(tok, text: str) -> str:
    """A hash of the ids and offsets of ``text`` and of hostile Unicode (NFC, NFD, NFKD), to compare runtimes."""
    import hashlib
    import unicodedata

    state = hashlib.sha256()
    for sample in (text, HOSTILE, unicodedata.normalize("NFD", HOSTILE), unicodedata.normalize("NFKD", HOSTILE)):
        encoded = tok.encode_with_offsets(sample)
        state.update(repr((list(encoded.ids), list(encoded.starts), list(encoded.ends), tok.encode(sample),
                           tok.next_cut(sample, 0, len(sample)), tok.last_cut(sample, 0, len(sample)))).encode())
    return state.hexdigest()


def hf_seconds(text: str, runs: int) -> tuple[float, int]:
    """HF tokenizers, one thread: the faster of one encode of the whole text and a batch of paragraphs."""
    from bert_reference import reference_tokenizer

    with tempfile.TemporaryDirectory() as folder:
        hf = reference_tokenizer(Path(folder))
    paragraphs = text.split("\n\n")
    best, counts = [], set()
    for _ in range(runs):
        started = time.perf_counter()
        counts.add(len(hf.encode(text, add_special_tokens=False).ids))
        whole = time.perf_counter() - started
        started = time.perf_counter()
        batch = hf.encode_batch(paragraphs, add_special_tokens=False)
        parts = time.perf_counter() - started
        best.append(min(whole, parts))
        del batch
    assert len(counts) == 1
    return statistics.median(best), counts.pop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--text", type=Path)
    parser.add_argument("--no-pyodide", action="store_true")
    args = parser.parse_args()
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    sys.path[:0] = [str(ROOT / "pycore"), str(ROOT / "bench"), str(ROOT / "tests" / "tables")]
    if args.text:
        text = args.text.read_text(encoding="utf-8")
    else:
        import corpus

        text = corpus.markdown_corpus(args.size)[0]
    mb = len(text.encode("utf-8")) / 1e6
    print(f"text: {mb:.2f} MB ({len(text):,} code points), {args.runs} runs, medians; machine load "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")

    ours = measure(text, args.runs)
    reference, hf_tokens = hf_seconds(text, args.runs)
    assert hf_tokens == ours["tokens"], (hf_tokens, ours["tokens"])
    print(f"CPython {sys.version.split()[0]}: {ours['tokens']:,} tokens (= HF)")
    print(f"  HF tokenizers 1 thread      {mb / reference:6.2f} MB/s")
    for name in ("count_cold", "count_warm", "offsets_cold", "offsets_warm"):
        print(f"  {name:<27} {mb / ours[name]:6.2f} MB/s   {reference / ours[name]:5.2f}x HF")
    print(f"  construction: first {ours['construct_first'] * 1000:.0f} ms, again {ours['construct_again'] * 1000:.0f} ms")

    if args.no_pyodide:
        return
    with tempfile.TemporaryDirectory() as folder:
        sample = Path(folder) / "text.txt"
        sample.write_text(text, encoding="utf-8")
        done = subprocess.run(["node", str(NODE_SCRIPT), str(ROOT), str(sample), str(args.runs)],
                              capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_wordpiece: the Node part failed:\n{done.stderr}")
    node = json.loads(done.stdout.strip().splitlines()[-1])
    py = node["python"]
    assert py["tokens"] == ours["tokens"], (py["tokens"], ours["tokens"])
    assert py["digest"] == ours["digest"], "Pyodide gives other ids or offsets than CPython"
    wasm = node["tiktoken_seconds"]
    print(f"Pyodide {node['pyodide']} (Python {node['python_version']}) under Node {node['node']}: ids, offsets and cuts"
          " identical to CPython's")
    print(f"  tiktoken WASM cl100k_base   {mb / wasm:6.2f} MB/s (from JS)")
    for name in ("count_cold", "count_warm", "offsets_cold", "offsets_warm"):
        print(f"  {name:<27} {mb / py[name]:6.2f} MB/s   {wasm / py[name]:5.2f}x tiktoken WASM")
    print(f"  construction: first {py['construct_first'] * 1000:.0f} ms, again {py['construct_again'] * 1000:.0f} ms"
          f" (loadPyodide {node['boot_seconds']:.1f} s, installing the files {node['install_seconds'] * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
