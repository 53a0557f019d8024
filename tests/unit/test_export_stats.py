"""ragchunk.results.records (the record schema, JSONL) and ragchunk.packing.stats (sizes, overlap cost, histogram)."""

from __future__ import annotations

import json
import statistics
from itertools import pairwise
from pathlib import Path

import pytest
from ragchunk import CharEstimate, RagchunkError, compute_stats, format_stats, plan, split, to_jsonl
from ragchunk.results.records import FIELDS, chunk_record
from ragchunk.packing.stats import bin_edges
from test_calculator import BAD_COUNTS

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "tests" / "data" / "md" / "tiktoken-js-README.md").read_text(encoding="utf-8")


# --- JSONL -------------------------------------------------------------------------------


def test_jsonl_has_one_object_per_chunk_with_exactly_the_keys():
    result = split(DOC, by="headings", size=128, overlap=16)
    data = to_jsonl(result)
    assert data.endswith("\n")
    lines = data.split("\n")[:-1]
    assert len(lines) == len(result.chunks)
    for line, chunk in zip(lines, result.chunks):
        record = json.loads(line)
        always = tuple(f.name for f in FIELDS if f.always)
        assert always == ("id", "text", "heading", "heading_path", "tokens", "start", "end", "content_start",
                          "overlap_tokens", "tokenizer")
        # A piece of a cut table also says what to embed (its header row, then its text).
        assert tuple(record) == always + (("embed_text", "embed_tokens") if chunk.embed_text else ())
        assert record == chunk_record(chunk, "cl100k_base")
        assert record["text"] == DOC[record["start"] : record["end"]]
        assert record["heading_path"] == list(chunk.heading_path)
        assert record["tokenizer"] == "cl100k_base"


def test_jsonl_keeps_unicode_and_names_the_estimate():
    result = split("# Заголовок\n\nТекст 👍🏽 日本語。", size=100, overlap=0, tokenizer=CharEstimate(2.5))
    data = to_jsonl(result)
    assert "Заголовок" in data and "👍🏽" in data and "\\u" not in data
    assert json.loads(data)["tokenizer"] == "chars/2.5"


def test_jsonl_escapes_what_line_splitters_break_on():
    text = "a\u2028b\u2029c\u0085d\x1ce\nf\r\ng"
    data = to_jsonl(split(text, size=100, overlap=0))
    assert data.count("\n") == 1
    assert len(data.splitlines()) == 1
    assert json.loads(data)["text"] == text


def test_jsonl_of_no_chunks_is_empty():
    assert to_jsonl(split("   ", size=10, overlap=0)) == ""


def test_jsonl_is_identical_across_runs():
    first = to_jsonl(split(DOC, by="sentences", size=64, overlap=8))
    assert first == to_jsonl(split(DOC, by="sentences", size=64, overlap=8))


# --- statistics --------------------------------------------------------------------------


def test_stats_of_a_split():
    result = split(DOC, by="paragraphs", size=100, overlap=20)
    tokens = [c.embed_tokens if c.embed_text else c.tokens for c in result.chunks]  # what is embedded
    assert tokens != [c.tokens for c in result.chunks], "DOC has a cut table: its pieces carry the header"
    overlaps = [c.overlap_tokens for c in result.chunks]
    stats = result.stats
    assert stats.chunks == len(tokens)
    assert (stats.min_tokens, stats.max_tokens) == (min(tokens), max(tokens))
    assert stats.mean_tokens == pytest.approx(statistics.mean(tokens))
    assert stats.median_tokens == statistics.median(tokens)
    assert stats.total_tokens == sum(tokens)
    assert stats.overlap_tokens == sum(overlaps) > 0
    assert stats.overlap_percent == pytest.approx(sum(overlaps) / sum(tokens) * 100)
    assert stats.size == 100
    assert [(b.low, b.high) for b in stats.histogram] == bin_edges(100)
    assert sum(b.count for b in stats.histogram) == len(tokens)
    for b in stats.histogram:
        assert b.count == sum(b.low <= t <= b.high for t in tokens)


@pytest.mark.parametrize("size", [1, 2, 7, 10, 11, 99, 512, 8191])
def test_bins_tile_one_to_size(size):
    edges = bin_edges(size)
    assert len(edges) == min(10, size)
    assert edges[0][0] == 1 and edges[-1][1] == size
    assert all(a[1] + 1 == b[0] for a, b in pairwise(edges))
    assert all(low <= high for low, high in edges)


def test_stats_json_is_plain_json():
    stats = split(DOC, size=256, overlap=32).stats
    data = stats.to_json()
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["chunks", "min_tokens", "mean_tokens", "median_tokens", "max_tokens", "total_tokens",
                          "overlap_tokens", "overlap_percent", "size", "histogram"]
    assert data["histogram"][0] == {"low": 1, "high": 26, "count": stats.histogram[0].count}


def test_stats_of_nothing():
    stats = compute_stats([], [], 64)
    assert (stats.chunks, stats.min_tokens, stats.max_tokens, stats.total_tokens) == (0, 0, 0, 0)
    assert (stats.mean_tokens, stats.median_tokens, stats.overlap_percent) == (0.0, 0, 0.0)
    assert [b.count for b in stats.histogram] == [0] * 10
    assert "chunks          0" in format_stats(stats)


@pytest.mark.parametrize("size", BAD_COUNTS, ids=repr)
def test_a_bad_size_is_refused_as_plan_refuses_a_bad_chunk_size(size):
    with pytest.raises(RagchunkError) as caught:
        compute_stats([100, 50], [0, 10], size)
    with pytest.raises(RagchunkError) as plans:
        plan(1_000, size, 0)
    assert caught.value.to_json() == plans.value.to_json()
    assert caught.value.field == "chunk_size"


@pytest.mark.parametrize("bins", BAD_COUNTS, ids=repr)
def test_bad_bins_are_refused_in_plan_s_words(bins):
    # Before, 0, negative counts and True drew one bin, and 1.5 or "10" failed inside the
    # histogram with a TypeError that named nothing.
    with pytest.raises(RagchunkError) as caught:
        compute_stats([100, 50], [0, 10], 128, bins=bins)
    error = caught.value
    assert error.field == "bins"
    assert error.code in {"not_a_number", "too_small", "too_large", "not_whole"}
    with pytest.raises(RagchunkError) as plans:
        plan(1_000, bins, 0)
    # The same sentence as plan's for its chunk size, with the field's own name and unit.
    assert str(error).removeprefix("histogram bins") == str(plans.value).removeprefix("chunk size").replace(
        "of tokens", "of bins")


def test_bins_are_the_most_the_histogram_has():
    assert len(compute_stats([5], [0], 128, bins=4).histogram) == 4
    assert len(compute_stats([5], [0], 3, bins=4).histogram) == 3
    assert len(compute_stats([5], [0], 128, bins=4.0).histogram) == 4  # a whole float, as plan takes it
    with pytest.raises(RagchunkError, match=r"^histogram bins \(0\) must be at least 1: enter a larger number$"):
        compute_stats([5], [0], 128, bins=0)


def test_a_size_of_zero_makes_no_histogram():
    with pytest.raises(RagchunkError) as caught:
        compute_stats([3, 4], [0, 1], 0)
    assert str(caught.value) == "chunk size (0) must be at least 1: enter a larger number"


def test_format_stats_is_readable():
    text = format_stats(compute_stats([10, 20, 30, 64], [0, 5, 5, 5], 64), "cl100k_base")
    lines = text.splitlines()
    assert lines[0] == "chunks          4 (tokens by cl100k_base)"
    assert lines[1] == "tokens          min 10, mean 31.0, median 25, max 64 (target 64)"
    assert lines[2] == "total           124 tokens embedded"
    assert lines[3] == "overlap         15 tokens (12.1 % of the total)"
    assert lines[4].startswith("histogram")
    assert len(lines) == 4 + 10
