// The Pyodide half of bench/bench_wordpiece.py (run it through that script):
// node bench/bench_wordpiece_node.cjs <checkout> <text file> <runs>
// Installs pycore/ragchunk (with the BERT tables) into Pyodide's file system, times
// bench_wordpiece.measure() there, and times the npm tiktoken WASM encoder (its Node
// build) on the same text in this process. Prints one JSON line.
"use strict";
const fs = require("fs");
const path = require("path");

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function install(pyodide, root) {
  const core = path.join(root, "pycore");
  const wanted = (file) => file.endsWith(".py") || file.includes(`${path.sep}tables${path.sep}probed${path.sep}`)
    || file.endsWith(`${path.sep}bert-uncased-vocab.txt`);
  const walk = (dir) => fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__pycache__" ? [] : walk(full);
    return wanted(full) ? [full] : [];
  });
  for (const file of walk(path.join(core, "ragchunk"))) {
    const target = "/home/pyodide/" + path.relative(core, file).split(path.sep).join("/");
    pyodide.FS.mkdirTree(path.posix.dirname(target));
    pyodide.FS.writeFile(target, fs.readFileSync(file));
  }
  pyodide.FS.writeFile("/home/pyodide/bench_wordpiece.py", fs.readFileSync(path.join(root, "bench", "bench_wordpiece.py")));
}

async function main() {
  const [root, textFile, runsArg] = process.argv.slice(2);
  const runs = Number(runsArg || 5);
  const text = fs.readFileSync(textFile, "utf8");

  const { get_encoding } = require(path.join(root, "node_modules", "tiktoken"));
  const encoder = get_encoding("cl100k_base");
  encoder.encode_ordinary(text);
  const wasm = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    encoder.encode_ordinary(text);
    wasm.push((performance.now() - started) / 1000);
  }

  const { loadPyodide } = require(path.join(root, "node_modules", "pyodide", "pyodide.js"));
  let started = performance.now();
  const pyodide = await loadPyodide();
  const boot = (performance.now() - started) / 1000;
  started = performance.now();
  install(pyodide, root);
  const installSeconds = (performance.now() - started) / 1000;
  pyodide.FS.writeFile("/home/pyodide/text.txt", fs.readFileSync(textFile));
  const result = pyodide.runPython(`
import json, sys
sys.path.insert(0, "/home/pyodide")
import bench_wordpiece
json.dumps(bench_wordpiece.measure(open("/home/pyodide/text.txt", encoding="utf-8").read(), ${runs}))
`);
  const version = pyodide.runPython("import sys; sys.version.split()[0]");
  console.log(JSON.stringify({
    python: JSON.parse(result), tiktoken_seconds: median(wasm), boot_seconds: boot, install_seconds: installSeconds,
    pyodide: pyodide.version, python_version: version, node: process.version,
  }));
  encoder.free();
}

main().catch((error) => { console.error(error); process.exit(1); });
