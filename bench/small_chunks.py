#!/usr/bin/env python3
"""The share of chunks under a quarter of the target on the retrieval corpora, for any checkout.

Issue 15 asked for this share before and after its packing changes; the core of another
checkout (``--pycore``) gives the "before" side, e.g. the commit before the first of them:

    git worktree add /tmp/before d514cf8^ && cp -r pycore/ragchunk/tables/data /tmp/before/pycore/ragchunk/tables/
    python3 bench/small_chunks.py --pycore /tmp/before/pycore
    python3 bench/small_chunks.py

Chunks are ``split(text, by="paragraphs", ...)`` of each corpus of
``../shared/data/chunking-evaluation`` (the level these corpora exercise: none has a
Markdown heading), without heading context where the core has the option, counted in
cl100k_base; targets 128, 256 and 512, without overlap and with an eighth of the target.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pycore", type=Path, default=ROOT / "pycore", help="the pycore folder to import ragchunk from")
    args = parser.parse_args()
    sys.path.insert(0, str(args.pycore))
    os.environ.setdefault("RAGCHUNK_ENCODERS", str(args.pycore / "ragchunk" / "tables" / "data"))
    sys.path.insert(0, str(ROOT / "bench"))
    import ragchunk
    from retrieval.data import DATA

    count = ragchunk.get_tokenizer("cl100k_base").count
    texts = {path.stem: path.read_text(encoding="utf-8") for path in sorted((DATA / "corpora").glob("*.md"))}
    options = {"context": "none"} if "context" in inspect.signature(ragchunk.split).parameters else {}
    print(f"ragchunk from {args.pycore}: chunks under a quarter of the target / all chunks")
    for target in (128, 256, 512):
        for overlap in (0, target // 8):
            small = total = 0
            cells = []
            for name, text in texts.items():
                chunks = ragchunk.split(text, by="paragraphs", size=target, overlap=overlap, tokenizer="cl100k_base",
                                        **options).chunks
                under = sum(1 for chunk in chunks if count(chunk.text) < target / 4)
                cells.append(f"{name} {under}/{len(chunks)}")
                small += under
                total += len(chunks)
            print(f"  {target:>4} overlap {overlap:>3}: {100 * small / total:5.1f} % of {total:>5,}  ({', '.join(cells)})")


if __name__ == "__main__":
    main()
