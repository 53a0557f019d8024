// The two status lines: the core's (#core-status: booting, ready, failed, restarting) and
// the document panel's (#text-status, with its busy state: #cancel and #drop[data-busy]).
import { fixed, has, msg, show, showText } from "../i18n/i18n.js";
import { $ } from "./dom.js";

/** A stage code of the worker (core/worker.js) as a message of the catalog: stage.<code> with its params. */
export function stageMessage(stage, params = {}) {
  return has(`stage.${stage}`) ? msg(`stage.${stage}`, { name: "", ...params }) : stage;
}

/**
 * Show the worker's boot stages in #core-status; after boot, progress goes to
 * `onTaskProgress(stage, done, total)` (`stage` a message of the catalog). `onReady()` runs
 * each time the core is (again) ready; `stillWorks` is the catalog key of what works without it.
 */
export function bindCoreStatus(core, { onReady = () => {}, onTaskProgress = () => {}, stillWorks = null } = {}) {
  core.addEventListener("progress", ({ detail }) => {
    if (detail.id !== undefined) {
      onTaskProgress(stageMessage(detail.stage, detail.params), detail.done, detail.total, detail);
      return;
    }
    $("core-status").dataset.state = "booting";
    $("core-progress").max = detail.total;
    $("core-progress").value = detail.done;
    show($("core-stage"), "core.stage", { stage: stageMessage(detail.stage, detail.params), done: detail.done,
      total: detail.total });
  });
  core.addEventListener("ready", ({ detail }) => {
    $("core-status").dataset.state = "ready";
    // Restored from an earlier visit's snapshot, or booted (core/snapshot.js).
    $("core-status").dataset.boot = detail.boot ?? "fresh";
    // The worker's own time from its start to ready (bench/bench_browser.py reads it).
    $("core-status").dataset.bootMs = String(detail.bootMs);
    $("core-progress").value = $("core-progress").max;
    show($("core-stage"), "core.ready", { seconds: fixed(detail.bootMs / 1000, 1) });
    onReady();
  });
  core.addEventListener("failed", ({ detail }) => {
    $("core-status").dataset.state = "failed";
    show($("core-stage"), "core.failed", { message: detail.message, still: stillWorks ? msg(stillWorks) : "" });
  });
  core.addEventListener("restarting", () => {
    $("core-status").dataset.state = "booting";
    show($("core-stage"), "core.restarting");
  });
}

/** The document panel's status line; it remembers the last settled text, to put it back. */
export class TextStatus {
  #settled = ["", {}];

  /** Say `key` (with params) in #text-status, busy (Cancel shown) or settled; "" clears it. */
  show(key, params = {}, busy = false) {
    if (!busy) this.#settled = [key, params];
    if (key) show($("text-status"), key, params);
    else showText($("text-status"), "");
    $("cancel").hidden = !busy;
    $("drop").dataset.busy = busy ? "true" : "false";
  }

  /** Put back the text of the last settled request (after a refused document). */
  restore() {
    this.show(...this.#settled);
  }

  /** A task's progress: "Splitting… 42 %" (the stage alone when it has no steps). */
  progress(stage, done = 0, total = 1) {
    if (total > 1) this.show("status.progress_done", { stage, percent: msg("format.percent", { n: Math.floor((done / total) * 100) }) }, true);
    else this.show("status.progress", { stage }, true);
  }
}
