"""ragchunk.api.Session: the JSON-in, JSON-out facade the browser worker calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragchunk
from ragchunk import api, get_tokenizer, plan, tokens_from_chars, windows
from ragchunk.api import MAX_PREVIEW_WINDOWS, Session
from ragchunk.settings import DEFAULT_PREVIEW_WINDOWS, form_spec

TEXT = "Fixed windows over a text. Привет, мир! 👍🏽 नमस्ते दुनिया। 日本語の文章。\n" * 6


def ask(session: Session, kind: str, payload: dict | str | None = None, document=None) -> dict:
    raw = payload if isinstance(payload, str) else json.dumps(payload or {})
    reply = session.handle(kind, raw, document)
    assert isinstance(reply, str)
    return json.loads(reply)


def result_of(reply: dict) -> dict:
    assert reply["ok"] is True, reply
    assert set(reply) == {"ok", "result"}
    return reply["result"]


def fields_of(reply: dict) -> list[str]:
    assert reply["ok"] is False, reply
    assert set(reply) == {"ok", "errors"}, reply
    for error in reply["errors"]:
        assert set(error) == {"field", "message", "code", "params"}
        assert error["message"]
        assert (error["code"] is None or isinstance(error["code"], str)) and isinstance(error["params"], dict)
    return [error["field"] for error in reply["errors"]]


def expected_windows(text: str, size: int, overlap: int, encoding: str = "cl100k_base", first: int = 0,
                     count: int = DEFAULT_PREVIEW_WINDOWS) -> list[dict]:
    cut = windows(text, size, overlap, get_tokenizer(encoding))[first : first + count]
    return [
        {
            "index": w.index, "start": w.start, "end": w.end, "token_start": w.token_start, "token_end": w.token_end,
            "tokens": w.tokens, "overlap_tokens": w.overlap_tokens, "head": text[w.start : w.overlap_end],
            "body": text[w.overlap_end : w.end],
        }
        for w in cut
    ]


# --- spec and calculate ---------------------------------------------------------------


def test_spec():
    result = result_of(ask(Session(), "spec"))
    assert result == json.loads(json.dumps({**form_spec(), "version": ragchunk.__version__}))
    assert result["defaults"]["chunk_size"] == 512
    assert sorted(result["encodings"]) == sorted(ragchunk.ENCODINGS)


def test_calculate():
    payload = {"unit": "tokens", "doc": "10,000", "chunk_size": "512", "overlap": "64", "price": "0.02"}
    result = result_of(ask(Session(), "calculate", payload))
    assert result == json.loads(json.dumps(plan(10_000, 512, 64, 0.02).to_json()))
    assert (result["chunks"], result["total_tokens"], result["repeated_tokens"]) == (23, 11_408, 1_408)


def test_calculate_chars():
    payload = {"unit": "chars", "doc": "40000", "chars_per_token": "4", "chunk_size": "512", "overlap": "64"}
    assert result_of(ask(Session(), "calculate", payload))["doc_tokens"] == 10_000


def test_calculate_numbers_instead_of_strings():
    payload = {"doc": 10000, "chunk_size": 512, "overlap": 64}
    assert result_of(ask(Session(), "calculate", payload))["chunks"] == 23


def test_calculate_errors_name_every_field():
    payload = {"unit": "tokens", "doc": "abc", "chunk_size": "0", "overlap": "x", "price": "-1"}
    reply = ask(Session(), "calculate", payload)
    assert fields_of(reply) == ["doc_tokens", "chunk_size", "overlap", "price_per_million"]
    assert "document length (abc) is not a number" in reply["errors"][0]["message"]


def test_calculate_overlap_error():
    reply = ask(Session(), "calculate", {"doc": "1000", "chunk_size": "512", "overlap": "512"})
    assert fields_of(reply) == ["overlap"]
    assert reply["errors"][0]["message"] == "overlap (512) must be smaller than chunk size (512): lower the overlap"


# --- analyze --------------------------------------------------------------------------


def test_analyze_text():
    reply = ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
    result = result_of(reply)
    tokens = get_tokenizer().count(TEXT)
    assert result["encoding"] == "cl100k_base"
    assert result["tokens"] == tokens
    assert result["chars"] == len(TEXT)
    assert "utf16_units" not in result  # offsets are code points; the page never needed UTF-16 counts
    assert result["chars_per_token"] == len(TEXT) / tokens
    assert result["notes"] == []
    assert result["window_errors"] == []
    assert result["window_count"] == plan(tokens, 8, 2).chunks
    assert result["windows"] == expected_windows(TEXT, 8, 2)
    assert result["plan"] == json.loads(json.dumps(plan(tokens, 8, 2).to_json()))


def test_head_and_body_make_the_window_text():
    result = result_of(ask(Session(), "analyze", {"chunk_size": 5, "overlap": 3, "count": 50}, TEXT))
    cut = windows(TEXT, 5, 3, get_tokenizer())
    assert len(result["windows"]) == min(50, len(cut))
    for shown, window in zip(result["windows"], cut):
        assert shown["head"] + shown["body"] == window.text == TEXT[shown["start"] : shown["end"]]
        assert TEXT[window.start : window.overlap_end] == shown["head"]
        if shown["index"] == 0:
            assert shown["head"] == ""


def test_analyze_file_bytes():
    session = Session()
    reply = ask(session, "analyze", {"chunk_size": 8, "overlap": 2, "name": "notes.md"}, TEXT.encode("utf-8"))
    result = result_of(reply)
    assert result["tokens"] == get_tokenizer().count(TEXT)
    assert result["windows"] == expected_windows(TEXT, 8, 2)
    assert result["notes"] == []


def test_analyze_file_with_invalid_utf8_keeps_the_note():
    session = Session()
    data = "café".encode("latin-1") + b" and more text"
    result = result_of(ask(session, "analyze", {"chunk_size": 8, "overlap": 2, "name": "old.txt"}, data))
    note = "old.txt is not valid UTF-8: 1 invalid byte sequence was replaced with \ufffd"
    assert result["notes"] == [note]
    assert result["chars"] == len("caf\ufffd and more text")
    assert result_of(ask(session, "analyze", {"chunk_size": 4, "overlap": 0}))["notes"] == [note]


def test_analyze_reuses_the_last_document():
    session = Session()
    first = result_of(ask(session, "analyze", {"chunk_size": 8, "overlap": 2}, TEXT))
    again = result_of(ask(session, "analyze", {"chunk_size": 16, "overlap": 4}))
    assert again["tokens"] == first["tokens"]
    assert again["windows"] == expected_windows(TEXT, 16, 4)


def test_a_new_document_replaces_the_old_one():
    session = Session()
    ask(session, "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
    result = result_of(ask(session, "analyze", {"chunk_size": 8, "overlap": 2}, "hello world"))
    assert (result["tokens"], result["chars"]) == (2, 11)
    assert result_of(ask(session, "analyze", {"chunk_size": 8, "overlap": 2}))["chars"] == 11


@pytest.mark.parametrize("encoding", ["o200k_base", "p50k_base", "r50k_base", "cl100k_base"])
def test_encoding_switch(encoding):
    session = Session()
    ask(session, "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
    result = result_of(ask(session, "analyze", {"chunk_size": 8, "overlap": 2, "encoding": encoding}))
    assert result["encoding"] == encoding
    assert result["tokens"] == get_tokenizer(encoding).count(TEXT)
    assert result["windows"] == expected_windows(TEXT, 8, 2, encoding)


def test_unknown_encoding():
    reply = ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2, "encoding": "gpt2"}, TEXT)
    assert fields_of(reply) == ["encoding"]


@pytest.mark.parametrize(
    ("chunking", "field"),
    [
        ({"chunk_size": 0, "overlap": 0}, "chunk_size"),
        ({"chunk_size": 8, "overlap": 8}, "overlap"),
        ({"chunk_size": 8, "overlap": -1}, "overlap"),
        ({"chunk_size": None, "overlap": 2}, "chunk_size"),
        ({}, "chunk_size"),
        ({"chunk_size": 8.5, "overlap": 2}, "chunk_size"),
        ({"chunk_size": 8, "overlap": 2.5}, "overlap"),
    ],
)
def test_invalid_chunking_still_counts_tokens(chunking, field):
    result = result_of(ask(Session(), "analyze", chunking, TEXT))
    assert result["tokens"] == get_tokenizer().count(TEXT)
    assert [e["field"] for e in result["window_errors"]] == [field]
    assert result["windows"] is None and result["window_count"] is None


@pytest.mark.parametrize(("first", "count"), [(0, 1), (0, 5), (3, 4), (7, 10), (0, 0)])
def test_paging(first, count):
    session = Session()
    payload = {"chunk_size": 6, "overlap": 2, "first": first, "count": count}
    result = result_of(ask(session, "analyze", payload, TEXT))
    assert result["windows"] == expected_windows(TEXT, 6, 2, first=first, count=max(1, count))
    assert result["window_count"] == plan(get_tokenizer().count(TEXT), 6, 2).chunks


def test_paging_past_the_end():
    result = result_of(ask(Session(), "analyze", {"chunk_size": 6, "overlap": 2, "first": 10_000}, TEXT))
    assert result["windows"] == []
    assert result["window_count"] > 0


def test_pages_join_up():
    session = Session()
    ask(session, "analyze", {"chunk_size": 3, "overlap": 1}, TEXT)
    pages = []
    for first in range(0, 40, 10):
        pages += result_of(ask(session, "analyze", {"chunk_size": 3, "overlap": 1, "first": first, "count": 10}))["windows"]
    assert pages == expected_windows(TEXT, 3, 1, count=40)


def test_preview_count_is_capped():
    text = "word " * 500
    result = result_of(ask(Session(), "analyze", {"chunk_size": 1, "overlap": 0, "count": 10_000}, text))
    assert len(result["windows"]) == MAX_PREVIEW_WINDOWS
    assert result["window_count"] == get_tokenizer().count(text)


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"%PDF-1.7\n", b"text\x00with NUL"])
def test_binary_file(data):
    reply = ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2, "name": "upload.bin"}, data)
    assert fields_of(reply) == ["file"]
    assert reply["errors"][0]["message"].startswith("upload.bin is ")


@pytest.mark.parametrize("document", ["", "   \n\t", b"", b"  \n"])
def test_empty_text(document):
    assert fields_of(ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2}, document)) == ["text"]


def test_no_document_yet():
    assert fields_of(ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2})) == ["text"]


def test_lone_surrogates_are_replaced():
    result = result_of(ask(Session(), "analyze", {"chunk_size": 2, "overlap": 0, "count": 200}, "a\ud800b c"))
    assert result["chars"] == 5
    assert "".join(w["body"] for w in result["windows"]) == "a\ufffdb c"


@pytest.mark.parametrize("kind", ["nope", "", "Spec", "handle", "load", "_init__"])
def test_unknown_kind(kind):
    reply = ask(Session(), kind, {}, "some text")
    assert fields_of(reply) == ["request"]
    assert f"({kind})" in reply["errors"][0]["message"]


@pytest.mark.parametrize("payload", ["[1, 2]", '"text"', "3", "null"])
def test_payload_that_is_not_an_object(payload):
    assert fields_of(ask(Session(), "spec", payload)) == ["request"]


def test_internal_error(monkeypatch):
    def broken(form, **options):
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "read_calc_form", broken)
    reply = ask(Session(), "calculate", {"doc": "1"})
    assert reply == {"ok": False, "internal": "RuntimeError: boom"}


def test_internal_error_while_analyzing(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("lengths")

    monkeypatch.setattr(api, "windows_of", broken)
    reply = ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
    assert reply["ok"] is False
    assert reply["internal"] == "KeyError: 'lengths'"


def test_reply_keeps_non_ascii_readable():
    reply = Session().handle("analyze", json.dumps({"chunk_size": 8, "overlap": 2}), "Привет, мир")
    assert "Привет" in reply


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["spec", "calculate", "analyze", "unknown"]),
    st.one_of(st.text(max_size=30), st.dictionaries(st.sampled_from(
        ["doc", "chunk_size", "overlap", "price", "unit", "encoding", "first", "count", "chars_per_token"]),
        st.one_of(st.integers(-5, 50), st.text(max_size=6), st.none(), st.floats()), max_size=6).map(json.dumps)),
    st.one_of(st.none(), st.text(max_size=40), st.binary(max_size=40)),
)
def test_reply_is_always_json(kind, payload, document):
    reply = json.loads(Session().handle(kind, payload, document))
    assert isinstance(reply["ok"], bool)
    if reply["ok"]:
        assert set(reply) == {"ok", "result"}
    else:
        assert set(reply) in ({"ok", "errors"}, {"ok", "internal"})


# --- split and export -------------------------------------------------------------------

SPLIT_DOC = (Path(__file__).resolve().parents[1] / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")


def split_reply(session, payload, document=None):
    return json.loads(session.handle("split", json.dumps(payload), document))


def test_split_returns_every_chunk_with_overlap_and_new_text_apart():
    from ragchunk import split

    session = Session()
    reply = split_reply(session, {"by": "sentences", "chunk_size": "64", "overlap": "8"}, SPLIT_DOC)
    assert reply["ok"], reply
    result = reply["result"]
    expected = split(SPLIT_DOC, by="sentences", size=64, overlap=8)
    assert len(result["chunks"]) == len(expected.chunks)
    assert result["stats"] == expected.stats.to_json()
    for got, chunk in zip(result["chunks"], expected.chunks):
        assert got["overlap_text"] + got["new_text"] == chunk.text
        assert got["overlap_text"] == SPLIT_DOC[chunk.start : chunk.content_start]
        assert got["heading_path"] == list(chunk.heading_path)
        assert got["tokens"] == chunk.tokens
    assert result["tokenizer"] == "cl100k_base" and result["chars"] == len(SPLIT_DOC)


def test_export_is_the_cli_jsonl_of_the_last_split():
    from ragchunk import split
    from ragchunk.export import to_jsonl

    session = Session()
    assert split_reply(session, {"by": "paragraphs", "chunk_size": "128", "overlap": "16"}, SPLIT_DOC)["ok"]
    exported = json.loads(session.handle("export", "{}"))
    assert exported["result"]["jsonl"] == to_jsonl(split(SPLIT_DOC, by="paragraphs", size=128, overlap=16))
    # Re-split with other settings, without sending the document again.
    assert split_reply(session, {"by": "headings", "chunk_size": "256", "overlap": "0", "chars_per_token": "3"})["ok"]
    exported = json.loads(session.handle("export", "{}"))
    from ragchunk import CharEstimate

    assert exported["result"]["jsonl"] == to_jsonl(split(SPLIT_DOC, by="headings", size=256, overlap=0,
                                                         tokenizer=CharEstimate(3)))


def test_export_before_any_split_names_the_text():
    reply = json.loads(Session().handle("export", "{}"))
    assert reply["ok"] is False and reply["errors"][0]["field"] == "text"


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({"chunk_size": "0", "overlap": "0"}, ["chunk_size"]),
        ({"chunk_size": "x", "overlap": "-1"}, ["chunk_size", "overlap"]),
        ({"chunk_size": "64", "overlap": "64"}, ["overlap"]),
        ({"chunk_size": "64", "overlap": "8", "chars_per_token": "0"}, ["chars_per_token"]),
        ({"chunk_size": "64", "overlap": "8", "encoding": "gpt5"}, ["encoding"]),
        ({"chunk_size": "64", "overlap": "8", "by": "chapters"}, ["by"]),
    ],
)
def test_split_settings_errors_name_every_bad_field(payload, fields):
    reply = split_reply(Session(), payload, SPLIT_DOC)
    assert reply["ok"] is False
    assert [e["field"] for e in reply["errors"]] == fields
    assert all(e["message"] for e in reply["errors"])


def test_split_of_a_binary_file_is_refused():
    reply = split_reply(Session(), {"chunk_size": "64", "overlap": "8", "name": "x.png"}, b"\x89PNG\r\n\x1a\n" + bytes(20))
    assert reply["ok"] is False and reply["errors"][0]["field"] == "file"
    assert "x.png is a PNG image" in reply["errors"][0]["message"]


def test_calculate_reads_the_decimal_comma_only_when_asked():
    form = {"unit": "chars", "doc": "10 000", "chars_per_token": "3,5", "chunk_size": "512", "overlap": "64", "price": "0,02"}
    ru = result_of(ask(Session(), "calculate", {**form, "decimal_comma": True}))
    assert ru == json.loads(json.dumps(plan(tokens_from_chars(10_000, 3.5), 512, 64, 0.02).to_json()))
    en = ask(Session(), "calculate", {**form, "doc": "10,000", "chars_per_token": "3.5", "price": "0.02"})
    assert result_of(en) == ru
    # Without the flag "3,5" is 35 grouped, as before: a different estimate.
    assert result_of(ask(Session(), "calculate", {**form, "doc": "10000", "price": ""}))["doc_tokens"] == 286


def test_errors_carry_code_and_params_for_the_page():
    reply = ask(Session(), "calculate", {"unit": "tokens", "doc": "", "chunk_size": "2,5", "overlap": "9", "price": "",
                                         "decimal_comma": True})
    assert [(e["field"], e["code"], e["params"]) for e in reply["errors"]] == [
        ("doc_tokens", "empty", {}),
        ("chunk_size", "not_whole", {"value": "2,5", "unit": "tokens"}),
    ]
    assert reply["errors"][1]["message"] == "chunk size (2,5) must be a whole number of tokens: round it"
    file = ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2}, b"%PDF-1.7\n")["errors"][0]
    assert (file["code"], file["params"]) == ("not_text", {"name": "", "kind": "pdf", "what": "a PDF document"})
    assert file["message"].startswith("the file is a PDF document")


def test_split_reads_the_decimal_comma():
    reply = ask(Session(), "split", {"by": "paragraphs", "chunk_size": "64", "overlap": "0", "chars_per_token": "3,5",
                                     "decimal_comma": True}, "One.\n\nTwo.")
    assert result_of(reply)["tokenizer"] == "chars/3.5"


def test_notes_come_with_their_codes():
    data = "café".encode("latin-1") + b" and more text"
    result = result_of(ask(Session(), "analyze", {"chunk_size": 8, "overlap": 2, "name": "old.txt"}, data))
    assert result["note_details"] == [{"code": "not_utf8", "params": {"name": "old.txt", "count": 1},
                                       "message": result["notes"][0]}]


def test_split_reports_progress():
    seen = []
    reply = json.loads(Session().handle("split", json.dumps({"by": "paragraphs", "chunk_size": "8", "overlap": "0"}),
                                        "One two three.\n\nFour five six.\n\nSeven.", progress=lambda *a: seen.append(a)))
    assert reply["ok"] is True
    assert seen and seen[-1][0] == seen[-1][1]
