// The service worker: after one visit the whole site works offline. build.py writes the
// build hash and the asset list below, so every build gets a cache of its own; the old
// ones are removed when the new worker takes over. Only same-origin GETs are handled.
const BUILD = "{{build.hash}}";
const CACHE = `ragchunk-${BUILD}`;
const PRECACHE = {{build.precache}};

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
});

async function respond(request) {
  const cache = await caches.open(CACHE);
  // A page opened with settings in its query (?embed=…, shared links) is the same file.
  const cached = await cache.match(request, { ignoreSearch: request.mode === "navigate" });
  if (cached) return cached;
  return fetch(request);
}

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith(respond(request));
});
