// The core engine of the worker: Pyodide with the ragchunk wheel, and tiktoken's WASM
// encoders handed to Python. worker.js speaks the protocol on top of it; the browser
// benchmark (bench/bench_browser.py) boots the very same engine.
import { SPEC } from "./spec.js";
import * as tiktokenGlue from "./assets/tiktoken/tiktoken_bg.js";

const ASSETS = new URL("./assets/", import.meta.url);
export const BOOT_STAGES = 4;

let tiktokenReady = null;

/** Instantiate tiktoken_bg.wasm once per worker. */
export function initTiktoken() {
  tiktokenReady ??= (async () => {
    const response = await fetch(new URL("tiktoken/tiktoken_bg.wasm", ASSETS));
    if (!response.ok) throw new Error(`tiktoken_bg.wasm: HTTP ${response.status}`);
    const { instance } = await WebAssembly.instantiateStreaming(response, { "./tiktoken_bg.js": tiktokenGlue });
    tiktokenGlue.__wbg_set_wasm(instance.exports);
  })();
  return tiktokenReady;
}

/** The fields of encoders/<name>.json: {bpe_ranks, special_tokens, pat_str}. */
export async function fetchEncoderTable(name) {
  const response = await fetch(new URL(`encoders/${name}.json`, ASSETS));
  if (!response.ok) throw new Error(`${name}.json: HTTP ${response.status}`);
  return response.json();
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
 * Boot Pyodide, install the wheel and load the default encoding.
 * `progress(stage, done, total)` reports each stage. Resolves with
 * {pyodide, session, glue, ensureEncoder(name)}.
 */
export async function bootEngine(progress = () => {}) {
  const defaultEncoding = SPEC.defaults.encoding;
  const encoders = new Map();
  progress("Loading the Python runtime", 0, BOOT_STAGES);
  // The default encoder is downloaded and built while Python boots.
  const table = fetchEncoderTable(defaultEncoding);
  const firstEncoder = Promise.all([table, initTiktoken()]).then(([loaded]) => ({ loaded, encoder: makeEncoder(loaded) }));
  firstEncoder.catch(() => {});
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", ASSETS).href);
  const pyodide = await failFast(
    loadPyodide({ indexURL: new URL("pyodide/", ASSETS).href, stdout: () => {}, stderr: () => {} }),
  );
  progress("Installing the ragchunk core", 1, BOOT_STAGES);
  const loadErrors = [];
  await pyodide.loadPackage(new URL(SPEC.wheel, import.meta.url).href, {
    messageCallback: () => {},
    errorCallback: (message) => loadErrors.push(message),
  });
  if (loadErrors.length) throw new Error(`installing the wheel failed: ${loadErrors.join("; ")}`);
  const glue = pyodide.pyimport("ragchunk.browser");
  const session = pyodide.pyimport("ragchunk.api").Session();

  // Loads an encoding's table the first time it is asked for; later calls reuse it.
  function ensureEncoder(name, built = null) {
    if (!encoders.has(name)) {
      const loading = (async () => {
        const { loaded, encoder } = await (built ??
          Promise.all([fetchEncoderTable(name), initTiktoken()]).then(([table]) => ({ loaded: table, encoder: makeEncoder(table) })));
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
  const handle = (type, payload, document) =>
    glue.handle(session, type, JSON.stringify(payload), typeof document === "string" ? { text: document } : document ?? undefined);
  return { pyodide, session, glue, handle, ensureEncoder, hasEncoder: (name) => encoders.has(name) };
}
