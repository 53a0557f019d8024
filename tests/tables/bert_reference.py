"""The reference for ragchunk's BERT-uncased WordPiece tokenizer: HF ``tokenizers``'
``BertWordPieceTokenizer`` built from the same ``vocab.txt`` ragchunk reads (lowercase,
``encode_special_tokens`` on, so that user text is ordinary text, as ragchunk's interface
says). It was checked by hand to give the ids and offsets of the real ``tokenizer.json``
of all-MiniLM-L6-v2 (with and without ``encode_special_tokens``), so it stands for the
models' own tokenizer without an 80 MB download.
"""

from __future__ import annotations

from pathlib import Path


def reference_tokenizer(folder: Path):
    """HF's BertWordPieceTokenizer from the pinned vocabulary, written into ``folder``."""
    from tokenizers import BertWordPieceTokenizer

    from ragchunk import tables

    vocab = folder / "vocab.txt"
    vocab.write_bytes(tables.read("bert-uncased-vocab"))
    reference = BertWordPieceTokenizer(str(vocab), lowercase=True)
    reference._tokenizer.encode_special_tokens = True
    return reference
