"""A person's questions, from the shapes people keep them in, into one list.

- **JSONL**: one object per line, ``{"question": ..., "answers": ["a quote", ...]}``
  (``"answer"`` for one quote), with an optional ``id`` and ``source`` (the document the
  answers are in, as ``split`` names it).
- **CSV** with ``question`` and ``answer`` columns (and optional ``id``, ``source``).
- **chunking_evaluation's CSV**: ``question``, ``references`` (a JSON list of
  ``{content, start_index, end_index}``) and ``corpus_id`` (the document's file name
  without its extension); its spans are kept as they are when they hold their content.
- **Plain text**: one question per line; an answer quote may follow on the same line
  after a tab, or on the next lines, each starting with ``>`` (the page's box reads the same).

>>> [(q.id, q.question, q.answers) for q in read_questions("How big?\\n> 512 tokens\\nWhy?\\tBecause.\\n", "q.txt")]
[('1', 'How big?', ('512 tokens',)), ('2', 'Why?', ('Because.',))]
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import RagchunkError

__all__ = ["MAX_QUESTIONS", "Question", "as_questions", "read_questions"]

#: More questions than this in one file are refused (the evaluation embeds each once).
MAX_QUESTIONS = 10_000


@dataclass(frozen=True, slots=True)
class Question:
    """One question: its ``answers`` are quotes to find in the documents; ``spans`` are answer
    spans given already, as ``(source stem, start, end, content)`` (chunking_evaluation's)."""

    id: str
    question: str
    answers: tuple[str, ...] = ()
    source: str = ""
    spans: tuple[tuple[str, int, int, str], ...] = field(default=())


def _error(name: str, message: str, code: str, **params: Any) -> RagchunkError:
    return RagchunkError("questions", f"{name}: {message}", code, {"name": name, **params})


def _at(name: str, line: int, message: str, code: str, *, unit: str = "line", **params: Any) -> RagchunkError:
    """An error of line (or CSV row, or item given in code: ``unit``) ``line`` of the questions ``name``."""
    return RagchunkError("questions", f"{name} {unit} {line}: {message}", code, {"name": name, "line": line, **params})


def read_questions(data: str | bytes, name: str) -> list[Question]:
    """The questions of a file's ``data`` (its shape from its content, then its extension).

    Raises :class:`RagchunkError` (``field="questions"``) naming the file and the fix for an
    empty file, one in no known shape, or one with too many questions.
    """
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _error(name, "is not UTF-8 text: save it as UTF-8", "questions_not_text") from None
    text = data.lstrip("\ufeff")
    if not text.strip():
        raise _error(name, "has no questions: write one question per line (or JSONL, or CSV with a question column)",
                     "questions_empty")
    first = text.lstrip()[:1]
    lower = name.lower()
    if first == "{" or lower.endswith((".jsonl", ".json")):
        questions = _jsonl(text, name)
    elif lower.endswith(".csv") or _looks_like_csv(text):
        questions = _csv(text, name)
    else:
        questions = _plain(text)
    if not questions:
        raise _error(name, "has no questions in a shape ragchunk reads: write one question per line, JSONL with a"
                     " \"question\" field, or CSV with a question column", "questions_unknown_shape")
    if len(questions) > MAX_QUESTIONS:
        raise _error(name, f"has {len(questions):,} questions, more than {MAX_QUESTIONS:,}: keep a sample",
                     "questions_too_many", count=len(questions), maximum=MAX_QUESTIONS)
    return questions


def _looks_like_csv(text: str) -> bool:
    header = text.lstrip().split("\n", 1)[0].strip().lower()
    return "," in header and "question" in [cell.strip().strip('"') for cell in header.split(",")]


def _answers(value: Any, name: str, line: int, unit: str = "line") -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item for item in value if item.strip())
    raise _at(name, line, 'answers must be a list of quotes (strings): write them as ["a quote", ...]',
              "questions_bad_answers", unit=unit)


def _jsonl(text: str, name: str) -> list[Question]:
    questions = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as err:
            raise _at(name, number, f"is not JSON ({err.msg}): write one object per line", "questions_bad_json",
                      reason=err.msg) from None
        questions.append(_from_object(item, name, number, len(questions) + 1))
    return questions


def _from_object(item: Any, name: str, number: int, default_id: int, unit: str = "line") -> Question:
    """One question of a JSON object (a JSONL line, or an item given to :func:`as_questions`)."""
    if not isinstance(item, dict) or not isinstance(item.get("question"), str) or not item["question"].strip():
        raise _at(name, number, f'has no "question": give each {unit} a "question" string', "questions_no_question",
                  unit=unit)
    answers = _answers(item.get("answers", item.get("answer")), name, number, unit)
    return Question(str(item.get("id", default_id)), item["question"].strip(), answers, str(item.get("source") or ""))


def as_questions(items: Iterable[Question | str | Mapping[str, Any]]) -> list[Question]:
    """Questions given in code: :class:`Question` objects, plain strings (no answers), or
    objects shaped as a JSONL line (``question``, ``answers`` or ``answer``, ``id``, ``source``).

    >>> [(q.id, q.question, q.answers) for q in as_questions(["Why?", {"question": "How big?", "answer": "512"}])]
    [('1', 'Why?', ()), ('2', 'How big?', ('512',))]

    Raises :class:`RagchunkError` (``field="questions"``) naming the item for one without a
    question, and for a string given instead of a list (a file's text goes to :func:`read_questions`).
    """
    if isinstance(items, str | bytes):
        raise _error("questions", "is one string: give a list of questions, or read a file's text with"
                     " read_questions(text, name)", "questions_not_list")
    questions: list[Question] = []
    for number, item in enumerate(items, 1):
        if isinstance(item, Question):
            questions.append(item)
        elif isinstance(item, str):
            if not item.strip():
                raise _at("questions", number, "is empty: give each question some text", "questions_no_question",
                          unit="item")
            questions.append(Question(str(number), item.strip()))
        else:
            questions.append(_from_object(dict(item) if isinstance(item, Mapping) else item, "questions", number,
                                          number, "item"))
    if len(questions) > MAX_QUESTIONS:
        raise _error("questions", f"has {len(questions):,} questions, more than {MAX_QUESTIONS:,}: keep a sample",
                     "questions_too_many", count=len(questions), maximum=MAX_QUESTIONS)
    return questions


def _csv(text: str, name: str) -> list[Question]:
    import csv  # here: the page imports this module at boot, CSV questions are rare

    rows = csv.DictReader(io.StringIO(text))
    columns = {column.strip().lower(): column for column in rows.fieldnames or []}
    if "question" not in columns:
        return []
    questions = []
    for number, row in enumerate(rows, 2):
        question = (row.get(columns["question"]) or "").strip()
        if not question:
            continue
        ident = (row.get(columns["id"]) or "").strip() if "id" in columns else ""
        ident = ident or str(len(questions) + 1)
        if "references" in columns:
            spans = _references(row.get(columns["references"]) or "[]", name, number)
            corpus = (row.get(columns["corpus_id"]) or "").strip() if "corpus_id" in columns else ""
            questions.append(Question(ident, question, tuple(s[2] for s in spans), corpus,
                                      tuple((corpus, start, end, content) for start, end, content in spans)))
            continue
        answer = (row.get(columns["answer"]) or "").strip() if "answer" in columns else ""
        source = (row.get(columns["source"]) or "").strip() if "source" in columns else ""
        questions.append(Question(ident, question, (answer,) if answer else (), source))
    return questions


def _references(value: str, name: str, line: int) -> list[tuple[int, int, str]]:
    try:
        items = json.loads(value)
        return [(int(item["start_index"]), int(item["end_index"]), str(item["content"])) for item in items]
    except (json.JSONDecodeError, TypeError, KeyError, ValueError):
        raise _at(name, line, "references must be a JSON list of objects with content, start_index and end_index:"
                  " fix that cell", "questions_bad_references") from None


def _plain(text: str) -> list[Question]:
    questions: list[Question] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(">") and questions:
            quote = stripped[1:].strip()
            if quote:
                last = questions[-1]
                questions[-1] = Question(last.id, last.question, (*last.answers, quote), last.source)
            continue
        question, _, answer = line.partition("\t")
        if question.strip():
            answers = (answer.strip(),) if answer.strip() else ()
            questions.append(Question(str(len(questions) + 1), question.strip(), answers))
    return questions
