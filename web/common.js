// What both tools share: field errors, the core status line, the document input (paste,
// large paste, drop, file), the offline status and the settings in the URL. DOM only; no
// logic of the core lives here. Every text goes through the catalogs (i18n/i18n.js).
import { SPEC } from "./spec.js";
import { decimalComma, fixed, has, msg, show, showText, t } from "./i18n/i18n.js";

export { integer, formatPercent as percent } from "./i18n/i18n.js";
export const $ = (id) => document.getElementById(id);

// Chromium lays out a textarea holding megabytes for seconds on the main thread; a paste
// larger than this is kept out of the box and processed directly.
export const LARGE_PASTE_CHARS = 200_000;
export const TEXT_DEBOUNCE_MS = 300;

/** `action` after `ms` of quiet; `.now()` runs it at once and drops the pending call. */
export function debounce(action, ms) {
  let timer = 0;
  const run = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => action(...args), ms);
  };
  run.now = (...args) => {
    clearTimeout(timer);
    action(...args);
  };
  run.cancel = () => clearTimeout(timer);
  return run;
}

/** The params of an error ({field, message, code, params}) as its catalog text wants them. */
export function errorParams(error) {
  const params = { label: msg(`field.${error.field}`), ...(error.params ?? {}) };
  if (typeof params.unit === "string") params.unit = msg(`error_unit.${params.unit}`);
  if ("name" in params && !params.name) params.name = msg("file.unnamed");
  if (params.kind && has(`filekind.${params.kind}`)) params.what = msg(`filekind.${params.kind}`);
  return params;
}

/** The catalog key of an error, or null for a code the page does not know (say it in English). */
export const errorKey = (error) => (error.code && has(`error.${error.code}`) ? `error.${error.code}` : null);

/** An error in the page's language (its English message when its code is unknown). */
export function errorMessage(error) {
  const key = errorKey(error);
  return key ? t(key, errorParams(error)) : error.message;
}

/** An error of the page's own (not from the core), in the worker protocol's shape. */
export const pageError = (field, code, params = {}) => ({ field, code, params, message: "" });

export const internalError = (detail) => ({ field: "text", code: "internal", params: { detail }, message: `Internal error: ${detail}` });

/** Put each error next to its field (`.error[data-for~=field]`) and mark the input invalid. */
export function showErrors(errors, slots) {
  for (const slot of slots) {
    const wanted = slot.dataset.for.split(" ");
    const error = errors.find((e) => wanted.includes(e.field));
    const key = error && errorKey(error);
    if (key) show(slot, key, errorParams(error));
    else showText(slot, error ? error.message : "");
    const input = document.querySelector(`[aria-describedby~="${slot.id}"]`);
    // aria-invalid="" means "not invalid" to assistive technology: say "true" or drop it.
    if (input && error) input.setAttribute("aria-invalid", "true");
    else if (input) input.removeAttribute("aria-invalid");
  }
}

/** The notes of a decoded file (`note_details` of the core), one <li> each, in the page's language. */
export function showNotes(list, result) {
  const details = result.note_details ?? result.notes.map((message) => ({ message }));
  list.replaceChildren(...details.map((note) => {
    const item = document.createElement("li");
    if (note.code && has(`note.${note.code}`)) show(item, `note.${note.code}`, errorParams({ field: "file", params: note.params }));
    else showText(item, note.message);
    return item;
  }));
}

// The worker names its stages in English (engine.js, worker.js); the page says them in its language.
const STAGES = [
  [/^Loading the Python runtime$/, "stage.runtime"],
  [/^Installing the ragchunk core$/, "stage.wheel"],
  [/^Loading the (\S+) tokenizer$/, "stage.encoding"],
  [/^Ready$/, "stage.ready"],
  [/^Tokenizing$/, "stage.tokenizing"],
  [/^Splitting$/, "stage.splitting"],
];

/** A stage name of the worker as a message of the catalog (unknown stages stay as they are). */
export function stageMessage(stage) {
  for (const [pattern, key] of STAGES) {
    const match = pattern.exec(stage);
    if (match) return msg(key, { name: match[1] ?? "" });
  }
  return stage;
}

/** The typed numbers of the calculator follow the language: "12,5" is 12.5 in Russian. */
export const numberOptions = () => ({ decimal_comma: decimalComma() });

/**
 * Show the worker's boot stages in #core-status; after boot, progress goes to
 * `onTaskProgress(stage, done, total)` (`stage` a message of the catalog). `onReady()` runs each time the core is (again) ready.
 */
export function bindCoreStatus(core, { onReady = () => {}, onTaskProgress = () => {}, stillWorks = null } = {}) {
  core.addEventListener("progress", ({ detail }) => {
    if (core.isReady) {
      onTaskProgress(stageMessage(detail.stage), detail.done, detail.total);
      return;
    }
    $("core-status").dataset.state = "booting";
    $("core-progress").max = detail.total;
    $("core-progress").value = detail.done;
    show($("core-stage"), "core.stage", { stage: stageMessage(detail.stage), done: detail.done, total: detail.total });
  });
  core.addEventListener("ready", ({ detail }) => {
    $("core-status").dataset.state = "ready";
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

/**
 * The document input: #text (typing waits for a pause, a paste counts at once, a large
 * paste bypasses the box), #file and drops on #drop. Calls `onDocument(document, name)`
 * with a string or a file's bytes (Uint8Array) and the file's name ("" for typed text, a
 * message of the catalog for a large paste), `onEmpty(hadText)` for a blank box, or
 * `onTooLarge(error)` for a file or paste over the page's limit. `onDocument` resolves
 * true when the core took the document.
 */
export function bindDocumentInput({ onDocument, onEmpty, onTooLarge }) {
  const area = $("text");
  const typed = debounce(() => {
    if (!area.value.trim()) onEmpty(Boolean(area.value));
    else onDocument(area.value, "");
  }, TEXT_DEBOUNCE_MS);
  area.addEventListener("input", (event) => (event.inputType?.startsWith("insertFrom") ? typed.now() : typed()));
  const limit = SPEC.limits.document_bytes;
  const english = (n) => n.toLocaleString("en-US");
  area.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (text.length < LARGE_PASTE_CHARS) return;
    event.preventDefault();
    typed.cancel();
    // Same words as the core's check_page_size (api.py); UTF-16 units are never more than UTF-8 bytes.
    if (text.length > limit) {
      onTooLarge({
        ...pageError("text", "paste_too_large", { size: text.length, limit }),
        message: `the pasted text is too large for the page (${english(text.length)} characters): the page handles up to ${english(limit)} bytes; save it as a file and use the command line: python -m ragchunk split FILE`,
      });
      return;
    }
    area.value = "";
    onDocument(text, msg("text.pasted", { chars: text.length }));
  });
  // A file over the limit is refused before it is read; the box keeps its text until the
  // core has accepted the file (`onDocument` resolves true), so a refused file changes nothing.
  const readFile = async (file) => {
    if (file.size > limit) {
      onTooLarge({
        ...pageError("file", "file_too_large_for_page", { name: file.name, size: file.size, limit }),
        message: `${file.name} is too large for the page (${english(file.size)} bytes): the page handles up to ${english(limit)} bytes; use the command line: python -m ragchunk split FILE`,
      });
      return;
    }
    typed.cancel();
    if (await onDocument(new Uint8Array(await file.arrayBuffer()), file.name)) area.value = "";
  };
  $("file").addEventListener("change", () => {
    const file = $("file").files[0];
    if (file) readFile(file);
    $("file").value = "";
  });
  const drop = $("drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("dragging");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("dragging");
    const file = event.dataTransfer?.files?.[0];
    if (file) readFile(file);
  });
}

/** A task's progress in the status line: "Splitting… 42 %" (the stage alone when it has no steps). */
export function showTaskProgress(stage, done = 0, total = 1) {
  if (total > 1) setTextStatus("status.progress_done", { stage, percent: msg("format.percent", { n: Math.floor((done / total) * 100) }) }, true);
  else setTextStatus("status.progress", { stage }, true);
}

// The core's answers that refuse a new document before touching the current one: the page
// keeps the current document's results and says why (api.py Session._load).
const REFUSALS = new Set(["not_text", "file_empty", "file_too_large", "file_too_large_for_page", "paste_too_large"]);

/** Whether a reply refused the document it carried (the previous document still stands). */
export const refusedDocument = (reply) => !reply.ok && (reply.errors ?? []).some((e) => REFUSALS.has(e.code));

let settledStatus = ["", {}];

/** Put back the status line of the last finished request (after a refused document). */
export const restoreTextStatus = () => setTextStatus(...settledStatus);

/** Busy state and status line of the document panel (#text-status, #cancel, #drop); "" clears it. */
export function setTextStatus(key, params = {}, busy = false) {
  if (!busy) settledStatus = [key, params];
  if (key) show($("text-status"), key, params);
  else showText($("text-status"), "");
  $("cancel").hidden = !busy;
  $("drop").dataset.busy = busy ? "true" : "false";
}

/** Count a finished request on #drop[data-analyses] (tests wait on it). */
export function countAnalysis() {
  $("drop").dataset.analyses = String(Number($("drop").dataset.analyses ?? 0) + 1);
}

/**
 * Register the service worker (sw.js) and say in #offline-status when the site works
 * offline; when a new build is waiting, offer to switch to it.
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

/**
 * Keep settings in the URL so a link reproduces the view (never the text): `fields` maps
 * a query parameter to its control (input, select, or a NodeList of radios). Values in the
 * URL are applied on load; a value equal to the control's default is left out. The
 * language switcher (select#lang, `lang`) is always one of them.
 */
export function bindUrlState(fields) {
  const languages = $("lang");
  if (languages) fields = { ...fields, lang: languages };
  const params = new URLSearchParams(location.search);
  const read = (control) => (control instanceof NodeList ? [...control].find((r) => r.checked)?.value ?? "" : control.value);
  const initial = (control) => {
    if (control instanceof NodeList) return [...control].find((r) => r.defaultChecked)?.value ?? "";
    if (control instanceof HTMLSelectElement) return [...control.options].find((o) => o.defaultSelected)?.value ?? control.options[0]?.value;
    return control.defaultValue;
  };
  for (const [name, control] of Object.entries(fields)) {
    if (!params.has(name)) continue;
    const value = params.get(name);
    if (control instanceof NodeList) {
      for (const radio of control) radio.checked = radio.value === value;
    } else if (control instanceof HTMLSelectElement) {
      if (control === languages) continue; // i18n.js chose the language (and ignores an unknown one)
      if ([...control.options].some((o) => o.value === value)) control.value = value;
    } else {
      control.value = value;
    }
  }
  const save = () => {
    const next = new URLSearchParams(location.search);
    for (const [name, control] of Object.entries(fields)) {
      const value = read(control);
      if (value === initial(control)) next.delete(name);
      else next.set(name, value);
    }
    const query = next.toString();
    history.replaceState(null, "", query ? `?${query}` : location.pathname);
  };
  for (const control of Object.values(fields)) {
    for (const element of control instanceof NodeList ? control : [control]) {
      element.addEventListener("input", save);
      element.addEventListener("change", save);
    }
  }
}

/** A Python string literal for any text (JSON strings are valid Python strings). */
export const pyString = (text) => JSON.stringify(text);

/** A shell word, quoted when it needs to be. */
export const shellWord = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`);

/** Fill the "Python and command line" box and wire its copy button. */
export function showSnippets(python, cli) {
  $("python-snippet").textContent = python;
  $("cli-snippet").textContent = cli;
}

export function bindCopyButton() {
  $("copy-python").addEventListener("click", async () => {
    const text = $("python-snippet").textContent;
    try {
      await navigator.clipboard.writeText(text);
      show($("copy-status"), "code.copied");
    } catch {
      // Without clipboard permission, select the snippet so Ctrl+C copies it.
      getSelection().selectAllChildren($("python-snippet"));
      show($("copy-status"), "code.selected");
    }
  });
}

/**
 * Embed mode (`?embed=calculator` or `?embed=splitter`): only the tool, no site chrome;
 * the frame tells its parent its height — a number, never anything the person typed. It
 * listens to no message: its settings come from its own URL only.
 */
const EMBED_TOOLS = ["calculator", "splitter"];

export function applyEmbedMode() {
  const tool = new URLSearchParams(location.search).get("embed");
  // Only a tool's name goes back to the parent, never another string taken from the URL.
  if (!EMBED_TOOLS.includes(tool) || window.parent === window) return;
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
