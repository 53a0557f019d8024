"""Recall at equal IoU: how far each ragchunk point lies above or below the other rows' curves.

    python3 bench/retrieval/frontier.py RUN.json [MORE.json ...] [--scope all|chatlogs|...]

IoU and recall trade against each other through chunk size (smaller chunks: higher IoU,
lower recall), so a change that only shrinks or grows chunks moves a row along its curve.
Run the benchmark at several targets (``--targets 128,192,256,384,512``); then each
non-ragchunk row (fixed windows, peers) with the same overlap gives a curve of recall
against IoU, interpolated linearly between its targets and never extrapolated, and their
upper envelope is the frontier. For each ragchunk point the margin is its recall minus the
frontier's recall at its IoU, in percentage points: above zero, no other row reaches that
recall at that IoU. Rows of later files replace rows of the same name in earlier ones
(give the peers' run first, an experiment's ragchunk-only run after it).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path


def curves(results: list[dict], scope: str) -> dict[tuple[str, str, int], list[tuple[float, float, int]]]:
    """(family, row, overlap class) -> [(iou, recall, target)] sorted by IoU; overlap class 0 or 1."""
    out: dict[tuple[str, str, int], list[tuple[float, float, int]]] = defaultdict(list)
    for r in results:
        s = r["scores"][scope]
        out[(r["family"], r["row"], int(r["overlap"] > 0))].append((s["iou"], s["recall"], r["target"]))
    return {k: sorted(v) for k, v in out.items()}


def interpolate(points: list[tuple[float, float, int]], x: float) -> float | None:
    for (x0, y0, _), (x1, y1, _) in zip(points, points[1:]):
        if x0 <= x <= x1:
            return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--scope", default="all", help="'all' or a corpus name")
    parser.add_argument("--retriever", default="bm25s")
    args = parser.parse_args()
    merged: dict[tuple, dict] = {}
    for path in args.runs:
        for r in json.loads(path.read_text(encoding="utf-8"))["results"]:
            if r["retriever"] == args.retriever and r["row"] != "ragchunk default":
                merged[(r["row"], r["overlap"], r["target"])] = r
    by_row = curves(list(merged.values()), args.scope)
    print(f"scope {args.scope}: recall minus the best other row's recall at the same IoU (pp); "
          "'-' where no other curve spans that IoU")
    for (family, row, overlapped), points in sorted(by_row.items()):
        if family != "ragchunk":
            continue
        others = [p for (f, _, o), p in by_row.items() if f != "ragchunk" and o == overlapped]
        cells = []
        for iou, recall, target in points:
            frontier = [y for y in (interpolate(p, iou) for p in others) if y is not None]
            margin = f"{(recall - max(frontier)) * 100:+5.1f}" if frontier else "    -"
            cells.append(f"{target}:{margin}")
        print(f"  {row:22} {'overlap' if overlapped else 'no overlap':10}  " + "  ".join(cells))


if __name__ == "__main__":
    main()
