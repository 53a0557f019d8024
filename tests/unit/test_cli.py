"""ragchunk.cli: ``python -m ragchunk calc | tokens | preview``."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ragchunk import get_tokenizer, plan, split, tokens_from_chars, windows
from ragchunk.cli import main
from ragchunk.cli.forms import FLAGS
from ragchunk.options.fields import FormErrors, read_calc_form
from ragchunk.models import get_model

ROOT = Path(__file__).resolve().parents[2]
CALC_KEYS = ["doc_tokens", "chunk_size", "overlap", "chunks", "total_tokens", "repeated_tokens", "repeated_share",
             "extra_share", "cost"]
TEXT = "Fixed windows over a text. Привет, мир! 👍🏽 नमस्ते दुनिया। 日本語の文章。\n" * 8


class FakeStdin:
    """Like sys.stdin: text on top, the raw bytes in ``.buffer``."""

    def __init__(self, data: bytes) -> None:
        self.buffer = io.BytesIO(data)

    def read(self) -> str:
        raise AssertionError("the CLI must read the bytes, not the decoded text")


def run(capsys, *argv: str, stdin=None) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(list(argv), out=out, stdin=stdin)
    captured = capsys.readouterr()
    assert captured.out == ""  # everything goes to ``out``
    return code, out.getvalue(), captured.err


def assert_usage_error(code: int, out: str, err: str, *names: str, exit_code: int = 2) -> str:
    assert code == exit_code
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert err.endswith("\n")
    assert lines[0].startswith("ragchunk: error: ")
    for name in names:
        assert name in lines[0]
    return lines[0]


# --- calc -----------------------------------------------------------------------------


def test_calc_json_keys_and_values(capsys):
    code, out, err = run(capsys, "calc", "--tokens", "10,000", "--size", "512", "--overlap", "64", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert list(data) == CALC_KEYS
    expected = plan(10_000, 512, 64).to_json()
    assert data == {key: expected[key] for key in CALC_KEYS}
    assert (data["chunks"], data["total_tokens"], data["repeated_tokens"], data["cost"]) == (23, 11_408, 1_408, None)


def test_calc_json_with_price(capsys):
    code, out, _ = run(capsys, "calc", "--tokens", "10000", "--size", "512", "--overlap", "64", "--price", "0.02",
                       "--json")
    assert code == 0
    assert json.loads(out)["cost"] == pytest.approx(11_408 / 1e6 * 0.02, rel=1e-12)


@pytest.mark.parametrize(("chars", "ratio"), [("40000", None), ("40,000", "4"), ("1000", "2.5"), ("7", "3.5")])
def test_calc_chars(capsys, chars, ratio):
    argv = ["calc", "--chars", chars, "--size", "512", "--overlap", "64", "--json"]
    if ratio is not None:
        argv += ["--chars-per-token", ratio]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    expected = tokens_from_chars(int(chars.replace(",", "")), float(ratio or 4))
    assert json.loads(out)["doc_tokens"] == expected


def test_calc_text_output(capsys):
    code, out, err = run(capsys, "calc", "--tokens", "10000", "--size", "512", "--overlap", "64")
    assert (code, err) == (0, "")
    assert "23 (last one 144 tokens)" in out
    assert "11,408 tokens" in out
    assert "1,408 tokens (12.3 % of the total)" in out
    assert "14.1 % more than the document" in out
    assert "cost" not in out


def test_calc_text_output_with_cost(capsys):
    code, out, _ = run(capsys, "calc", "--tokens", "10000", "--size", "512", "--overlap", "64", "--price", "20")
    assert code == 0
    cost_lines = [line for line in out.splitlines() if line.startswith("cost")]
    assert cost_lines == [f"cost            {11_408 / 1e6 * 20:,.6f} at 20 per million tokens"]


CALC = ["calc", "--tokens", "10000", "--size", "512", "--overlap", "64"]


def replaced(flag: str, value: str) -> list[str]:
    argv = list(CALC)
    argv[argv.index(flag) + 1] = value
    return argv


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (replaced("--size", "0"), "--size"),
        (replaced("--size", "abc"), "--size"),
        (replaced("--size", "51.5"), "--size"),
        (replaced("--size", "1e15"), "--size"),
        (replaced("--overlap", "512"), "--overlap"),
        (replaced("--overlap", "600"), "--overlap"),
        (replaced("--overlap", "-1"), "--overlap"),
        (replaced("--tokens", "abc"), "--tokens"),
        (replaced("--tokens", "0"), "--tokens"),
        (replaced("--tokens", "1e15"), "--tokens"),
        (replaced("--tokens", ""), "--tokens"),
        (CALC + ["--price", "-1"], "--price"),
        (CALC + ["--price", "nan"], "--price"),
        (CALC + ["--price", "1e9"], "--price"),
        (["calc", "--chars", "abc", "--size", "512", "--overlap", "64"], "--chars"),
        (["calc", "--chars", "4e15", "--size", "512", "--overlap", "64"], "--chars"),
        (["calc", "--chars", "40000", "--chars-per-token", "0", "--size", "512", "--overlap", "64"],
         "--chars-per-token"),
        (["calc", "--chars", "40000", "--chars-per-token", "x", "--size", "512", "--overlap", "64"],
         "--chars-per-token"),
        (["calc", "--chars", "4000000000000", "--chars-per-token", "0.5", "--size", "512", "--overlap", "64"],
         "--chars"),
        (["calc", "--tokens", "1000000000000", "--size", "10000000", "--overlap", "9999999"], "--overlap"),
    ],
)
def test_calc_bad_values(capsys, argv, flag):
    line = assert_usage_error(*run(capsys, *argv), flag)
    assert line.startswith(f"ragchunk: error: {flag}: ")


def form_messages(form: dict[str, str]) -> list[str]:
    """What the library says of each bad field of a calculator form, in the form's order."""
    with pytest.raises(FormErrors) as caught:
        read_calc_form(form)
    return [f"ragchunk: error: {FLAGS[e.field]}: {e.message}" for e in caught.value.errors]


@pytest.mark.parametrize(
    ("flags", "form"),
    [
        (["--tokens", "x", "--size", "0", "--overlap", "y", "--price", "-2"],
         {"doc": "x", "chunk_size": "0", "overlap": "y", "price": "-2"}),
        (["--tokens", "1000", "--size", "0", "--overlap", "-1", "--price", "x"],
         {"doc": "1000", "chunk_size": "0", "overlap": "-1", "price": "x"}),
        (["--chars", "abc", "--chars-per-token", "0", "--size", "10", "--overlap", "10", "--docs", "0"],
         {"unit": "chars", "doc": "abc", "chars_per_token": "0", "chunk_size": "10", "overlap": "10", "documents": "0"}),
    ],
)
def test_calc_says_every_bad_value_one_line_each(capsys, flags, form):
    code, out, err = run(capsys, "calc", *flags)
    expected = form_messages({"unit": "tokens", "chars_per_token": "4", "price": "", **form})
    assert len(expected) >= 3
    assert (code, out, err.splitlines()) == (2, "", expected)


def test_calc_of_files_says_every_bad_value(capsys, text_file):
    code, out, err = run(capsys, "calc", str(text_file), "--size", "0", "--overlap", "-1", "--price", "x")
    assert (code, out) == (2, "")
    assert [line.split(":")[2].strip() for line in err.splitlines()] == ["--size", "--overlap", "--price"]


def test_calc_says_the_model_limit_with_the_other_bad_values(capsys):
    code, out, err = run(capsys, "calc", "--tokens", "x", "--model", "all-MiniLM-L6-v2", "--size", "300",
                         "--overlap", "300")
    assert (code, out) == (2, "")
    flags = [line.split(":")[2].strip() for line in err.splitlines()]
    assert flags == ["--size", "--tokens", "--overlap"]
    assert "too large for all-MiniLM-L6-v2" in err.splitlines()[0]


def test_calc_says_a_bad_size_once_with_a_model(capsys):
    code, _, err = run(capsys, "calc", "--tokens", "5", "--model", "all-MiniLM-L6-v2", "--size", "x",
                       "--overlap", "-3")
    assert code == 2
    assert [line.split(":")[2].strip() for line in err.splitlines()] == ["--size", "--overlap"]


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (["calc", "--tokens", "1", "--overlap", "0"], ["--size"]),
        (["calc", "--tokens", "1", "--size", "2"], ["--overlap"]),
        (["calc", "--size", "512", "--overlap", "64"], ["PATH", "--tokens", "--chars"]),
        (["calc", "x.md", "--tokens", "5", "--size", "512", "--overlap", "64"], ["PATH", "--tokens"]),
        (["calc", "--tokens", "1", "--chars", "4", "--size", "512", "--overlap", "64"], ["--tokens", "--chars"]),
        (["calc", "--tokens", "1", "--size", "2", "--overlap", "0", "--bogus"], ["--bogus"]),
        ([], ["command"]),
        (["bogus"], ["bogus"]),
        (["split"], ["PATH"]),
        (["preview", "x.txt", "--size", "3", "--overlap", "1", "--encoding", "gpt2"], ["--encoding", "gpt2"]),
        (["preview", "x.txt", "--overlap", "1"], ["--size"]),
        (["tokens"], ["FILE"]),
    ],
)
def test_usage_errors(capsys, argv, names):
    assert_usage_error(*run(capsys, *argv), *names)


def test_tiny_chars_per_token_is_a_usage_error(capsys):
    # 1e-310 is a positive number, so it passes the ratio check; the quotient overflows.
    assert_usage_error(*run(capsys, "calc", "--chars", "1", "--chars-per-token", "1e-310", "--size", "512",
                            "--overlap", "64"), "--chars")


# --- tokens ---------------------------------------------------------------------------


@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "doc.md"
    path.write_bytes(TEXT.encode("utf-8"))
    return path


@pytest.mark.parametrize("encoding", [None, "o200k_base", "r50k_base"])
def test_tokens_json(capsys, text_file, encoding):
    argv = ["tokens", str(text_file), "--json"] + (["--encoding", encoding] if encoding else [])
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    count = get_tokenizer(encoding or "cl100k_base").count(TEXT)
    data = json.loads(out)
    assert data["tokens"] == count
    assert data["chars"] == len(TEXT)
    assert data["chars_per_token"] == len(TEXT) / count
    assert {"tokens", "chars", "chars_per_token"} <= set(data)


def test_tokens_text(capsys, text_file):
    code, out, _ = run(capsys, "tokens", str(text_file))
    count = get_tokenizer().count(TEXT)
    assert code == 0
    assert out == f"{count:,} tokens (cl100k_base), {len(TEXT):,} characters, {len(TEXT) / count:.2f} characters per token\n"


def test_tokens_from_stdin_bytes(capsys):
    code, out, _ = run(capsys, "tokens", "-", "--json", stdin=FakeStdin(TEXT.encode("utf-8")))
    assert code == 0
    assert json.loads(out)["tokens"] == get_tokenizer().count(TEXT)


def test_tokens_from_stdin_utf8_bom(capsys):
    code, out, _ = run(capsys, "tokens", "-", "--json", stdin=FakeStdin(b"\xef\xbb\xbfhello world"))
    assert code == 0
    assert json.loads(out)["tokens"] == 2


def test_tokens_from_stdin_without_buffer(capsys):
    code, out, _ = run(capsys, "tokens", "-", "--json", stdin=io.StringIO("hello world"))
    assert code == 0
    assert json.loads(out)["tokens"] == 2


def test_invalid_utf8_is_a_note_not_an_error(capsys, tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café crème".encode("latin-1"))
    code, out, err = run(capsys, "tokens", str(path), "--json")
    assert code == 0
    assert json.loads(out)["chars"] == len("café crème")
    assert err == f"ragchunk: note: {path} is not valid UTF-8: 2 invalid byte sequences were replaced with \ufffd\n"


@pytest.mark.parametrize("command", ["tokens", "preview"])
def test_binary_file_is_refused(capsys, tmp_path, command):
    path = tmp_path / "image.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    argv = [command, str(path)] + (["--size", "4", "--overlap", "1"] if command == "preview" else [])
    line = assert_usage_error(*run(capsys, *argv), "a PNG image", exit_code=1)
    assert line.startswith(f"ragchunk: error: {path} is a PNG image, not text: ")


@pytest.mark.parametrize("command", ["tokens", "preview"])
def test_missing_file(capsys, tmp_path, command):
    path = tmp_path / "missing.txt"
    argv = [command, str(path)] + (["--size", "4", "--overlap", "1"] if command == "preview" else [])
    line = assert_usage_error(*run(capsys, *argv), exit_code=1)
    assert line == f"ragchunk: error: {path} cannot be read: no such file or folder; check the path"


def test_empty_file(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_text(" \n")
    line = assert_usage_error(*run(capsys, "tokens", str(path)), exit_code=1)
    assert line == f"ragchunk: error: {path} holds no text: give a file with some words in it"


ONE_FILE_COMMANDS = {
    "tokens": [],
    "preview": ["--size", "4", "--overlap", "1"],
    "split": ["--size", "32"],
    "calc": ["--size", "32", "--overlap", "0"],
    "compare": ["--size", "32"],
}


def _unreadable(path: Path) -> None:
    path.write_text("words that cannot be read", encoding="utf-8")


def _missing(path: Path) -> None:
    pass


def _damaged_word(path: Path) -> None:
    path.write_bytes(b"PK\x03\x04" + bytes(40))


def _binary(path: Path) -> None:
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")


def _empty(path: Path) -> None:
    path.write_bytes(b"")


NAMES = {_damaged_word: "report.docx", _binary: "image.png"}


@pytest.mark.parametrize("make", [_unreadable, _missing, _damaged_word, _binary, _empty],
                         ids=lambda f: f.__name__.strip("_"))
def test_every_command_exits_1_for_a_file_it_cannot_read(capsys, monkeypatch, tmp_path, make):
    path = tmp_path / NAMES.get(make, "notes.md")
    make(path)
    if make is _unreadable:
        # Root reads a file whatever its mode, so the refusal comes from the opening itself.
        opened = Path.open

        def refused(self, *args, **kwargs):
            if self == path:
                raise PermissionError(13, "Permission denied", str(path))
            return opened(self, *args, **kwargs)

        monkeypatch.setattr(Path, "open", refused)
    codes, lines = {}, {}
    for command, flags in ONE_FILE_COMMANDS.items():
        code, _, err = run(capsys, command, str(path), *flags)
        codes[command] = code
        [lines[command]] = [line for line in err.splitlines() if line.startswith("ragchunk: error: ")]
        assert "Traceback" not in err
    assert codes == dict.fromkeys(ONE_FILE_COMMANDS, 1)
    # split, calc and compare say a skipped file in their summary (by kind), the others by its name.
    named = ONE_FILE_COMMANDS if make not in (_binary, _empty) else ("tokens", "preview")
    assert all(lines[command].startswith(f"ragchunk: error: {path} ") for command in named), lines
    if make not in (_binary, _empty):
        assert len(set(lines.values())) == 1, lines


@pytest.mark.parametrize(("make", "reason"), [(_missing, "no such file or folder"),
                                              (_unreadable, "permission denied")], ids=["missing", "unreadable"])
def test_a_file_that_cannot_be_read_is_the_same_sentence_in_every_command(capsys, monkeypatch, tmp_path, make,
                                                                         reason):
    path = tmp_path / "notes.md"
    make(path)
    opened = Path.open

    def refused(self, *args, **kwargs):
        if self == path and make is _unreadable:  # root reads a file whatever its mode
            raise PermissionError(13, "Permission denied", str(path))
        return opened(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refused)
    for command, flags in ONE_FILE_COMMANDS.items():
        code, _, err = run(capsys, command, str(path), *flags)
        assert (code, err) == (1, f"ragchunk: error: {path} cannot be read: {reason}; check the path\n"), command


def test_a_damaged_word_document_is_one_line_in_our_words(capsys, tmp_path):
    path = tmp_path / "report.docx"
    _damaged_word(path)
    with pytest.raises(zipfile.BadZipFile) as theirs:
        zipfile.ZipFile(path)
    code, out, err = run(capsys, "tokens", str(path))
    assert (code, out) == (1, "")
    assert err == (f"ragchunk: error: {path} is not a readable DOCX file (its ZIP container is damaged or cut"
                   " short): open it in the program that made it and save it again as .docx\n")
    assert str(theirs.value) not in err


def test_a_damaged_word_document_without_its_extension_is_said_damaged_in_every_command(capsys, tmp_path):
    document = io.BytesIO()
    with zipfile.ZipFile(document, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<w:document/>" * 200)
    path = tmp_path / "report"
    path.write_bytes(document.getvalue()[:-30])  # cut short: no end of its directory
    for command, flags in ONE_FILE_COMMANDS.items():
        code, _, err = run(capsys, command, str(path), *flags)
        assert (code, err) == (1, f"ragchunk: error: {path} is not a readable DOCX file (its ZIP container is damaged"
                                  " or cut short): open it in the program that made it and save it again as .docx\n")


# --- preview --------------------------------------------------------------------------


@pytest.mark.parametrize(("size", "overlap", "count", "limit"), [(8, 2, None, 5), (8, 2, "3", 3), (5, 0, "0", None),
                                                                 (3, 2, "1000", 1000), (4096, 64, None, 5)])
def test_preview_json_lines_equal_windows(capsys, text_file, size, overlap, count, limit):
    argv = ["preview", str(text_file), "--size", str(size), "--overlap", str(overlap), "--json"]
    if count is not None:
        argv += ["--count", count]
    code, out, err = run(capsys, *argv)
    assert (code, err) == (0, "")
    expected = [w.to_json() for w in windows(TEXT, size, overlap, get_tokenizer(), limit=limit)]
    assert [json.loads(line) for line in out.splitlines()] == expected
    assert expected


def test_preview_encoding(capsys, text_file):
    code, out, _ = run(capsys, "preview", str(text_file), "--size", "6", "--overlap", "2", "--encoding", "p50k_base",
                       "--json", "--count", "0")
    assert code == 0
    expected = [w.to_json() for w in windows(TEXT, 6, 2, get_tokenizer("p50k_base"))]
    assert [json.loads(line) for line in out.splitlines()] == expected


def test_preview_text(capsys, text_file):
    code, out, _ = run(capsys, "preview", str(text_file), "--size", "8", "--overlap", "2", "--count", "3")
    assert code == 0
    cut = windows(TEXT, 8, 2, get_tokenizer(), limit=3)
    headers = [line for line in out.splitlines() if line.startswith("--- window ")]
    assert headers == [
        f"--- window {w.index + 1}: tokens {w.token_start}-{w.token_end} ({w.tokens}), chars {w.start}-{w.end},"
        f" overlap {w.overlap_tokens}"
        for w in cut
    ]
    assert f"[{TEXT[cut[1].start:cut[1].overlap_end]}]{TEXT[cut[1].overlap_end:cut[1].end]}" in out


def test_preview_from_stdin(capsys):
    code, out, _ = run(capsys, "preview", "-", "--size", "3", "--overlap", "1", "--json",
                       stdin=FakeStdin(b"one two three four five"))
    assert code == 0
    assert [json.loads(line)["text"] for line in out.splitlines()] == ["one two three", " three four five"]


@pytest.mark.parametrize(
    ("flags", "flag"),
    [(["--size", "0", "--overlap", "0"], "--size"), (["--size", "4", "--overlap", "4"], "--overlap"),
     (["--size", "4", "--overlap", "x"], "--overlap"), (["--size", "4", "--overlap", "1", "--count", "-1"], "--count")],
)
def test_preview_bad_values(capsys, text_file, flags, flag):
    line = assert_usage_error(*run(capsys, "preview", str(text_file), *flags), flag)
    assert line.startswith(f"ragchunk: error: {flag}: ")


def test_preview_says_every_bad_value(capsys, text_file):
    code, out, err = run(capsys, "preview", str(text_file), "--size", "0", "--overlap", "-1", "--count", "x")
    assert (code, out) == (2, "")
    assert [line.split(":")[2].strip() for line in err.splitlines()] == ["--size", "--overlap", "--count"]


@pytest.mark.parametrize(("model", "prefix", "largest"), [("all-MiniLM-L6-v2", False, 254), ("e5-small-v2", False, 510),
                                                       ("e5-small-v2", True, 508), ("bge-m3", False, 8190)])
def test_preview_with_a_model_defaults_to_its_largest_chunk(capsys, tmp_path, model, prefix, largest):
    # Before, preview required --size whatever the model, so a window could outgrow what it reads.
    text = TEXT * 30
    path = tmp_path / "long.md"
    path.write_bytes(text.encode("utf-8"))
    argv = ["preview", str(path), "--model", model, "--overlap", "16", "--json", "--count", "0"]
    code, out, err = run(capsys, *argv + (["--prefix"] if prefix else []))
    assert (code, err) == (0, "")
    assert get_model(model).max_chunk_tokens(prefix) == largest
    cut = [json.loads(line) for line in out.splitlines()]
    assert cut == [w.to_json() for w in windows(text, largest, 16, get_tokenizer(get_model(model).tokenizer))]
    assert max(w["tokens"] for w in cut) <= largest
    if largest < 1000:  # text is longer than the window: the first one is full
        assert len(cut) > 1 and cut[0]["tokens"] == largest


@pytest.mark.parametrize(("flags", "message"), [
    (["--model", "all-MiniLM-L6-v2", "--size", "1000"],
     "chunk size (1,000) is too large for all-MiniLM-L6-v2: it reads 256 tokens, 2 of them its own special tokens;"
     " enter at most 254"),
    (["--model", "e5-small-v2", "--prefix", "--size", "510"],
     "chunk size (510) is too large for e5-small-v2: it reads 512 tokens, 2 of them its own special tokens and 2 its"
     " prefix 'passage:'; enter at most 508"),
])
def test_preview_with_a_model_refuses_a_size_it_would_truncate(capsys, text_file, flags, message):
    code, out, err = run(capsys, "preview", str(text_file), *flags, "--overlap", "0")
    assert (code, out, err) == (2, "", f"ragchunk: error: --size: {message}\n")
    # The sentence is split's, word for word.
    assert run(capsys, "split", str(text_file), *flags, "--overlap", "0") == (2, "", err)
    # The largest itself is accepted.
    largest = message.rsplit(" ", 1)[1]
    code, out, err = run(capsys, "preview", str(text_file), *flags[:-1], largest, "--overlap", "0")
    assert (code, err) == (0, "") and out.startswith("--- window 1: ")


TOO_LARGE = ("ragchunk: error: --size: chunk size (9,999) is too large for all-MiniLM-L6-v2: it reads 256 tokens, 2 of"
             " them its own special tokens; enter at most 254")
BAD_OVERLAP = "ragchunk: error: --overlap: overlap (-3) must be at least 0: enter a larger number"
BAD_BY = "ragchunk: error: --by: by (foo) is not known: choose one of headings, paragraphs, sentences"


@pytest.mark.parametrize(("command", "where", "flags", "said"), [
    ("split", "file", ["--overlap", "-3"], [TOO_LARGE, BAD_OVERLAP]),
    ("split", "file", ["--by", "foo"], [BAD_BY, TOO_LARGE]),
    ("split", "file", ["--overlap", "-3", "--by", "foo"], [BAD_BY, TOO_LARGE, BAD_OVERLAP]),
    ("split", "folder", ["--overlap", "-3", "--by", "foo"], [BAD_BY, TOO_LARGE, BAD_OVERLAP]),
    ("split", "stdin", ["--overlap", "-3"], [TOO_LARGE, BAD_OVERLAP]),
    ("preview", "file", ["--overlap", "-3"], [TOO_LARGE, BAD_OVERLAP]),
    ("compare", "file", ["--overlap", "-3"], [TOO_LARGE, BAD_OVERLAP]),
    ("compare", "folder", ["--overlap", "-3"], [TOO_LARGE, BAD_OVERLAP]),
])
def test_a_size_the_model_would_truncate_is_said_with_the_other_bad_values(capsys, text_file, command, where, flags,
                                                                           said):
    path = {"file": str(text_file), "folder": str(text_file.parent), "stdin": "-"}[where]
    code, out, err = run(capsys, command, path, "--model", "all-MiniLM-L6-v2", "--size", "9999", *flags,
                         stdin=FakeStdin(TEXT.encode("utf-8")))
    assert (code, out, err.splitlines()) == (2, "", said)


BAD_PRICE = "ragchunk: error: --price: price per million tokens (y) is not a number: enter digits, e.g. 0.02"


@pytest.mark.parametrize(("command", "flags", "said"), [
    ("split", ["--size", "0", "--jobs", "0", "--price", "y"],
     ["ragchunk: error: --size: chunk size (0) must be at least 1: enter a larger number",
      "ragchunk: error: --jobs: jobs (0) must be at least 1: enter a larger number", BAD_PRICE]),
    ("split", ["--size", "100", "--jobs", "x"],
     ["ragchunk: error: --jobs: jobs (x) is not a number: enter digits, e.g. 2"]),
    ("split", ["--model", "all-MiniLM-L6-v2", "--size", "9999", "--price", "y"], [TOO_LARGE, BAD_PRICE]),
    ("compare", ["--size", "0", "--price", "y"],
     ["ragchunk: error: --size: chunk size (0) must be at least 1: enter a larger number", BAD_PRICE]),
    ("compare", ["--model", "all-MiniLM-L6-v2", "--overlap", "-3", "--price", "y"], [BAD_OVERLAP, BAD_PRICE]),
])
def test_split_and_compare_say_a_bad_jobs_or_price_with_the_form(capsys, text_file, command, flags, said):
    code, out, err = run(capsys, command, str(text_file), *flags)
    assert (code, out, err.splitlines()) == (2, "", said)


def test_compare_with_a_model_and_no_price_costs_at_the_models_price(capsys, text_file):
    code, out, err = run(capsys, "compare", str(text_file), "--model", "text-embedding-3-small", "--json")
    assert (code, err) == (0, "")
    priced = run(capsys, "compare", str(text_file), "--model", "text-embedding-3-small", "--json",
                 "--price", f"{get_model('text-embedding-3-small').price_per_million:g}")[1]
    rows, price = json.loads(out)["rows"], get_model("text-embedding-3-small").price_per_million
    assert out == priced and all(row["cost"] == pytest.approx(row["tokens"] / 1e6 * price) for row in rows), rows


SIZE_MISSING = ("ragchunk: error: --size: chunk size is required: enter a number of tokens, or choose --model"
                " (its limit sets the size)")


@pytest.mark.parametrize(("command", "flags", "said"), [
    ("calc", ["--tokens", "x", "--overlap", "-3"],
     ["ragchunk: error: --tokens: document length (x) is not a number: enter digits, e.g. 10000", SIZE_MISSING,
      BAD_OVERLAP]),
    ("calc", ["FILE", "--overlap", "-3", "--price", "y"], [SIZE_MISSING, BAD_OVERLAP, BAD_PRICE]),
    ("split", ["FILE", "--by", "foo", "--overlap", "-3"], [BAD_BY, BAD_OVERLAP]),
    ("split", ["FILE", "--jobs", "0"], ["ragchunk: error: --jobs: jobs (0) must be at least 1: enter a larger number"]),
    ("preview", ["FILE", "--overlap", "-3"], [SIZE_MISSING, BAD_OVERLAP]),
    ("preview", ["FILE", "--overlap", "0"], [SIZE_MISSING]),
])
def test_a_missing_size_is_said_with_the_other_bad_values(capsys, text_file, command, flags, said):
    # Before, "the following arguments are required: --size" was the only line, whatever else was wrong.
    argv = [str(text_file) if flag == "FILE" else flag for flag in flags]
    code, out, err = run(capsys, command, *argv)
    assert (code, out, err.splitlines()) == (2, "", said)


def test_split_without_a_size_splits_as_the_library_does(capsys, tmp_path):
    # Before, split alone of the commands that split wanted --size (compare and split() take 512).
    path = tmp_path / "long.md"
    path.write_text(TEXT * 12, encoding="utf-8")
    code, out, err = run(capsys, "split", str(path))
    assert (code, err) == (0, "")
    texts = [json.loads(line)["text"] for line in out.splitlines()]
    assert texts == [c.text for c in split(TEXT * 12).chunks] == [c.text for c in split(TEXT * 12, size=512,
                                                                                             overlap=64).chunks]
    assert len(texts) > 3 and texts != [c.text for c in split(TEXT * 12, size=256).chunks]


@pytest.mark.parametrize("command", ["split", "preview", "compare"])
@pytest.mark.parametrize(("flags", "said"), [
    (["--model", "all-MiniLM-L6-v2", "--size", "9999"], TOO_LARGE),
    (["--model", "all-MiniLM-L6-v2", "--size", "200", "--overlap", "-3"], BAD_OVERLAP),
])
def test_one_bad_value_with_a_model_is_one_line(capsys, text_file, command, flags, said):
    overlap = [] if "--overlap" in flags else ["--overlap", "0"]
    code, out, err = run(capsys, command, str(text_file), *flags, *overlap)
    assert (code, out, err) == (2, "", f"{said}\n")


@pytest.mark.parametrize(("flags", "line"), [
    (["--prefix", "--size", "8"],
     "ragchunk: error: --prefix: prefix needs a model (its document prefix): choose a model or drop the prefix"),
    (["--model", "no-such-model"], "ragchunk: error: --model: model (no-such-model) is not known: choose one of "),
])
def test_preview_says_a_bad_model_or_prefix_in_one_line(capsys, text_file, flags, line):
    code, out, err = run(capsys, "preview", str(text_file), *flags, "--overlap", "0")
    assert (code, out) == (2, "")
    assert err.startswith(line) and len(err.splitlines()) == 1, err


def test_preview_help_says_the_size_default_with_a_model(capsys):
    with pytest.raises(SystemExit):
        main(["preview", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    assert ("--size S chunk size in tokens (default with --model: the most the model reads whole, less its document"
            " prefix with --prefix; required without --model)") in said
    assert "--prefix leave room for the model's document prefix" in said


# --- a real process -------------------------------------------------------------------


def python_m_ragchunk(*argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}
    return subprocess.run([sys.executable, "-m", "ragchunk", *argv], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)


def test_subprocess_calc():
    done = python_m_ragchunk("calc", "--tokens", "10,000", "--size", "512", "--overlap", "64", "--json")
    assert (done.returncode, done.stderr) == (0, "")
    assert json.loads(done.stdout)["chunks"] == 23


def test_subprocess_preview_refuses_a_size_the_model_would_truncate(text_file):
    # A real process: one line, no traceback, nothing on standard output.
    done = python_m_ragchunk("preview", str(text_file), "--model", "all-MiniLM-L6-v2", "--size", "1000", "--overlap",
                             "0")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "ragchunk: error: --size: chunk size (1,000) is too large for all-MiniLM-L6-v2: it reads 256 tokens, 2 of them"
        " its own special tokens; enter at most 254"
    ]


def test_subprocess_split_says_the_model_limit_with_the_other_bad_values(text_file):
    done = python_m_ragchunk("split", str(text_file), "--model", "all-MiniLM-L6-v2", "--size", "9999", "--overlap", "-3",
                             "--by", "foo")
    assert (done.returncode, done.stdout, done.stderr.splitlines()) == (2, "", [BAD_BY, TOO_LARGE, BAD_OVERLAP])


def test_subprocess_error_exit():
    done = python_m_ragchunk("calc", "--tokens", "10000", "--size", "512", "--overlap", "512")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "ragchunk: error: --overlap: overlap (512) must be smaller than chunk size (512): lower the overlap"
    ]
