// The module worker: all tokenization and chunking happen here, in the engine (engine.js).
//
// It speaks the worker protocol, defined once in pycore/ragchunk/api/protocol.json (in the
// site as core/protocol.js; bridge.js is the other end): requests {id, type, payload,
// document?} and cancels in; progress, ready or failed, and one reply per request out.
// A request the protocol refuses is answered with the core's own errors (messages.js) and
// never reaches Python; a message without an id cannot be answered and is dropped.
// Documents live in Python's workspace by id ("load" answers {doc}); a settings change
// re-packs a loaded document without encoding it again.
import { SPEC } from "../spec.js";
import { answerRequest, BOOT_STAGES, bootEngine, pause } from "./engine.js";
import { messageProblems, requestErrors } from "./messages.js";
import { snapshotKey, snapshotStore } from "./snapshot.js";

let engine = null;
let queue = Promise.resolve();
let booting = true;
// Requests received and not yet answered; a cancel is kept only for one of them (a cancel
// that crossed its request's reply would otherwise stay, and stop a later request).
const open = new Set();
const cancelled = new Set();
let requestsSeen = 0;

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
const snapshots = snapshotStore(snapshotKey(SPEC.wheel, SPEC.runtime_build));
const booted = bootEngine(progress(undefined), undefined, snapshots).then(
  (ready) => {
    engine = ready;
    booting = false;
    progress(undefined)("ready", BOOT_STAGES, BOOT_STAGES);
    postMessage({ type: "ready", version: ready.pyodide.version, bootMs: Math.round(performance.now() - started),
      boot: ready.restored ? "snapshot" : "fresh" });
    afterReady(ready);
  },
  (error) => {
    postMessage({ type: "failed", message: String(error?.message ?? error) });
    throw error;
  },
);
booted.catch(() => {});

// How long the worker must have had nothing to do before it does its own work.
const IDLE_MS = 500;

/** Resolves once no request has been open for IDLE_MS. */
async function idle() {
  for (;;) {
    const seen = requestsSeen;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    await queue;
    if (!open.size && seen === requestsSeen) return;
  }
}

/**
 * After ready (the page has been told): the boot snapshot is taken at once, before any
 * request waiting for the boot runs (snapshot.js: no JS object may have reached Python);
 * then, queued like a request so that it never runs between two steps of one, what the
 * first count would otherwise do itself: the default encoding's token tables and a first
 * encode (after which the browser compiles the encoder's hot code in the background). Once
 * the worker is idle, the snapshot is written for the next visit.
 */
function afterReady(ready) {
  let snapshot = ready.takeSnapshot?.() ?? null;
  queue = queue.then(() => ready.warm()).catch(() => {});
  if (!snapshot) return;
  queue
    .then(idle)
    .then(() => snapshots.save(snapshot))
    .catch((error) => console.warn(`ragchunk: the boot snapshot was not kept (${error?.message ?? error})`))
    .finally(() => {
      snapshot = null;
    });
}

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
  requestsSeen++;
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
