#!/usr/bin/env python3
"""Speed of ``evaluate``'s all-MiniLM-L6-v2 path, and of a whole evaluation, each figure
against a reference measured in the same run.

- **Embedding**: chunks per second of :meth:`ragchunk.evaluate.minilm.MiniLM.embed` (our
  WordPiece ids, padding, ``onnxruntime``, mean pooling, L2 norm) against ``onnxruntime``'s
  own throughput on the same ids in the same batches (``session.run`` alone, the arrays
  ready, a session of the same file and options), the two timed in alternate rounds; the ratio is the share of
  the time that is ours. The tokenization alone is timed too.
- **An evaluation**: :func:`ragchunk.evaluate.evaluate` of a 1 MB corpus (the four corpora
  of ``../shared/data/chunking-evaluation/``, 945,285 characters, topped up to 1,000,000 with
  real Markdown from :mod:`corpus`) with its first 100 questions, over the default grid
  (fixed windows, headings, paragraphs, sentences × 128, 256, 512, overlap an eighth), with
  BM25 and then with BM25, MiniLM and their hybrid; the reference is the chunking alone
  (every setting's chunks, :func:`ragchunk.evaluate.grid.chunks_of`) in the same run.

Chunks: the corpora cut into fixed windows of ``--size`` cl100k_base tokens (256: the
model reads 256 word pieces, so most are cut at its limit, as in an evaluation at 256 and
512). Run it with ``nice`` on a shared machine.

    python3 bench/bench_minilm.py [--chunks 256] [--size 256] [--rounds 3] [--no-evaluate] [--no-minilm]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "pycore"))

import corpus  # noqa: E402
from retrieval import data  # noqa: E402
from retrieval.rows import plain_encoding  # noqa: E402  (puts the built rank files on the path)

import ragchunk  # noqa: E402
from ragchunk.evaluate import evaluate, read_questions  # noqa: E402
from ragchunk.evaluate.grid import chunks_of, grid  # noqa: E402
from ragchunk.evaluate.minilm import BATCH, MiniLM, model_file, token_ids  # noqa: E402

TARGET_CHARS = 1_000_000


def documents() -> list[tuple[str, str]]:
    """The four corpora, then real Markdown up to :data:`TARGET_CHARS` characters in all."""
    corpora, _ = data.load()
    docs = [(f"{name}.md", text) for name, text in corpora.items()]
    short = TARGET_CHARS - sum(len(text) for _, text in docs)
    if short > 0:
        extra, _ = corpus.markdown_corpus(short)
        docs.append(("extra.md", extra[:short]))
    return docs


def embedding(texts: list[str], rounds: int) -> dict[str, float]:
    """Seconds (medians over ``rounds``) of our path, of onnxruntime alone, and of tokenizing."""
    import onnxruntime

    model = MiniLM()
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(str(model_file()), options, providers=["CPUExecutionProvider"])
    sequences = [token_ids(text) for text in texts]
    feeds = [model.inputs(sequences[first:first + BATCH]) for first in range(0, len(sequences), BATCH)]
    model.embed(texts[:BATCH])  # warm: a session's first run allocates
    session.run(None, feeds[0])
    figures: dict[str, list[float]] = {"ours": [], "onnxruntime": [], "tokenize": []}
    for _ in range(rounds):
        started = time.perf_counter()
        model.embed(texts)
        figures["ours"].append(time.perf_counter() - started)
        started = time.perf_counter()
        for feed in feeds:
            session.run(None, feed)
        figures["onnxruntime"].append(time.perf_counter() - started)
        started = time.perf_counter()
        for text in texts:
            token_ids(text)
        figures["tokenize"].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in figures.items()}


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=256, help="chunks embedded per round")
    parser.add_argument("--size", type=int, default=256, help="chunk size in cl100k_base tokens")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--no-evaluate", action="store_true", help="the embedding figures only")
    parser.add_argument("--no-minilm", action="store_true", help="evaluate with BM25 alone")
    args = parser.parse_args()

    import onnxruntime

    plain_encoding()
    docs = documents()
    print(f"Python {platform.python_version()}, ragchunk {ragchunk.__version__}, onnxruntime {onnxruntime.__version__},"
          f" {platform.machine()}")
    tokenizer = ragchunk.get_tokenizer("cl100k_base")
    texts = [w.text for _, text in docs for w in ragchunk.windows(text, args.size, 0, tokenizer)][: args.chunks]
    pieces = statistics.fmean(len(token_ids(text)) for text in texts)
    times = embedding(texts, args.rounds)
    n = len(texts)
    print(f"\nembedding {n} chunks of {args.size} cl100k_base tokens ({pieces:.0f} word pieces read on average),"
          f" batches of {BATCH}, median of {args.rounds} rounds:")
    print(f"  ours (WordPiece, padding, onnxruntime, pooling): {n / times['ours']:7.1f} chunks/s")
    print(f"  onnxruntime alone on the same ids:                {n / times['onnxruntime']:7.1f} chunks/s")
    print(f"  ratio ours / onnxruntime: {times['onnxruntime'] / times['ours']:.3f} of its throughput; tokenizing is"
          f" {times['tokenize'] / times['ours'] * 100:.2f} % of our time (warm word cache)")
    if args.no_evaluate:
        return

    csv_text = (data.DATA / "questions.csv").read_text(encoding="utf-8")
    asked = read_questions(csv_text, "questions.csv")[: args.questions]
    size = sum(len(text.encode("utf-8")) for _, text in docs)
    print(f"\nevaluating {size:,} bytes in {len(docs)} documents with {len(asked)} questions, default grid:")
    settings = grid()
    chunking, counts = timed(lambda: [len(chunks_of(s, docs, "cl100k_base")) for s in settings])
    print(f"  reference, chunking alone ({len(settings)} settings, {sum(counts):,} chunks): {chunking:7.1f} s")
    plans = [("bm25",)] if args.no_minilm else [("bm25",), ("bm25", "minilm", "hybrid")]
    for retrievers in plans:
        seconds, result = timed(lambda retrievers=retrievers: evaluate(docs, asked, retrievers=retrievers))
        rows = result.to_json()["results"]
        print(f"  evaluate, {'+'.join(retrievers):18} {seconds:7.1f} s = {seconds / chunking:5.2f} x the chunking"
              f" ({len(rows)} rows)")


if __name__ == "__main__":
    main()
