// Driven by bench/bench_browser.py: window.call(type, data) runs one step in the worker.
let worker = null;
window.call = (type, data = {}) =>
  new Promise((resolve) => {
    worker ??= new Worker("bench_worker.js", { type: "module" });
    worker.onmessage = ({ data: reply }) => resolve(reply);
    worker.postMessage({ type, ...data });
  });
window.benchReady = true;
