// How every tool's page starts.
import { createCore } from "../core/bridge.js";
import { startI18n } from "../i18n/i18n.js";
import { enableOfflineWhenIdle } from "./offline-status.js";

/**
 * The catalog first (every text after it is said in the page's language), then the core;
 * offline caching starts once the core has loaded and the page is idle, from the HTTP
 * cache the core just filled.
 * Resolves with the core.
 */
export async function startPage() {
  await startI18n();
  const core = createCore();
  enableOfflineWhenIdle(core);
  return core;
}
