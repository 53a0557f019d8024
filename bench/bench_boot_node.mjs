// Where the worker's cold boot goes, under Node's Pyodide (the npm package the site ships):
// a bare loadPyodide, then loadPackage(the site's wheel), then importing the front doors the
// worker imports (ragchunk.api, ragchunk.api.browser). Each run is a new Node process (no
// compiled code or module kept), and with two wheels (A and B, e.g. before and after a
// change) the runs alternate, so a change in the machine's load touches both alike.
//
//   node bench/bench_boot_node.mjs [--runs 7] WHEEL_A [WHEEL_B]
//
// Prints per wheel the median of each stage in ms, the import's share of the boot, and
// with two wheels B's import and whole boot as ratios of A's (median of the per-round ratios).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

async function child(wheel) {
  const { loadPyodide } = await import(pathToFileURL(join(root, "node_modules/pyodide/pyodide.mjs")).href);
  const t0 = performance.now();
  const pyodide = await loadPyodide();
  const t1 = performance.now();
  await pyodide.loadPackage(pathToFileURL(wheel).href, { messageCallback: () => {} });
  const t2 = performance.now();
  pyodide.pyimport("ragchunk.api");
  pyodide.pyimport("ragchunk.api.browser");
  const t3 = performance.now();
  const modules = pyodide.runPython("import sys; len(sys.modules)");
  process.stdout.write(JSON.stringify({ load: t1 - t0, install: t2 - t1, import: t3 - t2, modules }));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main(args) {
  let runs = 7;
  const wheels = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--runs") runs = Number(args[++i]);
    else wheels.push(args[i]);
  }
  if (!wheels.length || wheels.length > 2) throw new Error("usage: bench_boot_node.mjs [--runs N] WHEEL_A [WHEEL_B]");
  const seen = wheels.map(() => []);
  for (let run = 0; run < runs; run++) {
    // A, B in turn; the order flips every round.
    const order = run % 2 ? [...wheels.keys()].reverse() : [...wheels.keys()];
    for (const which of order) {
      const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), "--child", wheels[which]], { encoding: "utf8" });
      seen[which].push(JSON.parse(out));
    }
  }
  wheels.forEach((wheel, which) => {
    const rows = seen[which];
    const stage = (key) => median(rows.map((r) => r[key]));
    const boot = median(rows.map((r) => r.load + r.install + r.import));
    console.log(`${which ? "B" : "A"} ${wheel}`);
    console.log(`  loadPyodide ${stage("load").toFixed(0)} ms, wheel ${stage("install").toFixed(0)} ms,` +
      ` import ${stage("import").toFixed(0)} ms (${rows[0].modules} modules); boot ${boot.toFixed(0)} ms =` +
      ` ${(boot / stage("load")).toFixed(2)} x the bare loadPyodide`);
  });
  if (wheels.length === 2) {
    const ratio = (key) => median(seen[1].map((b, i) => key(b) / key(seen[0][i])));
    console.log(`B / A: import ${ratio((r) => r.import).toFixed(2)} x, whole boot ${ratio((r) => r.load + r.install + r.import).toFixed(2)} x` +
      ` (median of ${runs} paired rounds)`);
  }
}

if (process.argv[2] === "--child") await child(process.argv[3]);
else await main(process.argv.slice(2));
