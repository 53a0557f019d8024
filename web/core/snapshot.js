// Memory snapshots of the booted core: a second visit restores Python with the ragchunk
// modules already imported instead of booting it (bench/bench_browser.py, "worker ready (warm)").
//
// PRIVATE PYODIDE API. `_makeSnapshot`, `makeMemorySnapshot` and `_loadSnapshot` are not
// public in Pyodide 314.0.7 (pyodide.d.ts marks them @private / @ignore) and may change with
// any release; everything that touches them is in this file, and engine.js boots the
// ordinary way whenever anything here fails. Turning SNAPSHOTS off below removes the feature.
//
// What the snapshot holds and what it does not:
// - the WASM heap only: the files of the in-memory file system are not in it, so after a
//   restore the wheel is unpacked again (the modules are imported already; a later, lazy
//   import reads the files) and importlib's caches of the old directories are dropped;
// - no JavaScript object: Pyodide cannot serialise a JS object Python holds, so the
//   snapshot is taken before the encoders reach Python (engine.js hands them over with the
//   first request), and the list of loaded packages is emptied first;
// - a heap for one Pyodide build and one wheel: it is stored under both (snapshotKey), and
//   Pyodide refuses one of another build itself.
//
// The worker takes it right after telling the page it is ready (one copy of the ~30 MB
// heap), and writes it to Cache Storage once it is idle (worker.js).

/** Whether the site's worker uses snapshots at all (tests build a site with this false). */
export const SNAPSHOTS = true;

// Cache Storage, apart from the service worker's caches (sw.js removes every "ragchunk-*"
// cache but its own): a snapshot is this browser's, made here, never downloaded.
const CACHE = "core-snapshot";

/**
 * Where the snapshot for `key` is kept: {open() -> null or {bytes, size} (`bytes` a promise
 * of a Uint8Array of `size` bytes, read while Pyodide compiles), save(bytes), discard()}.
 * Null where Cache Storage is missing (a page from disk, a browser that refuses it).
 */
export function snapshotStore(key) {
  if (!SNAPSHOTS || !globalThis.caches) return null;
  const url = new URL(`snapshot/${key}`, self.location.origin).href;
  return {
    async open() {
      const response = await (await caches.open(CACHE)).match(url);
      const size = Number(response?.headers.get("x-snapshot-bytes"));
      if (!response || !size) return null;
      const bytes = response.arrayBuffer().then((buffer) => {
        // A write cut short leaves fewer bytes than it announced.
        if (buffer.byteLength !== size) throw new Error(`the snapshot has ${buffer.byteLength} of its ${size} bytes`);
        return new Uint8Array(buffer);
      });
      bytes.catch(() => {});
      return { bytes, size };
    },
    async save(bytes) {
      const cache = await caches.open(CACHE);
      // One snapshot at a time: an older build's is of no use.
      for (const request of await cache.keys()) if (request.url !== url) await cache.delete(request);
      await cache.put(url, new Response(bytes, { headers: { "x-snapshot-bytes": String(bytes.length) } }));
    },
    async discard() {
      await caches.delete(CACHE);
    },
  };
}

/** The key of a snapshot: the wheel (its folder is its content hash) and Pyodide's build. */
export function snapshotKey(wheel, runtimeBuild) {
  return `${wheel.split("/").slice(-2, -1)[0]}-${runtimeBuild}`;
}

/** loadPyodide options of a boot whose heap may be snapshotted afterwards. */
export const SNAPSHOT_BOOT = { _makeSnapshot: true };

/**
 * The heap of `pyodide` as a snapshot, once the modules are imported and before any
 * JavaScript object reached Python; null when Pyodide refuses.
 */
export function takeSnapshot(pyodide) {
  for (const name of Object.keys(pyodide.loadedPackages)) delete pyodide.loadedPackages[name];
  try {
    return pyodide.makeMemorySnapshot();
  } catch (error) {
    console.warn(`ragchunk: no boot snapshot (${error?.message ?? error})`);
    return null;
  }
}

/**
 * loadPyodide options that restore `saved` (snapshotStore's open()). `createPyodideModule` is
 * Pyodide's own (pyodide.asm.mjs's default export), wrapped: Pyodide 314 sizes the heap
 * through an INITIAL_MEMORY setting its module never reads, and a snapshot larger than the
 * default heap then fails to copy in (pyodide/pyodide#6254), so the heap is grown first.
 */
export function restoreOptions(saved, createPyodideModule) {
  return {
    _loadSnapshot: saved.bytes,
    createPyodideModule: async (settings) => {
      const module = await createPyodideModule(settings);
      if (module.HEAP8.length < saved.size && !module.growMemory(saved.size)) {
        throw new Error(`the heap cannot grow to ${saved.size} bytes`);
      }
      return module;
    },
  };
}

/**
 * After a restore: the wheel's files unpacked again (`wheel` its bytes) where the booted
 * runtime had installed them, and Python's import caches of the old directories dropped.
 */
export function afterRestore(pyodide, wheel) {
  const [ragchunk, importlib] = [pyodide.pyimport("ragchunk"), pyodide.pyimport("importlib")];
  try {
    // Where the booted runtime had installed it: site-packages, above the package's folder.
    const sitePackages = ragchunk.__file__.split("/").slice(0, -2).join("/");
    pyodide.unpackArchive(wheel, "whl", { extractDir: sitePackages });
    importlib.invalidate_caches();
  } finally {
    ragchunk.destroy();
    importlib.destroy();
  }
}
