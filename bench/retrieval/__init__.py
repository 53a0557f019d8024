"""Retrieval quality of chunks: the data, the measures, the chunkers and the retrievers.

Used by ``bench/bench_retrieval.py``. The measures are those of Chroma's technical report
"Evaluating Chunking Strategies for Retrieval" (2024), whose data lies in
``../shared/data/chunking-evaluation/`` (see :mod:`retrieval.metrics` for the source).
"""
