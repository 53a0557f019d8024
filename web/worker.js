// The module worker: boots Pyodide, installs the ragchunk wheel, builds tiktoken's WASM
// encoders and hands them to Python. All tokenization and chunking happen here.
//
// Protocol (see bridge.js for the other end):
//   in:  {id, type: "calculate" | "analyze", payload, document?}
//   out: {id, ok: true, result} | {id, ok: false, errors: [{field, message}]} | {id, ok: false, internal}
//        {type: "progress", stage, done, total}   boot and loading stages
//        {type: "ready", version, bootMs}        | {type: "failed", message}
import { SPEC } from "./spec.js";
import * as tiktokenGlue from "./assets/tiktoken/tiktoken_bg.js";

const ASSETS = new URL("./assets/", import.meta.url);
const BOOT_STAGES = 4;

let session = null;
let browserGlue = null;
const encoders = new Map(); // encoding name -> Promise that resolves once Python has it
let tiktokenReady = null;
let queue = Promise.resolve();

function progress(stage, done, total) {
  postMessage({ type: "progress", stage, done, total });
}

function initTiktoken() {
  tiktokenReady ??= (async () => {
    const response = await fetch(new URL("tiktoken/tiktoken_bg.wasm", ASSETS));
    if (!response.ok) throw new Error(`tiktoken_bg.wasm: HTTP ${response.status}`);
    const { instance } = await WebAssembly.instantiateStreaming(response, { "./tiktoken_bg.js": tiktokenGlue });
    tiktokenGlue.__wbg_set_wasm(instance.exports);
  })();
  return tiktokenReady;
}

async function fetchEncoderTable(name) {
  const response = await fetch(new URL(`encoders/${name}.json`, ASSETS));
  if (!response.ok) throw new Error(`${name}.json: HTTP ${response.status}`);
  return response.json();
}

// Loads an encoding's table the first time it is asked for; later calls reuse it.
function ensureEncoder(name, tablePromise) {
  if (!encoders.has(name)) {
    const loading = (async () => {
      const [table] = await Promise.all([tablePromise ?? fetchEncoderTable(name), initTiktoken()]);
      const encoder = new tiktokenGlue.Tiktoken(table.bpe_ranks, { ...table.special_tokens }, table.pat_str);
      browserGlue.provide_encoder(name, encoder, table.bpe_ranks);
    })();
    loading.catch(() => encoders.delete(name));
    encoders.set(name, loading);
  }
  return encoders.get(name);
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
    if (String(args[0]).includes("wasm instantiation failed")) failed(new Error("the Python runtime (pyodide.asm.wasm) could not be loaded"));
  };
  return Promise.race([loading, failure]).finally(() => {
    console.warn = warn;
  });
}

async function boot() {
  const started = performance.now();
  const defaultEncoding = SPEC.defaults.encoding;
  progress("Loading the Python runtime", 0, BOOT_STAGES);
  // The default table and the WASM encoder download while Python boots.
  const table = fetchEncoderTable(defaultEncoding);
  initTiktoken().catch(() => {});
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", ASSETS).href);
  const pyodide = await failFast(loadPyodide({ indexURL: new URL("pyodide/", ASSETS).href, stdout: () => {}, stderr: () => {} }));
  progress("Installing the ragchunk core", 1, BOOT_STAGES);
  const loadErrors = [];
  await pyodide.loadPackage(new URL(SPEC.wheel, import.meta.url).href, {
    messageCallback: () => {},
    errorCallback: (message) => loadErrors.push(message),
  });
  if (loadErrors.length) throw new Error(`installing the wheel failed: ${loadErrors.join("; ")}`);
  const api = pyodide.pyimport("ragchunk.api");
  browserGlue = pyodide.pyimport("ragchunk.browser");
  session = api.Session();
  progress(`Loading the ${defaultEncoding} tokenizer`, 2, BOOT_STAGES);
  await ensureEncoder(defaultEncoding, table);
  progress("Ready", BOOT_STAGES, BOOT_STAGES);
  postMessage({ type: "ready", version: pyodide.version, bootMs: Math.round(performance.now() - started) });
}

async function answer(message) {
  const { id, type, payload = {}, document = null } = message;
  if (type === "analyze") {
    const encoding = payload.encoding ?? SPEC.defaults.encoding;
    if (!SPEC.encodings[encoding]) {
      return { id, ok: false, errors: [{ field: "encoding", message: `encoding (${encoding}) is not known` }] };
    }
    if (!encoders.has(encoding)) progress(`Loading the ${encoding} tokenizer`, 0, 1);
    await ensureEncoder(encoding);
    if (document !== null) progress("Tokenizing", 0, 1);
  }
  // undefined, not null, reaches Python as None.
  const reply = browserGlue.handle(session, type, JSON.stringify(payload), document ?? undefined);
  return { id, ...JSON.parse(reply) };
}

let booting = true;
// A failed boot leaves stray rejections inside Pyodide (its own fetch of the wasm); the
// failure itself reaches the page as a "failed" message.
addEventListener("unhandledrejection", (event) => {
  if (booting) event.preventDefault();
});
const booted = boot().then(
  () => {
    booting = false;
  },
  (error) => {
    postMessage({ type: "failed", message: String(error?.message ?? error) });
    throw error;
  },
);
booted.catch(() => {});

onmessage = (event) => {
  const message = event.data;
  // One request at a time: Python is single-threaded and replies must keep their order.
  queue = queue
    .then(() => booted)
    .then(() => answer(message))
    .catch((error) => ({ id: message.id, ok: false, internal: String(error?.message ?? error) }))
    .then((reply) => postMessage(reply));
};
