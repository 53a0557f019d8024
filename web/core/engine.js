// The core engine: Pyodide with the ragchunk wheel, and tiktoken's WASM encoders handed to
// Python. It runs in the module worker on the site (worker.js speaks the protocol on top of
// it) and on the main thread of the single offline file (offline/inpage.js); the browser benchmark
// (bench/bench_browser.py) boots the very same engine. Where the files come from is the
// asset loader's business: siteAssets() fetches them by URL, offline.js reads them from
// bytes inlined in the page.
import { SPEC } from "../spec.js";
import * as tiktokenGlue from "../assets/tiktoken/tiktoken_bg.js";

export const BOOT_STAGES = 4;

/**
 * The engine's files on the site, under `base`/assets/ (by default the site's root, above core/).
 * An asset loader offers:
 *   response(path)             Promise<Response> for "tiktoken/tiktoken_bg.wasm", "encoders/<name>.json"
 *   loadPyodide(options)       Promise<PyodideAPI>, `options` added to loadPyodide's own
 *   installWheel(pyodide)      Promise<void>, the ragchunk wheel installed
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
    async installWheel(pyodide) {
      const loadErrors = [];
      await pyodide.loadPackage(new URL(SPEC.wheel, base).href, {
        messageCallback: () => {},
        errorCallback: (message) => loadErrors.push(message),
      });
      if (loadErrors.length) throw new Error(`installing the wheel failed: ${loadErrors.join("; ")}`);
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

/** The fields of encoders/<name>.json: {bpe_ranks, special_tokens, pat_str}. */
export async function fetchEncoderTable(name, assets = site()) {
  return (await assets.response(`encoders/${name}.json`)).json();
}

/** A WASM Tiktoken for an encoder table (tiktoken must be initialised). */
export function makeEncoder(table) {
  return new tiktokenGlue.Tiktoken(table.bpe_ranks, { ...table.special_tokens }, table.pat_str);
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
 * (see siteAssets). `progress(stage, done, total)` reports each stage. Resolves with
 * {pyodide, session, glue, handle, ensureEncoder(name), hasEncoder(name)}.
 */
export async function bootEngine(progress = () => {}, assets = site()) {
  const defaultEncoding = SPEC.defaults.encoding;
  const encoders = new Map();
  const buildEncoder = (name) =>
    Promise.all([fetchEncoderTable(name, assets), initTiktoken(assets)]).then(([loaded]) => ({ loaded, encoder: makeEncoder(loaded) }));
  progress("Loading the Python runtime", 0, BOOT_STAGES);
  // The default encoder is loaded and built while Python boots.
  const firstEncoder = buildEncoder(defaultEncoding);
  firstEncoder.catch(() => {});
  const pyodide = await failFast(assets.loadPyodide({ stdout: () => {}, stderr: () => {} }));
  progress("Installing the ragchunk core", 1, BOOT_STAGES);
  await assets.installWheel(pyodide);
  const glue = pyodide.pyimport("ragchunk.browser");
  const session = pyodide.pyimport("ragchunk.api").Session();

  // Loads an encoding's table the first time it is asked for; later calls reuse it.
  function ensureEncoder(name, built = null) {
    if (!encoders.has(name)) {
      const loading = (async () => {
        const { loaded, encoder } = await (built ?? buildEncoder(name));
        glue.provide_encoder(name, encoder, loaded.bpe_ranks, (source) => encoder.encode_ordinary(source.text));
      })();
      loading.catch(() => encoders.delete(name));
      encoders.set(name, loading);
    }
    return encoders.get(name);
  }

  progress(`Loading the ${defaultEncoding} tokenizer`, 2, BOOT_STAGES);
  await ensureEncoder(defaultEncoding, firstEncoder);
  // A pasted text goes to Python wrapped as {text}, so the encoder can read the JS string
  // itself (see ragchunk.browser.JsText); bytes and null pass as they are.
  // `onProgress(done, total)` hears how far a split has come (code points of the text).
  const handle = (type, payload, document, onProgress = undefined) =>
    glue.handle(
      session,
      type,
      JSON.stringify(payload),
      typeof document === "string" ? { text: document } : document ?? undefined,
      onProgress,
    );
  return { pyodide, session, glue, handle, ensureEncoder, hasEncoder: (name) => encoders.has(name) };
}

/**
 * Answer one request of the protocol with a booted `engine`: loads the encoding it needs,
 * reports "Loading …" / "Tokenizing" / "Splitting" through `progress`, and resolves with
 * {ok: true, result} | {ok: false, errors} (Python's reply, without the id).
 * `beforeRun()` is awaited just before Python runs (the page uses it to let the status paint).
 */
export async function answerRequest(engine, { type, payload = {}, document = null }, progress, beforeRun = async () => {}) {
  // The estimate needs no table; an unknown name is left for Python to refuse.
  const encoding = type === "analyze" ? (payload.encoding ?? SPEC.defaults.encoding) : payload.encoding;
  if (encoding && SPEC.encodings[encoding]) {
    if (!engine.hasEncoder(encoding)) progress(`Loading the ${encoding} tokenizer`, 0, 1);
    await engine.ensureEncoder(encoding);
  }
  if (document !== null || type === "split") {
    progress(type === "split" ? "Splitting" : "Tokenizing", 0, 1);
    await beforeRun();
  }
  const stage = type === "split" ? "Splitting" : "Tokenizing";
  const onProgress = type === "split" || type === "analyze" ? (done, total) => progress(stage, done, total) : undefined;
  const reply = JSON.parse(engine.handle(type, payload, document, onProgress));
  return type === "split" && reply.ok ? { ...reply, result: packSplit(reply.result) } : reply;
}

const CHUNK_COLUMNS = ["id", "start", "end", "content_start", "tokens", "overlap_tokens", "text_offset", "overlap_length",
  "text_length", "path"];

/**
 * A split's chunks as columns for the page. Thousands of chunk objects and strings in one
 * reply cost the page's main thread a long task to receive (and then to collect); typed
 * arrays, one string of every chunk's text and the distinct heading paths are a few
 * copies. `result.chunks` becomes {length, columns: {name: Float64Array}, paths, texts}:
 * chunk i's text is texts.slice(text_offset[i], text_offset[i] + text_length[i]) (UTF-16
 * units), the first overlap_length[i] of it carried over, and its heading path is
 * paths[path[i]].
 */
export function packSplit(result) {
  const n = result.chunks.length;
  const columns = Object.fromEntries(CHUNK_COLUMNS.map((name) => [name, new Float64Array(n)]));
  const paths = [];
  const pathIndex = new Map();
  const parts = [];
  let offset = 0;
  result.chunks.forEach((chunk, i) => {
    const key = JSON.stringify(chunk.heading_path);
    if (!pathIndex.has(key)) {
      pathIndex.set(key, paths.length);
      paths.push(chunk.heading_path);
    }
    parts.push(chunk.overlap_text, chunk.new_text);
    const length = chunk.overlap_text.length + chunk.new_text.length;
    const values = { ...chunk, text_offset: offset, overlap_length: chunk.overlap_text.length, text_length: length, path: pathIndex.get(key) };
    for (const name of CHUNK_COLUMNS) columns[name][i] = values[name];
    offset += length;
  });
  return { ...result, chunks: { length: n, columns, paths, texts: parts.join("") } };
}
