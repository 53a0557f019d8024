"""Probe how HF ``tokenizers`` segments grapheme clusters, for XLM-R's normalizer.

HF's Precompiled normalizer (the one XLM-R's tokenizer.json names) looks a rule up for a
whole grapheme cluster when the cluster is shorter than 6 UTF-8 bytes, and replaces the
whole cluster by the rule of its shortest matching prefix. So where clusters begin and end
changes the normalized text, and ragchunk must segment text exactly as the Rust
``unicode-segmentation`` crate inside ``tokenizers`` does, whatever its Unicode version.

This script asks ``tokenizers`` itself. It builds a tiny charsmap whose rules map five
"leader" strings (``a © क ◌́ \\r``) to themselves and normalizes probe strings with it:
a cluster shorter than 6 bytes that starts with a leader comes out as the leader alone,
so whatever follows the leader inside its cluster disappears from the output. Each probe
below asks one question about a code point ``x`` that way (see :func:`classify`), and the
answers give every code point one class of ``ragchunk.tokenizers.unigram``'s grapheme
rules. Regional indicators and Hangul jamo need no class: they only ever join other
3- and 4-byte characters, so a cluster they extend is never shorter than 6 bytes, and no
rule of the charsmap starts with one (``test_unigram`` checks that).

    python3 tests/tables/probe_xlmr.py        rewrite pycore/ragchunk/tables/probed/xlmr-graphemes.txt
    python3 tests/tables/probe_xlmr.py --check exit 1 if the committed file differs

Needs ``tokenizers`` (pinned in tests/requirements.txt); about 10 s.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

TARGET = Path(__file__).resolve().parents[2] / "pycore" / "ragchunk" / "tables" / "probed" / "xlmr-graphemes.txt"

ACUTE = "\u0301"
ZWJ = "\u200d"
KA = "\u0915"
VIRAMA = "\u094d"
LEADERS = ("a", "\u00a9", KA, ACUTE, "\r")
SEPARATOR = "\n"

# The classes, as the digits the table holds.
OTHER, CONTROL, EXTEND, INCB_EXTEND, LINKER, ZWJ_CLASS, SPACING_MARK, PREPEND, PICTOGRAPHIC, CONSONANT = range(10)


def charsmap(rules: dict[str, str]) -> bytes:
    """A precompiled charsmap (darts-clone double array + replacements) holding ``rules``.

    Every node with children gets a 256-unit block of its own; a node's value unit sits
    at its base, which is a free unit of its parent's block, or of a spare block.
    Enough for a handful of rules, not for a real charsmap.
    """
    replacements = bytearray()
    values = {}
    for key, value in rules.items():
        values[key.encode()] = len(replacements)
        replacements += value.encode() + b"\0"
    trie: dict = {}
    for key in values:
        node = trie
        for byte in key:
            node = node.setdefault(byte, {})
        node[None] = values[key]
    units: list[int] = []

    def block() -> int:
        units.extend([0] * 256)
        return len(units) - 256

    def fill(node: dict, base: int) -> None:
        if None in node:
            units[base] = (1 << 31) | node[None]
        spare = [base ^ c for c in range(1, 256) if c not in node]
        for label, child in sorted((k, v) for k, v in node.items() if k is not None):
            slot = base ^ label
            if any(k is not None for k in child):
                child_base = block() | (slot & 0xFF)
            else:
                child_base = spare.pop()
            offset = slot ^ child_base
            assert offset < 1 << 21
            units[slot] = (offset << 10) | (0x100 if None in child else 0) | label
            fill(child, child_base)

    root = block()
    base = block()
    units[root] = (root ^ base) << 10
    fill(trie, base)
    trie_bytes = struct.pack(f"<{len(units)}I", *units)
    return struct.pack("<I", len(trie_bytes)) + trie_bytes + bytes(replacements)


def probes(x: str) -> list[str]:
    """The strings that classify ``x`` (see :func:`classify`)."""
    return [
        "a" + x,                                  # joins "a": Extend, ZWJ or SpacingMark
        x + "a" + ACUTE,                          # joins "a": Prepend
        x + ACUTE + ACUTE,                        # does not join an accent: a control
        "\u00a9" + ZWJ + x + VIRAMA + KA + ACUTE,  # pictographic after © ZWJ, or a consonant after a virama
    ]


def extend_probes(x: str) -> list[str]:
    """More probes for a character that joins what precedes it."""
    return [
        "\u00a9" + x + ZWJ + "\u00a9" + ACUTE,  # continues "© Extend* ZWJ ×": Extend
        "\u00a9" + x + "\u00a9" + ACUTE,        # is that ZWJ
        KA + x + KA + ACUTE,                    # a linker between consonants
        KA + x + VIRAMA + KA + ACUTE,           # InCB Extend (or a linker) before a linker
    ]


def classify(x: str, out: list[str], more: list[str] | None) -> int:
    """The class of ``x`` from the normalized probes (``out``) and extra probes (``more``)."""
    joins_after = out[0] == "a"
    if out[2] == x + ACUTE:
        return CONTROL
    if out[1] != x + "a":
        return PREPEND
    if joins_after:
        assert more is not None
        continues, is_zwj, links, incb = (m.endswith(ACUTE) for m in more)
        if is_zwj:
            return ZWJ_CLASS
        if links or incb:
            # InCB Extend and Linker characters are Extend characters (GB11 sees them so).
            assert continues, f"U+{ord(x):04X} is InCB but does not continue an emoji sequence"
            return LINKER if links else INCB_EXTEND
        return EXTEND if continues else SPACING_MARK
    fourth = out[3]
    if fourth.endswith(ACUTE):
        return CONSONANT
    if fourth.startswith("\u00a9" + ZWJ):
        return PICTOGRAPHIC
    return OTHER


def probe(code_points: range | list[int] = range(0x110000)) -> dict[int, int]:
    """The class of each of ``code_points`` (surrogates: OTHER), probed from HF tokenizers."""
    from tokenizers.normalizers import Precompiled

    normalizer = Precompiled(charsmap({leader: leader for leader in LEADERS}))
    points = [cp for cp in code_points if not 0xD800 <= cp < 0xE000 and chr(cp) not in "\r\n"]
    per = len(probes("x"))
    chunk = 1 << 15
    answers: dict[int, list[str]] = {}
    for at in range(0, len(points), chunk):
        batch = points[at:at + chunk]
        text = SEPARATOR.join(p for cp in batch for p in probes(chr(cp)))
        out = normalizer.normalize_str(text).split(SEPARATOR)
        assert len(out) == per * len(batch)
        for i, cp in enumerate(batch):
            answers[cp] = out[i * per:(i + 1) * per]
    joiners = [cp for cp in points if answers[cp][0] == "a"]
    text = SEPARATOR.join(p for cp in joiners for p in extend_probes(chr(cp)))
    out = normalizer.normalize_str(text).split(SEPARATOR)
    more = {cp: out[i * 4:(i + 1) * 4] for i, cp in enumerate(joiners)}
    classes = {cp: OTHER for cp in code_points}
    for cp in points:
        classes[cp] = classify(chr(cp), answers[cp], more.get(cp))
    for x in "\r\n":
        # CR LF is one cluster (checked here); both are controls on every other side.
        if ord(x) in classes:
            classes[ord(x)] = CONTROL
    assert normalizer.normalize_str("\r\n") == "\r", "CR LF is no longer one cluster"
    assert normalizer.normalize_str("\r" + ACUTE + ACUTE) == "\r" + ACUTE
    return classes


def table_text(classes: dict[int, int]) -> str:
    """The table as text: one line ``<first code point, hex> <class>`` per run of one class."""
    lines = ["# xlmr-graphemes: runs of grapheme classes probed from HF tokenizers; see tests/tables/probe_xlmr.py"]
    previous = None
    for cp in range(0x110000):
        value = classes[cp]
        if value != previous:
            lines.append(f"{cp:x} {value}")
            previous = value
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = table_text(probe())
    if "--check" in argv:
        same = TARGET.is_file() and TARGET.read_text(encoding="utf-8") == text
        print("xlmr-graphemes.txt is " + ("up to date" if same else "OUT OF DATE"))
        return 0 if same else 1
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET} ({len(text.encode()):,} bytes, {text.count(chr(10)) - 1} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
