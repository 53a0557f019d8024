// Start-up of the single offline file (dist/ragchunk-offline.html, written by build.py):
// every asset is inlined in the page, so it works opened from disk with no server and no
// network. This module mounts the chosen tool (?tool=<name> of SPEC.tools; the tools' own
// navigation links switch between them), gives the page an in-page core (inpage.js) whose
// files come from the inlined bytes, and then starts the tool's own module.
//
// How the file is laid out (see buildsteps/offline.py write_offline_file):
//   <script type="importmap">   our ES modules as data: URLs, each named by its path in
//                               dist/ ("core/engine.js"; build.py rewrites their relative
//                               imports to those names)
//   <template id="tool:NAME" data-title="…">   each page's body, rendered as on the site
//   <script type="application/json" id="ragchunk-catalogs">   i18n/*.json by language
//   <script type="application/octet-stream" id="asset:PATH" data-gzip?>   base64 bytes,
//                               gzip-compressed where that pays (data-gzip)
import { InPageCore } from "./inpage.js";
import { SPEC } from "../spec.js";

// Pyodide fetches indexURL + "pyodide.asm.wasm" itself; that request is answered from
// memory. The scheme is not fetchable, so nothing can reach a network by mistake.
const INDEX_URL = "inline:/pyodide/";
const MIME = { wasm: "application/wasm", json: "application/json", zip: "application/zip", mjs: "text/javascript", js: "text/javascript" };

function base64Bytes(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The bytes of an inlined asset, e.g. "pyodide/pyodide.asm.wasm" (decoded on each call). */
export async function assetBytes(path) {
  const element = document.getElementById(`asset:${path}`);
  if (!element) throw new Error(`${path.split("/").pop()} is not included in this offline file`);
  const raw = base64Bytes(element.textContent.trim());
  if (!("gzip" in element.dataset)) return raw;
  const stream = new Blob([raw]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

// The runtime's base64 text (~8 MB) is of no use once Python runs; the encoders' stays
// for the first use of each.
const dropAssets = (paths) => paths.forEach((path) => document.getElementById(`asset:${path}`)?.remove());

async function assetResponse(path) {
  const type = MIME[path.split(".").pop()] ?? "application/octet-stream";
  return new Response(await assetBytes(path), { headers: { "Content-Type": type } });
}

async function assetUrl(path) {
  const type = MIME[path.split(".").pop()] ?? "application/octet-stream";
  return URL.createObjectURL(new Blob([await assetBytes(path)], { type }));
}

/** Answer fetches of URLs under `prefix` from the inlined assets until `restore()`. */
function answerFetches(prefix) {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    return url.startsWith(prefix) ? assetResponse(`pyodide/${url.slice(prefix.length)}`) : original(input, init);
  };
  return () => {
    globalThis.fetch = original;
  };
}

/** The asset loader of engine.js (see siteAssets there), reading the inlined bytes. */
export function inlineAssets() {
  return {
    response: assetResponse,
    async loadPyodide(options) {
      const urls = await Promise.all(["pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs", "pyodide/python_stdlib.zip"].map(assetUrl));
      const [pyodideUrl, asmUrl, stdLibURL] = urls;
      const restore = answerFetches(INDEX_URL);
      try {
        const [{ loadPyodide }, { default: createPyodideModule }, lockFileContents] = await Promise.all([
          import(pyodideUrl),
          import(asmUrl),
          assetBytes("pyodide/pyodide-lock.json").then((bytes) => new TextDecoder().decode(bytes)),
        ]);
        const pyodide = await loadPyodide({ indexURL: INDEX_URL, createPyodideModule, stdLibURL, lockFileContents, ...options });
        dropAssets(["pyodide/pyodide.mjs", "pyodide/pyodide.asm.mjs", "pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json"]);
        return pyodide;
      } finally {
        restore();
        for (const url of urls) URL.revokeObjectURL(url);
      }
    },
    async installWheel(pyodide, path = SPEC.wheel) {
      // loadPackage wants a wheel's file name in a URL; the bytes go in directly instead.
      const wheel = path.replace(/^assets\//, "");
      pyodide.unpackArchive(await assetBytes(wheel), "wheel");
      pyodide.pyimport("importlib").invalidate_caches();
      dropAssets([wheel]);
    },
  };
}

const asked = new URLSearchParams(location.search).get("tool");
const tool = SPEC.tools.find((known) => known.name === asked) ?? SPEC.tools[0];
const template = document.getElementById(`tool:${tool.name}`);
document.title = template.dataset.title;
document.body.prepend(template.content.cloneNode(true));
globalThis.ragchunkCatalogs = JSON.parse(document.getElementById("ragchunk-catalogs").textContent);
let core = null;
globalThis.ragchunkCore = () => (core ??= new InPageCore(inlineAssets()));
// The import map names the tool's module by its path in dist/, as the registry does.
await import(tool.script);
// The tool's module has run: html[data-tool] names the tool shown.
document.documentElement.dataset.tool = tool.name;
