// Runs bench/bench_pdf.py's pyodide_main in Pyodide under Node (no browser):
//   node bench/harness/pdf_node.js WHEEL REPO_ROOT REQUEST_JSON
// The request names the PDFs to read; the reply (one JSON line on stdout) is what
// pyodide_main returns: per file the read times, the output's hash and sizes.
"use strict";
const fs = require("fs");
const path = require("path");

function copyPython(pyodide, source, target) {
  pyodide.FS.mkdirTree(target);
  for (const name of fs.readdirSync(source)) {
    const from = path.join(source, name);
    if (fs.statSync(from).isDirectory()) {
      if (name !== "__pycache__" && name !== "data") copyPython(pyodide, from, `${target}/${name}`);
    } else if (name.endsWith(".py")) {
      pyodide.FS.writeFile(`${target}/${name}`, fs.readFileSync(from));
    }
  }
}

async function main() {
  const [wheel, root, requestPath] = process.argv.slice(2);
  const { loadPyodide } = require(path.join(root, "node_modules", "pyodide", "pyodide.js"));
  const started = performance.now();
  const pyodide = await loadPyodide();
  const booted = performance.now();
  await pyodide.loadPackage(wheel, { messageCallback: () => {} });
  const loaded = performance.now();
  copyPython(pyodide, path.join(root, "pycore", "ragchunk"), "/home/pyodide/ragchunk");
  pyodide.FS.writeFile("/home/pyodide/bench_pdf.py", fs.readFileSync(path.join(root, "bench", "bench_pdf.py")));
  const request = JSON.parse(fs.readFileSync(requestPath, "utf8"));
  for (const file of request.files) {
    pyodide.FS.writeFile(`/tmp/${path.basename(file.path)}`, fs.readFileSync(file.path));
    file.path = `/tmp/${path.basename(file.path)}`;
  }
  pyodide.globals.set("request_json", JSON.stringify(request));
  const reply = JSON.parse(pyodide.runPython("import bench_pdf\nbench_pdf.pyodide_main(request_json)"));
  reply.boot_ms = booted - started;
  reply.wheel_ms = loaded - booted;
  process.stdout.write(JSON.stringify(reply) + "\n");
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + "\n");
  process.exit(1);
});
