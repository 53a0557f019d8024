// Compile Python sources with Pyodide's own Python (the npm package the page runs), for
// buildsteps/wheel.py: node buildsteps/bytecode.mjs <in.json> <out.json>
// in.json: {path: source}; out.json: {magic, pyc: {path: base64 of the .pyc}}.
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [input, output] = process.argv.slice(2);
const root = new URL("..", import.meta.url).pathname;
const { loadPyodide } = require(join(root, "node_modules/pyodide/pyodide.js"));
const pyodide = await loadPyodide();
const namespace = pyodide.globals.get("dict")();
pyodide.runPython(readFileSync(join(root, "buildsteps/pyodide_bytecode.py"), "utf8"), { globals: namespace });
const sources = pyodide.toPy(JSON.parse(readFileSync(input, "utf8")));
const compiled = namespace.get("compile_sources")(sources).toJs({ dict_converter: Object.fromEntries });
const pyc = {};
for (const [path, bytes] of Object.entries(compiled)) pyc[path] = Buffer.from(bytes).toString("base64");
writeFileSync(output, JSON.stringify({ magic: namespace.get("magic")(), pyc }));
