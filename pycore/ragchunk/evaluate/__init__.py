"""Which chunking finds *your* answers: settings tried on your own documents and questions.

:func:`evaluate` splits the documents with every setting of a grid (:mod:`.grid`: fixed
windows and split's levels × sizes), indexes each setting's chunks with each retriever
(:mod:`.retrieval`: BM25, all-MiniLM-L6-v2, their fusion), asks every question, and
measures how much of each answer the top ``k`` chunks hold (:mod:`.metrics`), beside what
the setting costs: chunks, tokens to embed, and tokens an LLM reads per question. Answers
are quotes found in the extracted text (:mod:`.quotes`); one that is not found is listed
with the closest passage, never dropped in silence. The result is plain data (``to_json``),
with the settings on the frontier of recall against tokens read, the recommended one, and
which settings these questions cannot tell apart (:mod:`.recommend`).

>>> docs = [("guide.md", "# Install\\n\\nRun the installer. Then restart.\\n\\n# Use\\n\\nOpen the app and sign in.")]
>>> result = evaluate(docs, [Question("1", "How do I sign in?", ("Open the app and sign in.",))],
...                   by=("fixed", "headings"), sizes=(16,), k=1)
>>> [(row["by"], row["retriever"], row["recall"]) for row in result.to_json()["results"]]  # a window cuts the answer
[('fixed', 'bm25', 0.84), ('headings', 'bm25', 1.0)]
"""

from __future__ import annotations

import statistics
import sys
import types
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ..errors import RagchunkError
from ..packing.context import DEFAULT_CONTEXT
from ..packing.packer import DEFAULT_SIBLINGS
from ..settings import DEFAULT_ENCODING, LABELS
from ..settings.checks import check_whole
from ..steps import drive
from .grid import BY_EVALUATED, DEFAULT_SIZES, IndexedChunk, Setting, chunks_of, grid, listed
from .metrics import ChunkSpans, Score, bootstrap_interval, precision_omega, score
from .minilm import BATCH, MiniLM
from .questions import Question, as_questions, read_questions
from .quotes import closest_passage, find_quote
from .recommend import recommend
from .retrieval import RETRIEVERS, EmbeddingCache, bm25_top, dense_top, rrf

__all__ = ["BY_EVALUATED", "DEFAULT_K", "RETRIEVERS", "Evaluation", "Question", "Setting", "as_questions", "evaluate",
           "evaluate_steps", "read_questions"]

DEFAULT_K = 5
MAX_K = 100
#: How deep each ranking goes before the hybrid fuses them.
FUSION_DEPTH = 50

Span = tuple[str, int, int]


@dataclass
class Located:
    """A question with its answers as spans of the documents, and the quotes not found."""

    question: Question
    spans: list[Span]
    not_found: list[dict[str, Any]]


@dataclass
class Evaluation:
    """What :func:`evaluate` found: one row per setting and retriever (see :meth:`to_json`)."""

    questions: int
    k: int
    tokenizer: str
    not_found: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    recommendation: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"questions": self.questions, "k": self.k, "tokenizer": self.tokenizer, "not_found": self.not_found,
                "results": self.rows, "recommendation": self.recommendation}


def _stem(source: str) -> str:
    return PurePosixPath(source).stem


def locate_answers(documents: Sequence[tuple[str, str]], questions: Sequence[Question]) -> list[Located]:
    """Each question's answers as spans of ``documents``; quotes found nowhere are listed with
    the closest passage (see :func:`.quotes.closest_passage`)."""
    by_stem: dict[str, list[tuple[str, str]]] = {}
    for source, text in documents:
        by_stem.setdefault(_stem(source), []).append((source, text))
    located = []
    for question in questions:
        spans: list[Span] = []
        missing: list[dict[str, Any]] = []
        given = list(question.spans)
        where = [(s, t) for s, t in documents if not question.source or s == question.source
                 or _stem(s) == question.source]
        for answer_index, answer in enumerate(question.answers):
            if not where:  # its source is not among the documents: say so, look nowhere else
                missing.append({"id": question.id, "question": question.question, "answer": answer,
                                "closest": None, "source": question.source})
                continue
            found = None
            if answer_index < len(given):
                stem, start, end, content = given[answer_index]
                for source, text in by_stem.get(stem, []):
                    if text[start:end] == content:
                        found = (source, start, end)
                        break
            for source, text in where if found is None else ():
                at = find_quote(text, answer)
                if at is not None:
                    found = (source, *at)
                    break
            if found is not None:
                spans.append(found)
                continue
            missing.append({"id": question.id, "question": question.question, "answer": answer,
                            "closest": _closest(where, answer), "source": question.source})
        located.append(Located(question, spans, missing))
    return located


def _closest(documents: Iterable[tuple[str, str]], quote: str) -> dict[str, Any] | None:
    best = None
    for source, text in documents:
        span = closest_passage(text, quote)
        if span is None:
            continue
        shared = len(set(text[span[0]:span[1]].lower().split()) & set(quote.lower().split()))
        if best is None or shared > best[0]:
            best = (shared, {"source": source, "start": span[0], "end": span[1], "text": text[span[0]:span[1]]})
    return None if best is None else best[1]


def _ranked(retriever: str, chunks: list[IndexedChunk], questions: list[str], k: int,
            cache: EmbeddingCache | None) -> list[list[int]]:
    texts = [chunk.indexed for chunk in chunks]
    if retriever == "bm25":
        return bm25_top(texts, questions, k)
    assert cache is not None
    if retriever == "minilm":
        return dense_top(cache, texts, questions, k)
    depth = max(k, FUSION_DEPTH)
    return [rrf(pair, k) for pair in zip(bm25_top(texts, questions, depth), dense_top(cache, texts, questions, depth))]


def _row(setting: Setting, retriever: str, k: int, chunks: list[IndexedChunk], located: list[Located],
         ranked: list[list[int]], price: float | None, past_model: int | None) -> dict[str, Any]:
    scored: list[Score] = []
    per_question = []
    omegas = []
    read = []
    spans = [(chunk.source, chunk.start, chunk.end) for chunk in chunks]
    index = ChunkSpans(spans)
    for item, top in zip(located, ranked):
        retrieved = [spans[index] for index in top]
        read.append(sum(chunks[index].tokens for index in top))
        per_question.append({"id": item.question.id,
                             "answers": [{"source": s, "start": a, "end": b} for s, a, b in item.spans],
                             "retrieved": [{"source": s, "start": a, "end": b} for s, a, b in retrieved]})
        if item.spans:
            scored.append(score(retrieved, item.spans))
            omegas.append(precision_omega(index, item.spans))
    embed_tokens = sum(chunk.embed_tokens for chunk in chunks)
    row: dict[str, Any] = {"by": setting.by, "size": setting.size, "overlap": setting.overlap,
                           "context": setting.context, "siblings": setting.siblings, "retriever": retriever, "k": k}
    if scored:
        recalls = [s.recall for s in scored]
        row |= {"recall": statistics.fmean(recalls), "precision": statistics.fmean(s.precision for s in scored),
                "iou": statistics.fmean(s.iou for s in scored), "hit_rate": statistics.fmean(s.hit for s in scored),
                "mrr": statistics.fmean(s.reciprocal_rank for s in scored),
                "precision_omega": statistics.fmean(omegas), "recall_interval": list(bootstrap_interval(recalls))}
    else:
        row |= {key: None for key in ("recall", "precision", "iou", "hit_rate", "mrr", "precision_omega",
                                      "recall_interval")}
    row |= {"scored_questions": len(scored), "chunks": len(chunks), "vectors": len(chunks),
            "tokens_to_embed": embed_tokens, "cost": None if price is None else embed_tokens * price / 1e6,
            "tokens_read": statistics.fmean(read) if read else 0.0,
            "chunks_past_model": past_model,
            "per_question": per_question}
    return row


def evaluate_steps(documents: Sequence[tuple[str, str]] | Mapping[str, str],
                   questions: Sequence[Question | str | Mapping[str, Any]], *,
                   settings: Iterable[Setting | str | tuple | Mapping[str, Any]] | None = None,
                   by: Iterable[str] | None = None, sizes: Iterable[int] | None = None, overlap: int | None = None,
                   context: str = DEFAULT_CONTEXT, retrievers: Iterable[str] = ("bm25",), k: int = DEFAULT_K,
                   tokenizer: str = DEFAULT_ENCODING, model: str | None = None, price: float | None = None,
                   embedder: Callable[..., list[Any]] | None = None, siblings: str = DEFAULT_SIBLINGS
                   ) -> Generator[tuple, Any, Evaluation]:
    """:func:`evaluate` as steps ``(stage, done, total)`` (see :mod:`ragchunk.steps`)."""
    if isinstance(documents, Mapping):
        documents = list(documents.items())
    questions = as_questions(questions)
    wanted = list(dict.fromkeys(retrievers))
    unknown = [name for name in wanted if name not in RETRIEVERS]
    if unknown or not wanted:
        value, choices = ", ".join(unknown), ", ".join(RETRIEVERS)
        raise RagchunkError("retriever", f"retriever ({value}) is not known: choose one of {choices}",
                            "unknown_retriever", {"value": value, "choices": choices})
    k = check_whole("k", LABELS["k"], k, 1, MAX_K, unit="chunks")
    if settings is None:
        settings = grid(by=BY_EVALUATED if by is None else by, sizes=DEFAULT_SIZES if sizes is None else sizes,
                        overlap=overlap, context=context, siblings=siblings)
    elif by is not None or sizes is not None or overlap is not None:
        raise RagchunkError("settings", "give settings, or by, sizes and overlap as a grid, not both",
                            "settings_and_grid", {})
    else:
        settings = listed(settings, context=context, siblings=siblings)
    if not questions:
        raise RagchunkError("questions", "there are no questions: give at least one", "no_questions", {})
    yield ("locating answers", 0, len(questions))
    located = locate_answers(documents, questions)
    if any(item.question.answers for item in located) and not any(item.spans for item in located):
        raise RagchunkError("questions", "no answer was found in any document: check that the answers are quotes of"
                            " these documents", "answers_not_found", {})
    texts = [item.question.question for item in located]
    cache = None
    if any(name != "bm25" for name in wanted):
        if embedder is None:
            minilm = MiniLM()
            cache = EmbeddingCache(minilm.embed, minilm.embed_ids)
        else:
            cache = EmbeddingCache(embedder)
        yield from cache.add_steps(texts, "embedding questions", BATCH)
    rows = []
    for number, setting in enumerate(settings):
        yield (f"chunking {setting.label}", number, len(settings))
        chunks = chunks_of(setting, documents, tokenizer, model)
        if cache is not None:
            yield from cache.add_steps([chunk.indexed for chunk in chunks], f"embedding {setting.label}", BATCH)
        past_model = None
        if cache is not None:
            past_model = sum(1 for chunk in chunks if not cache.reads_whole(chunk.indexed))
        for name in wanted:
            ranked = _ranked(name, chunks, texts, k, cache)
            rows.append(_row(setting, name, k, chunks, located, ranked, price, None if name == "bm25" else past_model))
    not_found = [entry for item in located for entry in item.not_found]
    return Evaluation(len(located), k, model or tokenizer, not_found, rows, recommend(rows))


def evaluate(documents: Sequence[tuple[str, str]] | Mapping[str, str],
             questions: Sequence[Question | str | Mapping[str, Any]], **options: Any) -> Evaluation:
    """Evaluate settings on ``questions`` over ``documents``; ``ragchunk.evaluate`` is this function.

    ``documents`` are ``(source, text)`` pairs or a mapping of source to text, as a reader
    extracted them. ``questions`` are :class:`Question` objects, strings, or objects shaped
    as a JSONL line (see :func:`.questions.as_questions`; a file's text goes through
    :func:`read_questions`). Options:

    - ``settings``: the settings to try, one by one (see :func:`.grid.listed`:
      ``["headings 512/64", ("fixed", 256)]``); or, instead, a grid of ``by`` (default
      fixed, headings, paragraphs, sentences) × ``sizes`` (default 128, 256, 512) with
      ``overlap`` (default an eighth of each size);
    - ``context`` (as split), ``retrievers`` (``bm25``, ``minilm``, ``hybrid``), ``k``
      (default 5), ``tokenizer`` or ``model`` (sizing, as split), ``price`` (per million
      tokens to embed).

    The result's :meth:`Evaluation.to_json` is plain data: ``questions``, ``not_found``,
    ``results`` (one row per setting and retriever) and ``recommendation``.

    >>> import ragchunk
    >>> docs = {"faq.md": "# Size\\n\\nChunks of 512 tokens suit most models.\\n\\n# Cost\\n\\nEmbedding costs money."}
    >>> found = ragchunk.evaluate(docs, [{"question": "What does embedding cost?", "answer": "costs money"}],
    ...                           settings=["headings 16/0", "fixed 16/0"], k=1)
    >>> [(row["by"], row["recall"], row["chunks"]) for row in found.to_json()["results"]]
    [('headings', 1.0, 2), ('fixed', 1.0, 2)]

    Raises :class:`RagchunkError` naming the field and the fix (see :func:`evaluate_steps`).
    """
    return drive(evaluate_steps(documents, questions, **options))


class _Callable(types.ModuleType):
    """This package, callable as :func:`evaluate`: the issue's ``ragchunk.evaluate(documents,
    questions, ...)`` and the room's name ``ragchunk.evaluate`` are one object, whichever way
    it is imported (binding the function over the package's name in ``ragchunk`` breaks as
    soon as an importer sets the parent's attribute back to the package, as pytest's does)."""

    def __call__(self, documents: Sequence[tuple[str, str]] | Mapping[str, str],
                 questions: Sequence[Question | str | Mapping[str, Any]], **options: Any) -> Evaluation:
        return evaluate(documents, questions, **options)


sys.modules[__name__].__class__ = _Callable
