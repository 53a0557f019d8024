"""The Arrow schema, split_batch, Parquet writing and the CLI's --format parquet."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from engine_corpus import DATA, FAILING, OPTIONS, PYCORE, SKIPPED, documents, expected_records
from ragchunk import split
from ragchunk.cli import main
from ragchunk.errors import RagchunkError
from ragchunk.integrations import require
from ragchunk.integrations._options import counter, split_options
from ragchunk.integrations.arrow import (
    ParquetWriter,
    document_records,
    records_of,
    schema,
    split_batch,
    table_of,
)
from ragchunk.options import SplitOptions
from ragchunk.results.records import FIELDS, Document, records

REAL = [(source, data) for source, data in documents() if source not in FAILING | SKIPPED]


def test_the_schema_is_the_record_fields_then_error_all_nullable():
    made = schema()
    assert made.names == [f.name for f in FIELDS] + ["error"]
    kinds = {"string": pa.string(), "integer": pa.int64(), "list<string>": pa.list_(pa.string()),
             "list<list<string>>": pa.list_(pa.list_(pa.string()))}
    assert [made.field(f.name).type for f in FIELDS] == [kinds[f.type] for f in FIELDS]
    assert made.field("error").type == pa.string()
    assert all(field.nullable for field in made)


def test_records_of_a_table_are_the_records_it_was_made_from():
    every = [record for source, data in REAL for record in expected_records(source, data)]
    optional = {key for record in every for key in record}
    assert {"title", "page_start", "page_end", "anchor"} <= optional  # the documents exercise them
    assert records_of(table_of(every)) == every


def test_a_batch_whose_chunks_have_no_heading_still_has_list_of_string():
    rows = list(records(split("No heading. Two sentences.", size=64, overlap=0)))
    assert pa.Table.from_pylist(rows).schema.field("heading_path").type == pa.list_(pa.null())  # what inference does
    assert table_of(rows).schema.field("heading_path").type == pa.list_(pa.string())


def test_a_key_outside_the_schema_is_refused():
    with pytest.raises(ValueError, match=r"record keys \['colour'\] are not columns"):
        table_of([{"id": 0, "colour": "red"}])


@pytest.mark.parametrize("kind", ["table", "record_batch", "pandas", "dict"])
def test_split_batch_gives_every_documents_records_in_order(kind):
    docs = documents()
    columns = {"source": [s for s, _ in docs], "text": [d for _, d in docs]}
    table = pa.table(columns)
    batch = {"table": table, "record_batch": table.to_batches()[0], "pandas": pd.DataFrame(columns),
             "dict": columns}[kind]
    made = split_batch(batch, on_error="record", **OPTIONS)
    assert made.schema == schema()
    assert records_of(made) == [record for source, data in docs for record in expected_records(source, data)]


def test_split_batch_takes_options_or_keywords_not_both():
    docs = pa.table({"source": ["a.md"], "text": ["# A\n\nOne."]})
    options = SplitOptions(size=64, overlap=0)
    assert split_batch(docs, options=options) == split_batch(docs, size=64, overlap=0)
    with pytest.raises(TypeError, match="give options or split keywords, not both"):
        split_batch(docs, options=options, size=64)
    with pytest.raises(RagchunkError, match=r"text_column \(body\) is not a column of the documents: choose one of "
                                            r"source, text"):
        split_batch(docs, text_column="body")


def test_documents_that_fail_by_mode():
    options = SplitOptions(**OPTIONS)
    assert document_records("n.md", 7, options, "skip") == []
    assert document_records("n.md", 7, options, "record") == [
        {"source": "n.md", "error": "the document is of type int, not text or bytes: put its text or bytes in the"
                                    " column"}]
    # A failure of the split itself (a size smaller than one character needs) is the library's message.
    with pytest.raises(RagchunkError, match=r"^tiny\.md: ") as caught:
        document_records("tiny.md", "🤯" * 3, SplitOptions(size=1, overlap=0), "raise")
    assert caught.value.field == "chunk_size"
    assert document_records("image.png", documents()[-2][1], options, "record") == []  # not a document: no rows


def test_parquet_writer_rows_are_the_records_in_order(tmp_path):
    every = [record for source, data in REAL for record in expected_records(source, data)]
    writer = ParquetWriter(tmp_path / "out.parquet", group_rows=50)
    for start in range(0, len(every), 30):
        writer.write(every[start:start + 30])
    writer.close()
    read = pq.ParquetFile(tmp_path / "out.parquet")
    assert read.metadata.num_row_groups > 1 and read.schema_arrow == schema()
    assert records_of(read.read()) == every


def test_cli_parquet_rows_equal_the_jsonl_rows(tmp_path, capsys):
    args = ["split", str(DATA / "md"), str(DATA / "docs" / "guide.html"), "--size", "128", "--overlap", "16",
            "--jobs", "1"]
    assert main([*args, "-o", str(tmp_path / "out.jsonl")]) == 0
    assert main([*args, "-o", str(tmp_path / "out.parquet")]) == 0
    assert main([*args, "--format", "parquet", "-o", str(tmp_path / "named.data")]) == 0
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(lines) > 50
    assert records_of(pq.read_table(tmp_path / "out.parquet")) == lines
    assert records_of(pq.read_table(tmp_path / "named.data")) == lines
    assert main([*args, "--format", "jsonl", "-o", str(tmp_path / "plain.parquet")]) == 0
    assert (tmp_path / "plain.parquet").read_text(encoding="utf-8") == (tmp_path / "out.jsonl").read_text(
        encoding="utf-8")


def test_cli_parquet_needs_a_file(tmp_path, capsys):
    args = ["split", str(DATA / "md"), "--size", "128", "--overlap", "16"]
    assert main([*args, "--format", "parquet"]) == 2
    assert "ragchunk: error: --format: parquet is written to a file, not standard output" in capsys.readouterr().err
    assert main([*args, "-o", str(tmp_path / "no" / "out.parquet")]) == 2
    assert "-o: OUT (" in capsys.readouterr().err


def test_require_names_the_extra(tmp_path, monkeypatch):
    with pytest.raises(RagchunkError, match=r'^ragchunk_no_engine is not installed: pip install "ragchunk\[spark\]"$'):
        require("ragchunk_no_engine", "spark")
    # An engine that is there but lacks something of its own says what is missing.
    (tmp_path / "ragchunk_half_engine.py").write_text("import ragchunk_missing_dependency\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RagchunkError, match=r"^ragchunk_half_engine cannot be imported \(ragchunk_missing_dependency"
                                            r' is missing\): pip install "ragchunk\[ray\]"$'):
        require("ragchunk_half_engine", "ray")


def test_split_options_are_the_librarys():
    assert split_options(model="bge-small-en-v1.5") == SplitOptions(model="bge-small-en-v1.5")
    assert counter(split_options(tokenizer="o200k_base"))("hello world") == 2
    with pytest.raises(TypeError):
        split_options(chunk_size=10)


def test_importing_the_adapters_loads_no_engine():
    code = ("import sys, ragchunk, ragchunk.integrations.ray, ragchunk.integrations.spark, "
            "ragchunk.integrations.langchain, ragchunk.integrations.llama_index, ragchunk.integrations.arrow;"
            "print([m for m in ('ray', 'pyspark', 'pyarrow', 'pandas', 'langchain_text_splitters', 'langchain_core',"
            " 'llama_index') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={"PYTHONPATH": str(PYCORE), "PATH": "/usr/bin:/bin"})
    assert done.stdout.strip() == "[]"


def test_records_have_the_document_fields_the_schema_holds():
    record = next(records(split("One.", size=8, overlap=0), Document("a.md", "One.", title="T")))
    assert set(record) <= set(schema().names)
