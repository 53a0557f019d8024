"""Compare two runs of bench_retrieval.py: per row, target and corpus, the change in IoU and recall.

    python3 bench/retrieval/compare.py BEFORE.json AFTER.json [--family ragchunk] [--retriever bm25s]

Each cell is ``ΔIoU/Δrecall`` in percentage points (after − before) and, per corpus, the
paired count of questions whose recall rose and fell (``+a-b``): a change that moves a
handful of questions is noise at this size (56 to 144 questions per corpus).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

CORPORA = ("chatlogs", "finance", "state_of_the_union", "wikitexts")
SHORT = {"chatlogs": "chat", "finance": "fin", "state_of_the_union": "sotu", "wikitexts": "wiki"}


def load(path: Path) -> tuple[dict, list[str]]:
    report = json.loads(path.read_text(encoding="utf-8"))
    keyed = {(r["retriever"], r["row"], r["overlap"], r["target"]): r for r in report["results"]}
    return keyed, report.get("question_corpora", [])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--family", default="ragchunk", help="rows of this family only ('' for all)")
    parser.add_argument("--retriever", default="bm25s")
    args = parser.parse_args()
    before, corpus_of = load(args.before)
    after, _ = load(args.after)
    print(f"{'row':24} {'ovl':>3} {'tgt':>4} | {'all dIoU/dRec':>13} | "
          + " | ".join(f"{SHORT[c]:>4} dIoU/dRec  +up-down" for c in CORPORA))
    for key in sorted(after, key=lambda k: (k[3], k[2], k[1])):
        retriever, row, overlap, target = key
        if retriever != args.retriever or key not in before:
            continue
        a, b = before[key], after[key]
        if args.family and b["family"] != args.family:
            continue
        sa, sb = a["scores"], b["scores"]
        line = f"{row[:24]:24} {overlap:>3} {target:>4} | " \
               f"{(sb['all']['iou'] - sa['all']['iou']) * 100:+5.2f}/{(sb['all']['recall'] - sa['all']['recall']) * 100:+5.1f}  |"
        for corpus in CORPORA:
            up = down = 0
            for qa, qb, c in zip(a["per_question"], b["per_question"], corpus_of):
                if c == corpus:
                    up += qb[1] > qa[1] + 1e-9
                    down += qb[1] < qa[1] - 1e-9
            line += f" {(sb[corpus]['iou'] - sa[corpus]['iou']) * 100:+5.2f}/{(sb[corpus]['recall'] - sa[corpus]['recall']) * 100:+5.1f}" \
                    f" {'+' + str(up) + '-' + str(down):>8} |"
        print(line)


if __name__ == "__main__":
    main()
