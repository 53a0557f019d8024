"""Probe HF ``tokenizers`` for the per-code-point data of the bert-base-uncased pipeline.

Writes ``pycore/ragchunk/tables/probed/bert-uncased-chars.txt.gz``, the table
``ragchunk.tokenizers.wordpiece`` reads. Run from the checkout (needs the ``tokenizers``
version pinned in ``tests/requirements.txt``)::

    PYTHONPATH=pycore .venv/bin/python tests/tables/probe_bert.py          # write the file
    PYTHONPATH=pycore .venv/bin/python tests/tables/probe_bert.py --check  # compare only

Why probe: HF's normalizer (``BertNormalizer``: clean text, pad CJK ideographs, NFD,
drop nonspacing marks, lowercase each code point) and its pre-tokenizer (whitespace,
punctuation) use the Unicode data compiled into its Rust crates, older than Python's
``unicodedata`` and not the same in every Python version. So every code point is put
through HF itself and the answers are recorded:

- ``F(c)``: what the whole normalizer makes of ``c`` alone, with each whitespace the
  pre-tokenizer splits on written as one space and each punctuation mark it isolates
  written with a space on either side, so that the words of a text are the
  space-separated pieces of the concatenated ``F``;
- that ``F`` of a text is ``F`` of its code points put together: NFD reorders runs of
  combining marks across code points, but the probe shows that no mark (as HF's NFD sees
  it) survives the mark filter, so the reordering never shows in the output.

Each line of the table is ``<first code point, hex> <kind>``; a run lasts until the next
line. Kinds: ``=`` itself, ``-`` removed, ``_`` a space, ``|`` itself between spaces, ``>N``
the code point N further on, ``h`` a Hangul syllable's jamo, ``:`` one value per code
point of the run (hex code points joined by ``.``).
"""

from __future__ import annotations

import argparse
import gzip
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
TARGET = CHECKOUT / "pycore" / "ragchunk" / "tables" / "probed" / "bert-uncased-chars.txt.gz"
HEADER = (
    "# Per-code-point data of HF tokenizers' bert-base-uncased pipeline (BertNormalizer clean_text,\n"
    "# handle_chinese_chars, strip_accents, lowercase; BertPreTokenizer), probed from tokenizers {version}\n"
    "# by tests/tables/probe_bert.py (format in its docstring). Facts about Unicode characters, derived\n"
    "# from HF tokenizers (Apache-2.0) and the Unicode Character Database (Unicode licence).\n"
)

SURROGATES = range(0xD800, 0xE000)
BATCH = 4096
SEP = "|"


def _batched(function, pieces: list[str]) -> list[str]:
    """``[function(p) for p in pieces]``, calling ``function`` once per batch when the glue survives."""
    out: list[str] = []
    for i in range(0, len(pieces), BATCH):
        part = pieces[i:i + BATCH]
        joined = SEP.join(part) + SEP
        answer = function(joined).split(SEP) if joined.count(SEP) == len(part) else []
        if len(answer) == len(part) + 1 and answer[-1] == "":
            out += answer[:-1]
        else:
            out += [function(p) for p in part]
    return out


def probe(outputs: list[str] | None = None) -> str:
    """The table's text, computed from HF ``tokenizers``; ``outputs`` (if given) receives
    ``F`` of every code point but the surrogates, in order."""
    import tokenizers
    from tokenizers import normalizers, pre_tokenizers

    bert = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None, lowercase=True)
    nfd, strip = normalizers.NFD(), normalizers.StripAccents()
    pretok = pre_tokenizers.BertPreTokenizer()

    code_points = [c for c in range(0x110000) if c not in SURROGATES]
    chars = [chr(c) for c in code_points]
    full = _batched(bert.normalize_str, chars)

    # How the pre-tokenizer treats each character, probed as "a" x "a": dropped (whitespace),
    # alone (punctuation) or inside the word.
    fold: dict[int, str] = {}
    for i in range(0, len(chars), BATCH):
        part = chars[i:i + BATCH]
        text = "a" + "a".join(part) + "a"
        alone = bytearray(len(text))
        covered = bytearray(len(text))
        for _, (start, end) in pretok.pre_tokenize_str(text):
            covered[start:end] = b"\1" * (end - start)
            if end - start == 1:
                alone[start] = 1
        for j, x in enumerate(part):
            p = 2 * j + 1
            if not covered[p]:
                fold[ord(x)] = " "
            elif alone[p]:
                fold[ord(x)] = f" {x} "

    # NFD reorders runs of combining marks across code points, which would make the output of
    # a text more than the outputs of its code points put together. It cannot show: no mark
    # (as HF's NFD sees it: reordered past U+0301 and U+0316) survives the mark filter.
    kept = [x for x, out in zip(chars, _batched(strip.normalize_str, _batched(nfd.normalize_str, chars))) if out]
    probes = [f"\u0301{x}\u0316" for x in kept]
    for x, out in zip(kept, _batched(nfd.normalize_str, probes)):
        _assert(out == f"\u0301{x}\u0316" or nfd.normalize_str(x) != x,
                f"U+{ord(x):04X} is a combining mark that survives")

    lines = [HEADER.format(version=tokenizers.__version__)]
    run_kind, run_start, run_values = None, None, []

    def close() -> None:
        if run_kind is None:
            return
        if run_kind == ":":
            lines.append(f"{run_start:x} :" + " ".join(run_values) + "\n")
        else:
            lines.append(f"{run_start:x} {run_kind}\n")

    for c, ch, out in zip(code_points, chars, full):
        out = out.translate(fold)
        if outputs is not None:
            outputs.append(out)
        if out == ch:
            this = "="
        elif out == "":
            this = "-"
        elif out == " ":
            this = "_"
        elif out == f" {ch} ":
            this = "|"
        elif 0xAC00 <= c <= 0xD7A3 and out == _hangul(c):
            this = "h"
        elif len(out) == 1:
            this = f">{ord(out) - c}"
        else:
            this = ":"
        if this == ":" and run_kind == ":" and c == run_start + len(run_values):
            run_values.append(_hex(out))
            continue
        if this != ":" and this == run_kind:
            continue
        close()
        run_kind, run_start, run_values = this, c, ([_hex(out)] if this == ":" else [])
    close()
    return "".join(lines)


def _hangul(c: int) -> str:
    index = c - 0xAC00
    lead, vowel, tail = 0x1100 + index // 588, 0x1161 + index % 588 // 28, index % 28
    return chr(lead) + chr(vowel) + (chr(0x11A7 + tail) if tail else "")


def _hex(text: str) -> str:
    return ".".join(f"{ord(x):x}" for x in text) or "-"


def _assert(condition: bool, message: str) -> None:
    if not condition:
        raise SystemExit(f"probe_bert.py: {message}; the table format cannot say this, extend it")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file, write nothing")
    args = parser.parse_args()
    text = probe()
    if args.check:
        same = TARGET.is_file() and gzip.decompress(TARGET.read_bytes()).decode() == text
        print("probed table matches" if same else "probed table DIFFERS from the committed file")
        sys.exit(0 if same else 1)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    print(f"wrote {TARGET.relative_to(CHECKOUT)} ({TARGET.stat().st_size:,} bytes, {len(text):,} uncompressed)")


if __name__ == "__main__":
    main()
