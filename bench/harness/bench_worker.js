// Benchmark worker: boots the site's own engine (engine.js) and times tokenization
// through the Python core against the same WASM encoder called from JS directly.
import { bootEngine, fetchEncoderTable, initTiktoken, makeEncoder } from "./core/engine.js";

let engine = null;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function timeRuns(runs, action) {
  const times = [];
  let result = null;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    result = action();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

const handlers = {
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
    const direct = timeRuns(runs, () => encoder.encode_ordinary(text).length);
    // The Python path as the page uses it: text in, JSON out, through the worker's engine.
    const payload = { encoding: "cl100k_base", chunk_size: 512, overlap: 64, count: 5 };
    const analyze = timeRuns(runs, () => JSON.parse(engine.handle("analyze", payload, text)).result.tokens);

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
    const payload = { by: "headings", chunk_size: "512", overlap: "64", encoding: "cl100k_base" };
    const split = () => JSON.parse(engine.handle("split", payload, text)).result.stats.chunks;
    split(); // warm-up: the encoder's token tables are built once per session
    // One encode, then one split, per run: a change of the machine's load hits both alike.
    const direct = [], splitting = [], ratios = [];
    let chunks = 0;
    for (let i = 0; i < runs; i++) {
      const a = timeRuns(1, () => encoder.encode_ordinary(text).length);
      const b = timeRuns(1, split);
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
