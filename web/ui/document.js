// The document panel's input: the text box (#text), files (#file, #folder) and drops on #drop.
import { SPEC } from "../spec.js";
import { msg, quantity } from "../i18n/i18n.js";
import { $, debounce } from "./dom.js";
import { pageError } from "./errors.js";
import { fromDrop, fromInput, isArchive, limitFor } from "./files.js";

// Chromium lays out a textarea holding megabytes for seconds on the main thread; a paste
// larger than this is kept out of the box and processed directly.
export const LARGE_PASTE_CHARS = 200_000;
export const TEXT_DEBOUNCE_MS = 300;

/**
 * The code points of `text`, what the core counts (Python's len); a JS string's length
 * counts UTF-16 units, two for each character past U+FFFF: codePoints("a😀") is 2, not 3.
 * One pass over the units: ~10 ms for 10 MB.
 */
export function codePoints(text) {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/**
 * Typing waits for a pause, a paste counts at once, a large paste bypasses the box. Calls
 * `onDocument(document, name)` with a string or a file's bytes (Uint8Array) and the file's
 * name ("" for typed text, a message of the catalog for a large paste), `onEmpty(hadText)`
 * for a blank box, or `onTooLarge(error)` for a file or paste over the page's limit.
 * `onDocument` resolves true when the core took the document. Several files, a folder or
 * a .zip go to `onDocuments(files)` (see ui/files.js) when the tool takes a corpus.
 */
export function bindDocumentInput({ onDocument, onDocuments = null, onEmpty, onTooLarge }) {
  const area = $("text");
  const typed = debounce(() => {
    if (!area.value.trim()) onEmpty(Boolean(area.value));
    else onDocument(area.value, "");
  }, TEXT_DEBOUNCE_MS);
  area.addEventListener("input", (event) => (event.inputType?.startsWith("insertFrom") ? typed.now() : typed()));
  const limit = SPEC.limits.document_bytes;
  area.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (text.length < LARGE_PASTE_CHARS) return;
    event.preventDefault();
    typed.cancel();
    // The core's check_page_size (api.py), before the text is sent: it counts code points.
    const chars = codePoints(text);
    if (chars > limit) {
      onTooLarge(pageError("text", "paste_too_large", { size: chars, limit }));
      return;
    }
    area.value = "";
    onDocument(text, msg("text.pasted", { chars: quantity("chars", chars) }));
  });
  // A file over the limit is refused before it is read; the box keeps its text until the
  // core has accepted the file (`onDocument` resolves true), so a refused file changes nothing.
  const readFile = async (file) => {
    const most = limitFor(file.name);
    if (file.size > most) {
      onTooLarge(pageError("file", "file_too_large_for_page", { name: file.name, size: file.size, limit: most }));
      return;
    }
    typed.cancel();
    if (await onDocument(new Uint8Array(await file.arrayBuffer()), file.name)) area.value = "";
  };
  // One loose file is a document; more, a folder or an archive are a corpus (when the tool takes one).
  const take = (files) => {
    if (!files.length) return;
    if (onDocuments && (files.length > 1 || isArchive(files[0]) || files[0].source !== files[0].name)) {
      typed.cancel();
      onDocuments(files);
    } else {
      readFile({ name: files[0].name, size: files[0].size, arrayBuffer: async () => (await files[0].read()).buffer });
    }
  };
  $("file").addEventListener("change", () => {
    take(fromInput($("file").files));
    $("file").value = "";
  });
  $("folder")?.addEventListener("change", () => {
    take(fromInput($("folder").files));
    $("folder").value = "";
  });
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", async (event) => {
    event.preventDefault();
    drop.classList.remove("dragging");
    if (event.dataTransfer) take(await fromDrop(event.dataTransfer));
  });
}
