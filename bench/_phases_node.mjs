// The Node half of bench/bench_unigram.py: ragchunk's XLM-R tokenizer in Pyodide vs the
// npm tiktoken WASM encoder (cl100k_base), both in this one Node process, on one text, run
// by run in turn (bench/unigram_pyodide.py times both).
//   node bench/bench_unigram_node.mjs <pycore dir> <text file> <runs>
// Prints one JSON line. Times are CPU seconds of this process (process.cpuUsage): on a
// shared machine wall time says more about the neighbours.
import { createRequire } from "node:module";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [pycore, textFile, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const text = readFileSync(textFile, "utf8");
const root = new URL("..", import.meta.url).pathname;

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

const { get_encoding } = require(join(root, "node_modules/tiktoken"));
const encoder = get_encoding("cl100k_base");
encoder.encode_ordinary(text); // compiled and warmed up, as a page would have it

const { loadPyodide } = require(join(root, "node_modules/pyodide/pyodide.js"));
const started = cpu();
const pyodide = await loadPyodide();
const boot = cpu() - started;

function copyTree(from, to) {
  pyodide.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      if (name !== "__pycache__") copyTree(path, join(to, name));
    } else if (name.endsWith(".py") || path.includes("/tables/data/xlmr-") || path.includes("/tables/probed/")) {
      pyodide.FS.writeFile(join(to, name), readFileSync(path));
    }
  }
}
copyTree(join(pycore, "ragchunk"), "/home/pyodide/ragchunk");
pyodide.FS.writeFile("/home/pyodide/phases.py", readFileSync("/tmp/pyph/phases.py"));
const result = pyodide.pyimport("phases")
  .run(text, cpu)
  .toJs({ dict_converter: Object.fromEntries });
{ const t=cpu(); encoder.encode_ordinary(text); console.log(JSON.stringify({ wasm: cpu()-t, ...result })); }
encoder.free();
