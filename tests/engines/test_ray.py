"""Ray Data: split_dataset's rows are the library's records, document by document."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from engine_corpus import FAILING, HOSTILE, OPTIONS, SKIPPED, assert_library_records, documents, expected_records, rows_by_source
from ragchunk.errors import RagchunkError
from ragchunk.integrations.arrow import schema
from ragchunk.integrations.ray import split_dataset


def dataset(ray, docs, blocks: int = 3):
    return ray.data.from_items([{"source": source, "text": data} for source, data in docs],
                               override_num_blocks=blocks)


def test_every_row_is_the_record_the_library_gives_for_its_document(ray_session):
    docs = documents()
    chunks = split_dataset(dataset(ray_session, docs), on_error="record", batch_size=4, **OPTIONS).materialize()
    assert chunks.schema().base_schema == schema()
    grouped = rows_by_source(chunks.take_all())
    assert_library_records(grouped, docs)
    pages = [row for row in grouped["outline.pdf"] if "page_start" in row]
    assert pages and grouped["guide.html"][0]["title"]  # optional fields made it through


def test_a_text_column_without_sources(ray_session):
    texts = [(path, data.decode("utf-8")) for path, data in documents()[:3]]
    items = [{"body": text} for _, text in texts]
    chunks = split_dataset(ray_session.data.from_items(items, override_num_blocks=1), text_column="body",
                           source_column=None, **OPTIONS)
    rows = rows_by_source(chunks.take_all())
    assert list(rows) == [""]  # source is null in every row
    assert rows[""] == [record for _, text in texts for record in expected_records("", text)]


def test_skip_leaves_out_the_documents_that_fail(ray_session):
    rows = rows_by_source(split_dataset(dataset(ray_session, documents()), on_error="skip", **OPTIONS).take_all())
    assert set(rows) == {source for source, _ in documents()} - SKIPPED - FAILING
    assert all("error" not in row for group in rows.values() for row in group)


def test_raise_stops_the_job_naming_the_document(ray_session):
    docs = [(source, data) for source, data in documents() if source not in {"missing.md", *HOSTILE}]
    with pytest.raises(Exception, match=r"RagchunkError: scan\.pdf has no text layer: run OCR first"):
        split_dataset(dataset(ray_session, docs), on_error="raise", **OPTIONS).materialize()
    with pytest.raises(Exception, match=r"RagchunkError: missing\.md: the document is null"):
        split_dataset(dataset(ray_session, documents()[-3:]), on_error="raise", **OPTIONS).materialize()


def test_blocks_whose_chunks_have_no_heading_keep_the_one_schema(ray_parquet_folder):
    files = sorted(ray_parquet_folder.glob("*.parquet"))
    assert len(files) > 1
    assert all(pq.read_schema(path).field("heading_path").type.value_type == "string" for path in files)
    first = pq.read_table(files[0]).to_pylist()
    # The folder starts with the document that has no heading, whose rows alone would infer list<null>.
    assert {row["source"] for row in first} == {"plain.txt"} and all(row["heading_path"] == [] for row in first)


def test_settings_and_columns_are_checked_before_anything_runs(ray_session):
    docs = dataset(ray_session, documents()[:2])
    with pytest.raises(RagchunkError, match=r"overlap \(16\) must be smaller than chunk size \(16\)"):
        split_dataset(docs, size=16, overlap=16)
    with pytest.raises(RagchunkError, match=r"text_column \(body\) is not a column of the documents: choose one of"
                                            r" source, text"):
        split_dataset(docs, text_column="body")
    with pytest.raises(RagchunkError, match=r"on_error \(ignore\) is not known"):
        split_dataset(docs, on_error="ignore")
