// Embed mode (`?embed=<tool>`, the frames embed.js makes): only the tool, no site chrome.
import { SPEC } from "../spec.js";

/**
 * The frame tells its parent its height — a number, never anything the person typed. It
 * listens to no message: its settings come from its own URL only.
 */
export function applyEmbedMode() {
  const tool = new URLSearchParams(location.search).get("embed");
  // Only a tool's name goes back to the parent, never another string taken from the URL.
  if (!SPEC.tools.some((known) => known.name === tool) || window.parent === window) return;
  document.documentElement.classList.add("embed");
  let last = 0;
  const report = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      window.parent.postMessage({ type: "ragchunk:height", tool, height }, "*");
    }
  };
  new ResizeObserver(report).observe(document.documentElement);
  report();
}
