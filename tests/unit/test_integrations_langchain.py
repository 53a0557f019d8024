"""RagchunkTextSplitter against the installed langchain-text-splitters, compared with ragchunk.split."""

from __future__ import annotations

import pickle

import pytest
from engine_corpus import DATA
from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter
from ragchunk import CharEstimate, split
from ragchunk.errors import RagchunkError
from ragchunk.integrations.langchain import RagchunkTextSplitter
from ragchunk.results.records import records

TEXTS = {path.name: path.read_text(encoding="utf-8") for path in sorted((DATA / "md").glob("*.md"))}
SETTINGS = [
    {"chunk_size": 128, "chunk_overlap": 16},
    {"chunk_size": 64, "chunk_overlap": 8, "by": "sentences"},
    {"chunk_size": 200, "chunk_overlap": 0, "by": "paragraphs", "tokenizer": CharEstimate(4)},
    {"chunk_overlap": 32, "model": "bge-small-en-v1.5"},
]


def library(text: str, settings: dict):
    return split(text, size=settings.get("chunk_size"), overlap=settings["chunk_overlap"],
                 by=settings.get("by", "headings"), tokenizer=settings.get("tokenizer"), model=settings.get("model"))


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(map(str, s.values())))
def test_split_text_and_create_documents_are_the_librarys_chunks(settings):
    splitter = RagchunkTextSplitter(**settings)
    assert isinstance(splitter, TextSplitter)
    for name, text in TEXTS.items():
        result = library(text, settings)
        assert splitter.split_text(text) == [chunk.text for chunk in result.chunks], name
        made = splitter.create_documents([text], [{"source": name}])
        assert [d.page_content for d in made] == [chunk.text for chunk in result.chunks]
        for document, chunk, record in zip(made, result.chunks, records(result), strict=True):
            assert text[chunk.start:chunk.start + len(document.page_content)] == document.page_content
            optional = {key: record[key] for key in ("model", "embed_text", "embed_tokens", "sections") if key in record}
            assert document.metadata == {"source": name, "heading": chunk.heading,
                                         "heading_path": list(chunk.heading_path), "start_index": chunk.start,
                                         "tokens": chunk.tokens, "overlap_tokens": chunk.overlap_tokens, **optional}
        if "model" in settings:
            assert {d.metadata["model"] for d in made} == {"bge-small-en-v1.5"}


def test_start_index_is_exact_where_the_text_repeats():
    text = "Same words again. " * 40
    made = RagchunkTextSplitter(chunk_size=12, chunk_overlap=0, by="sentences").create_documents([text])
    assert len({d.page_content for d in made}) < len(made)  # repeated chunks: searching for them is ambiguous
    starts = [d.metadata["start_index"] for d in made]
    assert starts == [chunk.start for chunk in split(text, size=12, overlap=0, by="sentences").chunks]
    assert all(text[s:s + len(d.page_content)] == d.page_content for s, d in zip(starts, made, strict=True))


def test_split_documents_and_transform_documents_keep_each_documents_metadata():
    splitter = RagchunkTextSplitter(chunk_size=128, chunk_overlap=16)
    sources = [Document(page_content=text, metadata={"source": name, "tags": ["docs"]}) for name, text in TEXTS.items()]
    split_up = splitter.split_documents(sources)
    assert splitter.transform_documents(sources) == split_up
    assert [d.metadata["source"] for d in split_up] == [name for name, text in TEXTS.items()
                                                        for _ in split(text, size=128, overlap=16).chunks]
    split_up[0].metadata["tags"].append("changed")  # each chunk has its own copy
    assert sources[0].metadata["tags"] == ["docs"] and split_up[1].metadata["tags"] == ["docs"]


def test_bad_settings_and_texts_raise_ragchunk_errors():
    with pytest.raises(RagchunkError, match=r"overlap \(64\) must be smaller than chunk size \(64\)"):
        RagchunkTextSplitter(chunk_size=64, chunk_overlap=64)
    with pytest.raises(RagchunkError, match=r"by \(pages\) is not known"):
        RagchunkTextSplitter(by="pages")
    with pytest.raises(RagchunkError, match="unpaired surrogate"):
        RagchunkTextSplitter().split_text("bad \ud800 text")


def test_from_tiktoken_encoder_counts_that_encoding_and_pickling_keeps_the_settings():
    text = TEXTS["ws-README.md"]
    splitter = RagchunkTextSplitter.from_tiktoken_encoder(encoding_name="o200k_base", chunk_size=100, chunk_overlap=10)
    assert splitter.split_text(text) == [c.text for c in split(text, size=100, overlap=10, tokenizer="o200k_base").chunks]
    again = pickle.loads(pickle.dumps(splitter))
    assert again.split_text(text) == splitter.split_text(text) and again._length_function("hello world") == 2
    with pytest.raises(RagchunkError, match="model_name"):
        RagchunkTextSplitter.from_tiktoken_encoder(model_name="gpt-4")
