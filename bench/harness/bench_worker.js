// Benchmark worker: boots the site's own engine (engine.js) and times tokenization
// through the Python core against the same WASM encoder called from JS directly.
import { answerRequest, bootEngine, fetchEncoderTable, initTiktoken, makeEncoder } from "./core/engine.js";

let engine = null;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeRuns(runs, action) {
  const times = [];
  let result = null;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    result = await action();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

/** One request of the worker protocol, answered as the site's worker answers it (no progress). */
async function request(type, payload, document = null) {
  const reply = await answerRequest(engine, { type, payload, document }, () => {});
  if (!reply.ok) throw new Error(JSON.stringify(reply));
  return reply.result;
}

/**
 * `type` on `text` as a new document, the way a paste or a drop reaches the core: the text
 * is loaded into the workspace (copied to Python), answered, then dropped, so every run
 * encodes it again (a document already in the workspace would be re-packed only).
 */
async function fresh(type, payload, text) {
  const { doc } = await request("load", { name: "bench.md" }, text);
  try {
    return await request(type, { ...payload, doc });
  } finally {
    await request("drop", { doc });
  }
}

const handlers = {
  /**
   * all-MiniLM-L6-v2 on onnxruntime-web in this worker, as the evaluation page runs it: the
   * rows of token ids (made by ragchunk's WordPiece on CPython) embedded one per forward
   * pass (the page's step) and `batch` per pass; each the median of `runs`, after one warm-up.
   */
  async minilm({ rows, runs, batch }) {
    await engine.ensureModel();
    await engine.embed(rows.slice(0, 1));
    const each = async (size) => {
      for (let i = 0; i < rows.length; i += size) await engine.embed(rows.slice(i, i + size));
    };
    const one = await timeRuns(runs, () => each(1));
    const batched = await timeRuns(runs, () => each(batch));
    const first = await engine.embed(rows.slice(0, 1));
    return { threads: engine.modelThreads(), isolated: globalThis.crossOriginIsolated, oneMs: one.ms,
      batchMs: batched.ms, first: [...first.subarray(0, 8)] };
  },
  async bareBoot() {
    const start = performance.now();
    const { loadPyodide } = await import(new URL("./assets/pyodide/pyodide.mjs", import.meta.url).href);
    await loadPyodide({ indexURL: new URL("./assets/pyodide/", import.meta.url).href });
    return { ms: performance.now() - start };
  },
  async boot() {
    const start = performance.now();
    engine = await bootEngine();
    return { ms: performance.now() - start };
  },
  async throughput({ text, runs }) {
    await initTiktoken();
    const encoder = makeEncoder(await fetchEncoderTable("cl100k_base"));
    const direct = await timeRuns(runs, () => encoder.encode_ordinary(text).length);
    // The Python path as the page uses it: text in, JSON out, through the worker's engine.
    const payload = { encoding: "cl100k_base", chunk_size: 512, overlap: 64, count: 5 };
    const analyze = await timeRuns(runs, async () => (await fresh("analyze", payload, text)).tokens);

    return {
      tokens: direct.result,
      same: direct.result === analyze.result,
      directMs: direct.ms,
      analyzeMs: analyze.ms,
    };
  },
  async split({ text, runs }) {
    await initTiktoken();
    const encoder = makeEncoder(await fetchEncoderTable("cl100k_base"));
    // page_size 0: the page asks for a split's chunks by range afterwards.
    const payload = { by: "headings", chunk_size: "512", overlap: "64", encoding: "cl100k_base", page_size: 0 };
    const split = async () => (await fresh("split", payload, text)).stats.chunks;
    await split(); // warm-up: the encoder's token tables are built once per session
    // One encode, then one split, per run: a change of the machine's load hits both alike.
    const direct = [], splitting = [], ratios = [];
    let chunks = 0;
    for (let i = 0; i < runs; i++) {
      const a = await timeRuns(1, () => encoder.encode_ordinary(text).length);
      const b = await timeRuns(1, split);
      direct.push(a.ms); splitting.push(b.ms); ratios.push(b.ms / a.ms);
      chunks = b.result;
    }
    return { directMs: median(direct), splitMs: median(splitting), ratio: median(ratios), chunks };
  },
};

onmessage = async ({ data }) => {
  try {
    postMessage({ ok: true, result: await handlers[data.type](data) });
  } catch (error) {
    postMessage({ ok: false, error: String(error?.stack ?? error) });
  }
};
