// The page's end of the worker protocol (the other end is worker.js): typed requests that
// resolve with the worker's reply, boot progress as events, and cancel by restarting.

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
    this.start();
  }

  start() {
    this.isReady = false;
    this.worker = new Worker(this.workerUrl, { type: "module" });
    this.worker.onmessage = (event) => this.receive(event.data);
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.emit("failed", { message: event.message || "the worker could not start" });
    };
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
    waiting.resolve(message);
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  /**
   * Send one request; resolves with {ok, result} or {ok: false, errors | internal}.
   * `document` is a string (pasted text) or a Uint8Array (a file, transferred).
   */
  request(type, payload, document = null) {
    const id = this.nextId++;
    const transfer = document instanceof Uint8Array ? [document.buffer] : [];
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, type, payload, document }, transfer);
    });
  }

  get busy() {
    return this.pending.size > 0;
  }

  /** Stop whatever the worker is doing: every pending request rejects with Cancelled. */
  cancel() {
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
