"""Retrieval quality of ragchunk's chunks against fixed windows and peer splitters.

Data: ``../shared/data/chunking-evaluation/`` beside the checkout, or the folder
``RAGCHUNK_RETRIEVAL_DATA`` names, in the same layout (from brandonstarxel/chunking_evaluation,
MIT): four corpora (chatlogs, finance, state_of_the_union, wikitexts) and 373 questions
with answer spans. Measures (see ``retrieval/metrics.py``): the IoU, recall and precision
of Chroma's report "Evaluating Chunking Strategies for Retrieval", in characters, of the
top ``k`` (5) chunks per question. As in the report's code, all corpora's chunks form one
index, so a question may retrieve chunks of another corpus (they cover nothing and count
in precision and IoU).

Rows, at each target (128, 256, 512 cl100k_base tokens), each without overlap and with
``target // 8`` tokens of overlap (16, 32, 64): ragchunk ``split`` by headings, paragraphs
and sentences with ``context="none"``, and the same three with ``context="headings"``
(``+context``: indexed by each chunk's ``embed_text``, scored by its span); ``ragchunk default`` (``split(text, size=target)``, every setting the library's
default: by headings, overlap ``target // 8``; indexed by ``embed_text`` when a chunk has
one); fixed token windows (``ragchunk.windows``); LangChain
``RecursiveCharacterTextSplitter.from_tiktoken_encoder``; chonkie ``RecursiveChunker`` (no
overlap setting); LlamaIndex ``SentenceSplitter``; semantic-text-splitter
``MarkdownSplitter`` and ``TextSplitter`` (``from_tiktoken_model("gpt-4")``, cl100k_base).
Peers and the retriever (``bm25s``, ``PyStemmer``) are the ``[bench]`` extra
(``pip install -e .[bench]``); missing ones are listed.

``--wikitext-headings`` writes the wikitexts corpus's heading lines (`` = = Plot = = ``) as
Markdown headings of the same depth, padded to the same length (every reference span
stays where it was): the only corpus here with sections, as the text of a docs site would
have them, which the original format hides from every Markdown-aware splitter.

Retrievers (``--retriever``, comma-separated; see ``retrieval/retrievers.py``): ``bm25s``
(the default: bm25s's Lucene BM25 over stemmed English tokens, the reference), and those
``python -m ragchunk evaluate`` runs, from the core: ``bm25`` (its pure-Python BM25),
``minilm`` (all-MiniLM-L6-v2 int8 ONNX on onnxruntime, the ``[evaluate]`` extra; each
distinct chunk text embedded once per run) and ``hybrid`` (their reciprocal-rank fusion).
Every row, peers included, is scored by each retriever asked for.

Printed per target: per row, the means over all questions and per corpus (in %), chunk
count, the share of chunks under a quarter of the target and the mean chunk size (counted
in cl100k_base) and the seconds the row took to chunk the four corpora. ``rec*`` (finance
only) is a diagnostic outside the report's measures: the recall when any identical copy of
a reference counts, since 43 % of the finance corpus's characters repeat earlier text and
96 of its 143 references occur more than once, the reference always naming the first copy;
then which ragchunk rows beat every other row on both IoU and recall, and ``read``: the
tokens of the top ``k`` chunks per question (what an LLM reads), in cl100k_base.

The goals, checked per retriever over all targets once every target has run:

- *frontier*: no peer's point (IoU, recall) lies above ragchunk's frontier, the best recall
  any ragchunk row (every level, context and overlap, at any target) reaches at that IoU or
  more: per peer point, that recall minus the peer's (below zero: the peer is above);
- *tokens read*: at the default size (512), the default lies on or above fixed windows'
  curves of recall and of IoU against tokens read per question (each overlap's windows over
  the targets, interpolated linearly in tokens read, never extrapolated).

Written as JSON to ``bench/out/bench_retrieval.json`` (``--out`` to change).

    python3 bench/bench_retrieval.py [--targets 128,256,512] [--k 5] [--retriever bm25s,bm25,minilm,hybrid]
                                     [--only SUBSTRING] [--no-peers] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "pycore"))

from retrieval import data, metrics, rows as rowlib  # noqa: E402
from retrieval.frontier import interpolate  # noqa: E402
from retrieval.retrievers import BM25, CoreBM25, Hybrid, MiniLM  # noqa: E402

import ragchunk  # noqa: E402  (rows put pycore on the path)
from ragchunk.settings import DEFAULT_CHUNK_SIZE  # noqa: E402

RETRIEVERS = ("bm25s", "bm25", "minilm", "hybrid")

SHORT = {"chatlogs": "chat", "finance": "fin", "state_of_the_union": "sotu", "wikitexts": "wiki"}


def chunk_all(row: rowlib.Row, corpora: dict[str, str], count) -> tuple[list[tuple[str, int, int]], list[str], dict]:
    """Every corpus cut by ``row``: the spans, the texts to index, and chunk statistics per corpus."""
    spans: list[tuple[str, int, int]] = []
    texts: list[str] = []
    stats: dict[str, dict] = {}
    started = time.perf_counter()
    for name, text in corpora.items():
        chunks = row.chunk(text)
        for start, end, _chunk in chunks:
            if not 0 <= start <= end <= len(text):
                raise ValueError(f"{row.name}: span {start}-{end} outside {name}")
        tokens = [count(chunk) for _, _, chunk in chunks]
        spans.extend((name, s, e) for s, e, _ in chunks)
        texts.extend(chunk for _, _, chunk in chunks)
        stats[name] = {"chunks": len(chunks), "tokens": tokens}
    return spans, texts, {"per_corpus": stats, "seconds": time.perf_counter() - started}


def evaluate(spans, texts, questions, retriever, k: int) -> tuple[list[metrics.Score], list[list[int]]]:
    """Each question's measures, and the indices of the chunks it retrieved, best first."""
    found = retriever.search(texts, [q.text for q in questions], k)
    scores = [metrics.score([spans[i] for i in top], q.corpus, q.references, q.copies)
              for q, top in zip(questions, found)]
    return scores, found


def summarise(scores: list[metrics.Score], questions, chunk_stats: dict, target: int, read: list[int]) -> dict:
    """Means over all questions and per corpus; ``read`` is each question's tokens retrieved."""
    def means(selected: list[metrics.Score], tokens: list[int]) -> dict[str, float]:
        out = {m: statistics.fmean(getattr(s, m) for s in selected) for m in ("iou", "recall", "precision", "recall_any")}
        return out | {"tokens_read": statistics.fmean(tokens)}

    out: dict[str, dict] = {"all": means(scores, read)}
    all_tokens: list[int] = []
    for name, stats in chunk_stats["per_corpus"].items():
        chosen = [index for index, q in enumerate(questions) if q.corpus == name]
        selected = [scores[index] for index in chosen]
        tokens = stats["tokens"]
        all_tokens.extend(tokens)
        out[name] = {**means(selected, [read[index] for index in chosen]), "chunks": len(tokens),
                     "small_share": sum(t < target / 4 for t in tokens) / max(1, len(tokens)),
                     "mean_tokens": statistics.fmean(tokens) if tokens else 0.0,
                     "over_target": sum(t > target for t in tokens)}
    out["all"].update(chunks=len(all_tokens), small_share=sum(t < target / 4 for t in all_tokens) / len(all_tokens),
                      mean_tokens=statistics.fmean(all_tokens), over_target=sum(t > target for t in all_tokens))
    return out


def print_table(target: int, retriever: str, results: list[dict], corpora: list[str], k: int) -> None:
    print(f"\n== target {target} tokens, {retriever}, top {k}: IoU / recall / precision in % (means over questions)")
    head = f"{'row':31} {'ovl':>3} | {'IoU':>5} {'rec':>5} {'prec':>5}"
    for name in corpora:
        head += f" | {SHORT.get(name, name[:5]) + ' IoU':>8} {'rec':>5}" + (f" {'rec*':>5}" if name == "finance" else "")
    head += f" | {'chunks':>6} {'<1/4':>5} {'tok':>5} {'read':>5} {'sec':>5}"
    print(head)
    print("-" * len(head))
    for r in results:
        s = r["scores"]
        line = f"{r['row']:31} {r['overlap']:>3} | {s['all']['iou'] * 100:5.2f} {s['all']['recall'] * 100:5.1f}" \
               f" {s['all']['precision'] * 100:5.2f}"
        for name in corpora:
            line += f" | {s[name]['iou'] * 100:8.2f} {s[name]['recall'] * 100:5.1f}"
            if name == "finance":
                line += f" {s[name]['recall_any'] * 100:5.1f}"
        line += f" | {s['all']['chunks']:6} {s['all']['small_share'] * 100:4.0f}% {s['all']['mean_tokens']:5.0f}" \
                f" {s['all']['tokens_read']:5.0f} {r['chunk_seconds']:5.1f}"
        print(line)


_MARK = {"I": {"win": "I", "tie": "i", "loss": "."}, "R": {"win": "R", "tie": "r", "loss": "."}}


def _beats(ours: float, best_other: float) -> str:
    if abs(ours - best_other) < 1e-9:
        return "tie"
    return "win" if ours > best_other else "loss"


def print_wins(target: int, results: list[dict], corpora: list[str]) -> list[dict]:
    """Which ragchunk rows beat every non-ragchunk row on IoU and on recall, overall and per corpus."""
    others = [r for r in results if r["family"] != "ragchunk"]
    verdicts = []
    if not others:
        return verdicts
    for r in results:
        if r["family"] != "ragchunk":
            continue
        verdict = {"row": r["row"], "overlap": r["overlap"], "target": target}
        for scope in ["all", *corpora]:
            best_iou = max(others, key=lambda o: o["scores"][scope]["iou"])
            best_rec = max(others, key=lambda o: o["scores"][scope]["recall"])
            verdict[scope] = {
                "iou": _beats(r["scores"][scope]["iou"], best_iou["scores"][scope]["iou"]),
                "recall": _beats(r["scores"][scope]["recall"], best_rec["scores"][scope]["recall"]),
                "best_other_iou": [best_iou["row"], best_iou["overlap"], best_iou["scores"][scope]["iou"]],
                "best_other_recall": [best_rec["row"], best_rec["overlap"], best_rec["scores"][scope]["recall"]],
            }
        verdicts.append(verdict)
    print(f"-- target {target}: beats every non-ragchunk row on IoU / recall (I/R; i/r a tie; all, then per corpus)")
    for v in verdicts:
        marks = "  ".join(f"{SHORT.get(scope, scope)} {_MARK['I'][v[scope]['iou']]}{_MARK['R'][v[scope]['recall']]}"
                          for scope in ["all", *corpora])
        print(f"   {v['row']:31} {v['overlap']:>3}  {marks}")
    best = verdicts[0]["all"]
    print(f"   best other overall: IoU {best['best_other_iou'][0]} ({best['best_other_iou'][1]}) "
          f"{best['best_other_iou'][2] * 100:.2f}, recall {best['best_other_recall'][0]} "
          f"({best['best_other_recall'][1]}) {best['best_other_recall'][2] * 100:.1f}")
    return verdicts


def check_frontier(results: list[dict], retriever: str) -> dict:
    """Goal: no peer's (IoU, recall) lies above ragchunk's frontier over every target.

    The frontier joins ragchunk's undominated points (IoU, recall), across targets, by
    straight lines; at an IoU below its first point it is the best recall of a point with a
    higher IoU. Per peer point, the margin is the frontier's recall at the peer's IoU minus
    the peer's (None when no ragchunk point reaches that IoU: the peer is above).
    """
    ours = sorted(((r["scores"]["all"]["iou"], r["scores"]["all"]["recall"], r["target"]) for r in results
                   if r["family"] == "ragchunk"), reverse=True)
    chain, best = [], -1.0
    for point in ours:
        if point[1] > best:
            chain.append(point)
            best = point[1]
    chain.reverse()
    points = []
    for r in results:
        if r["family"] != "peer":
            continue
        iou, recall = r["scores"]["all"]["iou"], r["scores"]["all"]["recall"]
        reach = [rec for i, rec, _ in chain if i >= iou]
        between = interpolate(chain, iou)
        frontier = max([*reach, *([] if between is None else [between])], default=None)
        points.append({"row": r["row"], "overlap": r["overlap"], "target": r["target"], "iou": iou, "recall": recall,
                       "margin": None if frontier is None else frontier - recall})
    above = [p for p in points if p["margin"] is None or p["margin"] < 0]
    print(f"-- goal, {retriever}: no peer above ragchunk's IoU-recall frontier over the targets: "
          + ("no peer measured" if not points else "met" if not above else f"NOT met ({len(above)} of {len(points)})"))
    for p in sorted(points, key=lambda p: (p["margin"] is not None, p["margin"] or 0.0))[:max(3, len(above))]:
        margin = "no ragchunk point reaches its IoU" if p["margin"] is None else f"{p['margin'] * 100:+.1f} pp recall"
        print(f"   {p['row']:31} {p['overlap']:>3} @{p['target']:<4} IoU {p['iou'] * 100:5.2f} recall"
              f" {p['recall'] * 100:5.1f}: frontier {margin}")
    return {"retriever": retriever, "goal": "frontier", "met": bool(points) and not above, "points": points}


def check_tokens_read(results: list[dict], retriever: str, size: int) -> dict:
    """Goal: at the default size, the default on or above fixed windows' curves of recall and
    of IoU against tokens read per question (each overlap's windows over the targets)."""
    default = next((r for r in results if r["row"] == "ragchunk default" and r["target"] == size), None)
    verdict: dict = {"retriever": retriever, "goal": "tokens_read", "size": size, "met": None, "curves": []}
    if default is None:
        print(f"-- goal, {retriever}: the default at {size} was not run (add {size} to --targets)")
        return verdict
    read = default["scores"]["all"]["tokens_read"]
    margins = []
    for overlap in (False, True):  # windows without overlap, then with an eighth of each target
        fixed = [r["scores"]["all"] for r in results if r["family"] == "fixed" and bool(r["overlap"]) == overlap]
        if not fixed:
            continue
        cells = {}
        for measure in ("recall", "iou"):
            curve = sorted((s["tokens_read"], s[measure], 0) for s in fixed)
            at = interpolate(curve, read)
            cells[measure] = None if at is None else default["scores"]["all"][measure] - at
            if at is not None:
                margins.append(cells[measure])
        verdict["curves"].append({"overlap": overlap, **cells})
    verdict["met"] = bool(margins) and min(margins) >= 0
    status = "no fixed curve spans its tokens read" if not margins else "met" if verdict["met"] else "NOT met"
    print(f"-- goal, {retriever}: the default at {size} ({read:,.0f} tokens read per question, IoU"
          f" {default['scores']['all']['iou'] * 100:.2f}, recall {default['scores']['all']['recall'] * 100:.1f})"
          f" on or above fixed windows at equal tokens read: {status}")
    for curve in verdict["curves"]:
        cells = [f"{m} {'outside the curve' if curve[m] is None else f'{curve[m] * 100:+.2f} pp'}"
                 for m in ("recall", "iou")]
        print(f"   fixed windows {'with' if curve['overlap'] else 'without'} overlap: " + ", ".join(cells))
    return verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="128,256,512", help="chunk targets in tokens, comma-separated")
    parser.add_argument("--k", type=int, default=5, help="chunks retrieved per question")
    parser.add_argument("--retriever", default="bm25s", help="comma-separated: " + ", ".join(RETRIEVERS))
    parser.add_argument("--bm25", default="1.5,0.75", metavar="K1,B",
                        help="BM25's k1 and b (b = 0: no length normalisation)")
    parser.add_argument("--only", action="append", default=[],
                        help="keep rows whose name contains this (repeatable)")
    parser.add_argument("--no-peers", action="store_true", help="ragchunk rows and fixed windows only")
    parser.add_argument("--no-overlap-rows", action="store_true", help="skip the rows with overlap")
    parser.add_argument("--wikitext-headings", action="store_true",
                        help="write wikitexts' heading lines (' = = Plot = = ') as Markdown headings, offsets kept")
    parser.add_argument("--out", type=Path, default=HERE / "out" / "bench_retrieval.json")
    args = parser.parse_args()

    started = time.perf_counter()
    targets = [int(t) for t in args.targets.split(",")]
    corpora, questions = data.load()
    if args.wikitext_headings:
        corpora["wikitexts"] = data.markdown_headings(corpora["wikitexts"])
    wanted = [name.strip() for name in args.retriever.split(",") if name.strip()]
    if not wanted or any(name not in RETRIEVERS for name in wanted):
        parser.error(f"--retriever: choose from {', '.join(RETRIEVERS)}")
    retrievers = []
    dense = MiniLM() if {"minilm", "hybrid"} & set(wanted) else None
    for name in dict.fromkeys(wanted):
        if name == "bm25s":
            k1, b = (float(x) for x in args.bm25.split(","))
            retrievers.append(BM25(k1, b))
        elif name == "bm25":
            retrievers.append(CoreBM25())
        elif name == "minilm":
            retrievers.append(dense)
        else:
            retrievers.append(Hybrid(dense))
    plain = rowlib.plain_encoding()

    def count(chunk: str) -> int:
        return len(plain.encode_ordinary(chunk))

    print(f"Python {platform.python_version()}, ragchunk {ragchunk.__version__}, {rowlib.ENCODING}; "
          f"{len(questions)} questions, top {args.k}")
    for name, text in corpora.items():
        n = sum(q.corpus == name for q in questions)
        print(f"  {name:20} {len(text):>8,} chars  {n:>3} questions  sha256 {data.fingerprint(text)}")
    for retriever in retrievers:
        print(f"  retriever {retriever.name}: {retriever.description}")

    report = {"python": platform.python_version(), "ragchunk": ragchunk.__version__, "k": args.k,
              "corpora": {n: data.fingerprint(t) for n, t in corpora.items()},
              "retrievers": {r.name: r.description for r in retrievers},
              "question_corpora": [q.corpus for q in questions], "results": [], "wins": [], "goals": [],
              "missing": []}
    names = list(corpora)
    for target in targets:
        overlaps = [0] if args.no_overlap_rows else [0, target // 8]
        rows: list[rowlib.Row] = [rowlib.default_row(target)]
        missing: list[str] = []
        for overlap in overlaps:
            rows.extend(rowlib.ragchunk_rows(target, overlap))
            rows.extend(rowlib.context_rows(target, overlap))
            rows.append(rowlib.fixed_row(target, overlap))
            if not args.no_peers:
                found, missing = rowlib.peer_rows(target, overlap)
                rows.extend(found)
        if args.only:
            rows = [r for r in rows if any(word in r.name for word in args.only)]
        report["missing"] = missing
        per_retriever: dict[str, list[dict]] = {r.name: [] for r in retrievers}
        for row in rows:
            try:
                spans, texts, chunk_stats = chunk_all(row, corpora, count)
            except Exception as err:  # a peer that fails is reported, not fatal
                print(f"   {row.name} (overlap {row.overlap}) failed: {type(err).__name__}: {err}"[:300])
                continue
            tokens = [t for stats in chunk_stats["per_corpus"].values() for t in stats["tokens"]]
            for retriever in retrievers:
                started_row = time.perf_counter()
                scores, found = evaluate(spans, texts, questions, retriever, args.k)
                read = [sum(tokens[i] for i in top) for top in found]
                result = {"row": row.name, "family": row.family, "overlap": row.overlap, "target": target,
                          "retriever": retriever.name, "chunk_seconds": chunk_stats["seconds"],
                          "retrieve_seconds": time.perf_counter() - started_row,
                          "scores": summarise(scores, questions, chunk_stats, target, read),
                          "per_question": [[round(x, 6) for x in s[:3]] for s in scores]}
                per_retriever[retriever.name].append(result)
                report["results"].append(result)
        for retriever in retrievers:
            print_table(target, retriever.name, per_retriever[retriever.name], names, args.k)
            for verdict in print_wins(target, per_retriever[retriever.name], names):
                report["wins"].append({"retriever": retriever.name, **verdict})
    print()
    for retriever in retrievers:
        mine = [r for r in report["results"] if r["retriever"] == retriever.name]
        report["goals"].append(check_frontier(mine, retriever.name))
        report["goals"].append(check_tokens_read(mine, retriever.name, DEFAULT_CHUNK_SIZE))
    if report["missing"]:
        print("not measured (not importable): " + ", ".join(report["missing"]))
    report["seconds"] = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(f"\nruntime {report['seconds']:.0f} s on {platform.machine()}; written: {args.out}")


if __name__ == "__main__":
    main()
