// The site offline: the service worker (sw.js) and what the footer says about it.
import { show } from "../i18n/i18n.js";
import { $ } from "./dom.js";

// How long after the core is ready the offline copy may wait for an idle moment at most.
const IDLE_TIMEOUT_MS = 5000;

/**
 * Once the page is idle after `core` is ready, enableOffline(): a first visit fetches what
 * the first exact count needs and nothing else before it; the rest of the offline copy
 * (the other encodings, the open models' tables, the readers' wheels) comes after.
 */
export function enableOfflineWhenIdle(core) {
  const later = globalThis.requestIdleCallback ?? ((run) => setTimeout(run, 0));
  core.addEventListener("ready", () => later(() => enableOffline(), { timeout: IDLE_TIMEOUT_MS }), { once: true });
}

/**
 * Register the service worker and say in #offline-status when the site works offline
 * (while it saves the files, that it does); when a new build is waiting, offer to switch to it.
 */
export async function enableOffline() {
  const status = $("offline-status");
  if (!status || !("serviceWorker" in navigator) || !location.protocol.startsWith("http")) return;
  let registration;
  try {
    registration = await navigator.serviceWorker.register("sw.js");
  } catch {
    registration = null;
  }
  if (!registration) return; // blocked (private mode, browser policy): the site still works online
  const offerUpdate = (waiting) => {
    if (!waiting || !navigator.serviceWorker.controller) return;
    const note = document.createElement("span");
    show(note, "offline.update");
    const button = Object.assign(document.createElement("button"), { type: "button" });
    show(button, "offline.switch");
    button.addEventListener("click", () => waiting.postMessage({ type: "skip-waiting" }));
    status.replaceChildren(note, button);
    status.dataset.state = "update";
  };
  offerUpdate(registration.waiting);
  // A first visit: the service worker is saving the site (sw.js install) until it is active.
  if (!registration.active && !status.dataset.state) {
    show(status, "offline.saving");
    status.dataset.state = "saving";
  }
  registration.addEventListener("updatefound", () => {
    const incoming = registration.installing;
    incoming?.addEventListener("statechange", () => {
      if (incoming.state === "installed") offerUpdate(incoming);
    });
  });
  let reloading = false;
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (status.dataset.state === "update" && !reloading) {
      reloading = true;
      location.reload();
    }
  });
  await navigator.serviceWorker.ready;
  if (status.dataset.state !== "update") {
    show(status, "offline.ready");
    status.dataset.state = "ready";
  }
}
