// The core on the page's own thread, for where a worker cannot start (the single offline
// file opened from disk: module workers from blob: URLs do not start on a file:// page).
// Same interface as bridge.js's Core: "progress" / "ready" / "failed" / "restarting"
// events with the same details, isReady, busy, request() and cancel(); the engine and the
// protocol are the worker's (engine.js), only the transport differs.
//
// Python runs on this thread in steps (engine.js answerRequest): between two steps the
// page paints and handles input, so cancel() stops a running request at its next step,
// as the worker does; the engine is never rebooted.
import { SPEC } from "../spec.js";
import { Cancelled } from "../core/bridge.js";
import { answerRequest, BOOT_STAGES, bootEngine, pause } from "../core/engine.js";
import { requestMessage } from "../core/messages.js";

// A paint before Python takes the thread, so "Tokenizing…" is on screen while it works.
// (requestAnimationFrame does not fire in a hidden tab; the timeout covers that.)
const nextPaint = () =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 100);
  });

export class InPageCore extends EventTarget {
  /** @param assets an asset loader (see engine.js siteAssets) */
  constructor(assets) {
    super();
    this.isReady = false;
    this.pending = new Map();
    this.nextId = 1;
    this.queue = Promise.resolve();
    this.readyDetail = null;
    const started = performance.now();
    const progress = (stage, done, total, params = {}) =>
      this.emit("progress", { type: "progress", stage, done, total, params });
    this.progress = progress;
    this.cancelled = new Set();
    this.cancels = 0; // as bridge.js Core.cancels
    this.booted = bootEngine(progress, assets).then(
      (engine) => {
        progress("ready", BOOT_STAGES, BOOT_STAGES);
        this.readyDetail = { type: "ready", version: engine.pyodide.version, bootMs: Math.round(performance.now() - started) };
        this.emit("ready", this.readyDetail, () => {
          this.isReady = true;
        });
        return engine;
      },
      (error) => {
        this.emit("failed", { type: "failed", message: String(error?.message ?? error) });
        throw error;
      },
    );
    this.booted.catch(() => {});
  }

  emit(type, detail, before = () => {}) {
    // Listeners run after the caller's turn, as a worker's messages would arrive (the first
    // progress event is sent while the page is still creating the core).
    queueMicrotask(() => {
      before();
      this.dispatchEvent(new CustomEvent(type, { detail }));
    });
  }

  /**
   * One request; resolves with {ok, result} or {ok: false, errors | internal}, like the
   * worker's reply. `document` is a string, a Uint8Array or null. A request the protocol
   * refuses rejects with a ProtocolError, as bridge.js's does.
   */
  request(type, payload, document = null) {
    let message;
    try {
      message = requestMessage(this.nextId, type, payload, document);
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      // One request at a time, in order, as in the worker.
      this.queue = this.queue
        .then(() => this.booted)
        .then(async (engine) => {
          if (!this.pending.has(id)) return null;
          await nextPaint();
          const report = (stage, done, total, params = {}) =>
            this.emit("progress", { type: "progress", id, stage, done, total, params });
          const control = { pause, cancelled: () => this.cancelled.has(id) };
          return answerRequest(engine, message, report, control);
        })
        .catch((error) => ({ ok: false, internal: String(error?.message ?? error) }))
        .then((reply) => {
          const waiting = this.pending.get(id);
          this.cancelled.delete(id);
          if (!waiting || reply === null) return;
          this.pending.delete(id);
          if (reply.cancelled) waiting.reject(new Cancelled());
          else waiting.resolve({ id, ...reply });
        });
    });
  }

  get busy() {
    return this.pending.size > 0;
  }

  /** Stop every pending request at its next step; each rejects with Cancelled (see the note at the top). */
  cancel() {
    this.cancels++; // as bridge.js: counted between two requests of a run too
    for (const id of this.pending.keys()) this.cancelled.add(id);
  }
}
