"""The Pyodide half of bench/bench_unigram.py: timings of ragchunk's XLM-R tokenizer.

bench_unigram_node.mjs copies ragchunk into Pyodide's file system, imports this module and
calls :func:`run`; it never holds Python code itself.
"""

from __future__ import annotations

from collections.abc import Callable


def run(text: str, runs: int, clock: Callable[[], float], reference: Callable[[], object]) -> dict:
    """Seconds by ``clock`` (the Node process's CPU time), best of ``runs`` (and every run, in
    ``"runs"``: reference, cold, warm): importing ragchunk,
    reading its tables and building the first tokenizer (once); building a tokenizer from
    the read tables; counting ``text`` with it (cold) and again (warm); and ``reference``
    (the WASM encoder on the same text) just before and just after each run, so that a
    run's own ratio compares both in the same state of the machine (``"runs"`` holds the
    mean of the two)."""
    started = clock()
    from ragchunk.tokenizers.unigram import load

    load()
    first = clock() - started
    reference_seconds, built, cold, warm, paired = [], [], [], [], []
    count = 0
    for _ in range(runs):
        before = timed(clock, reference)
        started = clock()
        tokenizer = load()
        built.append(clock() - started)
        started = clock()
        count = tokenizer.count(text)
        cold.append(clock() - started)
        started = clock()
        tokenizer.count(text)
        warm.append(clock() - started)
        after = timed(clock, reference)
        reference_seconds += [before, after]
        # The reference just before and just after: the machine's state over the run.
        paired.append((before + after) / 2)
    return {"first_load": first, "build": min(built), "reference": min(reference_seconds), "cold": min(cold),
            "warm": min(warm), "count": count, "runs": [paired, cold, warm]}


def timed(clock: Callable[[], float], function: Callable[[], object]) -> float:
    started = clock()
    function()
    return clock() - started
