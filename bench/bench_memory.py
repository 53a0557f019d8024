#!/usr/bin/env python3
"""Peak memory and time of the page for big documents: 1, 10 and 50 MB, count and split.

Each measurement starts a fresh headless Chromium (so the peak belongs to that one
document), opens the calculator (count: the ``analyze`` request, exact cl100k_base
tokens) or the splitter (split: headings, 512 / 64, cl100k_base), waits until the core is
ready, then drops a file of the wanted size on the page, the way a person does. The file
is made in the page from 1 MB of real Markdown (``bench/corpus.py``) as Blob parts, so
the document's bytes live in the browser's blob store, not in the renderer being measured.

Figures per run:

- time: from the drop to the page's result (``#drop[data-analyses]`` counts it);
- peak memory: ``VmHWM`` (peak resident set) of the renderer process that hosts the page
  and its worker (Pyodide's WASM heap and the worker's JS heap live there), with the same
  figure right after boot as the baseline; ``/proc`` of this machine, Linux only;
- the worker's JS heap after the request (CDP ``Runtime.getHeapUsage`` on the worker
  target; Pyodide's WASM heap is not part of it, the renderer's peak covers it);
- the longest main-thread task while the page worked (``PerformanceObserver`` of
  ``longtask``; 0 when none took over 50 ms).

A corpus run too (``--corpus 2000:100``): that many Markdown files making that many MB in
all, dropped on the splitter at once, read and split one by one; the same figures, and the
rows of its documents table.

    python3 bench/bench_memory.py [--sizes 1,10,50] [--corpus 2000:100] [--json bench/out/memory.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "pycore"), str(ROOT / "tests" / "e2e"), str(ROOT / "bench")]

from buildsteps.serve import make_server  # noqa: E402
from buildsteps.site import build  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

MB = 1_000_000
TIMEOUT_MS = 900_000

# Makes a file of `size` bytes (copies of `base`, the last one cut at a line break); the
# page's own work is measured from the drop on, not this.
MAKE_FILE = """([base, size]) => {
    const bytes = new TextEncoder().encode(base);
    const parts = [];
    let left = size;
    while (left >= bytes.length) { parts.push(bytes); left -= bytes.length; }
    if (left > 0) parts.push(bytes.subarray(0, bytes.lastIndexOf(10, left - 1) + 1));
    window.bigFile = new File(parts, 'big.md', {type: 'text/markdown'});
}"""

# Makes `count` files of about `size / count` bytes each (slices of `base` at line breaks).
MAKE_FILES = """([base, count, size]) => {
    const bytes = new TextEncoder().encode(base);
    const each = Math.floor(size / count);
    window.bigFiles = [];
    for (let k = 0; k < count; k++) {
        const from = (k * 7919) % Math.max(1, bytes.length - each);
        const parts = [];
        let left = each;
        while (left > 0) {
            const piece = bytes.subarray(left === each ? from : 0, Math.min(bytes.length, (left === each ? from : 0) + left));
            parts.push(piece);
            left -= piece.length;
        }
        window.bigFiles.push(new File(parts, `doc-${String(k).padStart(5, '0')}.md`, {type: 'text/markdown'}));
    }
}"""

# Drops that file on #drop and resolves when the page has finished the request, with what it saw.
DROP = """async () => {
    const files = window.bigFiles ?? [window.bigFile];
    const start = performance.now();
    window.longest = 0;
    window.longTasks = [];
    new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
            window.longest = Math.max(window.longest, entry.duration);
            window.longTasks.push([Math.round(entry.startTime - start), Math.round(entry.duration)]);
        }
    }).observe({type: 'longtask'});
    const drop = document.querySelector('#drop');
    const before = Number(drop.dataset.analyses ?? 0);
    const done = new Promise((resolve) => new MutationObserver((_, observer) => {
        if (Number(drop.dataset.analyses ?? 0) > before) { observer.disconnect(); resolve(); }
    }).observe(drop, {attributes: true}));
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    drop.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));
    await done;
    const ms = performance.now() - start;
    // Let a long task that ended with the request reach the observer.
    await new Promise((resolve) => setTimeout(resolve, 200));
    return {ms, bytes: files.reduce((sum, file) => sum + file.size, 0), files: files.length, longest: window.longest,
            long_tasks: window.longTasks,
            rows: document.querySelectorAll('#documents-body tr').length,
            status: document.querySelector('#text-status').textContent,
            error: document.querySelector('#text-error')?.textContent ?? ''};
}"""


def long_tasks(row: dict) -> str:
    """The longest main-thread tasks as (ms after the drop, duration), at most five."""
    tasks = sorted(row.get("long_tasks") or [], key=lambda task: -task[1])[:5]
    return "; long tasks at (ms after the drop: ms) " + ", ".join(f"{at:,}: {ms}" for at, ms in tasks) if tasks else ""


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (Chromium's renderers are grandchildren of its driver)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def renderer_peaks() -> dict[int, int]:
    """``{pid: VmHWM bytes}`` of the Chromium renderer processes this script started."""
    peaks = {}
    for pid in descendants(os.getpid()):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if b"--type=renderer" not in cmdline:
            continue
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                peaks[pid] = int(line.split()[1]) * 1024
    return peaks


def measure(playwright, base_url: str, tool: str, base: str, size: int, files: int = 0) -> dict:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        context = browser.new_context(base_url=base_url, service_workers="block")
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto("./" if tool == "count" else "./splitter.html")
        page.wait_for_selector('#core-status[data-state="ready"]', timeout=120_000)
        booted = max(renderer_peaks().values())
        if files:
            page.evaluate(MAKE_FILES, [base, files, size])
        else:
            page.evaluate(MAKE_FILE, [base, size])
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
        wall = time.perf_counter()
        seen = page.evaluate(DROP)
        wall = time.perf_counter() - wall
        peak = max(renderer_peaks().values())
        heap = worker_heap(browser)
        crashed = False
    except Exception as err:  # a renderer that ran out of memory: say so instead of a figure
        seen, booted, peak, heap, wall, crashed = {"error": str(err).splitlines()[0]}, 0, 0, None, 0, True
    finally:
        browser.close()
    return {"tool": tool, "mb": size / MB, "boot_peak": booted, "peak": peak, "wall_s": wall, "worker": heap,
            "crashed": crashed, **seen}


def worker_heap(browser) -> dict[str, int] | None:
    """``Runtime.getHeapUsage`` of the (only) dedicated worker: its JS heap."""
    session = browser.new_browser_cdp_session()
    try:
        targets = session.send("Target.getTargets")["targetInfos"]
        worker = next((t for t in targets if t["type"] == "worker"), None)
        if worker is None:
            return None
        replies: list[dict] = []
        session.on("Target.receivedMessageFromTarget", lambda event: replies.append(json.loads(event["message"])))
        attached = session.send("Target.attachToTarget", {"targetId": worker["targetId"], "flatten": False})
        session.send("Target.sendMessageToTarget", {
            "sessionId": attached["sessionId"],
            "message": json.dumps({"id": 1, "method": "Runtime.getHeapUsage"}),
        })
        deadline = time.monotonic() + 10
        while not any(r.get("id") == 1 for r in replies) and time.monotonic() < deadline:
            session.send("Target.getTargets")  # a round trip lets the event arrive
        reply = next((r for r in replies if r.get("id") == 1), None)
        return None if reply is None or "result" not in reply else {k: int(v) for k, v in reply["result"].items()}
    finally:
        session.detach()


def mib(value: int) -> str:
    return f"{value / 2**20:7.0f} MiB"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,10,50", help="document sizes in MB, comma-separated")
    parser.add_argument("--tools", default="count,split")
    parser.add_argument("--corpus", default="2000:100", help="FILES:MB dropped on the splitter at once ('' for none)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "memory.json")
    args = parser.parse_args()

    from corpus import markdown_corpus
    from playwright.sync_api import sync_playwright

    base, _ = markdown_corpus(MB)
    dist = build()
    server = make_server(dist)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/"
    results = []
    with sync_playwright() as playwright:
        for tool in args.tools.split(","):
            for size in (int(float(s) * MB) for s in args.sizes.split(",") if s):
                row = measure(playwright, base_url, tool, base, size)
                results.append(row)
                worker = row["worker"] or {}
                heap = worker.get("usedSize")
                print(
                    f"{tool:5} {row['mb']:5.0f} MB  {row['ms'] / 1000 if 'ms' in row else 0:7.1f} s  "
                    f"renderer peak {mib(row['peak'])} (after boot {mib(row['boot_peak'])})  "
                    + (f"worker JS heap {mib(heap)}  " if heap is not None else "")
                    + f"longest main-thread task {row.get('longest', 0):.0f} ms"
                    + (f"  CRASHED: {row['error']}" if row["crashed"] else "")
                    + (f"  error: {row['error']}" if row.get("error") and not row["crashed"] else ""),
                    flush=True,
                )
        if args.corpus:
            count, size = args.corpus.split(":")
            row = measure(playwright, base_url, "split", base, int(float(size) * MB), int(count))
            results.append(row)
            heap = (row["worker"] or {}).get("usedSize")
            print(f"split {int(count):,} files, {row['mb']:.0f} MB  {row.get('ms', 0) / 1000:7.1f} s  "
                  f"renderer peak {mib(row['peak'])} (after boot {mib(row['boot_peak'])})  "
                  + (f"worker JS heap {mib(heap)}  " if heap is not None else "")
                  + f"longest main-thread task {row.get('longest', 0):.0f} ms; {row.get('rows', 0):,} rows in the table"
                  + long_tasks(row)
                  + (f"  CRASHED: {row['error']}" if row["crashed"] else ""), flush=True)
    server.shutdown()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
