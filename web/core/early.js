// Starts the core's worker as soon as the page's HTML is parsed, before the page's own
// modules and its language catalog have loaded (~0.3 s): booting Python takes seconds, and
// nothing it does waits for the page. bridge.js takes the worker over (createCore), with
// what it said meanwhile. No imports: this module runs as soon as it arrives.
//
// A page that runs the core in some other way (globalThis.ragchunkCore, the offline file)
// or cannot start workers leaves it to bridge.js.
if (!globalThis.ragchunkCore && typeof Worker === "function") {
  try {
    const url = new URL("worker.js", import.meta.url);
    const worker = new Worker(url, { type: "module" });
    const said = [];
    worker.onmessage = (event) => said.push(event);
    worker.onerror = (event) => {
      event.preventDefault();
      said.push(event);
    };
    globalThis.ragchunkEarlyWorker = { url: url.href, worker, said };
  } catch (error) {
    console.warn(`ragchunk: the core's worker starts with the page instead (${error?.message ?? error})`);
  }
}
