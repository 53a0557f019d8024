#!/usr/bin/env python3
"""Browser benchmark of the calculator: boot, first exact count, throughput, bytes.

Runs the built site (dist/, rebuilt first) in headless Chromium and prints each figure
with the reference it is measured against in the same run:

- worker ready, cold (a new browser context each run, empty HTTP cache) and warm (a reload
  once the worker kept its boot snapshot) vs a bare ``loadPyodide`` in a module worker, cold
  and warm: cold both in the worker (from the worker's start to ready, against the bare
  worker's own loadPyodide) and from navigation (against a bare page that starts its
  worker and calls loadPyodide), like with like; warm from navigation;
- time from pasting 1 MB of text (a clipboard paste event) to the exact token count on
  the page vs the same WASM encoder called from JS directly;
- tokenization through the Python core (count, encode, the page's whole ``analyze``)
  vs the WASM encoder from JS directly vs CPython tiktoken on the same text;
- splitting 1 MB of real Markdown in the worker (headings, 512/64, cl100k_base)
  vs one WASM encode pass of the same text;
- the page's longest main-thread task while a 10 MB file is split and its result drawn
  vs the page's longest task while it boots;
- a re-split of that file after a size change vs its first split (from the drop);
- counting 1 MB with each open model's tokenizer (bert-base-uncased, xlm-roberta) vs the
  tiktoken WASM encoder (cl100k_base, from JS) on the same text in the same worker, cold (a
  new tokenizer, its word cache empty) and warm (the same one again): the sizing interface
  (``count``) and the page's own request (load, analyze, drop); best-of MB/s and the median
  of per-step paired ratios (each step against the mean of the WASM encodes just before and
  just after it), on bench_unigram.py's two texts (English Markdown; words glued from XLM-R's
  pieces, half NFD);
- what each open tokenizer family fetches when first chosen (measured in the worker, and
  raw and gzip from dist/), and how long fetching, checking and building take;
- bytes transferred on a first visit until the worker is ready, raw and gzip, vs bare
  Pyodide's own files;
- all-MiniLM-L6-v2 (int8 ONNX) in the benchmark worker on onnxruntime-web, as the evaluation
  page runs it, vs ``onnxruntime`` on CPython on the same token ids (ragchunk's WordPiece):
  chunks per second one text per forward pass (the page's step) and batched, with one thread
  and, cross-origin isolated (COOP/COEP), with every core; ``--only minilm`` runs this alone.

    python3 bench/bench_browser.py [--runs 5] [--only minilm|boot] [--json bench/out/browser.json]
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "pycore"), str(ROOT / "tests" / "e2e"), str(ROOT / "bench")]

from buildsteps.serve import make_server  # noqa: E402
from buildsteps.site import build  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

TARGET_BYTES = 1_000_000


def sample_text(size: int = TARGET_BYTES) -> str:
    """~1 MB of real mixed text: the READMEs shipped in node_modules plus multilingual prose."""
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((ROOT / "node_modules").glob("*/README.md"))]
    parts.append(
        "Привет, мир! Это проверка токенизации русского текста. नमस्ते दुनिया। यह हिंदी का वाक्य है। "
        "日本語のテキスト。def chunk(text, size=512): return [text[i:i + size] for i in range(0, len(text), size)]\n"
    )
    block = "\n\n".join(parts)
    text = (block * (size // len(block.encode()) + 1)).encode()[:size].decode("utf-8", errors="ignore")
    return text


def median(values):
    return statistics.median(values)


def new_page(browser, base_url):
    context = browser.new_context(base_url=base_url, service_workers="block")
    page = context.new_page()
    return context, page


SNAPSHOT_KEPT = """async () => {
    for (;;) {
        if ((await (await caches.open('core-snapshot')).keys()).length) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}"""


def measure_cold_without_snapshots(browser, base_url, runs):
    """Navigation -> worker ready, cold, on the same site with boot snapshots turned off
    (core/snapshot.js SNAPSHOTS false): taking the snapshot must not make a cold boot slower."""
    times = []
    for _ in range(runs):
        context, page = new_page(browser, base_url)
        start = time.perf_counter()
        page.goto("./")
        page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
        times.append((time.perf_counter() - start) * 1000)
        context.close()
    return median(times)


def without_snapshots(site: Path, target: Path) -> Path:
    """A copy of ``site`` whose worker never takes or restores a boot snapshot."""
    shutil.copytree(site, target)
    module = target / "core" / "snapshot.js"
    source = module.read_text(encoding="utf-8")
    assert "export const SNAPSHOTS = true;" in source, "core/snapshot.js changed: update the benchmark"
    module.write_text(source.replace("export const SNAPSHOTS = true;", "export const SNAPSHOTS = false;"), encoding="utf-8")
    return target


def measure_boot(browser, base_url, runs):
    """Navigation -> worker ready, cold (a new context: empty HTTP cache, no snapshot) and warm
    (the same context again, once the worker kept its boot snapshot), against a bare
    ``loadPyodide`` in a module worker, cold (a new context) and warm (again in it)."""
    site, warm, bare, bare_warm, sizes, bare_sizes, boots = [], [], [], [], None, None, []
    site_worker, bare_page = [], []
    for run in range(runs):
        context, page = new_page(browser, base_url)
        responses = []
        page.on("response", lambda r: responses.append(r))
        start = time.perf_counter()
        page.goto("./")
        first_paint_chunks = page.inner_text("#r-chunks")
        page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
        site.append((time.perf_counter() - start) * 1000)
        site_worker.append(float(page.get_attribute("#core-status", "data-boot-ms")))
        if run == 0:
            sizes = transfer_sizes(responses)
        page.evaluate(SNAPSHOT_KEPT)
        page.evaluate(SETTLE)
        start = time.perf_counter()
        page.reload()
        page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
        warm.append((time.perf_counter() - start) * 1000)
        boots.append(page.get_attribute("#core-status", "data-boot"))
        context.close()

        context, page = new_page(browser, base_url)
        responses = []
        page.on("response", lambda r: responses.append(r))
        start = time.perf_counter()
        page.goto("./bench.html")
        page.wait_for_function("() => window.benchReady")
        reply = page.evaluate("() => call('bareBoot')")
        assert reply["ok"], reply
        bare_page.append((time.perf_counter() - start) * 1000)
        bare.append(reply["result"]["ms"])
        if run == 0:
            bare_sizes = transfer_sizes([r for r in responses if "/assets/pyodide/" in r.url])
        page.reload()
        page.wait_for_function("() => window.benchReady")
        reply = page.evaluate("() => call('bareBoot')")
        assert reply["ok"], reply
        bare_warm.append(reply["result"]["ms"])
        context.close()
    return {"site_ready_ms": median(site), "bare_pyodide_ms": median(bare), "first_paint_chunks": first_paint_chunks,
            "site_worker_ms": median(site_worker), "bare_page_ms": median(bare_page),
            "paired_worker": median([s / b for s, b in zip(site_worker, bare, strict=True)]),
            "paired_page": median([s / b for s, b in zip(site, bare_page, strict=True)]),
            "warm_ready_ms": median(warm), "bare_pyodide_warm_ms": median(bare_warm), "warm_boots": boots,
            "transfer": sizes, "bare_transfer": bare_sizes}


def measure_offline_visit(browser, base_url):
    """First visit with the service worker on: bytes downloaded until the site works offline."""
    context = browser.new_context(base_url=base_url)
    responses = []
    context.on("response", lambda r: responses.append(r))
    page = context.new_page()
    page.goto("./")
    page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
    page.wait_for_selector('#offline-status[data-state="ready"]', timeout=120_000)
    network = [r for r in responses if not r.from_service_worker and r.status == 200]
    sizes = transfer_sizes(network)
    sizes["revalidated_304"] = sum(1 for r in responses if r.status == 304)
    context.close()
    return sizes


def transfer_sizes(responses):
    raw = gz = 0
    files = []
    for response in responses:
        try:
            body = response.body()
        except Exception:  # redirects and aborted requests have no body
            continue
        raw += len(body)
        gz += len(gzip.compress(body, 6))
        files.append(response.url.rsplit("/", 1)[-1])
    return {"files": len(files), "raw_bytes": raw, "gzip_bytes": gz}


def measure_first_count(browser, base_url, text, runs):
    page_ms = []
    for _ in range(runs):
        context, page = new_page(browser, base_url)
        page.goto("./")
        page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
        elapsed = page.evaluate(
            """text => new Promise(resolve => {
                const area = document.querySelector('#text');
                const tokens = document.querySelector('#t-tokens');
                const start = performance.now();
                new MutationObserver((_, observer) => {
                    if (tokens.textContent) { observer.disconnect(); resolve(performance.now() - start); }
                }).observe(tokens, {childList: true, characterData: true, subtree: true});
                const data = new DataTransfer();
                data.setData('text/plain', text);
                area.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true, cancelable: true}));
            })""",
            text,
        )
        page_ms.append(elapsed)
        context.close()
    return median(page_ms)


def in_bench_worker(browser, base_url, step, text, runs, **data):
    """Boot the site's engine in the benchmark worker, then time ``step`` on ``text`` (and ``data``)."""
    context, page = new_page(browser, base_url)
    page.goto("./bench.html")
    page.wait_for_function("() => window.benchReady")
    boot = page.evaluate("() => call('boot')")
    assert boot["ok"], boot
    reply = page.evaluate("([step, data]) => call(step, data)", [step, {"text": text, "runs": runs, **data}])
    assert reply["ok"], reply
    context.close()
    return reply["result"]


LONG_TASKS = """() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) longTasks.push(e.duration);
    }).observe({type: 'longtask', buffered: true});
}"""
SETTLE = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0))))"


def measure_long_tasks(browser, base_url, text):
    """The page's longest main-thread task while the worker splits ``text`` (a 10 MB file
    dropped on the splitter, the result drawn and scrolled) vs its longest while it boots
    (the reference: parsing the page, starting the worker), in the same page."""
    context, page = new_page(browser, base_url)
    page.goto("./splitter.html")
    page.evaluate(LONG_TASKS)
    page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
    page.evaluate(SETTLE)
    boot = page.evaluate("() => longTasks.splice(0)")
    page.evaluate("text => { window.bigFile = new File([text], 'big.md', {type: 'text/markdown'}); }", text)
    page.evaluate(SETTLE)
    page.evaluate("() => longTasks.splice(0)")  # making the file is the benchmark's own work
    before = int(page.get_attribute("#drop", "data-analyses") or 0)
    started = time.perf_counter()
    page.evaluate("""() => {
        const transfer = new DataTransfer();
        transfer.items.add(window.bigFile);
        document.querySelector('#drop').dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true}));
    }""")
    page.wait_for_function("n => Number(document.querySelector('#drop').dataset.analyses ?? 0) > n", arg=before,
                           timeout=600_000)
    first_ms = (time.perf_counter() - started) * 1000
    page.evaluate(SETTLE)
    page.evaluate("() => { const l = document.querySelector('#chunk-list'); l.scrollTop = l.scrollHeight / 2; }")
    page.evaluate(SETTLE)
    split = page.evaluate("() => longTasks.splice(0)")
    # A settings change: the workspace re-packs what it encoded and parsed for the first split.
    before = int(page.get_attribute("#drop", "data-analyses") or 0)
    started = time.perf_counter()
    page.fill("#chunk_size", "256")
    page.wait_for_function("n => Number(document.querySelector('#drop').dataset.analyses ?? 0) > n", arg=before,
                           timeout=600_000)
    resplit_ms = (time.perf_counter() - started) * 1000
    context.close()
    return {"split_longest_ms": max(split, default=0), "split_long_tasks": len(split),
            "boot_longest_ms": max(boot, default=0), "mb": len(text.encode()) / 1e6,
            "first_split_ms": first_ms, "resplit_ms": resplit_ms}


OPEN_FAMILIES = ("bert-base-uncased", "xlm-roberta")
# The floors: counting in the browser at this fraction of the tiktoken WASM encoder's speed.
FLOORS = {"bert-base-uncased": 0.5, "xlm-roberta": 0.2}
# In the order each run takes them, each between two WASM encodes of the same text.
STEPS = ("count_cold", "count_warm", "analyze_cold", "analyze_warm")


def measure_open_tokenizers(browser, base_url, runs):
    """The open tokenizers vs the WASM encoder in one worker (harness/bench_tokenizers.js),
    on bench_unigram.py's texts; every count checked against CPython's."""
    from bench_unigram import english, multilingual
    from ragchunk.tokenizers import unigram, wordpiece

    texts = {"english": english(), "multilingual": multilingual()}
    context, page = new_page(browser, base_url)
    page.goto("./bench.html")
    page.wait_for_function("() => window.benchReady")
    reply = page.evaluate(
        """data => new Promise(resolve => {
            const worker = new Worker('bench_tokenizers.js', {type: 'module'});
            worker.onmessage = ({data: reply}) => { worker.terminate(); resolve(reply); };
            worker.onerror = (event) => resolve({ok: false, error: event.message || 'the worker could not start'});
            worker.postMessage(data);
        })""",
        {"texts": texts, "families": list(OPEN_FAMILIES), "runs": runs},
    )
    context.close()
    assert reply["ok"], reply.get("error")
    result = reply["result"]
    loaders = {"bert-base-uncased": wordpiece.load, "xlm-roberta": unigram.load}
    summary = {"boot_s": result["boot"], "texts": {}, "families": {}, "seconds": result}
    for family in OPEN_FAMILIES:
        summary["families"][family] = {
            **result["families"][family]["tables"],
            "built_again": min(t for figures in result["families"][family]["texts"].values() for t in figures["build"]),
        }
    for name, text in texts.items():
        mb = len(text.encode("utf-8")) / 1e6
        wasm = mb / min(result["wasm"][name])
        rows = {}
        for family in OPEN_FAMILIES:
            figures = result["families"][family]["texts"][name]
            cpython_tokens = loaders[family]().count(text)
            assert figures["tokens"] == cpython_tokens, (family, name, figures["tokens"], cpython_tokens)
            for step in STEPS:
                timing = figures["steps"][step]
                rows[f"{family} {step}"] = {
                    "mb_s": mb / min(timing["seconds"]),
                    "best_ratio": mb / min(timing["seconds"]) / wasm,
                    "paired_ratio": median([ref / sec for ref, sec in zip(timing["reference"], timing["seconds"])]),
                }
            summary["families"][family].setdefault("tokens", {})[name] = figures["tokens"]
        summary["texts"][name] = {"mb": mb, "wasm_mb_s": wasm, "wasm_tokens": figures["wasm_tokens"], "rows": rows}
    return summary


def table_downloads(dist: Path) -> dict[str, dict[str, int]]:
    """What the page fetches for each open tokenizer family when it is first chosen, raw and gzip."""
    from ragchunk.api import form_spec

    sizes = {}
    for family, entry in form_spec()["tokenizers"].items():
        data = [(dist / "assets" / "tables" / table["file"]).read_bytes() for table in entry["tables"]]
        sizes[family] = {"raw_bytes": sum(map(len, data)), "gzip_bytes": sum(len(gzip.compress(d, 6)) for d in data),
                         "files": len(data)}
    return sizes


def measure_cpython(text, runs):
    from ragchunk import get_tokenizer

    tokenizer = get_tokenizer("cl100k_base")
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        count = tokenizer.count(text)
        times.append((time.perf_counter() - start) * 1000)
    return {"ms": median(times), "tokens": count}


def print_open_tokenizers(summary, runs):
    print(f"open tokenizers vs tiktoken WASM (cl100k_base, encode_ordinary from JS), one worker, {runs} runs "
          f"(its engine booted in {summary['boot_s']:.1f} s); MB/s best-of; x WASM: best-of / median of paired steps")
    print("  count: tokenizer.count (cold: a new tokenizer, its word cache empty; warm: the same again);"
          " analyze: the page's load + analyze + drop requests (cold: a new tokenizer in the registry)")
    for name, text in summary["texts"].items():
        print(f"  {name} {text['mb']:.2f} MB: tiktoken WASM {text['wasm_mb_s']:.2f} MB/s "
              f"({text['wasm_tokens']:,} tokens)")
        for label, row in text["rows"].items():
            family, step = label.split(" ")
            floor = f"  (issue's floor {FLOORS[family]:.1f}x)" if step.startswith("count") else ""
            print(f"    {family:<18} {step.replace('_', ' '):<13} {row['mb_s']:6.2f} MB/s  {row['best_ratio']:5.2f}x /"
                  f" {row['paired_ratio']:5.2f}x{floor}")
    for family, seen in summary["families"].items():
        counts = ", ".join(f"{name} {tokens:,}" for name, tokens in seen["tokens"].items())
        print(f"  {family} tokens (= CPython's count): {counts}; fresh tokenizer from the read tables "
              f"{seen['built_again'] * 1000:.0f} ms")


MINILM_TEXTS = 24
MINILM_BATCH = 8


def minilm_rows() -> list[list[int]]:
    """Token ids of MINILM_TEXTS chunks as the model reads them (cut at 256 tokens): headings
    256/32 chunks of the evaluation page's sample, the longest first."""
    from ragchunk import split
    from ragchunk.evaluate.minilm import token_ids

    text = (ROOT / "tests" / "data" / "chunking-evaluation" / "corpora" / "state_of_the_union.md").read_text(encoding="utf-8")
    chunks = [chunk.text for chunk in split(text, by="paragraphs", size=256, overlap=32).chunks]
    return sorted((token_ids(chunk) for chunk in chunks), key=len, reverse=True)[:MINILM_TEXTS]


def measure_minilm_cpython(rows: list[list[int]], runs: int) -> dict:
    """onnxruntime on CPython on the same ids: one text per pass and MINILM_BATCH per pass,
    with its default threads and with one."""
    from ragchunk.evaluate.staged import OnnxRuntime

    out = {}
    for threads in (0, 1):
        run = OnnxRuntime(threads).run
        run(rows[:1])
        for size in (1, MINILM_BATCH):
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                for i in range(0, len(rows), size):
                    run(rows[i:i + size])
                times.append(time.perf_counter() - start)
            out[f"threads{threads or 'default'}_batch{size}_ms"] = median(times) * 1000
    return out


def measure_minilm(browser, site: Path, runs: int) -> dict:
    """The model in the benchmark worker, served plainly (one thread) and cross-origin isolated (every core)."""
    import functools

    from buildsteps.serve import Handler, Server

    class Isolated(Handler):
        def end_headers(self) -> None:
            self.send_header("Cross-Origin-Opener-Policy", "same-origin")
            self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
            super().end_headers()

    rows = minilm_rows()
    out = {"texts": len(rows), "tokens": sum(map(len, rows))}
    for name, handler in (("one_thread", Handler), ("isolated", Isolated)):
        server = Server(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
        server.policy = make_server(site).policy
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base_url = f"http://127.0.0.1:{server.server_address[1]}/"
        out[name] = in_bench_worker(browser, base_url, "minilm", "", runs, rows=rows, batch=MINILM_BATCH)
        server.shutdown()
        server.server_close()
    out["cpython"] = measure_minilm_cpython(rows, runs)
    return out


def print_minilm(m: dict) -> None:
    """Chunks per second of each path; the reference is onnxruntime on CPython doing what the
    page does: one thread (a browser tab's worker without isolation), one text a pass."""
    texts = m["texts"]
    rate = lambda ms: texts / (ms / 1000)  # noqa: E731
    c = m["cpython"]
    reference = c["threads1_batch1_ms"]
    print(f"all-MiniLM-L6-v2, {texts} chunks ({m['tokens']:,} tokens, {m['tokens'] / texts:.0f} a chunk as the model reads it):")
    print(f"  onnxruntime CPython, 1 thread, 1 a pass{'':<14}{rate(reference):7.1f} chunks/s  = 1.00 (reference)")
    for key, label in ((f"threads1_batch{MINILM_BATCH}_ms", f"1 thread, {MINILM_BATCH} a pass"),
                       ("threadsdefault_batch1_ms", "default threads, 1 a pass"),
                       (f"threadsdefault_batch{MINILM_BATCH}_ms", f"default threads, {MINILM_BATCH} a pass")):
        print(f"  onnxruntime CPython, {label:<33} {rate(c[key]):7.1f} chunks/s  = {reference / c[key]:.2f} x")
    for name in ("one_thread", "isolated"):
        w = m[name]
        for key, label in (("oneMs", "1 a pass (the page)"), ("batchMs", f"{MINILM_BATCH} a pass")):
            print(f"  onnxruntime-web worker, {w['threads']} thread(s), {label:<19} {rate(w[key]):7.1f} chunks/s  = "
                  f"{reference / w[key]:.2f} x")


def print_boot(boot):
    """The cold boot both ways it can be compared like with like, and the warm one."""
    print(f"worker ready (cold)        {boot['site_worker_ms']:8.0f} ms  = {boot['site_worker_ms'] / boot['bare_pyodide_ms']:.2f}"
          f" x bare loadPyodide ({boot['bare_pyodide_ms']:.0f} ms), each timed in its worker from its start"
          f" (paired {boot['paired_worker']:.2f} x)")
    print(f"  ... from navigation      {boot['site_ready_ms']:8.0f} ms  = {boot['site_ready_ms'] / boot['bare_page_ms']:.2f}"
          f" x a bare page's ({boot['bare_page_ms']:.0f} ms: open it, start its worker, loadPyodide; paired"
          f" {boot['paired_page']:.2f} x); {boot['site_ready_ms'] / boot['bare_pyodide_ms']:.2f} x the bare worker's own time")
    print(f"worker ready (warm)        {boot['warm_ready_ms']:8.0f} ms  = {boot['warm_ready_ms'] / boot['bare_pyodide_ms']:.2f} x bare loadPyodide cold, "
          f"{boot['warm_ready_ms'] / boot['bare_pyodide_warm_ms']:.2f} x warm ({boot['bare_pyodide_warm_ms']:.0f} ms); "
          f"boots: {', '.join(boot['warm_boots'])}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "browser.json")
    parser.add_argument("--only", choices=["minilm", "boot"], help="run one measurement alone")
    args = parser.parse_args()

    dist = build()
    with tempfile.TemporaryDirectory(prefix="ragchunk-bench-") as tmp:
        site = Path(tmp) / "site"
        shutil.copytree(dist, site)
        for harness in (ROOT / "bench" / "harness").iterdir():
            shutil.copy(harness, site / harness.name)
        server = make_server(site)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base_url = f"http://127.0.0.1:{server.server_address[1]}/"
        plain = make_server(without_snapshots(site, Path(tmp) / "plain"))
        threading.Thread(target=plain.serve_forever, daemon=True).start()
        plain_url = f"http://127.0.0.1:{plain.server_address[1]}/"
        text = sample_text()
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            if args.only == "boot":
                boot = measure_boot(browser, base_url, args.runs)
                browser.close()
                server.shutdown()
                print_boot(boot)
                return 0
            minilm = measure_minilm(browser, site, args.runs)
            if args.only == "minilm":
                browser.close()
                server.shutdown()
                print_minilm(minilm)
                return 0
            boot = measure_boot(browser, base_url, args.runs)
            boot["plain_ready_ms"] = measure_cold_without_snapshots(browser, plain_url, args.runs)
            offline_visit = measure_offline_visit(browser, base_url)
            first_count = measure_first_count(browser, base_url, text, args.runs)
            throughput = in_bench_worker(browser, base_url, "throughput", text, args.runs)
            from corpus import MB, markdown_corpus

            markdown, _ = markdown_corpus(MB)
            splitting = in_bench_worker(browser, base_url, "split", markdown, args.runs)
            big, _ = markdown_corpus(10 * MB)
            long_tasks = measure_long_tasks(browser, base_url, big)
            open_tokenizers = measure_open_tokenizers(browser, base_url, args.runs)
            browser.close()
        server.shutdown()
        plain.shutdown()
    cpython = measure_cpython(text, args.runs)
    tables = table_downloads(dist)
    mb = len(text.encode()) / 1e6
    results = {
        "text_mb": mb,
        "boot": boot,
        "first_exact_count_ms": first_count,
        "throughput": throughput,
        "cpython": cpython,
        "split": splitting,
        "offline_visit": offline_visit,
        "long_tasks": long_tasks,
        "tables": tables,
        "open_tokenizers": open_tokenizers,
        "minilm": minilm,
    }
    direct = throughput["directMs"]
    print(f"text: {mb:.2f} MB, {throughput['tokens']:,} tokens (cl100k_base); same count on every path: "
          f"{throughput['same'] and throughput['tokens'] == cpython['tokens']}")
    print(f"default answer at first paint: {boot['first_paint_chunks']} chunks (expected 23)")
    print_boot(boot)
    print(f"  ... cold, snapshots off  {boot['plain_ready_ms']:8.0f} ms  = {boot['plain_ready_ms'] / boot['bare_pyodide_ms']:.2f} x bare "
          f"loadPyodide (with them: {boot['site_ready_ms'] / boot['plain_ready_ms']:.2f} x this)")
    print(f"paste 1 MB -> exact count  {first_count:8.0f} ms  = {first_count / direct:.2f} x direct WASM encode")
    print(f"WASM encode from JS        {direct:8.1f} ms  = 1.00 (reference, {mb / direct * 1000:.1f} MB/s)")
    value = throughput["analyzeMs"]
    print(f"through the Python core    {value:8.1f} ms  = {value / direct:.2f} x ({(value / direct - 1) * 100:+.0f} %; "
          "text in, JSON out: copy to Python, encode, 5 windows)")
    print(f"CPython tiktoken count     {cpython['ms']:8.1f} ms  = {cpython['ms'] / direct:.2f} x")
    print(f"split 1 MB Markdown (headings 512/64) {splitting['splitMs']:8.0f} ms  = "
          f"{splitting['ratio']:.2f} x one WASM encode of it ({splitting['directMs']:.0f} ms; median of paired runs), "
          f"{splitting['chunks']:,} chunks")
    lt = long_tasks
    print(f"longest page task, {lt['mb']:.0f} MB split {lt['split_longest_ms']:8.0f} ms  = "
          f"{lt['split_longest_ms'] / max(lt['boot_longest_ms'], 1):.2f} x the longest while booting "
          f"({lt['boot_longest_ms']:.0f} ms); {lt['split_long_tasks']} tasks over 50 ms")
    print(f"re-split after a size change, {lt['mb']:.0f} MB {lt['resplit_ms']:8.0f} ms  = "
          f"{lt['resplit_ms'] / lt['first_split_ms']:.2f} x the first split from the drop ({lt['first_split_ms']:.0f} ms)")
    for family, size in tables.items():
        print(f"tables of {family:<18} {size['raw_bytes']:,} bytes raw, {size['gzip_bytes']:,} gzip, "
              f"{size['files']} files, fetched when a model of the family is first chosen")
        seen = open_tokenizers["families"].get(family)
        if seen:
            print(f"  ... in the page: {len(seen['files'])} files, {seen['transfer_bytes']:,} bytes transferred "
                  f"({seen['body_bytes']:,} body; this server does not compress), fetched and hash-checked in "
                  f"{seen['fetched'] * 1000:.0f} ms, module imported {seen['imported'] * 1000:.0f} ms, "
                  f"first tokenizer built {seen['built'] * 1000:.0f} ms")
    print_open_tokenizers(open_tokenizers, args.runs)
    print_minilm(minilm)
    t = boot["transfer"]
    b = boot["bare_transfer"]
    print(f"first visit transfer       {t['raw_bytes']:,} bytes raw, {t['gzip_bytes']:,} gzip, {t['files']} files "
          f"(until ready: what the first exact count needs) = {t['raw_bytes'] / b['raw_bytes']:.2f} x raw, "
          f"{t['gzip_bytes'] / b['gzip_bytes']:.2f} x gzip bare Pyodide's own ({b['raw_bytes']:,} raw, {b['gzip_bytes']:,} gzip, "
          f"{b['files']} files)")
    o = offline_visit
    print(f"  ... until offline-ready  {o['raw_bytes']:,} bytes raw, {o['gzip_bytes']:,} gzip, {o['files']} files "
          f"({o['raw_bytes'] / t['raw_bytes']:.3f} x; {o['revalidated_304']} precache requests answered 304)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
