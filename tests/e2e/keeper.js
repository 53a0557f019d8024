// One booted core for many browser tests (tests/e2e/conftest.py, the `page` fixture).
//
// Booting Pyodide and the wheel takes seconds; most tests set inputs and read what the page
// shows, and need a fresh page, not a fresh Python. So the tests' shared browser context
// keeps one tab, the keeper, that owns the site's real module worker (core/worker.js); each
// test opens a new tab of a tool, whose `new Worker(".../core/worker.js")` is answered by a
// relay that speaks to the keeper's worker over a BroadcastChannel. The page's code is the
// code the site ships, untouched: only the worker's transport is one hop longer.
//
// Between two tests the keeper resets the worker's state: the documents the last tab loaded
// are dropped from the workspace; if one of its requests was still running, the worker is
// terminated and a new one booted. A tab that restarts its core (Core.restart) terminates
// the keeper's worker as it would its own. Loaded encodings, tables and readers stay, which is
// why tests about what the first use of one fetches take a fresh context (`fresh_page`).
//
// Every message the keeper carries, both ways, is held to the worker protocol's definition
// (the site's core/messages.js, which reads pycore/ragchunk/api/protocol.json): one against it
// is a console error of the keeper tab, which fails the running test. So the whole browser
// suite checks the protocol: each request a page sends, each reply its result, each progress.
//
// Two functions, called by conftest.py with the channel's name: `relay` in every tab of the
// shared context (an init script, before the page's own scripts), `keeper` once, in the keeper tab.

/** Installed in every tab: `new Worker(url)` of the core's worker becomes a relay to the keeper.
 * `Worker` stays a constructor that tests may subclass (`class extends Worker`, to hold or count
 * messages): a relay is built with the subclass's prototype, whose `super.postMessage` lands here. */
function relay(channelName) {
  const Original = globalThis.Worker;
  if (!Original || !globalThis.BroadcastChannel) return;
  globalThis.ragchunkOriginalWorker = Original;
  const relays = new WeakMap(); // relay -> {id, channel}

  function Worker(url, options) {
    if (!new.target) throw new TypeError("Failed to construct 'Worker': Please use the 'new' operator");
    if (!new URL(url, location.href).pathname.endsWith("/core/worker.js")) {
      return Reflect.construct(Original, [url, options], new.target);
    }
    // A Worker to the page: onmessage / onerror and their events, postMessage, terminate.
    const self = Reflect.construct(EventTarget, [], new.target);
    // Own fields: the Worker prototype's accessors only work on real workers.
    Object.defineProperty(self, "onmessage", { value: null, writable: true });
    Object.defineProperty(self, "onerror", { value: null, writable: true });
    const link = { id: crypto.randomUUID(), channel: new BroadcastChannel(channelName) };
    relays.set(self, link);
    link.channel.onmessage = ({ data }) => {
      if (data.to !== link.id) return;
      const event = "error" in data
        ? new ErrorEvent("error", { message: data.error, cancelable: true })
        : new MessageEvent("message", { data: data.message });
      (event.type === "error" ? self.onerror : self.onmessage)?.call(self, event);
      self.dispatchEvent(event);
    };
    link.channel.postMessage({ from: link.id, attach: String(url) });
    return self;
  }

  Worker.prototype = Object.create(Original.prototype, {
    constructor: { value: Worker, writable: true, configurable: true },
    // Structured clone copies what a worker would have been given by transfer.
    postMessage: {
      value(message, transfer) {
        const link = relays.get(this);
        if (!link) return Original.prototype.postMessage.call(this, message, transfer);
        link.channel?.postMessage({ from: link.id, message });
      },
      writable: true,
      configurable: true,
    },
    terminate: {
      value() {
        const link = relays.get(this);
        if (!link) return Original.prototype.terminate.call(this);
        link.channel?.postMessage({ from: link.id, terminate: true });
        link.channel?.close();
        link.channel = null;
      },
      writable: true,
      configurable: true,
    },
  });
  globalThis.Worker = Worker;
}

/** Run once in the keeper tab: owns the worker, serves one tab at a time, checks every message. */
async function keeper(channelName) {
  const { messageProblems } = await import(new URL("core/messages.js", location.href).href);
  const channel = new BroadcastChannel(channelName);
  const OwnWorker = globalThis.ragchunkOriginalWorker ?? globalThis.Worker;
  const state = {
    worker: null,
    url: null,
    boot: [], // the boot's messages (progress without an id, then ready or failed), replayed to each tab
    client: null,
    pending: new Map(), // request id -> type, of the current tab
    docs: new Set(), // documents the current tab loaded into the workspace
    boots: 0,
    resets: 0,
    checked: 0, // messages held to the protocol
  };
  globalThis.keeperState = state;

  const send = (to, payload) => channel.postMessage({ to, ...payload });
  // `kind`: the request a reply answers, whose result it must be.
  const check = (direction, message, kind = null) => {
    const problems = messageProblems(direction, message, kind);
    state.checked++;
    if (problems.length) {
      console.error(`worker protocol, ${direction.replace("_", " ")} (${kind ?? message?.type}): ${problems.join("; ")}`);
    }
  };

  function start(url) {
    state.worker = new OwnWorker(url, { type: "module" });
    state.url = url;
    state.boot = [];
    state.boots++;
    state.worker.onmessage = ({ data }) => receive(data);
    state.worker.onerror = (event) => {
      event.preventDefault();
      state.boot.push({ error: event.message || "the worker could not start" });
      if (state.client) send(state.client, { error: event.message || "the worker could not start" });
    };
  }

  function stop() {
    state.worker?.terminate();
    state.worker = null;
    state.pending.clear();
    state.docs.clear();
  }

  // The tests of the harness ask the worker directly: probe({type, payload, id?}) -> its reply.
  // A probe may break the protocol on purpose (to see the worker refuse it): only its reply is checked.
  const probes = new Map();
  globalThis.keeperProbe = (request) =>
    new Promise((resolve) => {
      const id = request.id ?? `probe-${probes.size + 1}-${Date.now()}`;
      probes.set(id, { resolve, kind: request.type });
      state.worker.postMessage({ id, ...request });
    });

  function receive(message) {
    check("from_worker", message, probes.get(message?.id)?.kind ?? state.pending.get(message?.id) ?? null);
    if (probes.has(message.id) && message.type !== "progress") {
      probes.get(message.id).resolve(message);
      probes.delete(message.id);
      return;
    }
    const boot = message.type === "ready" || message.type === "failed" || (message.type === "progress" && message.id === undefined);
    if (boot) state.boot.push({ message });
    if (message.id !== undefined && message.type !== "progress") {
      const type = state.pending.get(message.id);
      state.pending.delete(message.id);
      if (type === "load" && message.ok && message.result?.doc) state.docs.add(message.result.doc);
      if (type === undefined) return; // an answer for a tab that is gone
    }
    if (state.client) send(state.client, { message });
  }

  // A new tab: the last one's documents leave the workspace; a request of it still running
  // means a worker in an unknown state, so a new one is booted.
  function attach(client, url) {
    if (state.client !== null && state.client !== client) {
      state.resets++;
      if (state.pending.size) stop();
      for (const doc of state.docs) state.worker.postMessage({ id: `keeper-${doc}`, type: "drop", payload: { doc } });
      state.docs.clear();
    }
    state.client = client;
    const failed = state.boot.some((entry) => "error" in entry || entry.message?.type === "failed");
    if (!state.worker || state.url !== url || failed) {
      stop();
      start(url);
      return;
    }
    for (const entry of state.boot) send(client, entry);
  }

  channel.onmessage = ({ data }) => {
    if (data.attach) {
      attach(data.from, data.attach);
      return;
    }
    if (data.from !== state.client) return; // a tab that has been replaced
    if (data.terminate) {
      stop();
      state.client = null;
      return;
    }
    const message = data.message;
    check("to_worker", message);
    if (message.type !== "cancel" && message.id !== undefined) {
      state.pending.set(message.id, message.type);
      if (message.type === "drop") state.docs.delete(message.payload?.doc);
    }
    state.worker.postMessage(message);
  };
}
