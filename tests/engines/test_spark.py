"""Spark: split_dataframe's rows are the library's records, and Spark reads the Ray path's Parquet."""

from __future__ import annotations

import pytest
from engine_corpus import FAILING, HOSTILE, OPTIONS, SKIPPED, assert_library_records, documents, expected_records, rows_by_source
from ragchunk.errors import RagchunkError
from ragchunk.integrations.spark import spark_schema, split_dataframe


def frame(spark, docs, partitions: int = 2):
    return spark.createDataFrame(docs, "source string, text binary").repartition(partitions)


def rows(df) -> dict[str, list[dict]]:
    return rows_by_source([row.asDict(recursive=True) for row in df.collect()])


def test_every_row_is_the_record_the_library_gives_for_its_document(spark):
    docs = documents()
    chunks = split_dataframe(frame(spark, docs), on_error="record", **OPTIONS)
    assert chunks.schema == spark_schema()
    grouped = rows(chunks)
    assert_library_records(grouped, docs)


def test_a_text_column_without_sources(spark):
    texts = [data.decode("utf-8") for _, data in documents()[:3]]
    df = spark.createDataFrame([(text, "ignored") for text in texts], "body string, other string").coalesce(1)
    grouped = rows(split_dataframe(df, text_column="body", source_column=None, **OPTIONS))
    assert list(grouped) == [""]
    assert grouped[""] == [record for text in texts for record in expected_records("", text)]


def test_skip_and_raise(spark):
    grouped = rows(split_dataframe(frame(spark, documents()), on_error="skip", **OPTIONS))
    assert set(grouped) == {source for source, _ in documents()} - SKIPPED - FAILING
    docs = [(source, data) for source, data in documents() if source not in {"missing.md", *HOSTILE}]
    with pytest.raises(Exception, match=r"RagchunkError: scan\.pdf has no text layer: run OCR first"):
        split_dataframe(frame(spark, docs), on_error="raise", **OPTIONS).collect()


def test_spark_reads_the_parquet_folder_the_ray_path_wrote(spark, ray_parquet_folder):
    table = spark.read.parquet(str(ray_parquet_folder))
    assert table.schema["heading_path"].dataType.simpleString() == "array<string>"
    grouped = rows(table)
    for source, data in documents():
        if source not in SKIPPED:
            assert grouped[source] == expected_records(source, data), source


def test_settings_and_columns_are_checked_on_the_driver(spark):
    df = frame(spark, documents()[:2])
    with pytest.raises(RagchunkError, match=r"source_column \(path\) is not a column of the documents: choose one"
                                            r" of source, text"):
        split_dataframe(df, source_column="path")
    with pytest.raises(RagchunkError, match=r"by \(pages\) is not known"):
        split_dataframe(df, by="pages")
