"""RagchunkNodeParser against the installed llama-index-core, compared with ragchunk.split."""

from __future__ import annotations

import pickle

import pytest
from engine_corpus import DATA
from llama_index.core import Document
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode
from ragchunk import split
from ragchunk.errors import RagchunkError
from ragchunk.integrations.llama_index import RagchunkNodeParser
from ragchunk.results.records import records

TEXTS = {path.name: path.read_text(encoding="utf-8") for path in sorted((DATA / "md").glob("*.md"))}


def documents() -> list[Document]:
    return [Document(text=text, metadata={"file_name": name}, id_=name) for name, text in TEXTS.items()]


def test_nodes_are_the_librarys_chunks_with_offsets_metadata_and_neighbours():
    parser = RagchunkNodeParser(chunk_size=128, chunk_overlap=16, by="sentences")
    assert isinstance(parser, NodeParser)
    nodes = parser.get_nodes_from_documents(documents())
    at = 0
    for name, text in TEXTS.items():
        result = split(text, size=128, overlap=16, by="sentences")
        chunks, made = result.chunks, list(records(result))
        mine = nodes[at:at + len(chunks)]
        at += len(chunks)
        assert [n.text for n in mine] == [c.text for c in chunks]
        for i, (node, chunk, record) in enumerate(zip(mine, chunks, made, strict=True)):
            assert (node.start_char_idx, node.end_char_idx) == (chunk.start, chunk.end)
            assert text[node.start_char_idx:node.end_char_idx] == node.text
            assert node.metadata == {"file_name": name, "heading": chunk.heading,
                                     "heading_path": list(chunk.heading_path), "tokens": chunk.tokens,
                                     "overlap_tokens": chunk.overlap_tokens,
                                     **{key: record[key] for key in ("embed_text", "embed_tokens", "sections") if key in record}}
            assert node.ref_doc_id == name
            previous = node.relationships.get(NodeRelationship.PREVIOUS)
            following = node.relationships.get(NodeRelationship.NEXT)
            assert (previous.node_id if previous else None) == (mine[i - 1].node_id if i else None)
            assert (following.node_id if following else None) == (mine[i + 1].node_id if i + 1 < len(mine) else None)
    assert at == len(nodes)


def test_offsets_are_exact_where_the_text_repeats():
    text = "a " * 60
    nodes = RagchunkNodeParser(chunk_size=50, chunk_overlap=0).get_nodes_from_documents([Document(text=text)])
    chunks = split(text, size=50, overlap=0).chunks
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in chunks]
    # What LlamaIndex's own look-up (str.find after the previous node's start) would have said instead.
    assert text.find(nodes[1].text, nodes[0].start_char_idx + 1) != nodes[1].start_char_idx


def test_chunk_metadata_stays_out_of_what_is_embedded():
    node = RagchunkNodeParser(chunk_size=128, chunk_overlap=16).get_nodes_from_documents(documents()[:1])[0]
    embedded = node.get_content(metadata_mode=MetadataMode.EMBED)
    assert "file_name: " in embedded and "tokens: " not in embedded and "heading_path: " not in embedded
    assert node.get_content(metadata_mode=MetadataMode.NONE) == node.text


def test_model_text_nodes_pipelines_and_copies():
    text = TEXTS["ws-README.md"]
    parser = RagchunkNodeParser(model="bge-small-en-v1.5", chunk_overlap=32)
    expected = [c.text for c in split(text, model="bge-small-en-v1.5", overlap=32).chunks]
    assert [n.text for n in parser([TextNode(text=text)])] == expected
    assert [n.text for n in IngestionPipeline(transformations=[parser]).run(documents=[Document(text=text)])] \
        == expected
    assert [n.text for n in pickle.loads(pickle.dumps(parser))([TextNode(text=text)])] == expected
    smaller = parser.model_copy(update={"chunk_size": 100})
    assert [n.text for n in smaller([TextNode(text=text)])] == [
        c.text for c in split(text, model="bge-small-en-v1.5", size=100, overlap=32).chunks]


def test_bad_settings_raise_ragchunk_errors():
    with pytest.raises(RagchunkError, match=r"overlap \(10\) must be smaller than chunk size \(10\)"):
        RagchunkNodeParser(chunk_size=10, chunk_overlap=10)
    with pytest.raises(RagchunkError, match="bge-small-en-v1.5"):
        RagchunkNodeParser(model="bge-small-en-v1.5", chunk_size=100_000)
