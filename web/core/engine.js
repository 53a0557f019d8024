// The core engine: Pyodide with the ragchunk wheel, and tiktoken's WASM encoders handed to
// Python. It runs in the module worker on the site (worker.js speaks the protocol on top of
// it) and on the main thread of the single offline file (offline/inpage.js); the browser benchmark
// (bench/bench_browser.py) boots the very same engine. Where the files come from is the
// asset loader's business: siteAssets() fetches them by URL, offline.js reads them from
// bytes inlined in the page.
import { SPEC } from "../spec.js";
import * as tiktokenGlue from "../assets/tiktoken/tiktoken_bg.js";
import { countedBy } from "./budget.js";
import { afterRestore, restoreOptions, SNAPSHOT_BOOT, takeSnapshot } from "./snapshot.js";

export const BOOT_STAGES = 4;

/**
 * The engine's files on the site, under `base`/assets/ (by default the site's root, above core/).
 * An asset loader offers:
 *   response(path)             Promise<Response> for "tiktoken/tiktoken_bg.wasm", "encoders/<name>.json",
 *                              "tables/<file>"
 *   loadPyodide(options)       Promise<PyodideAPI>, `options` added to loadPyodide's own
 *   pyodideModule()            Promise<createPyodideModule>, pyodide.asm.mjs's export (for a snapshot's restore)
 *   installWheel(pyodide, path) Promise<void>, a wheel of the site installed (default: the ragchunk wheel)
 *   wheelBytes()               Promise<Uint8Array>, the ragchunk wheel's bytes (unpacked again after a restore)
 */
export function siteAssets(base = new URL("../", import.meta.url)) {
  const assets = new URL("assets/", base);
  return {
    async response(path) {
      const response = await fetch(new URL(path, assets));
      if (!response.ok) throw new Error(`${path.split("/").pop()}: HTTP ${response.status}`);
      return response;
    },
    async loadPyodide(options) {
      const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", assets).href);
      return loadPyodide({ indexURL: new URL("pyodide/", assets).href, ...options });
    },
    async pyodideModule() {
      return (await import(new URL("pyodide/pyodide.asm.mjs", assets).href)).default;
    },
    async wheelBytes() {
      const response = await fetch(new URL(SPEC.wheel, base));
      if (!response.ok) throw new Error(`${SPEC.wheel.split("/").pop()}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    },
    async installWheel(pyodide, path = SPEC.wheel) {
      const loadErrors = [];
      await pyodide.loadPackage(new URL(path, base).href, {
        messageCallback: () => {},
        errorCallback: (message) => loadErrors.push(message),
      });
      if (loadErrors.length) throw new Error(`installing ${path.split("/").pop()} failed: ${loadErrors.join("; ")}`);
    },
  };
}

let defaultAssets = null;
const site = () => (defaultAssets ??= siteAssets());

let tiktokenReady = null;

/** Instantiate tiktoken_bg.wasm once per realm (worker or page). */
export function initTiktoken(assets = site()) {
  tiktokenReady ??= (async () => {
    const response = await assets.response("tiktoken/tiktoken_bg.wasm");
    const { instance } = await WebAssembly.instantiateStreaming(response, { "./tiktoken_bg.js": tiktokenGlue });
    tiktokenGlue.__wbg_set_wasm(instance.exports);
  })();
  tiktokenReady.catch(() => {
    tiktokenReady = null;
  });
  return tiktokenReady;
}

/** The fields of encoders/<name>.json: {bpe_ranks, special_tokens, pat_str}, and normalizer ("NFC") for some. */
export async function fetchEncoderTable(name, assets = site()) {
  return (await assets.response(`encoders/${name}.json`)).json();
}

/** A WASM Tiktoken for an encoder table (tiktoken must be initialised). */
export function makeEncoder(table) {
  return new tiktokenGlue.Tiktoken(table.bpe_ranks, { ...table.special_tokens }, table.pat_str);
}

/**
 * The whole body of `response` as one Uint8Array, `onBytes(count)` told of each chunk as it
 * arrives (of the whole at once when the response has no body stream).
 */
async function readBytes(response, onBytes = null) {
  if (!response.body) {
    const bytes = new Uint8Array(await response.arrayBuffer());
    onBytes?.(bytes.length);
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    onBytes?.(value.length);
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/**
 * A counter of `total` units for `stage` (bytes of a download): `advance(count)` adds count
 * and reports when the whole percent moves, not per chunk of the network's; 0 % at once, and
 * the caller reports 100 % at the end.
 */
function byPercent(report, stage, total, params) {
  let done = 0;
  let shown = -1;
  const advance = (count) => {
    done += count;
    const percent = Math.floor((done / total) * 100);
    if (percent > shown && percent < 100) {
      shown = percent;
      report(stage, done, total, params);
    }
  };
  advance(0);
  return advance;
}

// Pyodide 314 only console.warn()s when pyodide.asm.wasm cannot be fetched or compiled, and
// its loadPyodide() then never settles; turn that warning into a rejection so the page can
// say the tokenizer failed instead of waiting forever.
function failFast(loading) {
  const warn = console.warn;
  let failed;
  const failure = new Promise((_, reject) => {
    failed = reject;
  });
  console.warn = (...args) => {
    warn.apply(console, args);
    if (String(args[0]).includes("wasm instantiation failed")) {
      failed(new Error("the Python runtime (pyodide.asm.wasm) could not be loaded"));
    }
  };
  return Promise.race([loading, failure]).finally(() => {
    console.warn = warn;
  });
}

/**
 * Boot Pyodide, install the wheel and load the default encoding, with files from `assets`
 * (see siteAssets); with `snapshots` (snapshot.js snapshotStore), from a snapshot of an
 * earlier boot when it has one. `progress(stage, done, total, params)` reports each stage by its code
 * ("runtime", "wheel", "encoding" {name}). Resolves with the engine:
 * {pyodide, glue, workspace, start(type, payload, document) -> a Python generator of steps,
 *  ensureTokenizer(name, progress), ensureReader(kind, progress), warm() (the default encoder
 *  handed to Python and used once, ahead of the first request), takeSnapshot() (after a boot
 *  with `snapshots`, before any request or warm(): the heap for `snapshots` to keep, or null;
 *  else null itself), restored (whether it came from a snapshot)}.
 */
export async function bootEngine(progress = () => {}, assets = site(), snapshots = null) {
  const defaultEncoding = SPEC.defaults.encoding;
  const encoders = new Map();
  const loaded = new Map(); // open tokenizers' tables and extra readers, by name: Promise<void>
  const buildEncoder = (name) =>
    Promise.all([fetchEncoderTable(name, assets), initTiktoken(assets)]).then(([table]) => ({ table, encoder: makeEncoder(table) }));
  progress("runtime", 0, BOOT_STAGES);
  // The default encoder is loaded and built while Python boots.
  const firstEncoder = buildEncoder(defaultEncoding);
  firstEncoder.catch(() => {});
  const { pyodide, snapshot, restored } = await bootPython(progress, assets, snapshots);
  const glue = pyodide.pyimport("ragchunk.api.browser");
  const workspace = pyodide.pyimport("ragchunk.api").Workspace();

  // Loads an encoding's table the first time it is asked for; later calls reuse it. The
  // default one, built during the boot, reaches Python with the first request that needs
  // it (or warm()), after the boot snapshot is taken: no JS object may be in that heap.
  function ensureEncoder(name) {
    if (!encoders.has(name)) {
      const loading = (async () => {
        const { table, encoder } = await (name === defaultEncoding ? firstEncoder : buildEncoder(name));
        // A normalizing table (Qwen's "NFC") is normalized by Python, which also maps the offsets back.
        glue.provide_encoder(name, encoder, table.bpe_ranks, (source) => encoder.encode_ordinary(source.text), table.normalizer ?? "");
      })();
      loading.catch(() => encoders.delete(name));
      encoders.set(name, loading);
    }
    return encoders.get(name);
  }

  /** Once, the work `make(report)` does for `key`; a failure is forgotten, so a retry tries again. */
  function once(key, make) {
    if (!loaded.has(key)) {
      const loading = make();
      loading.catch(() => loaded.delete(key));
      loaded.set(key, loading);
    }
    return loaded.get(key);
  }

  /**
   * The tokenizer `name` ready in Python: a BPE encoding's WASM encoder, or an open
   * model's tables fetched from the site (assets/tables/, hash-checked in Python), with
   * "encoding" / "tables" progress (the tables' in bytes). Unknown names are left for Python to refuse.
   */
  function ensureTokenizer(name, report = () => {}) {
    if (SPEC.encodings[name]) {
      if (!encoders.has(name)) report("encoding", 0, 1, { name });
      return ensureEncoder(name);
    }
    const family = SPEC.tokenizers[name];
    if (!family) return Promise.resolve();
    return once(`tokenizer:${name}`, async () => {
      const tables = family.tables;
      // Counted in bytes when the build gave each table's size (XLM-R's first table is most
      // of its megabytes, so a count of files would sit at 0 %), else in files.
      const sized = tables.every((table) => table.bytes > 0);
      const total = sized ? tables.reduce((sum, table) => sum + table.bytes, 0) : tables.length;
      const advance = byPercent(report, "tables", total, { name });
      for (const table of tables) {
        const bytes = await readBytes(await assets.response(`tables/${table.file}`), sized ? advance : null);
        if (!sized) advance(1);
        glue.provide_table(table.name, bytes);
      }
      report("tables", total, total, { name });
    });
  }

  /** A reader that needs a wheel of its own (PDF: pypdf), installed on first use. */
  function ensureReader(kind, report = () => {}) {
    const wheel = SPEC.reader_wheels?.[kind];
    if (!wheel) return Promise.resolve();
    return once(`reader:${kind}`, async () => {
      report("reader", 0, 1, { name: kind });
      await assets.installWheel(pyodide, wheel);
    });
  }

  // --- the evaluation's embedding model (onnxruntime-web), loaded the first time it is chosen
  let model = null;

  /**
   * all-MiniLM-L6-v2 on onnxruntime-web's plain WASM build, both from the site (SPEC.evaluate),
   * with "model" progress counted in bytes; every core when the page is cross-origin isolated.
   */
  function ensureModel(report = () => {}) {
    return once("model:minilm", async () => {
      const { model: file, runtime } = SPEC.evaluate;
      const total = file.bytes + runtime.bytes;
      const advance = byPercent(report, "model", total, { name: "all-MiniLM-L6-v2" });
      const base = new URL("../", import.meta.url);
      const ort = await import(new URL(runtime.module, base).href);
      const wasm = await readBytes(await assets.response(`${runtime.wasm_paths.replace(/^assets\//, "")}ort-wasm-simd-threaded.wasm`), advance);
      const onnx = await readBytes(await assets.response(file.url.replace(/^assets\//, "")), advance);
      ort.env.wasm.wasmPaths = new URL(runtime.wasm_paths, base).href;
      ort.env.wasm.wasmBinary = wasm;
      ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.max(1, navigator.hardwareConcurrency || 1) : 1;
      const session = await ort.InferenceSession.create(onnx, { executionProviders: ["wasm"] });
      model = { ort, session, threads: ort.env.wasm.numThreads };
      report("model", total, total, { name: "all-MiniLM-L6-v2" });
    });
  }

  /** The unit vectors (mean-pooled, L2-normalised) of rows of token ids, one after the other in a Float32Array. */
  async function embed(rows) {
    const { ort, session } = model;
    const count = rows.length;
    const width = Math.max(...rows.map((row) => row.length));
    const ids = new BigInt64Array(count * width);
    const mask = new BigInt64Array(count * width);
    rows.forEach((row, i) => row.forEach((id, j) => {
      ids[i * width + j] = BigInt(id);
      mask[i * width + j] = 1n;
    }));
    const shape = [count, width];
    const output = await session.run({
      input_ids: new ort.Tensor("int64", ids, shape),
      attention_mask: new ort.Tensor("int64", mask, shape),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(count * width), shape),
    });
    const hidden = output[session.outputNames[0]];
    const dims = hidden.dims[2];
    const vectors = new Float32Array(count * dims);
    const pooled = new Float64Array(dims);
    for (let i = 0; i < count; i++) {
      pooled.fill(0);
      const length = rows[i].length;
      for (let j = 0; j < length; j++) {
        const at = (i * width + j) * dims;
        for (let d = 0; d < dims; d++) pooled[d] += hidden.data[at + d];
      }
      let norm = 0;
      for (let d = 0; d < dims; d++) norm += (pooled[d] / length) ** 2;
      norm = Math.sqrt(norm) || 1;
      for (let d = 0; d < dims; d++) vectors[i * dims + d] = pooled[d] / length / norm;
    }
    hidden.dispose?.();
    return vectors;
  }

  const modelThreads = () => model?.threads ?? null;

  /** The evaluation's own wheels (BM25's stemmer), installed on first use. */
  function ensureEvaluation(report = () => {}) {
    return once("evaluation", async () => {
      report("reader", 0, 1, { name: "BM25" });
      for (const wheel of SPEC.evaluate.wheels) await assets.installWheel(pyodide, wheel);
    });
  }

  progress("encoding", 2, BOOT_STAGES, { name: defaultEncoding });
  await firstEncoder;
  // A pasted text goes to Python wrapped as {text}, so the encoder can read the JS string
  // itself (see ragchunk.api.browser.JsText); bytes and null pass as they are.
  const start = (type, payload, document) =>
    glue.start(workspace, type, JSON.stringify(payload), typeof document === "string" ? { text: document } : document ?? undefined);
  // Warm-up text for the default encoder: the site's own spec, words and numbers (~12 KB).
  const warm = async () => {
    await ensureEncoder(defaultEncoding);
    glue.warm(defaultEncoding, JSON.stringify(SPEC));
  };
  return { pyodide, glue, workspace, start, ensureTokenizer, ensureReader, ensureModel, embed, modelThreads, ensureEvaluation,
    warm, takeSnapshot: snapshot, restored };
}

const QUIET = { stdout: () => {}, stderr: () => {} };

/**
 * Python with the wheel installed and the front door imported: restored from the snapshot
 * `snapshots` holds (see snapshot.js) when there is one that works, else booted. A boot with
 * a store gives the function that takes the snapshot of its heap ({snapshot}); a restore
 * says {restored: true}.
 */
async function bootPython(progress, assets, snapshots) {
  const saved = await snapshots?.open().catch(() => null);
  if (saved) {
    try {
      // The wheel and the snapshot's bytes are read while Pyodide compiles.
      const wheel = assets.wheelBytes();
      wheel.catch(() => {});
      const create = await assets.pyodideModule();
      const pyodide = await failFast(assets.loadPyodide({ ...QUIET, ...restoreOptions(saved, create) }));
      progress("wheel", 1, BOOT_STAGES);
      // The heap has the modules; the files of the file system were not in it.
      afterRestore(pyodide, await wheel);
      pyodide.pyimport("ragchunk.api.browser");
      return { pyodide, snapshot: null, restored: true };
    } catch (error) {
      // Stale (another Pyodide build), cut short or refused: forget it and boot.
      console.warn(`ragchunk: the boot snapshot was not used (${error?.message ?? error})`);
      await snapshots.discard().catch(() => {});
    }
  }
  const pyodide = await failFast(assets.loadPyodide({ ...QUIET, ...(snapshots ? SNAPSHOT_BOOT : {}) }));
  progress("wheel", 1, BOOT_STAGES);
  await assets.installWheel(pyodide);
  pyodide.pyimport("ragchunk.api");
  pyodide.pyimport("ragchunk.api.browser");
  return { pyodide, snapshot: snapshots ? () => takeSnapshot(pyodide) : null, restored: false };
}

/** The tokenizer a request counts with: its model's, its encoding, the default for analyze, or none (the estimate). */
export function tokenizerOf(type, payload) {
  if (type === "calculate") return undefined; // arithmetic: a model's figures need no table
  if (type === "context") return countedBy(SPEC.planner.llms, payload.llm); // the LLM's own, or its estimate's reference
  if (payload.model) return SPEC.models.find((m) => m.id === payload.model || m.hub_id === payload.model)?.tokenizer;
  if (type === "analyze") return payload.encoding ?? SPEC.defaults.encoding;
  if (type === "split" && !("chars_per_token" in payload)) return payload.encoding ?? SPEC.defaults.encoding;
  return undefined;
}

/** The reader a document's bytes need before Python can read them ("pdf" for a PDF), or null. */
export function readerOf(document, name = "") {
  if (!(document instanceof Uint8Array)) return null;
  const pdf = document.length >= 5 && String.fromCharCode(...document.subarray(0, 5)) === "%PDF-";
  return pdf || /\.pdf$/i.test(name) ? "pdf" : null;
}

// A macrotask boundary through a MessageChannel (no 4 ms clamp, unlike setTimeout): the
// realm's other work runs (a worker's message queue, so a cancel is heard; on the page,
// input and paints), between two steps of a request.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
export const pause = () =>
  new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });

/**
 * Answer one request of the protocol with a booted `engine`: loads what it needs (an
 * encoder, a model's tables, a reader's wheel), then runs the request step by step (Python
 * yields between steps), reporting each step through `progress(stage, done, total, params)`.
 * Between steps it awaits `control.pause()` (which lets the realm's other work run: a cancel
 * message, a paint) and stops when `control.cancelled()` says so. Resolves with
 * {ok: true, result} | {ok: false, errors} | {ok: false, internal} | {ok: false, cancelled: true}.
 */
export async function answerRequest(engine, { type, payload = {}, document = null }, progress,
  control = { pause: async () => {}, cancelled: () => false }) {
  const tokenizer = tokenizerOf(type, payload);
  if (tokenizer) await engine.ensureTokenizer(tokenizer, progress);
  const reader = type === "load" ? readerOf(document, payload.name) : null;
  if (reader) await engine.ensureReader(reader, progress);
  if (type === "evaluate") await engine.ensureEvaluation(progress);
  const model = type === "evaluate" && (payload.retrievers ?? []).some((name) => name !== "bm25");
  if (model) {
    await engine.ensureTokenizer("bert-base-uncased", progress); // the model's ids are our WordPiece's
    await engine.ensureModel(progress);
  }
  if (control.cancelled()) return { ok: false, cancelled: true };
  if (type === "load") {
    // A pasted text is no file, though it is read (and its size checked) the same way.
    progress(typeof document === "string" ? "reading_text" : "reading", 0, 1);
    await control.pause();
  }
  const steps = engine.start(type, payload, document);
  let sent; // what a step asked for (an evaluation's vectors), sent back into Python
  try {
    for (;;) {
      const step = steps.next(sent);
      sent = undefined;
      if (step.done) return JSON.parse(step.value);
      const [stage, done, total, params] = step.value.toJs({ dict_converter: Object.fromEntries });
      step.value.destroy();
      if (params?.ids) {
        const { ids, ...said } = params;
        progress(stage, done, total, said);
        sent = await engine.embed(ids);
      } else {
        progress(stage, done, total, ...(params ? [params] : []));
      }
      await control.pause();
      if (control.cancelled()) {
        steps.return(); // Python closes the request; the workspace keeps what it had
        return { ok: false, cancelled: true };
      }
    }
  } finally {
    steps.destroy();
  }
}
