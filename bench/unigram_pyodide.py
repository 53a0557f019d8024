"""The Pyodide half of bench/bench_unigram.py: timings of ragchunk's XLM-R tokenizer.

bench_unigram_node.mjs copies ragchunk into Pyodide's file system, imports this module and
calls :func:`run`; it never holds Python code itself.
"""

from __future__ import annotations

from collections.abc import Callable


def run(text: str, runs: int, clock: Callable[[], float]) -> dict:
    """Seconds by ``clock`` (the Node process's CPU time) for reading the tables and building
    the tokenizer, and for counting ``text`` with a new tokenizer (cold) and again (warm)."""
    started = clock()
    from ragchunk.tokenizers.unigram import load

    tokenizer = load()
    built = clock() - started
    cold = []
    warm = []
    count = 0
    for _ in range(runs):
        fresh = load() if cold else tokenizer
        started = clock()
        count = fresh.count(text)
        cold.append(clock() - started)
        started = clock()
        fresh.count(text)
        warm.append(clock() - started)
    return {"load_seconds": built, "cold": cold, "warm": warm, "count": count}
