"""Speed and quality of ``ragchunk.split`` and its peers, as ratios to one tiktoken pass.

For each corpus of :mod:`corpus` (real Markdown of about 1 MB and 10 MB, and 1 MB of
prose) the reference is ONE ``encode_ordinary`` pass of cl100k_base over the same text,
timed in the same run (median of ``--runs``). Every splitter runs with a target of 512
tokens and an overlap of 64 (by headings for ragchunk), and is reported as

- ``x pass``: the median of its wall-clock time divided by the reference's, the two timed
  alternately (one reference pass before each run of the splitter) so that a change in
  the machine's load during the run affects both alike; ``x cpu`` the same with the CPU
  time of the process (all threads), which shows work moved to a second thread;
- ``over``: chunks whose exact cl100k_base count (recounted on the chunk text) exceeds 512;
- ``coverage``: the share of the corpus's non-whitespace characters found in some chunk
  (chunks are located by searching their non-whitespace characters in order, so a splitter
  that rewrites whitespace is not penalised; a chunk that cannot be found covers nothing);
- ``overlap``: the mean real overlap between neighbouring chunks, in cl100k_base tokens.

Peers are measured where importable (``pip install -e .[bench]``): semantic-text-splitter
``MarkdownSplitter`` (its own tiktoken sizer), LangChain ``RecursiveCharacterTextSplitter``
and ``MarkdownTextSplitter`` ``.from_tiktoken_encoder``, chonkie ``RecursiveChunker`` (no
overlap setting), LlamaIndex ``SentenceSplitter``. Those that are missing are listed.
tiktoken's own loader would download the cl100k_base table; the benchmark hands it the
table ragchunk already loaded (from the npm package) so that no network is needed.

With ``--whole-process`` it also times the command line as a whole process on the Markdown
corpora (``python -m ragchunk split FILE --by headings --size 512 --overlap 64``, its
default jobs, JSONL to ``/dev/null``) against a whole process that loads the same
tokenizer, reads the same file and encodes it once, timed alternately (``x process``; ``x
cpu`` with the CPU time of each child). ``--pycore PATH`` imports ragchunk from another
checkout's ``pycore`` (to measure a "before" beside an "after").

With ``--parts`` it also says where a one-thread split of each Markdown corpus spends its
time: the encode (the reference pass), the token ends made from its ids, the Markdown
structure, the packing (chunks, exact counts, context lines, records; on a text prepared
beforehand) and the cyclic garbage collector's share of the whole split, each as the
calling thread's CPU time (``time.thread_time``: another process on the machine slows it
less than the wall clock) over that of one pass. On two threads the encode runs beside the
rest, which holds the GIL: the other parts added up are about what the default split takes.

The table is printed and written as JSON to ``bench/out/bench_split.json``.

    python3 bench/bench_split.py [--runs 3] [--peers-10mb] [--quick] [--no-peers] [--whole-process] [--parts]
                                 [--pycore PATH]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

HERE = Path(__file__).resolve().parent
# --pycore is read before the imports: ragchunk comes from that folder.
PYCORE = Path(sys.argv[sys.argv.index("--pycore") + 1]).resolve() if "--pycore" in sys.argv[:-1] \
    else HERE.parent / "pycore"
os.environ.setdefault("RAGCHUNK_ENCODERS", str(PYCORE / "ragchunk" / "tables" / "data"))
sys.path.insert(0, str(PYCORE))
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import ragchunk  # noqa: E402
from ragchunk import get_tokenizer, split  # noqa: E402
from ragchunk.options import SplitOptions  # noqa: E402
from ragchunk.splitter import pack, prepare_text  # noqa: E402
from ragchunk.text.structure import Structure  # noqa: E402

SIZE = 512
OVERLAP = 64
ENCODING = "cl100k_base"
_NONSPACE = re.compile(r"\S")


def paired_seconds(reference: Callable[[], object], func: Callable[[], object], runs: int
                   ) -> tuple[float, float, float, object]:
    """Median ratios of ``func`` to ``reference`` timed alternately, and ``func``'s median time
    and last result: (wall-clock ratio, CPU-time ratio, wall seconds, result).

    Alternating keeps the ratio fair when the machine's load changes during the run. The
    CPU time counts every thread of the process, so work moved to a second thread shows
    in it even when it saves wall time.
    """
    wall_ratios, cpu_ratios, times = [], [], []
    result = func()
    reference()
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        reference()
        ref_wall, ref_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        result = func()
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        times.append(wall)
        wall_ratios.append(wall / ref_wall)
        cpu_ratios.append(used / ref_cpu)
    return statistics.median(wall_ratios), statistics.median(cpu_ratios), statistics.median(times), result


def median_seconds(func: Callable[[], object], runs: int) -> tuple[float, object]:
    """Median time of ``runs`` calls after one untimed warm-up call, and the last result."""
    times = []
    result = func()
    for _ in range(runs):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def thread_seconds(func: Callable[[], object], runs: int, before: Callable[[], object] | None = None) -> float:
    """Median CPU time of this thread over ``runs`` calls of ``func`` after one untimed call
    (``before``, when given, runs untimed before each call)."""
    times = []
    for run in range(runs + 1):  # the first call warms up
        if before is not None:
            before()
        start = time.thread_time()
        func()
        if run:
            times.append(time.thread_time() - start)
    return statistics.median(times)


def gc_seconds(func: Callable[[], object], runs: int) -> float:
    """Median CPU time this thread spends in the cyclic garbage collector during a call of ``func``."""
    spent = [0.0]
    started = [0.0]

    def watch(phase: str, _info: dict) -> None:
        if phase == "start":
            started[0] = time.thread_time()
        else:
            spent[0] += time.thread_time() - started[0]

    times = []
    gc.callbacks.append(watch)
    try:
        for _ in range(runs):
            spent[0] = 0.0
            func()
            times.append(spent[0])
    finally:
        gc.callbacks.remove(watch)
    return statistics.median(times)


def parts(text: str, tokenizer, runs: int) -> dict[str, float]:
    """Where a one-thread split of ``text`` spends its time: seconds of this thread's CPU per part."""
    options = SplitOptions("headings", SIZE, OVERLAP, ENCODING)
    ids = tokenizer._encoding.encode_ordinary(text)
    prepared = []  # the text prepared afresh before each packing (its caches cold, as in a split)
    return {
        "encode (one pass)": thread_seconds(lambda: tokenizer._encoding.encode_ordinary(text), runs),
        "token ends": thread_seconds(lambda: tokenizer.ends_of(ids, 0), runs),
        "Markdown structure": thread_seconds(lambda: Structure.of(text), runs),
        "packing": thread_seconds(lambda: pack(prepared[-1], options), runs,
                                  lambda: prepared.__setitem__(slice(None), [prepare_text(text, options.sizing, threads=1)])),
        "garbage collector (in the split)": gc_seconds(lambda: split(text, threads=1), runs),
        "the whole split, 1 thread": thread_seconds(lambda: split(text, threads=1), runs),
    }


# --- splitters: each returns the list of chunk texts ----------------------------------------


def ragchunk_splitter(one_thread: bool = False) -> Callable[[str], list[str]]:
    """ragchunk by headings; ``one_thread`` passes ``threads=1`` (by default, on more than
    one core, the Markdown is scanned and the token ends are made on a second thread while
    the calling thread encodes)."""
    threads = 1 if one_thread else None

    def run(text: str) -> list[str]:
        return [c.text for c in split(text, by="headings", size=SIZE, overlap=OVERLAP, tokenizer=ENCODING,
                                      threads=threads).chunks]

    return run


def plain_encoding(encoding):
    """``encoding`` without special tokens: ``encode`` then reads "<|endoftext|>" as text.

    The corpora contain that string (tiktoken's own README does); peers that call
    ``encode`` would otherwise refuse the document. Token ids are those of
    ``encode_ordinary``.
    """
    import tiktoken

    return tiktoken.Encoding(f"{encoding.name}", pat_str=encoding._pat_str,
                             mergeable_ranks=encoding._mergeable_ranks, special_tokens={})


def peers(encoding) -> tuple[dict[str, Callable[[str], list[str]]], list[str]]:
    """The importable peers, configured alike, and the names of the missing ones."""
    found: dict[str, Callable[[str], list[str]]] = {}
    missing: list[str] = []
    plain = plain_encoding(encoding)
    try:
        import tiktoken.registry

        # Offline, tiktoken.get_encoding would try to download the table: hand it ours.
        tiktoken.registry.ENCODINGS[ENCODING] = plain
    except ImportError:
        pass
    try:
        from semantic_text_splitter import MarkdownSplitter

        sts = MarkdownSplitter.from_tiktoken_model("gpt-4", SIZE, overlap=OVERLAP)
        found["semantic-text-splitter Markdown"] = sts.chunks
    except Exception as err:  # not installed, or a version with another API
        missing.append(f"semantic-text-splitter ({type(err).__name__})")
    try:
        from langchain_text_splitters import MarkdownTextSplitter, RecursiveCharacterTextSplitter

        recursive = RecursiveCharacterTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP, disallowed_special=()
        )
        markdown = MarkdownTextSplitter.from_tiktoken_encoder(
            encoding_name=ENCODING, chunk_size=SIZE, chunk_overlap=OVERLAP, disallowed_special=()
        )
        found["LangChain Recursive (tiktoken)"] = recursive.split_text
        found["LangChain MarkdownText (tiktoken)"] = markdown.split_text
    except Exception as err:
        missing.append(f"langchain-text-splitters ({type(err).__name__})")
    try:
        from chonkie import RecursiveChunker

        RecursiveChunker(tokenizer=plain, chunk_size=SIZE)
        # A new chunker per call: chonkie caches token counts per instance, and the timed
        # runs must not reuse the counts of the warm-up run over the same text.
        found["chonkie Recursive (no overlap)"] = lambda text: [
            c.text for c in RecursiveChunker(tokenizer=plain, chunk_size=SIZE).chunk(text)
        ]
    except Exception as err:
        missing.append(f"chonkie ({type(err).__name__})")
    try:
        from llama_index.core.node_parser import SentenceSplitter

        llama = SentenceSplitter(chunk_size=SIZE, chunk_overlap=OVERLAP, tokenizer=encoding.encode_ordinary)
        found["LlamaIndex SentenceSplitter"] = llama.split_text
    except Exception as err:
        missing.append(f"llama-index-core ({type(err).__name__})")
    return found, missing


# --- quality ----------------------------------------------------------------------------------


def quality(text: str, chunks: list[str], count: Callable[[str], int]) -> dict[str, float | int]:
    """Chunks over the target, coverage of non-whitespace text, mean real overlap."""
    positions = [m.start() for m in _NONSPACE.finditer(text)]
    squeezed = "".join(text[p] for p in positions)
    over = sum(1 for chunk in chunks if count(chunk) > SIZE)
    located: list[tuple[int, int]] = []
    cursor = 0
    for chunk in chunks:
        needle = "".join(chunk.split())
        if not needle:
            continue
        found = squeezed.find(needle, cursor)
        if found < 0:
            found = squeezed.find(needle)
        if found < 0:
            continue
        located.append((found, found + len(needle)))
        cursor = found + 1
    covered = 0
    reach = 0
    for start, end in sorted(located):
        if end > reach:
            covered += end - max(start, reach)
            reach = end
    overlaps = []
    for (a_start, a_end), (b_start, b_end) in pairwise(located):
        shared_start, shared_end = max(a_start, b_start), min(a_end, b_end)
        if shared_end > shared_start:
            overlaps.append(count(text[positions[shared_start] : positions[shared_end - 1] + 1]))
        else:
            overlaps.append(0)
    return {
        "chunks": len(chunks),
        "over_target": over,
        "coverage": covered / len(squeezed) if squeezed else 1.0,
        "unlocated": len(chunks) - len(located),
        "mean_overlap": statistics.mean(overlaps) if overlaps else 0.0,
    }


# --- whole processes -----------------------------------------------------------------------------

_ENCODE_ONCE = ("import sys; sys.path.insert(0, sys.argv[1]); import ragchunk; "
                "ragchunk.get_tokenizer(sys.argv[2]).encode(open(sys.argv[3], encoding='utf-8').read())")


def _child(command: list[str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(PYCORE)})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole_process(name: str, text: str, runs: int) -> dict[str, object]:
    """The command line's split of ``text`` against a process that encodes it once, both whole
    processes (start, imports, tokenizer, reading the file), timed alternately."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{name}.md"
        path.write_text(text, encoding="utf-8")
        reference = [sys.executable, "-c", _ENCODE_ONCE, str(PYCORE), ENCODING, str(path)]
        ours = [sys.executable, "-m", "ragchunk", "split", str(path), "--by", "headings", "--size", str(SIZE),
                "--overlap", str(OVERLAP), "--encoding", ENCODING, "-o", os.devnull]
        _child(reference)
        _child(ours)
        walls, cpus, seconds, reference_seconds = [], [], [], []
        for _ in range(runs):
            ref_wall, ref_cpu = _child(reference)
            wall, cpu = _child(ours)
            walls.append(wall / ref_wall)
            cpus.append(cpu / ref_cpu)
            seconds.append(wall)
            reference_seconds.append(ref_wall)
    return {"corpus": name, "x_process": statistics.median(walls), "x_cpu": statistics.median(cpus),
            "seconds": statistics.median(seconds), "reference_seconds": statistics.median(reference_seconds)}


# --- the run -----------------------------------------------------------------------------------


def measure(name: str, text: str, func: Callable[[str], list[str]], reference: Callable[[], object], runs: int,
            count: Callable[[str], int]) -> dict[str, object]:
    x_pass, x_cpu, seconds, chunks = paired_seconds(reference, lambda: func(text), runs)
    row = {"corpus": name, "seconds": seconds, "x_pass": x_pass, "x_cpu": x_cpu}
    row.update(quality(text, chunks, count))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per measurement (median)")
    parser.add_argument("--peers-10mb", action="store_true", help="also run the peers on the 10 MB corpus")
    parser.add_argument("--quick", action="store_true", help="corpora of 200 kB and 2 MB (a smoke test)")
    parser.add_argument("--no-peers", action="store_true", help="measure ragchunk only (no peers)")
    parser.add_argument("--whole-process", action="store_true",
                        help="also time the command line as a whole process against one that encodes once")
    parser.add_argument("--parts", action="store_true",
                        help="also say where a one-thread split spends its time (encode, token ends, structure, packing)")
    parser.add_argument("--pycore", type=Path, default=PYCORE, help="the pycore folder to import ragchunk from")
    args = parser.parse_args()

    tokenizer = get_tokenizer(ENCODING)
    encoding = tokenizer._encoding  # the tiktoken.Encoding built from the npm table
    count = tokenizer.count
    sizes = (200_000, 2_000_000) if args.quick else (corpus.MB, 10 * corpus.MB)
    texts = corpus.corpora(sizes, prose=sizes[0])
    small_name, large_name, _ = list(texts)
    found, missing = ({}, []) if args.no_peers else peers(encoding)

    print(f"Python {platform.python_version()} on {platform.machine()}, ragchunk {ragchunk.__version__} from {PYCORE}; "
          f"target {SIZE} tokens, overlap {OVERLAP}, {ENCODING}; median of {args.runs} runs")
    for name, text in texts.items():
        print(f"  {name:14} {len(text.encode()):>11,} bytes  sha256 {corpus.fingerprint(text)}")

    rows: list[dict[str, object]] = []
    references: dict[str, float] = {}
    for name, text in texts.items():
        tokenizer.encode(text)  # warm caches so the reference is not a first call
        def reference(text=text):
            return encoding.encode_ordinary(text)

        references[name], _ = median_seconds(reference, args.runs)
        rows.append({"splitter": "ragchunk split (headings)",
                     **measure(name, text, ragchunk_splitter(), reference, args.runs, count)})
        rows.append({"splitter": "ragchunk split (headings, 1 thread)",
                     **measure(name, text, ragchunk_splitter(one_thread=True), reference, args.runs, count)})
        if name == large_name and not args.peers_10mb:
            continue
        for peer, func in found.items():
            try:
                rows.append({"splitter": peer, **measure(name, text, func, reference, args.runs, count)})
            except Exception as err:  # a peer that fails on some input is reported, not fatal
                rows.append({"splitter": peer, "corpus": name, "error": f"{type(err).__name__}: {err}"[:200]})

    header = f"{'splitter':36} {'corpus':14} {'x pass':>7} {'x cpu':>6} {'seconds':>8} {'chunks':>7} {'over':>5} " \
             f"{'coverage':>9} {'overlap':>8}"
    print()
    print(header)
    print("-" * len(header))
    for row in rows:
        if "error" in row:
            print(f"{row['splitter']:36} {row['corpus']:14} error: {row['error']}")
            continue
        print(f"{row['splitter']:36} {row['corpus']:14} {row['x_pass']:7.2f} {row['x_cpu']:6.2f} {row['seconds']:8.3f} "
              f"{row['chunks']:7,} {row['over_target']:5} {row['coverage'] * 100:8.2f}% {row['mean_overlap']:8.1f}")
    ours = {row["corpus"]: row for row in rows if row["splitter"] == "ragchunk split (headings)"}
    megabytes = {name: len(text.encode()) / 1e6 for name, text in texts.items()}

    def per_mb_growth(small: float, large: float) -> float:
        return (large / megabytes[large_name]) / (small / megabytes[small_name])

    linearity = per_mb_growth(ours[small_name]["seconds"], ours[large_name]["seconds"])
    reference_linearity = per_mb_growth(references[small_name], references[large_name])
    print()
    for name, seconds in references.items():
        print(f"one {ENCODING} pass over {name}: {seconds * 1e3:.1f} ms")
    print(f"time per MB, {large_name} / {small_name}: ragchunk {linearity:.2f}, one tiktoken pass "
          f"{reference_linearity:.2f} (1.00 = linear)")
    processes = []
    if args.whole_process:
        print()
        print("whole processes: the command line's split against a process that encodes once")
        for name in (small_name, large_name):
            row = whole_process(name, texts[name], args.runs)
            processes.append(row)
            print(f"  {name:14} x process {row['x_process']:5.2f}  x cpu {row['x_cpu']:5.2f}  "
                  f"({row['seconds']:.2f} s against {row['reference_seconds']:.2f} s)")
    split_parts = {}
    if args.parts:
        print()
        print("where a one-thread split spends its time (this thread's CPU, median; x pass: over one pass)")
        for name in (small_name, large_name):
            split_parts[name] = parts(texts[name], tokenizer, args.runs)
            one_pass = split_parts[name]["encode (one pass)"]
            for part, seconds in split_parts[name].items():
                print(f"  {name:14} {part:34} {seconds * 1e3:8.1f} ms  x pass {seconds / one_pass:5.2f}")
    if missing:
        print("not measured (not importable): " + ", ".join(missing))
    if args.no_peers:
        print("peers not measured (--no-peers)")

    out = HERE / "out"
    out.mkdir(exist_ok=True)
    report = {
        "python": platform.python_version(),
        "ragchunk": ragchunk.__version__,
        "size": SIZE,
        "overlap": OVERLAP,
        "encoding": ENCODING,
        "runs": args.runs,
        "corpora": {name: {"bytes": len(text.encode()), "sha256": corpus.fingerprint(text)}
                    for name, text in texts.items()},
        "reference_seconds": references,
        "linearity_per_mb": linearity,
        "reference_linearity_per_mb": reference_linearity,
        "rows": rows,
        "whole_process": processes,
        "parts_seconds": split_parts,
        "missing": missing,
        "peers_skipped": args.no_peers,
    }
    (out / "bench_split.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"written: {out / 'bench_split.json'}")


if __name__ == "__main__":
    main()
