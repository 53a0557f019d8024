// The request lifecycle of a tool's document panel, the same for every tool: the newest
// request counts (a newer one, or emptying the box, makes an older reply moot); Cancel and
// Escape stop the core; a document the core refuses leaves the previous one, its results
// and its status line standing; the status line and the field errors follow each step.
import { Cancelled } from "../core/bridge.js";
import { $ } from "./dom.js";
import { bindDocumentInput } from "./document.js";
import { internalError, pageError, showErrors } from "./errors.js";
import { TextStatus } from "./status.js";

// The core's answers that refuse a new document before touching the current one: the page
// keeps the current document's results and says why (api.py Session._load).
const REFUSALS = new Set(["not_text", "file_empty", "file_too_large", "file_too_large_for_page", "paste_too_large"]);

/** Whether a reply refused the document it carried (the previous document still stands). */
export const refusedDocument = (reply) => !reply.ok && (reply.errors ?? []).some((e) => REFUSALS.has(e.code));

/** Count a finished request on #drop[data-analyses] (tests wait on it). */
function countAnalysis() {
  $("drop").dataset.analyses = String(Number($("drop").dataset.analyses ?? 0) + 1);
}

export class DocumentRequests {
  /**
   * `core` is the page's core (core/bridge.js createCore); `slots` the error slots the
   * replies fill; `busy` and `cancelled` the status keys while the core works and after a
   * cancel; `clear()` drops the tool's results; `dropsDocument(reply)` says whether a
   * failed reply leaves no document to show (by default every failure does).
   */
  constructor(core, { slots, busy, cancelled, clear, dropsDocument = () => true }) {
    Object.assign(this, { core, slots, busy, cancelled, clear, dropsDocument });
    this.status = new TextStatus();
    this.hasDocument = false;
    this.seq = 0;
    $("cancel").addEventListener("click", () => core.cancel());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !$("cancel").hidden) core.cancel();
    });
  }

  /** Take documents from the panel's input (ui/document.js): `onDocument(document, name)` sends one. */
  bindInput(onDocument) {
    bindDocumentInput({
      onDocument,
      onEmpty: (hadText) => this.empty(hadText),
      onTooLarge: (error) => showErrors([error], this.slots),
    });
  }

  /** The box was emptied: no document, no results, and a pending reply is moot. */
  empty(hadText) {
    this.hasDocument = false;
    this.seq++;
    this.clear();
    this.status.show("");
    showErrors(hadText ? [pageError("text", "text_empty")] : [], this.slots);
  }

  /**
   * Send one request (`document` null: the core's current document). On success `done(result)`
   * shows it and the send resolves true; a refusal (after `refused()`) or a failure shows its
   * errors and resolves false; a cancelled or superseded request resolves undefined.
   */
  async send(type, payload, document, { done, refused = () => {} }) {
    const seq = ++this.seq;
    this.status.show(this.core.isReady ? this.busy : "status.waiting", {}, true);
    showErrors([], this.slots);
    let reply;
    try {
      reply = await this.core.request(type, payload, document);
    } catch (error) {
      if (error instanceof Cancelled && seq === this.seq) {
        this.status.show(this.cancelled);
        this.hasDocument = false;
        this.clear();
      }
      return undefined;
    }
    if (seq !== this.seq) return undefined;
    countAnalysis();
    if (refusedDocument(reply)) {
      refused();
      this.status.restore();
      showErrors(reply.errors, this.slots);
      return false;
    }
    if (!reply.ok) {
      if (this.dropsDocument(reply)) {
        this.hasDocument = false;
        this.clear();
      }
      this.status.show("");
      showErrors(reply.errors ?? [internalError(reply.internal)], this.slots);
      return false;
    }
    this.hasDocument = true;
    done(reply.result);
    return true;
  }
}
