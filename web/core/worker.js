// The module worker: all tokenization and chunking happen here, in the engine (engine.js).
//
// It speaks the worker protocol, defined once in pycore/ragchunk/api/protocol.json (in the
// site as core/protocol.js; bridge.js is the other end): requests {id, type, payload,
// document?} and cancels in; progress, ready or failed, and one reply per request out.
// A request the protocol refuses is answered with the core's own errors (messages.js) and
// never reaches Python; a message without an id cannot be answered and is dropped.
// Documents live in Python's workspace by id ("load" answers {doc}); a settings change
// re-packs a loaded document without encoding it again.
import { answerRequest, BOOT_STAGES, bootEngine, pause } from "./engine.js";
import { messageProblems, requestErrors } from "./messages.js";

let engine = null;
let queue = Promise.resolve();
let booting = true;
// Requests received and not yet answered; a cancel is kept only for one of them (a cancel
// that crossed its request's reply would otherwise stay, and stop a later request).
const open = new Set();
const cancelled = new Set();

const progress = (id) => (stage, done, total, params = {}) =>
  postMessage({ type: "progress", ...(id === undefined ? {} : { id }), stage, done, total, params });


async function answer(message) {
  if (cancelled.delete(message.id)) return { id: message.id, ok: false, cancelled: true };
  const errors = requestErrors(message.type, message.payload ?? {}, message.document ?? null);
  if (errors.length) return { id: message.id, ok: false, errors };
  const control = { pause, cancelled: () => cancelled.has(message.id) };
  const reply = await answerRequest(engine, message, progress(message.id), control);
  return { id: message.id, ...reply };
}

// A failed boot leaves stray rejections inside Pyodide (its own fetch of the wasm); the
// failure itself reaches the page as a "failed" message.
addEventListener("unhandledrejection", (event) => {
  if (booting) event.preventDefault();
});

const started = performance.now();
const booted = bootEngine(progress(undefined)).then(
  (ready) => {
    engine = ready;
    booting = false;
    progress(undefined)("ready", BOOT_STAGES, BOOT_STAGES);
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
  if (typeof message?.id !== "string" && !Number.isInteger(message?.id)) {
    console.error(`worker protocol: a message without an id was dropped: ${messageProblems("to_worker", message).join("; ")}`);
    return;
  }
  if (message.type === "cancel") {
    if (open.has(message.id)) cancelled.add(message.id); // heard at the request's next step (or before it starts)
    return;
  }
  open.add(message.id);
  // One request at a time: Python is single-threaded and replies must keep their order.
  queue = queue
    .then(() => booted)
    .then(() => answer(message))
    .catch((error) => ({ id: message.id, ok: false, internal: String(error?.message ?? error) }))
    .then((reply) => {
      open.delete(message.id);
      cancelled.delete(message.id);
      postMessage(reply);
    });
};
