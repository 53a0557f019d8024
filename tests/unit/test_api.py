"""ragchunk.api.Workspace: the JSON-in, JSON-out workspace the browser worker talks to (protocol 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragchunk
from ragchunk import api, get_tokenizer, plan, tokens_from_chars, windows
from ragchunk.api import MAX_PREVIEW_WINDOWS, PROTOCOL_VERSION, Workspace
from ragchunk.api import form_spec
from ragchunk.settings import DEFAULT_PREVIEW_WINDOWS

TEXT = "Fixed windows over a text. Привет, мир! 👍🏽 नमस्ते दुनिया। 日本語の文章。\n" * 6


def ask(workspace: Workspace, kind: str, payload: dict | str | None = None, document=None) -> dict:
    raw = payload if isinstance(payload, str) else json.dumps(payload or {})
    reply = workspace.handle(kind, raw, document)
    assert isinstance(reply, str)
    return json.loads(reply)


def load(workspace: Workspace, document, name: str = "") -> str:
    """Load a document; its id."""
    return result_of(ask(workspace, "load", {"name": name}, document))["doc"]


def ask_about(workspace: Workspace, kind: str, payload: dict, document=None) -> dict:
    """``kind`` about ``document`` (loaded first; a refusal comes back as the reply), or about
    the document named by ``payload["doc"]``."""
    if document is not None:
        loaded = ask(workspace, "load", {"name": payload.get("name", "")}, document)
        if not loaded["ok"]:
            return loaded
        payload = {**payload, "doc": loaded["result"]["doc"]}
    return ask(workspace, kind, payload)


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
    result = result_of(ask(Workspace(), "spec"))
    assert result == json.loads(json.dumps({**form_spec(), "version": ragchunk.__version__, "protocol": 2}))
    assert result["defaults"]["chunk_size"] == 512
    assert sorted(result["encodings"]) == sorted(ragchunk.ENCODINGS)


def test_calculate():
    payload = {"unit": "tokens", "doc": "10,000", "chunk_size": "512", "overlap": "64", "price": "0.02"}
    result = result_of(ask(Workspace(), "calculate", payload))
    assert result == json.loads(json.dumps(plan(10_000, 512, 64, 0.02).to_json()))
    assert (result["chunks"], result["total_tokens"], result["repeated_tokens"]) == (23, 11_408, 1_408)


def test_calculate_chars():
    payload = {"unit": "chars", "doc": "40000", "chars_per_token": "4", "chunk_size": "512", "overlap": "64"}
    assert result_of(ask(Workspace(), "calculate", payload))["doc_tokens"] == 10_000


def test_calculate_numbers_instead_of_strings():
    payload = {"doc": 10000, "chunk_size": 512, "overlap": 64}
    assert result_of(ask(Workspace(), "calculate", payload))["chunks"] == 23


def test_calculate_errors_name_every_field():
    payload = {"unit": "tokens", "doc": "abc", "chunk_size": "0", "overlap": "x", "price": "-1"}
    reply = ask(Workspace(), "calculate", payload)
    assert fields_of(reply) == ["doc_tokens", "chunk_size", "overlap", "price_per_million"]
    assert "document length (abc) is not a number" in reply["errors"][0]["message"]


def test_calculate_overlap_error():
    reply = ask(Workspace(), "calculate", {"doc": "1000", "chunk_size": "512", "overlap": "512"})
    assert fields_of(reply) == ["overlap"]
    assert reply["errors"][0]["message"] == "overlap (512) must be smaller than chunk size (512): lower the overlap"


# --- analyze --------------------------------------------------------------------------


def test_analyze_text():
    reply = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
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
    result = result_of(ask_about(Workspace(), "analyze", {"chunk_size": 5, "overlap": 3, "count": 50}, TEXT))
    cut = windows(TEXT, 5, 3, get_tokenizer())
    assert len(result["windows"]) == min(50, len(cut))
    for shown, window in zip(result["windows"], cut):
        assert shown["head"] + shown["body"] == window.text == TEXT[shown["start"] : shown["end"]]
        assert TEXT[window.start : window.overlap_end] == shown["head"]
        if shown["index"] == 0:
            assert shown["head"] == ""


def test_analyze_file_bytes():
    workspace = Workspace()
    reply = ask_about(workspace, "analyze", {"chunk_size": 8, "overlap": 2, "name": "notes.md"}, TEXT.encode("utf-8"))
    result = result_of(reply)
    assert result["tokens"] == get_tokenizer().count(TEXT)
    assert result["windows"] == expected_windows(TEXT, 8, 2)
    assert result["notes"] == []


def test_analyze_file_with_invalid_utf8_keeps_the_note():
    workspace = Workspace()
    data = "café".encode("latin-1") + b" and more text"
    result = result_of(ask_about(workspace, "analyze", {"chunk_size": 8, "overlap": 2, "name": "old.txt"}, data))
    note = "old.txt is not valid UTF-8: 1 invalid byte sequence was replaced with \ufffd"
    assert result["notes"] == [note]
    assert result["chars"] == len("caf\ufffd and more text")
    doc = load(workspace, data, "old.txt")
    assert result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 4, "overlap": 0}))["notes"] == [note]


def test_analyze_reuses_the_document_and_its_encoding(monkeypatch):
    workspace = Workspace()
    doc = load(workspace, TEXT)
    first = result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 8, "overlap": 2}))
    encodes = []
    real = api.encode_steps
    monkeypatch.setattr(api, "encode_steps", lambda *a, **k: encodes.append(1) or real(*a, **k))
    again = result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 16, "overlap": 4}))
    assert again["tokens"] == first["tokens"] and encodes == []
    assert again["windows"] == expected_windows(TEXT, 16, 4)


def test_documents_live_side_by_side():
    workspace = Workspace()
    first = load(workspace, TEXT)
    second = load(workspace, "hello world")
    assert first != second
    result = result_of(ask(workspace, "analyze", {"doc": second, "chunk_size": 8, "overlap": 2}))
    assert (result["tokens"], result["chars"]) == (2, 11)
    assert result_of(ask(workspace, "analyze", {"doc": first, "chunk_size": 8, "overlap": 2}))["chars"] == len(TEXT)
    assert result_of(ask(workspace, "drop", {"doc": first})) == {"documents": 1}
    assert fields_of(ask(workspace, "analyze", {"doc": first, "chunk_size": 8, "overlap": 2})) == ["text"]


def test_a_refused_document_leaves_the_others():
    workspace = Workspace()
    doc = load(workspace, TEXT)
    assert fields_of(ask(workspace, "load", {"name": "x.png"}, b"\x89PNG\r\n\x1a\n" + bytes(20))) == ["file"]
    assert result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 8, "overlap": 2}))["chars"] == len(TEXT)


@pytest.mark.parametrize("encoding", ["o200k_base", "p50k_base", "r50k_base", "cl100k_base"])
def test_encoding_switch(encoding):
    workspace = Workspace()
    doc = load(workspace, TEXT)
    ask(workspace, "analyze", {"doc": doc, "chunk_size": 8, "overlap": 2})
    result = result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 8, "overlap": 2, "encoding": encoding}))
    assert result["encoding"] == encoding
    assert result["tokens"] == get_tokenizer(encoding).count(TEXT)
    assert result["windows"] == expected_windows(TEXT, 8, 2, encoding)


def test_unknown_encoding():
    reply = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2, "encoding": "gpt2"}, TEXT)
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
    result = result_of(ask_about(Workspace(), "analyze", chunking, TEXT))
    assert result["tokens"] == get_tokenizer().count(TEXT)
    assert [e["field"] for e in result["window_errors"]] == [field]
    assert result["windows"] is None and result["window_count"] is None


@pytest.mark.parametrize(("first", "count"), [(0, 1), (0, 5), (3, 4), (7, 10), (0, 0)])
def test_paging(first, count):
    workspace = Workspace()
    payload = {"chunk_size": 6, "overlap": 2, "first": first, "count": count}
    result = result_of(ask_about(workspace, "analyze", payload, TEXT))
    assert result["windows"] == expected_windows(TEXT, 6, 2, first=first, count=max(1, count))
    assert result["window_count"] == plan(get_tokenizer().count(TEXT), 6, 2).chunks


def test_paging_past_the_end():
    result = result_of(ask_about(Workspace(), "analyze", {"chunk_size": 6, "overlap": 2, "first": 10_000}, TEXT))
    assert result["windows"] == []
    assert result["window_count"] > 0


def test_pages_join_up():
    workspace = Workspace()
    doc = load(workspace, TEXT)
    pages = []
    for first in range(0, 40, 10):
        payload = {"doc": doc, "chunk_size": 3, "overlap": 1, "first": first, "count": 10}
        pages += result_of(ask(workspace, "analyze", payload))["windows"]
    assert pages == expected_windows(TEXT, 3, 1, count=40)


def test_preview_count_is_capped():
    text = "word " * 500
    result = result_of(ask_about(Workspace(), "analyze", {"chunk_size": 1, "overlap": 0, "count": 10_000}, text))
    assert len(result["windows"]) == MAX_PREVIEW_WINDOWS
    assert result["window_count"] == get_tokenizer().count(text)


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"%PDF-1.7\n", b"text\x00with NUL"])
def test_binary_file(data):
    reply = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2, "name": "upload.bin"}, data)
    assert fields_of(reply) == ["file"]
    assert reply["errors"][0]["message"].startswith("upload.bin is ")


@pytest.mark.parametrize("document", ["", "   \n\t", b"", b"  \n"])
def test_empty_text(document):
    assert fields_of(ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2}, document)) == ["text"]


def test_no_document_yet():
    assert fields_of(ask(Workspace(), "analyze", {"doc": "d1", "chunk_size": 8, "overlap": 2})) == ["text"]


def test_a_request_without_its_document_names_what_is_missing():
    # The protocol's errors (protocol.json): the field at fault, not "paste some text".
    assert fields_of(ask(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2})) == ["doc"]
    assert fields_of(ask(Workspace(), "load", {})) == ["document"]


def test_lone_surrogates_are_replaced():
    result = result_of(ask_about(Workspace(), "analyze", {"chunk_size": 2, "overlap": 0, "count": 200}, "a\ud800b c"))
    assert result["chars"] == 5
    assert "".join(w["body"] for w in result["windows"]) == "a\ufffdb c"


@pytest.mark.parametrize("kind", ["nope", "", "Spec", "handle", "run", "_init__", "_doc"])
def test_unknown_kind(kind):
    reply = ask(Workspace(), kind, {}, "some text")
    assert fields_of(reply) == ["request"]
    assert f"({kind})" in reply["errors"][0]["message"]


@pytest.mark.parametrize("payload", ["[1, 2]", '"text"', "3", "null"])
def test_payload_that_is_not_an_object(payload):
    assert fields_of(ask(Workspace(), "spec", payload)) == ["payload"]


def test_internal_error(monkeypatch):
    def broken(form, **options):
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "read_calc_form", broken)
    reply = ask(Workspace(), "calculate", {"doc": "1"})
    assert reply == {"ok": False, "internal": "RuntimeError: boom"}


def test_internal_error_while_analyzing(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("lengths")

    monkeypatch.setattr(api, "windows_of", broken)
    reply = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2}, TEXT)
    assert reply["ok"] is False
    assert reply["internal"] == "KeyError: 'lengths'"


def test_reply_keeps_non_ascii_readable():
    workspace = Workspace()
    reply = workspace.handle("analyze", json.dumps({"doc": load(workspace, "Привет, мир"), "chunk_size": 8,
                                                    "overlap": 2, "count": 3}))
    assert "Привет" in reply


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["spec", "calculate", "load", "analyze", "split", "chunks", "export", "drop", "unknown"]),
    st.one_of(st.text(max_size=30), st.dictionaries(st.sampled_from(
        ["doc", "chunk_size", "overlap", "price", "unit", "encoding", "first", "count", "chars_per_token", "by",
         "page_size", "name"]),
        st.one_of(st.integers(-5, 50), st.text(max_size=6), st.none(), st.floats()), max_size=6).map(json.dumps)),
    st.one_of(st.none(), st.text(max_size=40), st.binary(max_size=40)),
)
def test_reply_is_always_json(kind, payload, document):
    reply = json.loads(Workspace().handle(kind, payload, document))
    assert isinstance(reply["ok"], bool)
    if reply["ok"]:
        assert set(reply) == {"ok", "result"}
    else:
        assert set(reply) in ({"ok", "errors"}, {"ok", "internal"})


# --- split, chunks and export ---------------------------------------------------------

SPLIT_DOC = (Path(__file__).resolve().parents[1] / "data" / "md" / "ws-README.md").read_text(encoding="utf-8")


def split_reply(workspace, payload, document=None):
    return ask_about(workspace, "split", payload, document)


def chunks_of(page: dict, text: str) -> list[dict]:
    """The chunks of a page of columns, with their text cut from ``texts`` as the page does."""
    found = []
    units = text.encode("utf-16-le")
    for i in range(page["count"]):
        piece = page["texts"].encode("utf-16-le")[2 * page["offsets"][i] : 2 * page["offsets"][i + 1]]
        found.append({
            **{name: page[name][i] for name in ("id", "start", "end", "content_start", "tokens", "overlap_tokens")},
            "heading_path": page["paths"][page["path"][i]],
            "text": piece.decode("utf-16-le"),
            "overlap_text": piece[: 2 * page["overlap"][i]].decode("utf-16-le"),
        })
    assert units  # the document itself was never needed to read the page
    return found


def test_split_returns_its_first_page_of_chunks_as_columns():
    from ragchunk import split

    workspace = Workspace()
    reply = split_reply(workspace, {"by": "sentences", "chunk_size": "64", "overlap": "8", "page_size": 50}, SPLIT_DOC)
    result = result_of(reply)
    expected = split(SPLIT_DOC, by="sentences", size=64, overlap=8)
    assert result["count"] == len(expected.chunks) > 50
    assert result["stats"] == expected.stats.to_json()
    got = chunks_of(result["page"], SPLIT_DOC)
    assert len(got) == 50
    for shown, chunk in zip(got, expected.chunks):
        assert shown["text"] == chunk.text
        assert shown["overlap_text"] == SPLIT_DOC[chunk.start : chunk.content_start]
        assert shown["heading_path"] == list(chunk.heading_path)
        assert (shown["id"], shown["start"], shown["tokens"]) == (chunk.id, chunk.start, chunk.tokens)
    assert result["tokenizer"] == "cl100k_base" and result["chars"] == len(SPLIT_DOC)
    # The rest, page by page.
    rest = result_of(ask(workspace, "chunks", {"doc": result["doc"], "first": 50, "count": 1000}))
    assert rest["first"] == 50 and [c["text"] for c in chunks_of(rest, SPLIT_DOC)] == [
        c.text for c in expected.chunks[50:]]


def test_non_ascii_chunks_slice_in_utf16_units():
    text = "# Émoji 👍🏽\n\nΚείμενο 日本語 😀 text. " * 30
    workspace = Workspace()
    result = result_of(split_reply(workspace, {"by": "sentences", "chunk_size": "16", "overlap": "4"}, text))
    from ragchunk import split

    expected = split(text, by="sentences", size=16, overlap=4)
    assert [c["text"] for c in chunks_of(result["page"], text)] == [c.text for c in expected.chunks][:200]


def test_a_settings_change_repacks_without_encoding_again(monkeypatch):
    from ragchunk import split

    workspace = Workspace()
    doc = load(workspace, SPLIT_DOC)
    result_of(ask(workspace, "split", {"doc": doc, "by": "headings", "chunk_size": "256", "overlap": "32"}))
    encodes, parses = [], []
    real_encode, real_parse = api.encode_steps, api.Structure.of
    monkeypatch.setattr(api, "encode_steps", lambda *a, **k: encodes.append(1) or real_encode(*a, **k))
    monkeypatch.setattr(api.Structure, "of", classmethod(lambda cls, *a: parses.append(1) or real_parse(*a)))
    again = result_of(ask(workspace, "split", {"doc": doc, "by": "sentences", "chunk_size": "64", "overlap": "8"}))
    assert encodes == [] and parses == []
    assert again["count"] == len(split(SPLIT_DOC, by="sentences", size=64, overlap=8).chunks)
    # The calculator's count of the same document reuses the encoding too.
    assert result_of(ask(workspace, "analyze", {"doc": doc, "chunk_size": 64, "overlap": 8}))["tokens"] == \
        get_tokenizer().count(SPLIT_DOC)
    assert encodes == []


@pytest.mark.parametrize(("model", "tokenizer"), [("bge-small-en-v1.5", "bert-base-uncased"),
                                                   ("multilingual-e5-small", "xlm-roberta")])
def test_an_open_models_count_finds_offsets_only_for_the_windows_it_shows(monkeypatch, model, tokenizer):
    from ragchunk import split
    from ragchunk.tokenizers import pieces

    text = (SPLIT_DOC + "\n\nОдин абзац по-русски. यह हिंदी का वाक्य है।\n\n") * 60
    assert len(text) > 4 * pieces.OFFSET_PIECE_CHARS
    found = []
    real = pieces._Pieces.offsets
    monkeypatch.setattr(pieces._Pieces, "offsets", lambda self, k: found.append(k) or real(self, k))
    workspace = Workspace()
    doc = load(workspace, text)
    result = result_of(ask(workspace, "analyze", {"doc": doc, "model": model, "chunk_size": 256, "overlap": 32}))
    assert result["tokens"] == get_tokenizer(tokenizer).count(text)
    assert result["windows"] == expected_windows(text, 256, 32, tokenizer)
    assert set(found) == {0}, "the first windows lie in the first piece: no other piece's offsets are found"
    # A later window finds its own piece's offsets, and only those.
    last = result["window_count"] - 1
    late = result_of(ask(workspace, "analyze", {"doc": doc, "model": model, "chunk_size": 256, "overlap": 32,
                                                "first": last, "count": 1}))
    assert late["windows"] == expected_windows(text, 256, 32, tokenizer, first=last, count=1)
    assert 1 < len(set(found)) <= 3
    # Splitting reads every end: the chunks are those of split() on the text.
    chunks = result_of(ask(workspace, "split", {"doc": doc, "by": "paragraphs", "model": model, "chunk_size": "200",
                                                "overlap": "16"}))
    assert chunks["count"] == len(split(text, by="paragraphs", size=200, overlap=16, model=model).chunks)
    # A split with nothing counted before reads every span: found with the ids, in one pass.
    found.clear()
    workspace = Workspace()
    doc = load(workspace, text)
    again = result_of(ask(workspace, "split", {"doc": doc, "by": "paragraphs", "model": model, "chunk_size": "200",
                                               "overlap": "16"}))
    assert again["count"] == chunks["count"] and found == []


def test_export_is_the_cli_jsonl_of_the_last_split():
    from ragchunk import CharEstimate, split
    from ragchunk.results.records import to_jsonl

    workspace = Workspace()
    doc = load(workspace, SPLIT_DOC)
    assert result_of(ask(workspace, "split", {"doc": doc, "by": "paragraphs", "chunk_size": "128", "overlap": "16"}))
    exported = result_of(ask(workspace, "export", {"doc": doc}))
    assert exported["jsonl"] == to_jsonl(split(SPLIT_DOC, by="paragraphs", size=128, overlap=16))
    # Re-split with other settings, without sending the document again.
    payload = {"doc": doc, "by": "headings", "chunk_size": "256", "overlap": "0", "chars_per_token": "3"}
    assert result_of(ask(workspace, "split", payload))
    exported = result_of(ask(workspace, "export", {"doc": doc}))
    assert exported["jsonl"] == to_jsonl(split(SPLIT_DOC, by="headings", size=256, overlap=0, tokenizer=CharEstimate(3)))


def test_export_before_any_split_names_the_text():
    workspace = Workspace()
    doc = load(workspace, SPLIT_DOC)
    assert fields_of(ask(workspace, "export", {"doc": doc})) == ["text"]
    assert fields_of(ask(workspace, "chunks", {"doc": doc})) == ["text"]
    assert fields_of(ask(Workspace(), "export", {})) == ["text"]


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({"chunk_size": "0", "overlap": "0"}, ["chunk_size"]),
        ({"chunk_size": "x", "overlap": "-1"}, ["chunk_size", "overlap"]),
        ({"chunk_size": "64", "overlap": "64"}, ["overlap"]),
        ({"chunk_size": "64", "overlap": "8", "chars_per_token": "0"}, ["chars_per_token"]),
        ({"chunk_size": "64", "overlap": "8", "encoding": "gpt5"}, ["encoding"]),
        ({"chunk_size": "64", "overlap": "8", "by": "chapters"}, ["by"]),
        ({"chunk_size": "0", "overlap": "8", "by": "chapters"}, ["by", "chunk_size"]),
    ],
)
def test_split_settings_errors_name_every_bad_field(payload, fields):
    reply = split_reply(Workspace(), payload, SPLIT_DOC)
    assert reply["ok"] is False
    assert [e["field"] for e in reply["errors"]] == fields
    assert all(e["message"] for e in reply["errors"])


def test_split_of_a_binary_file_is_refused():
    reply = split_reply(Workspace(), {"chunk_size": "64", "overlap": "8", "name": "x.png"}, b"\x89PNG\r\n\x1a\n" + bytes(20))
    assert reply["ok"] is False and reply["errors"][0]["field"] == "file"
    assert "x.png is a PNG image" in reply["errors"][0]["message"]


def test_a_closed_request_changes_nothing_and_the_next_one_works():
    workspace = Workspace()
    doc = load(workspace, SPLIT_DOC * 3)
    steps = workspace.run("split", json.dumps({"doc": doc, "by": "sentences", "chunk_size": "16", "overlap": "0"}))
    assert next(steps)[0] in ("tokenizing", "splitting")
    steps.close()  # cancelled between steps
    assert fields_of(ask(workspace, "export", {"doc": doc})) == ["text"]  # no half-made split stands
    result = result_of(ask(workspace, "split", {"doc": doc, "by": "sentences", "chunk_size": "16", "overlap": "0"}))
    assert result["count"] > 0


def test_calculate_reads_the_decimal_comma_only_when_asked():
    form = {"unit": "chars", "doc": "10 000", "chars_per_token": "3,5", "chunk_size": "512", "overlap": "64", "price": "0,02"}
    ru = result_of(ask(Workspace(), "calculate", {**form, "decimal_comma": True}))
    assert ru == json.loads(json.dumps(plan(tokens_from_chars(10_000, 3.5), 512, 64, 0.02).to_json()))
    en = ask(Workspace(), "calculate", {**form, "doc": "10,000", "chars_per_token": "3.5", "price": "0.02"})
    assert result_of(en) == ru
    # Without the flag "," only groups thousands: "3,5" is refused, not read as 35.
    reply = ask(Workspace(), "calculate", {**form, "doc": "10000", "price": ""})
    assert [(e["field"], e["code"], e["params"]) for e in reply["errors"]] == [
        ("chars_per_token", "comma_not_grouping", {"value": "3,5", "example": "3.5"})]


def test_errors_carry_code_and_params_for_the_page():
    reply = ask(Workspace(), "calculate", {"unit": "tokens", "doc": "", "chunk_size": "2,5", "overlap": "9", "price": "",
                                         "decimal_comma": True})
    assert [(e["field"], e["code"], e["params"]) for e in reply["errors"]] == [
        ("doc_tokens", "empty", {}),
        ("chunk_size", "not_whole", {"value": "2,5", "unit": "tokens"}),
    ]
    assert reply["errors"][1]["message"] == "chunk size (2,5) must be a whole number of tokens: round it"
    file = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2}, b"\x89PNG\r\n\x1a\n" + bytes(20))["errors"][0]
    assert (file["code"], file["params"]) == ("not_text", {"name": "", "kind": "png", "what": "a PNG image"})
    assert file["message"].startswith("the file is a PNG image")
    # A PDF goes to the PDF reader, which says what is wrong with this one.
    pdf = ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2}, b"%PDF-1.7\n")["errors"][0]
    assert (pdf["field"], pdf["code"]) == ("file", "pdf_corrupt")


def test_split_reads_the_decimal_comma():
    reply = ask_about(Workspace(), "split", {"by": "paragraphs", "chunk_size": "64", "overlap": "0",
                                             "chars_per_token": "3,5", "decimal_comma": True}, "One.\n\nTwo.")
    assert result_of(reply)["tokenizer"] == "chars/3.5"


def test_notes_come_with_their_codes():
    data = "café".encode("latin-1") + b" and more text"
    result = result_of(ask_about(Workspace(), "analyze", {"chunk_size": 8, "overlap": 2, "name": "old.txt"}, data))
    assert result["note_details"] == [{"code": "not_utf8", "params": {"name": "old.txt", "count": 1},
                                       "message": result["notes"][0]}]


def test_split_reports_progress_by_stage():
    seen = []
    workspace = Workspace()
    doc = load(workspace, "One two three.\n\nFour five six.\n\nSeven.")
    payload = json.dumps({"doc": doc, "by": "paragraphs", "chunk_size": "8", "overlap": "0"})
    reply = json.loads(workspace.handle("split", payload, progress=lambda *a: seen.append(a)))
    assert reply["ok"] is True
    stages = [stage for stage, _, _ in seen]
    assert stages[0] == "tokenizing" and stages[-1] == "splitting"
    assert seen[-1][1] == seen[-1][2] == 38


def test_spec_names_the_protocol():
    assert result_of(ask(Workspace(), "spec"))["protocol"] == PROTOCOL_VERSION == 2


# --- many documents ---------------------------------------------------------------------

DOCS = sorted((Path(__file__).resolve().parents[1] / "data" / "md").glob("*.md"))


def test_a_corpus_splits_document_by_document_and_exports_like_the_cli(tmp_path):
    from ragchunk import split_corpus
    from ragchunk.options import SplitOptions

    workspace = Workspace()
    ids = []
    for doc in DOCS:
        loaded = result_of(ask(workspace, "load", {"name": doc.name, "source": f"docs/{doc.name}"}, doc.read_bytes()))
        ids.append(loaded["doc"])
        split = result_of(ask(workspace, "split", {"doc": loaded["doc"], "by": "headings", "chunk_size": "128",
                                                   "overlap": "16", "page_size": 0, "keep_prepared": False}))
        assert split["page"]["count"] == 0 and split["count"] > 0
        assert split["tokens"] == get_tokenizer().count(doc.read_text(encoding="utf-8"))
    exported = result_of(ask(workspace, "export", {"docs": ids}))["jsonl"]
    cli = "".join(r.jsonl for r in split_corpus([(f"docs/{d.name}", d.read_bytes()) for d in DOCS],
                                                 SplitOptions(size=128, overlap=16)))
    assert exported == cli
    corpus = result_of(ask(workspace, "corpus", {"docs": ids}))
    rows = [json.loads(line) for line in cli.splitlines()]
    assert corpus["documents"] == len(DOCS) and corpus["stats"]["chunks"] == len(rows)
    assert corpus["stats"]["total_tokens"] == sum(r.get("embed_tokens", r["tokens"]) for r in rows)
    assert corpus["stats"]["max_tokens"] == max(r.get("embed_tokens", r["tokens"]) for r in rows)
    # The chunks stay for paging even though the encodings were dropped.
    page = result_of(ask(workspace, "chunks", {"doc": ids[0], "first": 0, "count": 3}))
    assert page["count"] == 3 and page["start"] == [r["start"] for r in rows if r["source"] == f"docs/{DOCS[0].name}"][:3]


def test_langchain_documents_carry_the_records_as_metadata():
    workspace = Workspace()
    doc = load(workspace, DOCS[0].read_bytes(), DOCS[0].name)
    result_of(ask(workspace, "split", {"doc": doc, "chunk_size": "64", "overlap": "8", "context": "headings"}))
    documents = json.loads(result_of(ask(workspace, "export", {"doc": doc, "format": "langchain"}))["json"])
    rows = [json.loads(line) for line in result_of(ask(workspace, "export", {"doc": doc}))["jsonl"].splitlines()]
    assert len(documents) == len(rows)
    assert any("embed_text" in row for row in rows) and any("embed_text" not in row for row in rows)
    for document, row in zip(documents, rows, strict=True):
        # What to embed: the heading path and the chunk where it has context lines, else the chunk.
        assert document["page_content"] == row.get("embed_text", row["text"])
        assert document["metadata"]["start_index"] == row["start"]
        assert document["metadata"].get("text", document["page_content"]) == row["text"]
        assert document["metadata"]["heading_path"] == row["heading_path"]


@pytest.mark.parametrize(("name", "data", "paths"), [
    # HTML's visible text, as the reader writes it: "<div>" and "[a](b)" are what the page shows.
    ("div.html", b"<h1>&lt;div&gt;: the element</h1><p>" + b"Text. " * 40 + b"</p><h2>[a](b) &amp; c</h2><p>"
     + b"More. " * 40 + b"</p>", [["<div>: the element"], ["<div>: the element", "[a](b) & c"]]),
    # Markdown: what a reader of the rendered page sees.
    ("div.md", b"# <b>Bold</b> element\n\n" + b"Text. " * 40 + b"\n\n## [a](b) & c\n\n" + b"More. " * 40,
     [["Bold element"], ["Bold element", "a & c"]]),
])
def test_heading_names_are_read_as_markdown_only_in_markdown(name, data, paths):
    workspace = Workspace()
    page = result_of(split_reply(workspace, {"name": name, "chunk_size": "32", "overlap": "0"}, data))["page"]
    shown = [page["paths"][index] for index in page["path"]]
    assert sorted({tuple(p) for p in shown}) == sorted(tuple(p) for p in paths)
