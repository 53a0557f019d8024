"""The command line against inputs that once lost data or printed a traceback: OUT naming
an input, file names that are not UTF-8, two files of one source, a text of zero tokens, a
full disk, an endless input, Ctrl-C outside ``split``'s loop, a decimal comma, UTF-32 and
BOM-less UTF-16 of other alphabets, a file of front matter alone, PATH that holds no document."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragchunk import cli
from ragchunk.cli import batch, commands
from ragchunk.readers.formats import readable_formats

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "pycore")}
TEXT = "# Notes\n\nThe plan for the week. Write the report.\n\n## Monday\n\nMeet the team at nine.\n"


def ragchunk(*argv: str, cwd: Path, stdout=subprocess.PIPE) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ragchunk", *argv], cwd=cwd, env=ENV, stdout=stdout,
                          stderr=subprocess.PIPE, timeout=600, check=False)


def lines(process: subprocess.CompletedProcess) -> list[dict]:
    return [json.loads(line) for line in process.stdout.decode("utf-8").splitlines()]


def test_out_naming_an_input_is_refused_and_the_input_kept(tmp_path):
    (tmp_path / "notes.md").write_text(TEXT, encoding="utf-8")
    done = ragchunk("split", "notes.md", "--size", "32", "-o", "notes.md", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == ("ragchunk: error: -o: OUT (notes.md) is also an input: writing it would empty it"
                                    " before it is read; write the chunks to another file\n")
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == TEXT


def test_out_inside_a_folder_being_split_is_left_out(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.md").write_text(TEXT, encoding="utf-8")
    (docs / "chunks.jsonl").write_text('{"old": "records"}\n', encoding="utf-8")
    done = ragchunk("split", "docs", "--size", "32", "-o", "docs/chunks.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode() == "ragchunk: note: chunks.jsonl is OUT, so it is not read as an input\n"
    records = [json.loads(line) for line in (docs / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["source"] for r in records} == {"notes.md"}


@pytest.mark.skipif(sys.platform != "linux", reason="a name that is not UTF-8 needs a byte-name file system")
def test_a_file_name_that_is_not_utf8_keeps_its_bytes_escaped(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(TEXT, encoding="utf-8")
    with open(os.fsencode(docs) + b"/caf\xe9.md", "w", encoding="utf-8") as handle:
        handle.write("Another document. It follows.\n")
    (docs / "z.md").write_text("The last one.\n", encoding="utf-8")
    done = ragchunk("split", "docs", "--size", "32", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert [r["source"] for r in lines(done) if r["id"] == 0] == ["a.md", "caf\\xe9.md", "z.md"]


def test_two_files_of_one_source_are_refused_after_the_first(tmp_path):
    for folder, text in (("dA", "alpha from A"), ("dB", "beta from B")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "a.md").write_text(text, encoding="utf-8")
    done = ragchunk("split", "dA", "dB", "--size", "32", cwd=tmp_path)
    assert done.returncode == 1
    assert [(r["source"], r["text"]) for r in lines(done)] == [("a.md", "alpha from A")]
    assert done.stderr.decode() == ("ragchunk: error: dB/a.md: its records would share the source 'a.md' with dA/a.md:"
                                    " pass the folder that holds both, so each keeps its own path\n")
    twice = ragchunk("split", "dA/a.md", "dA/a.md", "--size", "32", cwd=tmp_path)
    assert (twice.returncode, len(lines(twice))) == (1, 1)
    assert twice.stderr.decode() == "ragchunk: error: dA/a.md: named twice: its records are already written\n"


@pytest.mark.parametrize("encoding", ["bert-base-uncased", "xlm-roberta"])
def test_a_text_of_zero_tokens_is_counted_not_crashed(tmp_path, encoding):
    (tmp_path / "zwsp.txt").write_text("\u200b", encoding="utf-8")
    done = ragchunk("tokens", "zwsp.txt", "--encoding", encoding, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == f"0 tokens ({encoding}), 1 characters (the tokenizer drops them all)\n"
    data = json.loads(ragchunk("tokens", "zwsp.txt", "--encoding", encoding, "--json", cwd=tmp_path).stdout)
    assert (data["tokens"], data["chars_per_token"]) == (0, None)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["split", "notes.md", "--size", "8"], ["tokens", "notes.md"]])
def test_a_full_disk_is_said_as_such(tmp_path, command):
    (tmp_path / "notes.md").write_text(TEXT, encoding="utf-8")
    with open("/dev/full", "wb") as full:
        done = ragchunk(*command, cwd=tmp_path, stdout=full)
    assert done.returncode == 1
    assert done.stderr.decode() == "ragchunk: error: cannot write the output: No space left on device\n"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_input_is_refused_as_too_large(tmp_path):
    done = ragchunk("tokens", "/dev/zero", cwd=tmp_path)
    assert done.returncode == 1  # a document that cannot be read, as split says it
    assert b"is too large" in done.stderr and b"Traceback" not in done.stderr


@pytest.mark.parametrize("argv", [["calc", "--tokens", "1000", "--size", "100", "--overlap", "0"], ["tokens", "-"],
                                  ["compare", "."], ["preview", "-", "--size", "8", "--overlap", "0"]])
def test_ctrl_c_outside_the_split_loop_is_one_line(monkeypatch, capsys, argv):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(batch if argv[0] == "compare" else commands, f"run_{argv[0]}", interrupted)
    assert cli.main(argv) == 130
    assert capsys.readouterr().err == "ragchunk: interrupted\n"


@pytest.mark.parametrize(("typed", "example"), [("0,02", "0.02"), ("3,5", "3.5"), ("1,,0", "0.02"), (",5", ".5")])
def test_a_decimal_comma_is_refused_not_read_as_thousands(capsys, typed, example):
    # The example is what was typed, with a dot, when that is a number; else the field's own.
    assert cli.main(["calc", "--tokens", "1000", "--size", "100", "--overlap", "0", "--price", typed]) == 2
    assert capsys.readouterr().err == (f"ragchunk: error: --price: price per million tokens ({typed}) has a comma that"
                                       f" does not group thousands: write decimals with a dot, e.g. {example}\n")


def test_utf32_and_bomless_utf16_of_other_alphabets_are_read(tmp_path):
    russian = "Привет, мир. Вторая строка.\n"
    (tmp_path / "u32.txt").write_bytes(russian.encode("utf-32"))
    (tmp_path / "u16.txt").write_bytes(russian.encode("utf-16-le"))
    for name, codec in (("u32.txt", "UTF-32"), ("u16.txt", "UTF-16")):
        done = ragchunk("split", name, "--size", "32", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert [r["text"] for r in lines(done)] == [russian.strip()]
        assert done.stderr.decode() == f"ragchunk: note: {name} was decoded as {codec}\n"


FRONT_MATTER = {"yaml.md": "---\ntitle: Plans\ntags: [a, b]\n---\n", "toml.md": '+++\ntitle = "Plans"\n+++\n\n'}


def test_a_file_of_front_matter_alone_is_named_and_the_run_goes_on(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in FRONT_MATTER.items():
        (docs / name).write_text(text, encoding="utf-8")
    (docs / "notes.md").write_text(TEXT, encoding="utf-8")
    done = ragchunk("split", "docs", "--size", "32", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.decode().splitlines() == [f"ragchunk: note: {name}: only front matter, no text to split"
                                                 for name in sorted(FRONT_MATTER)]
    assert {r["source"] for r in lines(done)} == {"notes.md"}  # every line is JSON
    written = ragchunk("split", "docs/yaml.md", "--size", "32", "-o", "out.jsonl", cwd=tmp_path)
    assert (written.returncode, (tmp_path / "out.jsonl").read_bytes()) == (0, b"")
    assert written.stderr.decode() == "ragchunk: note: docs/yaml.md: only front matter, no text to split\n"


def test_a_document_with_a_body_after_its_front_matter_has_no_note(tmp_path):
    (tmp_path / "page.md").write_text(FRONT_MATTER["yaml.md"] + TEXT, encoding="utf-8")
    done = ragchunk("split", "page.md", "--size", "32", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, b"")
    assert lines(done)


@pytest.mark.parametrize("command", ["calc", "tokens"])
def test_calc_and_tokens_count_the_front_matter_and_say_so(capsys, monkeypatch, tmp_path, command):
    from ragchunk import get_tokenizer

    monkeypatch.setenv("COLUMNS", "1000")  # the help on one line, so no wrap splits the sentence
    path = tmp_path / "yaml.md"
    path.write_text(FRONT_MATTER["yaml.md"] + TEXT, encoding="utf-8")
    flags = ["--size", "32", "--overlap", "0"] if command == "calc" else []
    assert cli.main([command, str(path), *flags, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    counted = data["doc_tokens"] if command == "calc" else data["tokens"]
    assert counted == get_tokenizer().count(FRONT_MATTER["yaml.md"] + TEXT)
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    assert "front matter (--- or +++ at the start) is counted, though split leaves it out" in capsys.readouterr().out


# --- PATH that holds no document ------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
# Each command that takes files, with the flags it needs, and the verb its sentence says.
FILE_COMMANDS = {
    "split": (["--size", "64"], "split"),
    "calc": (["--size", "64", "--overlap", "0"], "count"),
    "compare": ([], "compare"),
    "tokens": ([], "count"),
    "preview": (["--size", "64", "--overlap", "0"], "preview"),
}


def said(capsys, argv: list[str]) -> tuple[int, str]:
    code = cli.main(argv, out=io.StringIO())
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", FILE_COMMANDS)
@pytest.mark.parametrize(("holds", "why"), [({}, "no file in it"), ({"a.png": PNG, "b.md": b""}, "skipped: 1 empty, 1 png")],
                         ids=["empty", "no document"])
def test_a_folder_with_no_document_is_one_sentence_and_exit_1_in_every_command(tmp_path, capsys, command, holds, why):
    # Before, split said "FILE: PATH names no file" and exited 2 (a bad flag's code) for an
    # empty folder, calc and compare printed zeros and exited 0, and tokens and preview said
    # "it is a folder; check the path".
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, data in holds.items():
        (folder / name).write_bytes(data)
    flags, verb = FILE_COMMANDS[command]
    assert said(capsys, [command, str(folder), *flags]) == (
        1, f"ragchunk: error: {folder} holds no document to {verb} ({why}): ragchunk reads {readable_formats()}\n")


@pytest.mark.parametrize("command", ["split", "calc", "compare"])
def test_files_left_out_are_said_with_the_flag_that_reads_them(tmp_path, capsys, command):
    folder = tmp_path / "docs"
    (folder / ".drafts").mkdir(parents=True)
    (folder / ".drafts" / "a.md").write_text("# Draft\n", encoding="utf-8")
    (folder / ".notes.md").write_text("# Notes\n", encoding="utf-8")
    (folder / "guide.md").write_text("# Guide\n", encoding="utf-8")
    flags, verb = FILE_COMMANDS[command]
    code, err = said(capsys, [command, str(folder), *flags, "--exclude", "*.md"])
    assert (code, err) == (1, f"ragchunk: error: {folder} holds no document to {verb} (1 file left out by"
                              f" --include/--exclude; 2 hidden, which --hidden reads): ragchunk reads"
                              f" {readable_formats()}\n")
    assert said(capsys, [command, str(folder), *flags, "--hidden", "--exclude", "guide.md"])[0] == 0


def test_split_of_an_empty_folder_leaves_no_out(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    out = tmp_path / "chunks.jsonl"
    assert said(capsys, ["split", str(tmp_path / "empty"), "--size", "64", "-o", str(out)])[0] == 1
    assert not out.exists()


@pytest.mark.parametrize("command", ["tokens", "preview"])
def test_tokens_and_preview_given_a_folder_of_documents_say_how_to_name_one(tmp_path, capsys, command):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nwords\n", encoding="utf-8")
    flags, _ = FILE_COMMANDS[command]
    assert said(capsys, [command, str(tmp_path / "docs"), *flags]) == (
        1, f"ragchunk: error: {tmp_path / 'docs'} is a folder, and {command} reads one file: name one of its files,"
           " or give the folder to calc, compare or split\n")


def test_help_gives_the_exit_codes_main_returns(capsys):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "exit codes: 0 done; 1 a document that cannot be read or split, or PATH that holds no document" in shown
    assert "2 a bad flag or value; 130 interrupted; 70 a bug in ragchunk" in shown


def test_a_folder_that_holds_only_out_says_so(tmp_path, capsys):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "chunks.jsonl").write_text('{"old": "records"}\n', encoding="utf-8")
    code, err = said(capsys, ["split", str(docs), "--size", "32", "-o", str(docs / "chunks.jsonl")])
    assert (code, err) == (1, "ragchunk: note: chunks.jsonl is OUT, so it is not read as an input\n"
                              f"ragchunk: error: {docs} holds no document to split (OUT is not read as an input):"
                              f" ragchunk reads {readable_formats()}\n")
