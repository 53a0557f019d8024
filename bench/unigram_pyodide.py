"""The Pyodide half of bench/bench_unigram.py: timings of ragchunk's XLM-R tokenizer.

bench_unigram_node.mjs copies ragchunk into Pyodide's file system, imports this module and
calls :func:`run`; it never holds Python code itself.
"""

from __future__ import annotations

import time


def run(text: str, runs: int) -> dict:
    """Seconds for building the tokenizer from its tables and for counting ``text``."""
    started = time.perf_counter()
    from ragchunk.tokenizers.unigram import load

    tokenizer = load()
    built = time.perf_counter() - started
    cold = []
    warm = []
    count = 0
    for _ in range(runs):
        fresh = load() if cold else tokenizer
        started = time.perf_counter()
        count = fresh.count(text)
        cold.append(time.perf_counter() - started)
        started = time.perf_counter()
        fresh.count(text)
        warm.append(time.perf_counter() - started)
    return {"load_seconds": built, "cold": cold, "warm": warm, "count": count}
