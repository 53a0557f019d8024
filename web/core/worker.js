// The module worker: all tokenization and chunking happen here, in the engine (engine.js).
//
// Protocol (see bridge.js for the other end):
//   in:  {id, type: "calculate" | "analyze" | "split" | "export", payload, document?}
//   out: {id, ok: true, result} | {id, ok: false, errors: [{field, message}]} | {id, ok: false, internal}
//        {type: "progress", stage, done, total}   boot and loading stages
//        {type: "ready", version, bootMs}        | {type: "failed", message}
import { answerRequest, BOOT_STAGES, bootEngine } from "./engine.js";

let engine = null;
let queue = Promise.resolve();
let booting = true;

function progress(stage, done, total) {
  postMessage({ type: "progress", stage, done, total });
}

async function answer(message) {
  return { id: message.id, ...(await answerRequest(engine, message, progress)) };
}

// A failed boot leaves stray rejections inside Pyodide (its own fetch of the wasm); the
// failure itself reaches the page as a "failed" message.
addEventListener("unhandledrejection", (event) => {
  if (booting) event.preventDefault();
});

const started = performance.now();
const booted = bootEngine(progress).then(
  (ready) => {
    engine = ready;
    booting = false;
    progress("Ready", BOOT_STAGES, BOOT_STAGES);
    postMessage({ type: "ready", version: ready.pyodide.version, bootMs: Math.round(performance.now() - started) });
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
