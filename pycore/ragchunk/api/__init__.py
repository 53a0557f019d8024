"""JSON in, JSON out: the workspace the browser worker talks to.

The protocol (its version, the messages between page and worker, every request kind with
its payload and result fields, and the error shape) is defined once, in ``protocol.json``
beside this module; :mod:`ragchunk.api.protocol` loads it and checks requests with it, and
the page checks its own side with the same file. A request is ``(kind, payload_json,
document)``; the reply is a JSON string. A request that breaks the protocol is answered
with one error per field at fault, as bad input is. Python objects never leave this
module: only plain JSON.

Documents live in the workspace by id. Each keeps what was made of it, so a change of
settings re-packs without re-encoding: the token ids and ends per tokenizer, the Markdown
structure, and the last split.

Long work is done in steps: :meth:`Workspace.run` is a generator that yields
``(stage, done, total)`` between steps (``tokenizing``: code points encoded; ``splitting``:
code points packed) and returns the reply, so the worker can report progress and stop
between steps without losing the workspace; :meth:`Workspace.handle` runs it to the end.
"""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable, Generator
from typing import Any

from .. import settings
from ..calculator import chunk_count, plan, plan_corpus
from ..errors import RagchunkError
from ..evaluate import evaluate_steps, read_questions
from ..evaluate.grid import MAX_SIZE, MIN_SIZE
from ..evaluate.staged import StagedMiniLM
from ..llms import DEFAULT_ANSWER_TOKENS, plan_context
from ..llms.context import planner_spec
from ..models import get_model, model_catalog, model_figures
from ..options import SplitOptions, read_split_form
from ..options.fields import FormErrors, read_calc_form
from ..packing.packer import DEFAULT_SIBLINGS
from ..packing.sizing import TokenSizer
from ..packing.stats import compute_stats
from ..packing.windowing import Window, windows_of
from ..readers import MARKDOWN_KINDS, ReadOptions
from ..readers.formats import read_document
from ..readers.text import of_text
from ..readers.textio import check_text, text_empty
from ..results.compare import compare_steps
from ..results.records import Document, langchain_json, page_columns, records, to_jsonl
from ..settings import (
    DEFAULT_ENCODING,
    DEFAULT_PREVIEW_WINDOWS,
    MAX_PAGE_BYTES_BY_KIND,
    MAX_PAGE_DOCUMENT_BYTES,
    MAX_PAGE_DOCUMENT_CHARS,
)
from ..settings.checks import check_chunking, check_whole
from ..splitter import Prepared, Split, pack_steps, prepare_text
from ..steps import drive
from ..tables import CATALOG, _load_catalog
from ..text.structure import Structure
from ..tokenizers import ENCODINGS, OPEN_TOKENIZERS, REGISTRY, Encoded, Registry, check_tokenizer, encode_steps
from ..tokenizers.pieces import all_ends
from .protocol import PROTOCOL, request_errors, unknown_request

PROTOCOL_VERSION: int = PROTOCOL["version"]
MAX_PREVIEW_WINDOWS = 200
DEFAULT_PAGE_SIZE = 200
MAX_PAGE_SIZE = 5_000
# Texts the page's worker embeds per step: one forward pass of 256 tokens takes ~0.7 s on one
# thread of onnxruntime-web here, and a cancel is heard between steps (the page restarts a
# worker that does not answer a cancel within 1.5 s, and its documents are gone then).
PAGE_EMBED_BATCH = 1

Progress = Callable[[str, int, int], None]
Steps = Generator[tuple[str, int, int], None, str]


def form_spec() -> dict[str, object]:
    """Defaults, limits, encodings, tokenizers and models as plain JSON for the page.

    >>> spec = form_spec()
    >>> spec["defaults"]["chunk_size"], spec["tokenizers"]["xlm-roberta"]["tables"][0]["file"]
    (512, 'xlmr-automaton.bin')
    """
    _load_catalog()
    return {
        "defaults": {
            "doc_tokens": settings.DEFAULT_DOC_TOKENS,
            "chunk_size": settings.DEFAULT_CHUNK_SIZE,
            "overlap": settings.DEFAULT_OVERLAP,
            "overlap_share": settings.DEFAULT_OVERLAP_SHARE,
            "chars_per_token": settings.DEFAULT_CHARS_PER_TOKEN,
            "encoding": settings.DEFAULT_ENCODING,
            "preview": settings.DEFAULT_PREVIEW_WINDOWS,
            "siblings": DEFAULT_SIBLINGS,
        },
        "limits": {
            "doc_tokens": settings.MAX_DOC_TOKENS,
            "doc_chars": settings.MAX_DOC_CHARS,
            "chunk_size": settings.MAX_CHUNK_SIZE,
            "chars_per_token": settings.MAX_CHARS_PER_TOKEN,
            "price_per_million": settings.MAX_PRICE_PER_MILLION,
            "total_tokens": settings.MAX_TOTAL_TOKENS,
            "documents": settings.MAX_DOCUMENTS,
            "document_bytes": settings.MAX_PAGE_DOCUMENT_BYTES,
            "document_bytes_by_kind": dict(settings.MAX_PAGE_BYTES_BY_KIND),
            "document_chars": settings.MAX_PAGE_DOCUMENT_CHARS,
        },
        "encodings": dict(ENCODINGS),
        # The open models' tokenizers and the tables the page fetches (assets/tables/<file>) for each.
        "tokenizers": {
            name: {"description": description,
                   "tables": [{"name": t, "file": CATALOG[t].file, "sha256": CATALOG[t].sha256} for t in tables]}
            for name, (description, tables) in OPEN_TOKENIZERS.items()
        },
        "models": model_catalog(),
        "labels": dict(settings.LABELS),
        "examples": dict(settings.EXAMPLES),
        # The context planner's defaults and limits, and the LLM catalog.
        "planner": planner_spec(),
    }


def window_json(window: Window, source: str) -> dict[str, Any]:
    """A window as the page shows it: ``head`` is the overlap with the previous window."""
    return {
        "index": window.index,
        "start": window.start,
        "end": window.end,
        "token_start": window.token_start,
        "token_end": window.token_end,
        "tokens": window.tokens,
        "overlap_tokens": window.overlap_tokens,
        "head": source[window.start : window.overlap_end],
        "body": source[window.overlap_end : window.end],
    }


class _Document:
    """A document of the workspace and what has been made of it."""

    __slots__ = ("encoded", "last", "name", "note_details", "notes", "prepared", "record", "structure", "text")

    def __init__(self, name: str, record: Document) -> None:
        self.name = name
        self.record = record  # what its chunk records say of it: source, title, pages, anchors
        self.text = record.text
        self.note_details = [dict(note) for note in record.notes]
        self.notes = [note.get("message", "") for note in self.note_details]
        self.encoded: dict[str, Encoded] = {}  # by tokenizer name
        self.structure: Structure | None = None
        self.prepared: dict[str, Prepared] = {}  # by sizer name
        self.last: Split | None = None

    def about(self) -> dict[str, Any]:
        return {"chars": len(self.text), "kind": self.record.kind, "title": self.record.title,
                "pages": len(self.record.pages), "notes": list(self.notes), "note_details": list(self.note_details)}


class Workspace:
    """The documents of one page and the answers about them."""

    def __init__(self, registry: Registry = REGISTRY) -> None:
        self._registry = registry
        self._docs: dict[str, _Document] = {}
        self._next_id = 1

    # -- the protocol -----------------------------------------------------------------------

    def handle(self, kind: str, payload_json: str = "{}", document: str | bytes | None = None,
               progress: Progress | None = None) -> str:
        """Answer one request to the end; never raises. ``progress(stage, done, total)`` hears each step."""
        return drive(self.run(kind, payload_json, document), None if progress is None else lambda step: progress(*step))

    def run(self, kind: str, payload_json: str = "{}", document: str | bytes | None = None) -> Steps:
        """Answer one request step by step: yields ``(stage, done, total)``, returns the reply JSON.

        Closing the generator between steps abandons the request; the workspace keeps
        every document and what was made of it before.
        """
        try:
            payload = json.loads(payload_json or "{}")
            handler = self._HANDLERS.get(kind)
            if handler is None:
                raise unknown_request(kind)
            errors = request_errors(kind, payload, document)
            if errors:
                raise FormErrors(errors)
            result = yield from handler(self, payload, document)
            return json.dumps({"ok": True, "result": result}, ensure_ascii=False)
        except FormErrors as err:
            return json.dumps({"ok": False, "errors": [e.to_json() for e in err.errors]}, ensure_ascii=False)
        except RagchunkError as err:
            return json.dumps({"ok": False, "errors": [err.to_json()]}, ensure_ascii=False)
        except MemoryError:
            # The page's Python has one wasm32 heap (4 GiB at most): a document can outgrow it.
            for doc in self._docs.values():
                doc.encoded.clear()
                doc.prepared.clear()
                doc.last = None
            error = RagchunkError(
                "text",
                "the document needs more memory than the page has: split it into smaller files, "
                "or use the command line: python -m ragchunk split FILE",
                "out_of_memory",
            )
            return json.dumps({"ok": False, "errors": [error.to_json()]}, ensure_ascii=False)
        except GeneratorExit:
            raise
        except Exception as err:  # a bug: report it instead of killing the worker
            detail = "".join(traceback.format_exception_only(err)).strip()
            return json.dumps({"ok": False, "internal": detail}, ensure_ascii=False)

    # -- handlers: generators of steps that return the result ---------------------------------

    def _spec(self, payload: dict, document: object) -> Steps:
        return {**form_spec(), "version": settings.VERSION, "protocol": PROTOCOL_VERSION}
        yield  # a generator with no step

    def _calculate(self, payload: dict, document: object) -> Steps:
        """The calculator's form (strings as typed) to its numbers; with ``lengths`` (the exact
        tokens of each file) the totals over those documents instead of N documents of one
        length; with ``model`` its vectors, their storage and whether it would cut a chunk off."""
        comma = payload.get("decimal_comma") is True
        form = {key: str(payload.get(key, "")) for key in
                ("unit", "doc", "documents", "chars_per_token", "chunk_size", "overlap", "price")}
        lengths = payload.get("lengths")
        if lengths is None:
            result = read_calc_form(form, decimal_comma=comma).to_json()
        else:
            corpus_form = {**form, "unit": "tokens", "doc": "1", "documents": "1"}
            checked = read_calc_form(corpus_form, decimal_comma=comma)  # the chunk, overlap and price fields
            corpus = plan_corpus(lengths, checked.chunk_size, checked.overlap, checked.price_per_million)
            result = {**corpus.to_json(),
                      "chunks_per_document": [chunk_count(n, checked.chunk_size, checked.overlap) for n in lengths]}
        if payload.get("model"):
            model = get_model(str(payload["model"]))
            result["model"] = model_figures(model, int(result["chunks"]), int(result["chunk_size"]))
        return result
        yield

    def _load(self, payload: dict, document: str | bytes | None) -> Steps:
        name = str(payload.get("name") or "")
        if document is None:
            raise text_empty()
        doc = _read_document(document, name, str(payload.get("source") or name))
        doc_id = f"d{self._next_id}"
        self._next_id += 1
        self._docs[doc_id] = doc
        return {"doc": doc_id, "name": name, **doc.about()}
        yield

    def _analyze(self, payload: dict, document: object) -> Steps:
        doc = self._doc(payload)
        model = get_model(str(payload["model"])) if payload.get("model") else None
        encoding = model.tokenizer if model else check_tokenizer(str(payload.get("encoding", DEFAULT_ENCODING)))
        encoded = yield from self._encoded(doc, self._registry.get(encoding), spans_when_read=True)
        ids = encoded.ids
        result: dict[str, Any] = {
            "encoding": encoding,
            "model": model.id if model else None,
            "tokens": len(ids),
            "chars_per_token": len(doc.text) / len(ids) if len(ids) else None,
            **doc.about(),
            "window_count": None,
            "windows": None,
            "window_errors": [],
        }
        try:
            size, overlap = check_chunking(payload.get("chunk_size"), payload.get("overlap"))
        except RagchunkError as err:
            result["window_errors"] = [err.to_json()]
            return result
        first = max(0, int(payload.get("first", 0)))
        count = min(MAX_PREVIEW_WINDOWS, max(1, int(payload.get("count", DEFAULT_PREVIEW_WINDOWS))))
        cut = windows_of(doc.text, encoded, size, overlap, limit=first + count, first=first)
        result["window_count"] = chunk_count(len(ids), size, overlap)
        result["windows"] = [window_json(w, doc.text) for w in cut]
        result["plan"] = plan(len(ids), size, overlap).to_json() if len(ids) else None
        return result

    def _split(self, payload: dict, document: object) -> Steps:
        doc = self._doc(payload)
        form = {key: payload[key] for key in ("by", "chunk_size", "overlap", "encoding", "chars_per_token", "model",
                                              "prefix", "context", "siblings") if key in payload}
        options = read_split_form({key: str(value) for key, value in form.items()},
                                  decimal_comma=payload.get("decimal_comma") is True)
        prepared = yield from self._prepared(doc, options)
        doc.last = None  # a split that does not finish leaves no stale result behind
        result = yield from pack_steps(prepared, options)
        doc.last = result
        if payload.get("keep_prepared") is False:
            # One document of many: its chunks stay, its encoding goes (memory stays bounded).
            doc.encoded.clear()
            doc.prepared.clear()
            doc.structure = None
        page = _page_size(payload.get("page_size", DEFAULT_PAGE_SIZE), allow_zero=True)
        largest = max((c.embedded_tokens for c in result.chunks), default=0)
        return {
            "doc": payload["doc"],
            "tokenizer": result.tokenizer,
            "model": result.model,
            "prefix": options.prefix,
            "context": options.context,
            "siblings": options.siblings,
            "by": result.by,
            "size": result.size,
            "overlap": result.overlap,
            **doc.about(),
            "stats": result.stats.to_json(),
            "count": len(result.chunks),
            "tokens": result.document_tokens,
            "largest": largest,
            "page": page_columns(result, doc.text, 0, page),
        }

    def _chunks(self, payload: dict, document: object) -> Steps:
        doc = self._doc(payload)
        if doc.last is None:
            raise _nothing_split()
        first = max(0, int(payload.get("first", 0)))
        return page_columns(doc.last, doc.text, first, first + _page_size(payload.get("count", DEFAULT_PAGE_SIZE)))
        yield

    def _export(self, payload: dict, document: object) -> Steps:
        """The records of one document (``doc``) or of many (``docs``, in that order), as
        JSONL (``format`` "jsonl", what ``ragchunk split`` writes) or LangChain documents
        (``format`` "langchain": a JSON list of ``{page_content, metadata}``)."""
        docs = [self._doc({"doc": doc_id}) for doc_id in payload.get("docs", [payload.get("doc")])]
        if not docs or any(doc.last is None for doc in docs):
            raise _nothing_split()
        rows = (record for doc in docs for record in records(doc.last, doc.record))
        if payload.get("format") == "langchain":
            return {"json": langchain_json(rows)}
        return {"jsonl": to_jsonl(rows)}
        yield

    def _text(self, payload: dict, document: object) -> Steps:
        """The text of ``doc`` its chunks are slices of (a reader's Markdown), for the page to show or save."""
        doc = self._doc(payload)
        return {"text": doc.text, "kind": doc.record.kind, "title": doc.record.title}
        yield

    def _compare(self, payload: dict, document: object) -> Steps:
        """Fixed windows and each structural level over ``docs`` with the settings of a split
        (:func:`ragchunk.results.compare.compare`); one step per document."""
        docs = [self._doc({"doc": doc_id}) for doc_id in payload.get("docs", [payload.get("doc")])]
        form = {key: payload[key] for key in ("chunk_size", "overlap", "encoding", "chars_per_token", "model", "context",
                                              "siblings", "prefix") if key in payload}
        options = read_split_form({"by": "headings", **{key: str(value) for key, value in form.items()}},
                                  decimal_comma=payload.get("decimal_comma") is True)
        model = get_model(options.model) if options.model else None
        price = payload.get("price")
        price = float(price) if isinstance(price, (int, float)) else (model.price_per_million if model else None)
        steps = compare_steps(((doc.record.source, doc.text) for doc in docs), size=options.size,
                              overlap=options.overlap, tokenizer=options.tokenizer, model=options.model,
                              price_per_million=price, context=options.context, prefix=options.prefix,
                              siblings=options.siblings)
        while True:
            try:
                done = next(steps)
            except StopIteration as finished:
                rows = finished.value
                break
            yield ("comparing", done, len(docs))
        results = [row.to_json() for row in rows]
        return {"rows": results, "size": options.size, "overlap": options.overlap, "tokenizer": options.sizing.name}

    def _corpus(self, payload: dict, document: object) -> Steps:
        """The statistics of the last splits of ``docs`` taken together (sizes, histogram, overlap)."""
        docs = [self._doc({"doc": doc_id}) for doc_id in payload.get("docs", [])]
        splits = [doc.last for doc in docs if doc.last is not None]
        size = max((split.size for split in splits), default=1)
        tokens = [c.embedded_tokens for split in splits for c in split.chunks]
        overlaps = [c.overlap_tokens for split in splits for c in split.chunks]
        return {"documents": len(splits), "tokens": sum(split.document_tokens for split in splits),
                "chars": sum(len(doc.text) for doc in docs if doc.last is not None),
                "stats": compute_stats(tokens, overlaps, size).to_json()}
        yield

    def _evaluate(self, payload: dict, document: object) -> Steps:
        """The evaluation of ``docs`` on ``questions`` (:func:`ragchunk.evaluate.evaluate_steps`);
        with minilm or hybrid, the worker runs the model (:class:`ragchunk.evaluate.staged.StagedMiniLM`)."""
        docs = [self._doc({"doc": doc_id}) for doc_id in payload.get("docs") or [""]]
        questions = read_questions(payload["questions"], str(payload.get("questions_name") or "Questions"))
        retrievers = payload.get("retrievers") or ["bm25"]
        options: dict[str, Any] = {key: payload[key] for key in ("by", "context", "siblings", "k") if key in payload}
        if "sizes" in payload:  # as the CLI's --size reads each
            options["sizes"] = [check_whole("chunk_size", settings.LABELS["chunk_size"], size, MIN_SIZE, MAX_SIZE)
                                for size in payload["sizes"]]
        overlap = payload.get("overlap")
        if overlap is not None:
            overlap = check_whole("overlap", settings.LABELS["overlap"], overlap, 0, MAX_SIZE - 1)
        steps = evaluate_steps([(doc.record.source, doc.text) for doc in docs], questions, **options,
                               overlap=overlap, retrievers=retrievers,
                               tokenizer=str(payload.get("encoding") or DEFAULT_ENCODING),
                               embedder=StagedMiniLM(batch=PAGE_EMBED_BATCH) if any(name != "bm25" for name in retrievers)
                               else None)
        result = yield from _evaluation_steps(steps)
        data = result.to_json()
        asked = [{"id": question.id, "question": question.question} for question in questions]
        return {**data, "json": json.dumps(data), "asked": asked}

    def _context(self, payload: dict, document: object) -> Steps:
        """How ``llm``'s window is shared by one request (:func:`ragchunk.plan_context`): the
        system prompt, tools, history and question as text (counted) or tokens; history also as
        ``turns`` × ``turn_tokens``; ``k`` chunks of ``chunk_tokens`` in ``template``; ``window``
        replaces the LLM's (a server's own), ``ratio`` an estimated model's."""
        history = payload.get("history", 0)
        if "turns" in payload:
            history = (payload["turns"], payload.get("turn_tokens", 0))
        plan = plan_context(
            str(payload["llm"]), system=payload.get("system", 0), tools=payload.get("tools", 0), history=history,
            question=payload.get("question", 0), k=payload.get("k", 0), chunk_tokens=payload.get("chunk_tokens", 0),
            template=str(payload.get("template", "")), source=str(payload.get("source", "")),
            answer=payload.get("answer", DEFAULT_ANSWER_TOKENS), window=payload.get("window"), input_price=payload.get("input_price"),
            output_price=payload.get("output_price"), ratio=payload.get("ratio"))
        return plan.to_json()
        yield

    def _drop(self, payload: dict, document: object) -> Steps:
        self._docs.pop(str(payload.get("doc", "")), None)
        return {"documents": len(self._docs)}
        yield

    _HANDLERS = {
        "spec": _spec,
        "calculate": _calculate,
        "load": _load,
        "analyze": _analyze,
        "split": _split,
        "chunks": _chunks,
        "export": _export,
        "corpus": _corpus,
        "text": _text,
        "compare": _compare,
        "evaluate": _evaluate,
        "context": _context,
        "drop": _drop,
    }

    # -- what a document keeps ----------------------------------------------------------------

    def _doc(self, payload: dict) -> _Document:
        doc = self._docs.get(str(payload.get("doc", "")))
        if doc is None:
            raise RagchunkError("text", "no document is loaded: paste some text or drop a file", "text_empty")
        return doc

    def _encoded(self, doc: _Document, tokenizer: Any,
                 spans_when_read: bool = False) -> Generator[tuple[str, int, int], None, Encoded]:
        """The document's token ids and ends with ``tokenizer``, encoded once, piece by piece
        (``spans_when_read``: see :func:`ragchunk.tokenizers.encode_steps`)."""
        if tokenizer.name not in doc.encoded:
            doc.encoded[tokenizer.name] = yield from encode_steps(tokenizer, doc.text, spans_when_read=spans_when_read)
        return doc.encoded[tokenizer.name]

    def _prepared(self, doc: _Document, options: SplitOptions) -> Generator[tuple[str, int, int], None, Prepared]:
        """The document ready to pack with the options' sizer: its one encode and its structure."""
        sizing = options.sizing
        if sizing.name not in doc.prepared:
            if not doc.text or doc.text.isspace():
                doc.prepared[sizing.name] = prepare_text(doc.text, sizing)
            else:
                if doc.structure is None:
                    doc.structure = Structure.of(doc.text, doc.record.kind in MARKDOWN_KINDS)
                sizer = sizing.sizer(doc.text) if sizing.tokenizer is None else TokenSizer(
                    doc.text, sizing.tokenizer, all_ends((yield from self._encoded(doc, sizing.tokenizer))))
                doc.prepared[sizing.name] = Prepared(doc.text, sizing.name, sizer, doc.structure)
        return doc.prepared[sizing.name]


def _evaluation_steps(steps: Generator[tuple, Any, Any]) -> Generator[tuple, Any, Any]:
    """The evaluation's steps in the protocol's stages, with the setting as a param
    ("chunking fixed 128/16" -> ``("chunking", done, total, {"setting": "fixed 128/16"})``);
    what the worker sends back (a batch's vectors) goes on into the evaluation."""
    sent = None
    while True:
        try:
            step = steps.send(sent)
        except StopIteration as stop:
            return stop.value
        stage, _, setting = step[0].partition(" ")
        params = {"setting": "" if stage == "locating" else setting, **(step[3] if len(step) > 3 else {})}
        sent = yield (stage, step[1], step[2], params)


def _page_size(value: object, allow_zero: bool = False) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = DEFAULT_PAGE_SIZE
    return max(0 if allow_zero else 1, min(MAX_PAGE_SIZE, number))


def _nothing_split() -> RagchunkError:
    return RagchunkError("text", "nothing is split yet: paste some text or drop a file first", "nothing_split")


def _read_document(document: str | bytes, name: str, source: str = "") -> _Document:
    """A new document from a pasted text or a file's bytes (read by its format's reader);
    everything is checked before it joins the workspace."""
    check_page_size(document, name)
    if isinstance(document, (bytes, bytearray, memoryview)):
        if not len(document):
            label = name or "the file"
            raise RagchunkError("text", f"{label} is empty (0 bytes): drop a file that holds text", "file_empty",
                                {"name": name})
        extracted = read_document(bytes(document), name, ReadOptions(max_chars=MAX_PAGE_DOCUMENT_CHARS))
    else:
        extracted = of_text(document)
    text = check_text(extracted.text)
    return _Document(name, Document(source or name, text, extracted.title, extracted.kind, extracted.pages,
                                    extracted.anchors, extracted.notes))


def check_page_size(document: str | bytes, name: str) -> None:
    """Refuse a document bigger than the page handles (:data:`MAX_PAGE_DOCUMENT_BYTES`), naming the CLI.

    A pasted text is measured in code points (each is at least one byte of UTF-8).
    """
    limit = MAX_PAGE_DOCUMENT_BYTES
    if not isinstance(document, str):
        dot = name.rfind(".")
        limit = MAX_PAGE_BYTES_BY_KIND.get(name[dot + 1 :].lower() if dot >= 0 else "", limit)
    if isinstance(document, str):
        if len(document) > limit:
            raise RagchunkError(
                "text",
                f"the pasted text is too large for the page ({len(document):,} characters): the page handles up to "
                f"{limit:,} bytes; save it as a file and use the command line: python -m ragchunk split FILE",
                "paste_too_large",
                {"size": len(document), "limit": limit},
            )
    elif len(document) > limit:
        label = name or "the file"
        raise RagchunkError(
            "file",
            f"{label} is too large for the page ({len(document):,} bytes): the page handles up to {limit:,} bytes; "
            "use the command line: python -m ragchunk split FILE",
            "file_too_large_for_page",
            {"name": name, "size": len(document), "limit": limit},
        )
