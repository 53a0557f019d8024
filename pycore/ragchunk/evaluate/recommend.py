"""The answer to "which setting?": the frontier of recall against tokens read, and the cheapest
setting these questions cannot tell from the best.

Per retriever: the *frontier* holds the settings that no other setting beats on recall while
reading as few tokens per question or fewer; the *best* has the highest recall (fewer tokens
read breaks a tie); the *recommended* setting is the one reading the fewest tokens per
question whose recall lies within the best's 95 % bootstrap interval. Settings whose
intervals overlap the recommended one's are settings these questions cannot tell apart
from it: more questions, or other settings, are needed to choose between them.

>>> rows = [{"by": "fixed", "size": 128, "overlap": 16, "context": "none", "retriever": "bm25", "recall": 0.5,
...          "recall_interval": [0.4, 0.6], "tokens_read": 640.0},
...         {"by": "headings", "size": 256, "overlap": 32, "context": "headings", "retriever": "bm25",
...          "recall": 0.8, "recall_interval": [0.7, 0.9], "tokens_read": 1200.0},
...         {"by": "headings", "size": 512, "overlap": 64, "context": "headings", "retriever": "bm25",
...          "recall": 0.85, "recall_interval": [0.75, 0.95], "tokens_read": 2400.0}]
>>> answer = recommend(rows)["bm25"]
>>> answer["frontier"], answer["best"], answer["recommended"], answer["cannot_tell"]
(['fixed 128/16', 'headings 256/32', 'headings 512/64'], 'headings 512/64', 'headings 256/32', ['headings 512/64'])
"""

from __future__ import annotations

from typing import Any

from ..packing.packer import DEFAULT_SIBLINGS
from .grid import Setting

__all__ = ["label", "recommend"]


def label(row: dict[str, Any]) -> str:
    """The setting of a result row, as :attr:`.grid.Setting.label` names it."""
    return Setting(row["by"], row["size"], row["overlap"], row["context"],
                   row.get("siblings", DEFAULT_SIBLINGS)).label


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def recommend(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per retriever: ``frontier``, ``best``, ``recommended``, ``cannot_tell`` (labels) and a ``sentence``."""
    out: dict[str, dict[str, Any]] = {}
    for retriever in dict.fromkeys(row["retriever"] for row in rows):
        scored = [row for row in rows if row["retriever"] == retriever and row.get("recall") is not None]
        if not scored:
            continue
        by_cost = sorted(scored, key=lambda row: (row["tokens_read"], -row["recall"]))
        frontier, top = [], -1.0
        for row in by_cost:
            if row["recall"] > top:
                frontier.append(row)
                top = row["recall"]
        best = max(scored, key=lambda row: (row["recall"], -row["tokens_read"]))
        low = best["recall_interval"][0]
        chosen = min((row for row in scored if row["recall"] >= low), key=lambda row: (row["tokens_read"],
                                                                                        -row["recall"]))
        alike = [row for row in scored if row is not chosen and _overlap(row["recall_interval"],
                                                                          chosen["recall_interval"])]
        out[retriever] = {"frontier": [label(row) for row in frontier], "best": label(best),
                          "recommended": label(chosen), "cannot_tell": [label(row) for row in alike],
                          "sentence": sentence(retriever, chosen, best, alike)}
    return out


def _percent(value: float) -> str:
    return f"{value * 100:.0f} %"


def sentence(retriever: str, chosen: dict[str, Any], best: dict[str, Any], alike: list[dict[str, Any]]) -> str:
    """The recommendation in one sentence (English; the page says it in its own language)."""
    low, high = chosen["recall_interval"]
    text = (f"With {retriever}, {label(chosen)} finds {_percent(chosen['recall'])} of the answers' text"
            f" ({_percent(low)}–{_percent(high)}) reading {chosen['tokens_read']:,.0f} tokens per question")
    if best is not chosen:
        text += (f"; the best, {label(best)} ({_percent(best['recall'])}, {best['tokens_read']:,.0f} tokens), is within"
                 " its interval")
    if alike:
        names = ", ".join(label(row) for row in alike[:3]) + (" …" if len(alike) > 3 else "")
        text += f"; these questions cannot tell it from {names}"
    return text + "."
