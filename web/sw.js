// The service worker: after one visit the whole site works offline. build.py writes the
// build hash and the asset list below, so every build gets a cache of its own; the old
// ones are removed when the new worker takes over. Only same-origin GETs are handled.
const BUILD = "{{build.hash}}";
const CACHE = `ragchunk-${BUILD}`;
const PRECACHE = {{build.precache}};
// The evaluation's model and runtime (tens of MB) are not precached: the page fetches them
// the first time a person chooses the model, and they are kept in this build's cache then.
const ON_DEMAND = {{build.on_demand}};
// The evaluation page is cross-origin isolated when this worker serves it (so onnxruntime-web
// may use every core): COOP and COEP on its page, COEP on the scripts its workers start from.
const ISOLATED_PAGES = ["evaluate.html"];

// The page registers this worker once its own assets are loaded, so these requests are
// answered by the HTTP cache (a 304 at most) instead of downloading everything twice.
self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("ragchunk-") && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("message", (event) => {
  if (event.data?.type === "skip-waiting") self.skipWaiting();
  if (event.data?.type === "build") event.source?.postMessage({ type: "build", build: BUILD });
  // The evaluation page ran the model (fetched by its worker, which this worker may not
  // control yet): keep those files too, so the model works offline afterwards.
  if (event.data?.type === "keep") {
    const paths = (event.data.paths ?? []).filter((path) => ON_DEMAND.some((folder) => path.startsWith(folder)));
    event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(paths))
      .then(() => event.source?.postMessage({ type: "kept", paths }), () => event.source?.postMessage({ type: "kept", paths: [] })));
  }
});

async function respond(request) {
  const cache = await caches.open(CACHE);
  // A page opened with settings in its query (?embed=…, shared links) is the same file.
  const cached = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
  if (cached) return cached;
  const response = await fetch(request);
  const path = new URL(request.url).pathname.slice(new URL(self.registration.scope).pathname.length);
  if (response.ok && ON_DEMAND.some((folder) => path.startsWith(folder))) await cache.put(request, response.clone());
  return response;
}

// --- cross-origin isolation of the evaluation page (see ISOLATED_PAGES)
function isolated(request, response) {
  const path = new URL(request.url).pathname.split("/").pop();
  const page = request.mode === "navigate" && ISOLATED_PAGES.includes(path);
  if (!page && request.destination !== "worker" && request.destination !== "script") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  if (page) headers.set("Cross-Origin-Opener-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(respond(request).then((response) => isolated(request, response)));
});
