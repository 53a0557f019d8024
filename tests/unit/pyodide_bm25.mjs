// ragchunk's BM25 in Pyodide (the npm package the page runs, here under Node), for
// test_evaluate.py's comparison with CPython: the top k and the scores of every question.
//   node tests/unit/pyodide_bm25.mjs <pycore dir> <snowballstemmer dir> <input.json>
// The input is {chunks: [text], questions: [text], k}; prints one JSON line
// {top: [[chunk index]], scores: [[[chunk index, score]]]}, a question's scores by chunk index.
import { createRequire } from "node:module";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [pycore, stemmer, inputFile] = process.argv.slice(2);
const { chunks, questions, k } = JSON.parse(readFileSync(inputFile, "utf8"));
const root = new URL("../..", import.meta.url).pathname;

const { loadPyodide } = require(join(root, "node_modules/pyodide/pyodide.js"));
const pyodide = await loadPyodide();

function copyTree(from, to) {
  pyodide.FS.mkdirTree(to);
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      if (name !== "__pycache__" && name !== "data") copyTree(path, join(to, name));
    } else if (name.endsWith(".py") || name.endsWith(".json")) {
      pyodide.FS.writeFile(join(to, name), readFileSync(path));
    }
  }
}
copyTree(join(pycore, "ragchunk"), "/home/pyodide/ragchunk");
copyTree(stemmer, "/home/pyodide/snowballstemmer");

const { BM25 } = pyodide.pyimport("ragchunk.evaluate.bm25");
const index = BM25(chunks);
const top = [];
const scores = [];
for (const question of questions) {
  top.push(index.top(question, k).toJs());
  scores.push(index.scores(question).toJs({ dict_converter: Array.from }).sort((a, b) => a[0] - b[0]));
}
console.log(JSON.stringify({ top, scores }));
