// The page's end of the worker protocol (the other end is worker.js): typed requests that
// resolve with the worker's reply, progress as events, and cancel: the worker stops the
// request at its next step, and only a step that does not end within CANCEL_GRACE_MS (one
// very long piece of Python) makes the page restart the worker (its documents are then gone:
// a "restarting" event says so). Every request is built by requestMessage (messages.js),
// which holds it to the protocol's definition: one it refuses is never sent.
import { requestMessage } from "./messages.js";

// How long a cancel may wait for the worker to reach the end of a step.
export const CANCEL_GRACE_MS = 1500;

export class Cancelled extends Error {
  constructor() {
    super("cancelled");
    this.name = "Cancelled";
  }
}

export class Core extends EventTarget {
  /** @param {URL} workerUrl */
  constructor(workerUrl) {
    super();
    this.workerUrl = workerUrl;
    this.nextId = 1;
    this.pending = new Map();
    this.isReady = false;
    this.graceTimer = 0;
    // Counts cancels: a request made of several (load, then analyze) stops between them when
    // this changed, even if the worker had already answered the first.
    this.cancels = 0;
    this.start();
  }

  start() {
    this.isReady = false;
    // The worker early.js started with the page, once: a restart starts a new one.
    const early = globalThis.ragchunkEarlyWorker;
    delete globalThis.ragchunkEarlyWorker;
    const adopted = early?.url === this.workerUrl.href ? early : null;
    if (early && !adopted) early.worker.terminate();
    const worker = adopted?.worker ?? new Worker(this.workerUrl, { type: "module" });
    this.worker = worker;
    const listen = () => {
      worker.onmessage = (event) => this.receive(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        this.emit("failed", { message: event.message || "the worker could not start" });
      };
    };
    if (!adopted) {
      listen();
      return;
    }
    // What it said before the page listened (early.js keeps collecting it), in order, as a
    // task of its own, as a message from the worker would be: the page binds its listeners
    // to the core first.
    setTimeout(() => {
      if (this.worker !== worker) return; // restarted meanwhile
      listen();
      for (const event of adopted.said) (event.type === "error" ? worker.onerror : worker.onmessage)(event);
      adopted.said.length = 0;
    });
  }

  receive(message) {
    if (message.type === "progress" || message.type === "failed") {
      this.emit(message.type, message);
      return;
    }
    if (message.type === "ready") {
      this.isReady = true;
      this.emit("ready", message);
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (message.cancelled) waiting.reject(new Cancelled());
    else waiting.resolve(message);
    if (!this.pending.size) clearTimeout(this.graceTimer);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * Send one request; resolves with {ok, result} or {ok: false, errors | internal}.
   * `document` is a string (pasted text) or a Uint8Array (a file, transferred). A request
   * the protocol refuses (an unknown kind, a field missing or of the wrong type) rejects
   * with a ProtocolError naming each field, and nothing is sent.
   */
  request(type, payload, document = null) {
    let message;
    try {
      message = requestMessage(this.nextId, type, payload, document);
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId++;
    const transfer = document instanceof Uint8Array ? [document.buffer] : [];
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage(message, transfer);
    });
  }

  get busy() {
    return this.pending.size > 0;
  }

  /**
   * Stop every pending request: each rejects with Cancelled once the worker has stopped it
   * between two steps (its documents stay loaded); a worker still busy after
   * CANCEL_GRACE_MS is restarted instead.
   */
  cancel() {
    // Counted even when nothing waits (between two files of a run), so the run stops there.
    this.cancels++;
    if (!this.pending.size) return;
    for (const id of this.pending.keys()) this.worker.postMessage({ type: "cancel", id });
    clearTimeout(this.graceTimer);
    this.graceTimer = setTimeout(() => this.restart(), CANCEL_GRACE_MS);
  }

  /** Terminate the worker and start a new one: every pending request rejects with Cancelled. */
  restart() {
    clearTimeout(this.graceTimer);
    this.worker.terminate();
    for (const { reject } of this.pending.values()) reject(new Cancelled());
    this.pending.clear();
    this.emit("restarting", {});
    this.start();
  }
}

/**
 * The core for this page: the module worker next to this file. (A build that cannot start
 * workers, such as a page opened from disk, sets `globalThis.ragchunkCore` to a factory of
 * an object with the same interface.)
 */
export function createCore() {
  return globalThis.ragchunkCore ? globalThis.ragchunkCore() : new Core(new URL("worker.js", import.meta.url));
}
