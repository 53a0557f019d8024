"""The worker protocol's one definition (ragchunk/api/protocol.json) and the workspace held to it:
the kinds it answers are the definition's, every kind's real reply fits it, and a request
that breaks it is answered with one error per field at fault, in the shape every error has.
(The page's side, web/core/messages.js, is held to the same file in tests/e2e/test_protocol.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from catalog import LANGS, catalog, render
from ragchunk.api import PROTOCOL_VERSION, Workspace
from ragchunk.api.protocol import KINDS, PROTOCOL, message_problems, reply_problems, request_errors, result_fields

DOC = (Path(__file__).resolve().parents[1] / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")
TYPES = {"string", "integer", "number", "boolean", "null", "array", "object", "bytes"}
FIELD_KEYS = {"type", "required", "values", "items", "shape", "doc"}


def ask(workspace: Workspace, kind: str, payload: object = None, document=None) -> dict:
    reply = json.loads(workspace.handle(kind, json.dumps({} if payload is None else payload), document))
    assert reply_problems(kind, reply, with_id=False) == [], reply
    return reply


# --- the definition -------------------------------------------------------------------------


def test_the_workspace_answers_exactly_the_kinds_of_the_protocol():
    # Both ways and in the same order: unknown_request lists them as the protocol does.
    assert tuple(Workspace._HANDLERS) == KINDS
    assert PROTOCOL_VERSION == PROTOCOL["version"] == 2


def all_fields():
    """(where, field) for every field of the definition, items included."""
    def walk(where, field):
        yield where, field
        if "items" in field:
            yield from walk(f"{where}[]", field["items"])

    for direction in ("to_worker", "from_worker"):
        for name, message in PROTOCOL[direction].items():
            for group in [message["fields"], *message.get("one_of", {}).values()]:
                for key, field in group.items():
                    yield from walk(f"{direction}.{name}.{key}", field)
    for kind, spec in PROTOCOL["kinds"].items():
        for part in ("payload", "result"):
            for key, field in spec.get(part, {}).items():
                yield from walk(f"kinds.{kind}.{part}.{key}", field)
    for shape, fields in PROTOCOL["shapes"].items():
        for key, field in fields.items():
            yield from walk(f"shapes.{shape}.{key}", field)


def test_every_field_is_written_in_the_definitions_terms():
    bad = []
    for where, field in all_fields():
        types = [field.get("type")] if isinstance(field.get("type"), str) else field.get("type") or []
        if not (set(field) <= FIELD_KEYS and types and set(types) <= TYPES
                and ("items" not in field or "array" in types)
                and ("shape" not in field or (field["shape"] in PROTOCOL["shapes"] and "object" in types))
                and all(isinstance(value, (str, bool)) for value in field.get("values", []))):
            bad.append(where)
    assert not bad
    assert len(list(all_fields())) > 200


def test_every_kind_says_its_document_payload_and_result():
    for kind, spec in PROTOCOL["kinds"].items():
        assert spec["document"] in ("none", "required"), kind
        assert isinstance(spec["payload"], dict) and spec["doc"], kind
        assert ("result" in spec) != ("result_shape" in spec), kind
        assert result_fields(kind), kind


def test_the_stages_of_progress_are_the_stages_described():
    assert PROTOCOL["from_worker"]["progress"]["fields"]["stage"]["values"] == list(PROTOCOL["stages"])


def test_the_error_shape_is_the_one_errors_have():
    from ragchunk.errors import RagchunkError

    assert list(PROTOCOL["shapes"]["error"]) == list(RagchunkError("f", "m").to_json())


@pytest.mark.parametrize("lang", LANGS)
def test_every_protocol_error_has_its_sentence_in_every_language(lang):
    words = catalog(lang)
    for code, template in PROTOCOL["errors"].items():
        said = words.get(f"error.{code}")
        assert said, (lang, code)
        assert set(re.findall(r"\{(\w+)\}", said)) <= set(re.findall(r"\{(\w+)\}", template["message"])), (lang, code)
        if lang == "en":
            assert said == template["message"], code


# --- every kind's reply fits -------------------------------------------------------------------


def test_every_kind_answers_a_representative_request_with_what_the_protocol_says():
    workspace = Workspace()
    asked = set()

    def result(kind, payload=None, document=None):
        asked.add(kind)
        reply = ask(workspace, kind, payload, document)
        assert reply["ok"] is True, reply
        return reply["result"]

    result("spec")
    result("calculate", {"unit": "tokens", "doc": "10,000", "chunk_size": "512", "overlap": "64", "price": "0.02"})
    result("calculate", {"doc": 10000, "chunk_size": 512, "overlap": 64, "model": "e5-base-v2", "decimal_comma": False})
    result("calculate", {"lengths": [100, 2000], "chunk_size": "256", "overlap": "32", "price": "1", "model": "bge-m3"})
    doc = result("load", {"name": "guide.md", "source": "docs/guide.md"}, DOC)["doc"]
    other = result("load", {"name": "old.txt"}, "café".encode("latin-1") + b" and more text")["doc"]
    result("analyze", {"doc": doc, "encoding": "o200k_base", "chunk_size": 64, "overlap": 8, "first": 1, "count": 3})
    result("analyze", {"doc": other, "chunk_size": None, "overlap": None, "first": 0, "count": 0, "name": "old.txt"})
    result("analyze", {"doc": doc, "model": "bge-small-en-v1.5", "chunk_size": 128, "overlap": 16})
    result("split", {"doc": doc, "by": "sentences", "chunk_size": "64", "overlap": "8", "encoding": "cl100k_base",
                     "context": "headings", "decimal_comma": False, "page_size": 5, "name": "guide.md"})
    result("split", {"doc": other, "chunk_size": 32, "overlap": 0, "chars_per_token": "3.5", "keep_prepared": False})
    result("split", {"doc": doc, "chunk_size": "", "overlap": "", "model": "e5-base-v2", "prefix": True})
    result("chunks", {"doc": doc, "first": 2, "count": 4})
    result("export", {"doc": doc})
    result("export", {"docs": [doc, other], "format": "langchain"})
    result("corpus", {"docs": [doc, other]})
    result("text", {"doc": doc})
    result("compare", {"docs": [doc, other], "chunk_size": "64", "overlap": "8", "encoding": "cl100k_base", "price": 0.1})
    result("evaluate", {"docs": [doc], "questions": "Does it work in the browser?\n> This module does not work in the browser.", "questions_name": "q.txt",
                        "by": ["fixed", "headings"], "sizes": [32], "overlap": 4, "context": "headings",
                        "retrievers": ["bm25"], "k": 2, "encoding": "cl100k_base"})
    result("context", {"llm": "gpt-4.1", "system": "You answer from the sources.", "tools": '[{"name": "search"}]',
                       "turns": 4, "turn_tokens": 200, "question": 50, "k": 5, "chunk_tokens": 512,
                       "template": "Source: {source}\n{text}\n", "source": "guide.md", "answer": 1000})
    result("context", {"llm": "claude-haiku-4-5", "history": "user: hi\nassistant: hello", "question": "Why?",
                       "input_price": None, "output_price": 2})
    own = result("context", {"llm": "llama-3.1-8b", "system": 1000, "k": 4, "chunk_tokens": 1000, "answer": 2000,
                             "window": 8192})
    assert own["window"] == 8192 and own["max_k"] == 5
    result("drop", {"doc": other})
    assert asked == set(KINDS)


def test_replies_that_refuse_fit_the_protocol_too():
    workspace = Workspace()
    assert ask(workspace, "split", {"doc": "d9", "chunk_size": "0"})["errors"][0]["code"] == "text_empty"
    doc = ask(workspace, "load", {}, "text")["result"]["doc"]
    assert [e["field"] for e in ask(workspace, "split", {"doc": doc, "chunk_size": "0", "by": "x"})["errors"]] == \
        ["by", "chunk_size"]
    assert ask(workspace, "nope")["errors"][0]["code"] == "unknown_request"


# --- a bad request names its field ---------------------------------------------------------------

BAD = [
    # (kind, payload, document) -> [(field, code)]
    ("analyze", {"chunk_size": 8}, None, [("doc", "request_field_missing")]),
    ("analyze", {"doc": 3}, None, [("doc", "request_field_type")]),
    ("analyze", {"doc": "d1", "first": 1.5, "count": "3"}, None,
     [("first", "request_field_type"), ("count", "request_field_type")]),
    ("analyze", {"doc": "d1", "chunksize": 8}, None, [("chunksize", "request_field_unknown")]),
    ("analyze", {"doc": "d1"}, "a text", [("document", "request_no_document")]),
    ("load", {"name": "a.md"}, None, [("document", "request_field_missing")]),
    ("load", {"name": 5}, "text", [("name", "request_field_type")]),
    ("export", {"docs": ["d1", 2]}, None, [("docs", "request_field_type")]),
    ("export", {"doc": "d1", "format": "xml"}, None, [("format", "request_field_value")]),
    ("calculate", {"unit": "pages"}, None, [("unit", "request_field_value")]),
    ("calculate", {"lengths": "100"}, None, [("lengths", "request_field_type")]),
    ("split", {"doc": "d1", "prefix": None, "keep_prepared": "no"}, None,
     [("prefix", "request_field_type"), ("keep_prepared", "request_field_type")]),
    ("context", {"system": 5}, None, [("llm", "request_field_missing")]),
    ("context", {"llm": "gpt-4.1", "k": "5", "tools": [1]}, None,
     [("tools", "request_field_type"), ("k", "request_field_type")]),
    ("spec", [1, 2], None, [("payload", "request_field_type")]),
    ("spec", {"extra": True}, None, [("extra", "request_field_unknown")]),
]


@pytest.mark.parametrize(("kind", "payload", "document", "expected"), BAD)
def test_a_bad_request_is_answered_with_the_protocols_errors(kind, payload, document, expected):
    reply = ask(Workspace(), kind, payload, document)
    assert reply["ok"] is False
    assert [(e["field"], e["code"]) for e in reply["errors"]] == expected
    for error in reply["errors"]:
        assert error["params"]["kind"] == kind and error["params"].get("field", "document") == error["field"]
        assert error["field"] in error["message"] or error["code"] == "request_no_document"
        assert render(f"error.{error['code']}", error["params"]) == error["message"]


def test_the_sentences_say_what_was_expected_and_what_came():
    messages = [e.message for e in request_errors("export", {"docs": ["d1", 2], "format": "xml"}, None)]
    assert messages == ["docs of the export request must be a list of strings, not a list holding a whole number",
                        "format of the export request (xml) is not known: use one of jsonl, langchain"]
    assert [e.message for e in request_errors("load", {}, None)] == \
        ["document is missing from the load request: send it as a string or bytes"]
    assert [e.message for e in request_errors("chunks", {"doc": "d1", "first": float("nan")}, None)] == \
        ["first of the chunks request must be a whole number, not a number JSON cannot hold"]


def test_a_request_the_protocol_allows_is_never_refused_by_it():
    # The page's own requests (web/tools/*/tool.js, web/ui/*.js), as they are built.
    page = [
        ("calculate", {"unit": "tokens", "doc": "10000", "documents": "1", "chars_per_token": "4", "chunk_size": "512",
                       "overlap": "64", "price": "", "decimal_comma": False, "model": "bge-m3"}),
        ("calculate", {"unit": None, "doc": "1", "documents": "1", "chars_per_token": "4", "chunk_size": "512",
                       "overlap": "64", "price": "", "decimal_comma": True, "lengths": [5, 6]}),
        ("analyze", {"doc": "d1", "encoding": "cl100k_base", "chunk_size": None, "overlap": None, "first": 0, "count": 0}),
        ("split", {"by": "headings", "chunk_size": "512", "overlap": "64", "context": "headings", "model": "bge-m3",
                   "prefix": False, "decimal_comma": False, "doc": "d1", "page_size": 0, "keep_prepared": True}),
        ("compare", {"chunk_size": "512", "overlap": "64", "context": "none", "chars_per_token": "4",
                     "decimal_comma": False, "docs": ["d1"]}),
        ("context", {"llm": "gpt-4.1", "system": 500, "tools": "[]", "turns": 4, "turn_tokens": 200, "question": 50,
                     "k": 5, "chunk_tokens": 512, "template": "{text}", "source": "", "answer": 1000,
                     "input_price": 2, "output_price": 8.5, "window": None}),
        ("context", {"llm": "llama-3.1-8b", "system": 500, "k": 5, "chunk_tokens": 512, "answer": 1000, "window": 8192}),
    ]
    for kind, payload in page:
        assert request_errors(kind, payload, None) == [], kind


# --- messages ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("direction", "message", "kind", "problems"), [
    ("to_worker", {"id": 1, "type": "drop", "payload": {"doc": "d1"}, "document": None}, None, []),
    ("to_worker", {"type": "cancel", "id": "a"}, None, []),
    ("to_worker", {"type": "cancel"}, None, ["id: is missing"]),
    ("to_worker", {"id": 1, "type": "shout"}, None, ["type: no message to worker has the type shout"]),
    ("to_worker", {"id": 1, "type": "drop", "payload": {}}, None, ["doc is missing from the drop request: send it as a string"]),
    ("from_worker", {"type": "progress", "stage": "splitting", "done": 1, "total": 2, "params": {}}, None, []),
    ("from_worker", {"type": "progress", "stage": "napping", "done": 1, "total": 2, "params": {}}, None,
     ["stage: napping is not one of " + ", ".join(PROTOCOL["stages"])]),
    ("from_worker", {"type": "ready", "version": "314.0.7", "bootMs": 3800}, None, []),
    ("from_worker", {"type": "failed", "message": "no wasm"}, None, []),
    ("from_worker", {"id": 1, "ok": False, "cancelled": True}, "split", []),
    ("from_worker", {"id": 1, "ok": False, "internal": "KeyError"}, "split", []),
    ("from_worker", {"id": 1, "ok": True, "result": {"documents": 0}}, "drop", []),
    ("from_worker", {"id": 1, "ok": True, "result": {"documents": 0, "more": 1}}, "drop",
     ["result.more: is not a field of the protocol"]),
    ("from_worker", {"ok": True, "result": {}}, None, ["id: is missing"]),
    ("from_worker", [1], None, ["a message must be an object, not a list"]),
])
def test_messages_both_ways_are_held_to_the_definition(direction, message, kind, problems):
    assert message_problems(direction, message, kind) == problems
