"""Huge and hostile input: every guarantee holds, the work is linear, no regex backtracks.

Three kinds of evidence, none of them a speed goal (speed lives in ``bench/``):

- every input of :data:`HOSTILE` goes through everything that reads text (``split`` with
  every ``by``, exact and estimated sizes, small and large targets, with overlap;
  ``sentences``, ``parse_blocks``, ``windows``, the worker API and the CLI) and each
  result is checked with the guarantee checkers the module tests already use;
- linear work is shown by counting it, deterministically: characters given to the
  tokenizer, and Python-level calls (``sys.setprofile``), at ``n`` and ``4n``;
- the inputs of issue 5 at full size (a 5 MB line, 1 MB of one character, thousands of
  nested list items, 100,000 headings ...) and an adversarial input set for every regular
  expression of the core run in a subprocess under a wall-clock cap that linear code
  meets many times over and catastrophic backtracking would miss by hours.
"""

from __future__ import annotations

import importlib
import io
import json
import pkgutil
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import ragchunk
from ragchunk import CharEstimate, get_tokenizer, sentence_spans, split, windows
from ragchunk.api import Workspace
from ragchunk.results.records import Document
from ragchunk.cli import main
from ragchunk.text.markdown import parse_blocks

from strategies import examples, markdown, markdown_text
from test_markdown import assert_invariants
from test_segmentation import check_invariants
from test_split import FAMILIES, HARD, _CountingTokenizer, assert_guarantees, counter_for
from test_windowing import check_windows

ROOT = Path(__file__).resolve().parents[2]
PYCORE = ROOT / "pycore"

SPECIAL_TOKENS = ("<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>",
                  "<|im_start|>", "<|im_end|>", "<|", "|>", "<|endoftext")


def _nested(n: int) -> str:
    """List items each one level deeper than the one before (indentation grows: ~n chars total)."""
    depth = max(2, int((n / 2) ** 0.5))
    return "".join("  " * k + f"- item {k}\n" for k in range(depth))


def _repeat(piece: str):
    return lambda n: piece * max(1, n // len(piece))


# name -> text of about n characters. The splitter module's own hard cases come first.
HOSTILE = {
    **HARD,
    "one long line of letters": lambda n: "".join("abcdefghij"[(i * 7 + i // 13) % 10] for i in range(n)),
    "one repeated emoji": _repeat("😀"),
    "nul bytes": _repeat("\x00"),
    "nul in words": _repeat("wo\x00rd \x00 "),
    "special tokens": _repeat(" ".join(SPECIAL_TOKENS) + "\n"),
    "special tokens glued": _repeat("".join(SPECIAL_TOKENS)),
    "crlf markdown": _repeat("# Title\r\n\r\n- item one\r\n- item two\r\n\r\n```\r\ncode\r\n```\r\n"),
    "lone cr storm": _repeat("\r"),
    "mixed line endings": _repeat("a\r\nb\rc\n\r\n\r"),
    "unicode line separators": _repeat("word\u2028next\u2029para\x85nel\x0bvt\x0cff "),
    "bom everywhere": lambda n: "\ufeff" + "word \ufeff\ufeffx. " * max(1, n // 12),
    "zero-width characters": _repeat("a\u200b\u200c\u200d\u2060b\ufeff "),
    "bidi controls": _repeat("\u202eevil\u202c \u2067مرحبا\u2069 \u200fשלום\u200e. "),
    "zalgo": _repeat("Z" + "\u0351\u036b\u0343\u0310\u0352" * 8 + " "),
    "keycaps and variation selectors": _repeat("1\ufe0f\u20e3 \u2764\ufe0f #\ufe0f\u20e3 "),
    "tag-sequence flags": _repeat("\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"),
    "skin tones without base": _repeat("\U0001f3fd"),
    "devanagari danda storm": _repeat("।"),
    "hindi": _repeat("क्षत्रिय धर्म। नमस्ते दुनिया॥ "),
    "thai without spaces": _repeat("ภาษาไทยไม่มีช่องว่างระหว่างคำ"),
    "cjk without terminators": _repeat("日本語の文章中文文本"),
    "cjk full stops": _repeat("。"),
    "math letters": _repeat("𝕬𝖇𝖈"),
    "private use": _repeat("\ue000"),
    "replacement characters": _repeat("\ufffd"),
    "deeply nested list": _nested,
    "sawtooth list": lambda n: "".join("  " * (k % 10) + f"- item {k}\n" for k in range(max(1, n // 16))),
    "nested quotes": lambda n: "".join(">" * (1 + k % 40) + f" q{k}\n" for k in range(max(1, n // 24))),
    "quote list mix": _repeat("> - > 1. > text\n"),
    "pipes": _repeat("|"),
    "wide table": lambda n: "| " + " | ".join("h" for _ in range(n // 8)) + " |\n|" + "---|" * (n // 8) + "\n",
    "table storm": lambda n: "| a | b |\n|---|---|\n" + "| x | y |\n" * max(1, n // 10),
    "hashes": _repeat("#"),
    "hash spaces": _repeat("# "),
    "backticks": _repeat("`"),
    "fence storm": _repeat("```\n"),
    "mismatched fences": _repeat("~~~~\n```\n"),
    "setext storm": _repeat("a\n=\n"),
    "underline storm": _repeat("=\n-\n"),
    "dash storm": _repeat("-"),
    "list markers": _repeat("- "),
    "empty items": _repeat("-\n1.\n*\n"),
    "ordered markers": _repeat("1. "),
    "angle brackets": _repeat("<"),
    "html blocks": _repeat("<div>\n"),
    "unclosed comments": _repeat("<!--\n"),
    "unclosed script": lambda n: "<script>\n" + "x < y && y > z;\n" * max(1, n // 16),
    "tabs": _repeat("\t"),
    "indented code": _repeat("    x = 1\n"),
    "abbreviations": _repeat("Dr. "),
    "initials": _repeat("A. "),
    "e.g. storm": _repeat("e.g. "),
    "numbers and no.": _repeat("No. 5 "),
    "ellipsis": _repeat("…"),
    "interrobang": _repeat("?!"),
    "dot space": _repeat(". "),
    "dot newline": _repeat(".\n"),
    "quotes": _repeat('"'),
    "brackets": _repeat("(["),
    "closing quotes after marks": _repeat('."\')»” '),
    "long url": lambda n: "see https://example.com/" + "a/" * max(1, n // 2) + " now.",
    "emails": _repeat("a@b.c "),
    "digits": _repeat("1"),
    "versions": _repeat("3.14."),
    "whitespace then one letter": lambda n: " \t\n" * (n // 3) + "x",
}

SIZES = 3_000


def test_there_are_many_hostile_inputs():
    # The closing note of issue 5 reports this number.
    assert len(HOSTILE) >= 70


SPLITS = [
    # (by, size, overlap, tokenizer)
    ("headings", 16, 5, "cl100k_base"),
    ("paragraphs", 16, 5, "cl100k_base"),
    ("sentences", 16, 5, "cl100k_base"),
    ("headings", 512, 64, "cl100k_base"),
    ("sentences", 200, 40, "o200k_base"),
    ("paragraphs", 40, 10, CharEstimate(3)),
    ("sentences", 7, 2, CharEstimate(1)),
    ("headings", 300, 299, CharEstimate(4)),
]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_split_keeps_every_guarantee(name):
    text = HOSTILE[name](SIZES)
    for by, size, overlap, tokenizer in SPLITS:
        result = split(text, by=by, size=size, overlap=overlap, tokenizer=tokenizer)
        assert_guarantees(text, result, size, overlap, counter_for(tokenizer))
        if text.strip(" \t\n\r\ufeff\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029"):
            assert result.chunks, (by, size)


@pytest.mark.parametrize("name", list(HOSTILE))
def test_sentences_markdown_and_windows_keep_their_promises(name):
    text = HOSTILE[name](SIZES)
    check_invariants(text, sentence_spans(text))
    assert_invariants(text, parse_blocks(text))
    for size, overlap, encoding in ((7, 3, "cl100k_base"), (256, 32, "o200k_base")):
        check_windows(text, size, overlap, encoding, windows(text, size, overlap, get_tokenizer(encoding)))


def _jsonl_rows(jsonl: str) -> list[dict]:
    return [json.loads(line) for line in jsonl.splitlines()]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_the_worker_api_and_the_cli_answer(name, tmp_path, capsys):
    text = HOSTILE[name](SIZES)
    workspace = Workspace()
    settings = {"by": "sentences", "chunk_size": "64", "overlap": "8", "encoding": "cl100k_base"}
    for document in (text, text.encode("utf-8")):
        loaded = json.loads(workspace.handle("load", "{}", document))
        if not text.strip():
            assert loaded["errors"][0]["code"] == "text_empty"
            continue
        if isinstance(document, bytes) and "\x00" in text and not text.startswith("\ufeff"):
            # A file with NUL bytes is refused as binary (unless a BOM says it is text); the
            # same characters pasted are text.
            assert loaded["errors"][0]["code"] == "not_text", loaded
            continue
        assert loaded["ok"], loaded
        doc = loaded["result"]["doc"]
        analyzed = json.loads(workspace.handle("analyze", json.dumps({"doc": doc, "chunk_size": 64, "overlap": 8})))
        assert analyzed["ok"], analyzed
        assert analyzed["result"]["tokens"] == get_tokenizer().count(text.removeprefix("\ufeff")
                                                                     if isinstance(document, bytes) else text)
        reply = json.loads(workspace.handle("split", json.dumps({**settings, "doc": doc, "page_size": 5000})))
        assert reply["ok"], reply
        page = reply["result"]["page"]
        # A file's BOM is dropped when it is decoded; pasted text keeps it.
        source = text.removeprefix("\ufeff") if isinstance(document, bytes) else text
        texts = page["texts"].encode("utf-16-le", "surrogatepass")
        for i in range(page["count"]):
            shown = texts[2 * page["offsets"][i] : 2 * page["offsets"][i + 1]].decode("utf-16-le", "surrogatepass")
            assert shown == source[page["start"][i] : page["end"][i]]
        exported = json.loads(workspace.handle("export", json.dumps({"doc": doc})))
        assert exported["ok"]
        rows = _jsonl_rows(exported["result"]["jsonl"])
        assert len(rows) == reply["result"]["count"]
        assert [row["text"] for row in rows] == [source[row["start"] : row["end"]] for row in rows]
        assert [row["start"] for row in rows[: page["count"]]] == page["start"]
    if not text.strip() or ("\x00" in text and not text.startswith("\ufeff")):
        return
    path = tmp_path / "doc.md"
    path.write_bytes(text.encode("utf-8"))
    out = io.StringIO()
    assert main(["split", str(path), "--by", "paragraphs", "--size", "48", "--overlap", "6"], out=out) == 0
    rows = _jsonl_rows(out.getvalue())
    decoded = text.removeprefix("\ufeff")
    assert rows == _jsonl_rows(ragchunk.to_jsonl(split(decoded, by="paragraphs", size=48, overlap=6),
                                                 Document(str(path), decoded)))
    out = io.StringIO()
    assert main(["tokens", str(path), "--json"], out=out) == 0
    assert json.loads(out.getvalue())["tokens"] == get_tokenizer().count(decoded)
    capsys.readouterr()


# --- linear work, counted ---------------------------------------------------------------


def _tokenizer_chars_per_char(text: str, by: str, tokenizer: str = "cl100k_base") -> float:
    counting = _CountingTokenizer(tokenizer)
    split(text, by=by, size=128, overlap=16, tokenizer=counting)
    return counting.chars / len(text)


def calls_made(action) -> int:
    """Python and C function calls made by ``action()``: a deterministic measure of work."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    sys.setprofile(profile)
    try:
        action()
    finally:
        sys.setprofile(None)
    return count


# Sizes for the work counts: big enough that constant set-up costs do not hide growth.
SMALL, LARGE = 10_000, 40_000


@pytest.mark.parametrize("tokenizer", FAMILIES)
@pytest.mark.parametrize("name", list(HOSTILE))
def test_tokenizer_work_per_character_does_not_grow(name, tokenizer):
    """The characters given to the tokenizer (BPE, WordPiece or Unigram) per character of
    the text stay the same at 4x the text, and few: no count grows with the text."""
    small, large = HOSTILE[name](SMALL), HOSTILE[name](LARGE)
    if not small.strip():
        return
    for by in ("headings", "sentences"):
        per_small = _tokenizer_chars_per_char(small, by, tokenizer)
        per_large = _tokenizer_chars_per_char(large, by, tokenizer)
        assert per_large <= per_small * 1.25 + 0.1, (by, per_small, per_large)
        assert per_large < 8, (by, per_large)


def _grows_linearly(action_for, small: str, large: str) -> tuple[int, int]:
    a, b = calls_made(lambda: action_for(small)), calls_made(lambda: action_for(large))
    # 4x the text may cost at most ~4x the calls (plus a little for constant costs).
    assert b <= a * len(large) / len(small) * 1.2 + 200, (a, b)
    return a, b


@pytest.mark.parametrize("name", list(HOSTILE))
def test_python_work_grows_linearly(name):
    # Profiling every call is slow: smaller texts than for the tokenizer count.
    small, large = HOSTILE[name](SMALL // 2), HOSTILE[name](LARGE // 2)
    _grows_linearly(sentence_spans, small, large)
    _grows_linearly(parse_blocks, small, large)
    _grows_linearly(lambda t: split(t, by="sentences", size=24, overlap=6, tokenizer=CharEstimate(2)), small, large)
    _grows_linearly(lambda t: split(t, by="headings", size=300, overlap=30, tokenizer=CharEstimate(4)), small, large)


def test_the_work_counter_sees_quadratic_work():
    """The call counter would catch a quadratic loop (a check that can fail)."""

    def quadratic(text: str) -> None:
        for i in range(0, len(text), 40):
            for _ in range(0, i, 40):
                len("")

    with pytest.raises(AssertionError):
        _grows_linearly(quadratic, "x" * SMALL, "x" * LARGE)


# --- issue 5's inputs at full size, under a wall-clock cap --------------------------------

# Linear code does each of these in seconds of CPU time here; quadratic code would take hours.
BIG_CAP_S = 300

BIG = {
    "a 5 MB line with no spaces or punctuation": (
        "''.join('abcdefghij'[(i * 7 + i // 13) % 10] for i in range(5_000_000))"
    ),
    "1 MB of a single repeated character": "'a' * 1_000_000",
    "2,000 nested list items": "''.join('  ' * k + f'- item {k}\\n' for k in range(2_000))",
    "100,000 headings": "''.join(f\"{'#' * (1 + i % 6)} h{i}\\n\" for i in range(100_000))",
    "100,000 unclosed code fences": "'```\\n# x\\n~~~\\n' * 100_000",
    "CRLF, CR and a BOM, 1 MB": "'\\ufeff' + '# T\\r\\rHello world. This is text.\\r\\n' * 30_000",
    "ZWJ, combining marks, emoji, RTL, 1 MB": (
        "('👨\\u200d👩\\u200d👧 e\\u0301\\u0301 🇺🇦 שלום עולם. مرحبا. ' * 25_000)"
    ),
    "special tokens and NUL bytes, 1 MB": "('<|endoftext|> x\\x00y <|fim_prefix|>. ' * 30_000)",
}

BIG_SCRIPT = """
import sys, time
from ragchunk import CharEstimate, sentence_spans, split
from ragchunk.text.markdown import parse_blocks
from test_split import assert_guarantees, counter_for
text = {expr}
started = time.perf_counter()
result = split(text, by="headings", size=512, overlap=64)
assert_guarantees(text, result, 512, 64, counter_for("cl100k_base"))
estimate = CharEstimate(4)
result = split(text, by="sentences", size=128, overlap=16, tokenizer=estimate)
assert_guarantees(text, result, 128, 16, estimate.count)
assert sentence_spans(text) is not None and parse_blocks(text) is not None
print(len(text), round(time.perf_counter() - started, 2))
"""


def run_capped(script: str, cap: float) -> subprocess.CompletedProcess:
    """Run ``script`` in a fresh interpreter (core and unit tests importable) within ``cap`` seconds of CPU time.

    The cap is the child's own CPU time (RLIMIT_CPU: the kernel stops it past the cap), not
    the clock, so a busy machine does not make linear code look slow. The clock only guards
    against a child that waits forever (``TimeoutExpired`` after 20 × the cap).
    """
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(cap), int(cap) + 5))

    path = f"{PYCORE}:{ROOT / 'tests' / 'unit'}"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=20 * cap,
                          env={"PYTHONPATH": path, "PATH": "/usr/bin:/bin"}, cwd=ROOT, preexec_fn=limit)
    if done.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        raise subprocess.TimeoutExpired(script[:40], cap, output=done.stdout, stderr=done.stderr)
    return done


@pytest.mark.parametrize("name", list(BIG))
def test_issue_inputs_at_full_size_finish_and_keep_the_guarantees(name):
    try:
        done = run_capped(BIG_SCRIPT.format(expr=BIG[name]), BIG_CAP_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name}: not finished in {BIG_CAP_S} s of CPU time (linear code takes seconds)")
    assert done.returncode == 0, done.stderr[-3000:]


# --- regular expressions ------------------------------------------------------------------


def core_patterns() -> dict[str, re.Pattern]:
    """Every compiled regular expression at module level in the core, by ``module.NAME``."""
    found = {}
    for info in pkgutil.walk_packages(ragchunk.__path__, "ragchunk."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        short = info.name.removeprefix("ragchunk.")
        source = Path(module.__file__).read_text(encoding="utf-8")
        for name, value in vars(module).items():
            # Only where it is defined: a pattern imported by another module is counted once.
            if isinstance(value, re.Pattern) and re.search(rf"^{name} = re\.compile\(", source, re.MULTILINE):
                found[f"{short}.{name}"] = value
    return found


def test_every_regex_of_the_core_is_a_module_constant():
    """So :func:`core_patterns` sees them all: no ``re.search(...)`` or ``re.compile`` elsewhere."""
    compiled = 0
    for path in sorted((PYCORE / "ragchunk").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        direct = re.findall(r"\bre\.(?:match|search|fullmatch|sub|subn|split|findall|finditer)\(", source)
        assert not direct, f"{path.name} calls the re module directly: compile the pattern at module level"
        compiled += len(re.findall(r"^[A-Z_0-9]+ = re\.compile\(", source, re.MULTILINE))
        assert source.count("re.compile(") == len(re.findall(r"^[A-Z_0-9]+ = re\.compile\(", source, re.MULTILINE))
    assert compiled == len(core_patterns()) >= 15


# Characters the core's patterns are made of (terminators, markers, classes they test).
ALPHABET = list(".!?…।॥。！？)]\"'»\n\r \t\u00a01aA_é日-#<>/@e+*|`~=:") + ["\x00", "\u3000"]
PAIR_ALPHABET = list(". 1a\n\t)\"-é?<e")
REGEX_N = 20_000
# One operation on 20,000 characters: linear patterns take a few milliseconds, a quadratic
# one seconds to minutes (the old NUMBER pattern: 12 s).
REGEX_SLOW_S = 0.5
REGEX_CAP_S = 240

REGEX_SCRIPT = """
import json, re, sys, time
patterns = {patterns}
alphabet, pairs, n, slow = {alphabet!r}, {pairs!r}, {n}, {slow}
attacks = []
for c in alphabet:
    attacks += [c * n, c * n + "\\x00"]
for a in pairs:
    for b in pairs:
        if a != b:
            attacks.append((a + b) * (n // 2) + "\\x00")
flagged = []
ops = 0
for name, source in patterns.items():
    pattern = re.compile(source[0], source[1])
    for attack in attacks:
        for op in ("fullmatch", "match", "finditer"):
            print(name, op, repr(attack[:6]), flush=True)
            started = time.process_time()  # CPU time: another process's load does not count
            if op == "finditer":
                for _ in pattern.finditer(attack):
                    pass
            else:
                getattr(pattern, op)(attack)
            took = time.process_time() - started
            ops += 1
            if took > slow:
                flagged.append([name, op, attack[:8], round(took, 2)])
print("RESULT", json.dumps({{"flagged": flagged, "ops": ops}}))
"""


def regex_check(patterns: dict[str, tuple[str, int]], cap: float) -> dict:
    script = REGEX_SCRIPT.format(patterns=repr(patterns), alphabet=ALPHABET, pairs=PAIR_ALPHABET, n=REGEX_N,
                                 slow=REGEX_SLOW_S)
    try:
        done = run_capped(script, cap)
    except subprocess.TimeoutExpired as err:
        last = (err.stdout or b"").decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
        return {"timeout": last.strip().splitlines()[-1] if last.strip() else "?"}
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.rsplit("RESULT ", 1)[1])


def test_no_regex_of_the_core_backtracks_catastrophically():
    patterns = {name: (p.pattern, p.flags) for name, p in core_patterns().items()}
    report = regex_check(patterns, REGEX_CAP_S)
    assert "timeout" not in report, f"still running after {REGEX_CAP_S} s of CPU time at: {report['timeout']}"
    assert report["flagged"] == [], report["flagged"]
    # Every pattern met every attack string with three operations (reported in issue 5's note).
    assert report["ops"] >= len(patterns) * len(ALPHABET) * 2 * 3


def test_the_regex_check_catches_a_quadratic_pattern():
    """The old number pattern of fields.py (fixed: it split digit runs two ways) is caught."""
    old = {"fields.NUMBER before the fix": (r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.UNICODE)}
    report = regex_check(old, 8)
    assert "fields.NUMBER before the fix" in json.dumps(report), report


def test_a_long_typed_number_is_refused_quickly():
    from ragchunk.options.fields import parse_number

    script = textwrap.dedent(
        """
        from ragchunk.errors import RagchunkError
        from ragchunk.options.fields import parse_number
        try:
            parse_number("chunk_size", "1" * 1_000_000 + "x")
        except RagchunkError as err:
            print(err.code)
        """
    )
    done = run_capped(script, 30)
    assert done.stdout.strip() == "not_a_number"
    assert parse_number("chunk_size", "1" * 400) == float("1" * 400)


# --- documents the page refuses ------------------------------------------------------------


def _ask(workspace: Workspace, kind: str, payload: dict, document=None) -> dict:
    return json.loads(workspace.handle(kind, json.dumps(payload), document))


@pytest.mark.parametrize(
    ("document", "code", "field"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(4), "not_text", "file"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "pdf_corrupt", "file"),
        (b"", "file_empty", "text"),
        (b"x" * 17, "file_too_large_for_page", "file"),
        ("y" * 17, "paste_too_large", "text"),
    ],
)
def test_a_refused_document_leaves_the_previous_one(monkeypatch, document, code, field):
    monkeypatch.setattr("ragchunk.api.MAX_PAGE_DOCUMENT_BYTES", 16)
    workspace = Workspace()
    doc = _ask(workspace, "load", {}, "One two.")["result"]["doc"]
    settings = {"doc": doc, "chunk_size": 4, "overlap": 1}
    first = _ask(workspace, "analyze", settings)
    split_first = _ask(workspace, "split", {"doc": doc, "chunk_size": "4", "overlap": "1"})
    refused = _ask(workspace, "load", {"name": "new.md"}, document)
    assert [(e["code"], e["field"]) for e in refused["errors"]] == [(code, field)]
    again = _ask(workspace, "analyze", settings)
    assert again["result"]["tokens"] == first["result"]["tokens"]
    assert _ask(workspace, "export", {"doc": doc})["ok"], "the last split is kept too"
    assert _ask(workspace, "split", {"doc": doc, "chunk_size": "4", "overlap": "1"}) == split_first


def test_page_size_messages_name_the_size_the_limit_and_the_cli(monkeypatch):
    monkeypatch.setattr("ragchunk.api.MAX_PAGE_DOCUMENT_BYTES", 1000)
    file_error = _ask(Workspace(), "load", {"name": "big.md"}, b"x" * 1001)["errors"][0]
    assert file_error["message"] == ("big.md is too large for the page (1,001 bytes): the page handles up to 1,000 bytes; "
                                     "use the command line: python -m ragchunk split FILE")
    assert file_error["params"] == {"name": "big.md", "size": 1001, "limit": 1000}
    paste_error = _ask(Workspace(), "load", {}, "y" * 1001)["errors"][0]
    assert paste_error["params"] == {"size": 1001, "limit": 1000}
    assert "save it as a file and use the command line: python -m ragchunk split FILE" in paste_error["message"]
    assert _ask(Workspace(), "load", {}, b"")["errors"][0]["message"] == (
        "the file is empty (0 bytes): drop a file that holds text")


def test_the_page_limit_reaches_the_page_and_is_below_the_library_limit():
    from ragchunk.api import form_spec
    from ragchunk.settings import MAX_DOCUMENT_BYTES, MAX_PAGE_DOCUMENT_BYTES

    assert form_spec()["limits"]["document_bytes"] == MAX_PAGE_DOCUMENT_BYTES
    # Issue 5: the page handles documents up to 50 MB; the CLI takes what the page refuses.
    assert 50_000_000 <= MAX_PAGE_DOCUMENT_BYTES < MAX_DOCUMENT_BYTES


# --- properties over generated Markdown and hostile Unicode (tests/unit/strategies.py) -----

PROPERTY = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BY = st.sampled_from(["headings", "paragraphs", "sentences"])


@st.composite
def size_and_overlap(draw, low: int) -> tuple[int, int]:
    size = draw(st.one_of(st.integers(low, 24), st.integers(low, 300)))
    return size, draw(st.integers(0, size - 1))


@settings(max_examples=examples(400), **PROPERTY)
@given(markdown_text(), BY, size_and_overlap(4), st.sampled_from(["cl100k_base", "o200k_base", "p50k_base"]))
def test_every_guarantee_of_the_splitter_on_generated_markdown(text, by, sizes, encoding):
    size, overlap = sizes
    result = split(text, by=by, size=size, overlap=overlap, tokenizer=encoding)
    assert_guarantees(text, result, size, overlap, counter_for(encoding))


@settings(max_examples=examples(300), **PROPERTY)
@given(markdown_text(), BY, size_and_overlap(1), st.sampled_from([1, 2, 3.5, 4]))
def test_every_guarantee_of_the_splitter_with_the_estimate(text, by, sizes, ratio):
    size, overlap = sizes
    sizer = CharEstimate(ratio)
    assert_guarantees(text, split(text, by=by, size=size, overlap=overlap, tokenizer=sizer), size, overlap, sizer.count)


@settings(max_examples=examples(200), **PROPERTY)
@given(markdown(), size_and_overlap(1), st.sampled_from(["cl100k_base", "o200k_base", "r50k_base"]))
def test_windows_over_generated_markdown(text, sizes, encoding):
    size, overlap = sizes
    check_windows(text, size, overlap, encoding, windows(text, size, overlap, get_tokenizer(encoding)))


@settings(max_examples=examples(400), **PROPERTY)
@given(markdown_text(600))
def test_sentences_and_blocks_over_generated_markdown(text):
    check_invariants(text, sentence_spans(text))
    assert_invariants(text, parse_blocks(text))


def test_running_out_of_memory_is_said_plainly(monkeypatch):
    workspace = Workspace()
    doc = _ask(workspace, "load", {}, "Some text. More text.")["result"]["doc"]
    assert _ask(workspace, "analyze", {"doc": doc, "chunk_size": 4, "overlap": 1})["ok"]

    def exhausted(*args, **kwargs):
        raise MemoryError
        yield

    monkeypatch.setattr("ragchunk.api.pack_steps", exhausted)
    reply = _ask(workspace, "split", {"doc": doc, "chunk_size": "4", "overlap": "1"})
    assert reply["errors"] == [{
        "field": "text", "code": "out_of_memory", "params": {},
        "message": "the document needs more memory than the page has: split it into smaller files, "
                   "or use the command line: python -m ragchunk split FILE",
    }]


# Found by hypothesis: a heading glued to a word longer than the chunk was packed as
# words, and its first words filled the room left in the chunk before (the table's).
_HEADING_AFTER_TABLE = ("ab" * 75 + "\r\r| a | b |\r|---|---|\r" + "| the | Dr. |\r" * 12
                        + "\r###### V2.0.1 नमस्ते\r\r" + "ab" * 115 + "\r\r")


@settings(max_examples=examples(150), **PROPERTY)
@given(markdown(), st.sampled_from(["paragraphs", "headings"]), st.integers(8, 200), st.integers(0, 7))
@example(_HEADING_AFTER_TABLE, "paragraphs", 127, 7)
@example("Some words here. " * 20 + "\n\n## Alpha beta gamma\n\n" + "x" * 400, "paragraphs", 64, 0)
@example("> The the the the. " * 8 + "\n\n#\n\n", "paragraphs", 49, 0)  # found by hypothesis (an empty heading last)
def test_a_block_that_fits_is_never_cut(text, by, size, overlap):
    """Issue 3: paragraphs, code blocks, tables and lists stay whole when they fit the target.

    Except right after a heading (or a rule): a heading travels with what follows it, so
    when the two do not fit together the block is cut to keep the heading with its first
    sentences. Likewise markup that ends the document (a rule, an empty heading) goes with
    the block before it, which is cut when the two do not fit together. Front matter is
    metadata, in no chunk at all.
    """
    overlap = min(overlap, size - 1)
    # The target is the text's own budget here: context lines would take part of it.
    chunks = split(text, by=by, size=size, overlap=overlap, context="none").chunks
    count = get_tokenizer().count
    blocks = [b for b in parse_blocks(text) if b.kind != "front_matter"]
    # Where the markup at the end of the document starts (empty headings and rules after the last text).
    markup_end = len(blocks)
    while markup_end and (blocks[markup_end - 1].kind == "rule"
                          or (blocks[markup_end - 1].kind == "heading" and not blocks[markup_end - 1].title)):
        markup_end -= 1
    for index, (previous, block) in enumerate(zip([None, *blocks], blocks)):
        end = blocks[-1].end if index == markup_end - 1 else block.end
        if (previous is None or previous.kind not in ("heading", "rule")) and count(text[block.start : end]) <= size:
            assert any(c.content_start <= block.start and block.end <= c.end for c in chunks), (block, size)
