// The request lifecycle of a tool's document panel, the same for every tool: the newest
// request counts (a newer one, or emptying the box, makes an older reply moot); Cancel and
// Escape stop the core; a document the core refuses leaves the previous one, its results
// and its status line standing; the status line and the field errors follow each step.
import { Cancelled } from "../core/bridge.js";
import { $ } from "./dom.js";
import { bindDocumentInput } from "./document.js";
import { internalError, pageError, showErrors } from "./errors.js";
import { TextStatus } from "./status.js";

// A new document is loaded into the core's workspace first ("load" answers its id); a
// refused one (binary, empty, too large, unreadable) leaves the current document, its
// results and its status line standing (api.py Workspace._load).

/** Count a finished request on #drop[data-analyses] (tests wait on it); a corpus run counts once, at its end. */
export function countAnalysis() {
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
    this.doc = null; // the id of the current document in the core's workspace
    // A new document on its way into the core (its load or first request not answered yet):
    // {seq, document, meta}. A settings change meanwhile sends it again with the new settings,
    // so that it is neither lost nor answered with the settings of before.
    this.pending = null;
    this.onDocument = null; // the tool's sender of a new document (bindInput)
    this.loaded = null; // what "load" said of it: {doc, name, chars, kind, title, pages, notes, note_details}
    // A restarted worker has an empty workspace: the results of its documents go with them
    // (a corpus shown before a cancelled run included; its downloads and pages are gone).
    core.addEventListener("restarting", () => {
      this.doc = null;
      this.hasDocument = false;
      this.clear();
    });
    $("cancel").addEventListener("click", () => core.cancel());
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !$("cancel").hidden) core.cancel();
    });
  }

  /**
   * Take documents from the panel's input (ui/document.js): `onDocument(document, name)`
   * sends one; `onDocuments(files)`, when given, takes several files, a folder or a .zip.
   */
  bindInput(onDocument, onDocuments = null) {
    this.onDocument = onDocument;
    bindDocumentInput({
      onDocument,
      onDocuments,
      onEmpty: (hadText) => this.empty(hadText),
      onTooLarge: (error) => showErrors([error], this.slots),
    });
  }

  /**
   * Send the text the browser put back in the box: back and forward restore a page's text
   * box but not its results. Call it once the tool has read its settings (from the URL).
   */
  restoreText() {
    const text = $("text").value;
    if (text.trim() && this.onDocument) this.onDocument(text, "");
  }

  /** Whether there is a document to answer for: a shown one, or one on its way. */
  get active() {
    return this.hasDocument || this.pending !== null;
  }

  /** The box was emptied: no document, no results, and a pending reply is moot. */
  empty(hadText) {
    this.hasDocument = false;
    this.pending = null;
    this.seq++;
    this.clear();
    this.status.show("");
    showErrors(hadText ? [pageError("text", "text_empty")] : [], this.slots);
  }

  /**
   * Send one request about the current document, or about `document` (a string or a
   * file's bytes) loaded first. On success `done(result, loaded)` shows it and the send
   * resolves true; a refused document (after `refused()`) or a failure shows its errors
   * and resolves false; a cancelled or superseded request resolves undefined. `meta` is
   * kept with a new document until it is answered (what the tool needs to send it again).
   */
  async send(type, payload, document, { done, refused = () => {}, meta = null }) {
    const seq = ++this.seq;
    // A file's bytes are transferred to the worker (and so emptied here): a copy stays to send again.
    if (document !== null) this.pending = { seq, document: document instanceof Uint8Array ? document.slice() : document, meta };
    const settle = () => {
      if (this.pending?.seq === seq) this.pending = null;
    };
    this.status.show(this.core.isReady ? this.busy : "status.waiting", {}, true);
    showErrors([], this.slots);
    let reply;
    let doc = this.doc;
    let loaded = this.loaded;
    const cancels = this.core.cancels;
    try {
      if (document !== null) {
        const answer = await this.core.request("load", { name: payload.name ?? "" }, document);
        if (seq !== this.seq || this.core.cancels !== cancels) {
          if (answer.ok) this.core.request("drop", { doc: answer.result.doc });
          // Cancelled while it loaded (the worker had finished the load): the next step is not sent.
          if (seq === this.seq) throw new Cancelled();
          return undefined;
        }
        if (!answer.ok) {
          settle();
          countAnalysis();
          refused();
          this.status.restore();
          showErrors(answer.errors ?? [internalError(answer.internal)], this.slots);
          return false;
        }
        loaded = answer.result;
        doc = loaded.doc;
      }
      if (doc === null) {
        this.status.show("");
        showErrors([pageError("text", "text_empty")], this.slots);
        return false;
      }
      reply = await this.core.request(type, { ...payload, doc }, null);
    } catch (error) {
      if (error instanceof Cancelled && seq === this.seq) {
        settle();
        this.status.show(this.cancelled);
        this.hasDocument = false;
        this.clear();
      }
      return undefined;
    }
    if (seq !== this.seq) {
      // Superseded after its load: the newer request holds the document it needs.
      if (document !== null && doc !== null && doc !== this.doc) this.core.request("drop", { doc });
      return undefined;
    }
    settle();
    countAnalysis();
    if (document !== null) {
      // The new document stands from now on, whatever this request says of it.
      if (this.doc !== null && this.doc !== doc) this.core.request("drop", { doc: this.doc });
      this.doc = doc;
      this.loaded = loaded;
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
    done(reply.result, this.loaded);
    return true;
  }
}
