// What both tools share: formatting, field errors, the core status line and the document
// input (paste, large paste, drop, file). DOM only; no logic of the core lives here.
import { SPEC } from "./spec.js";

export const $ = (id) => document.getElementById(id);
export const integer = (n) => n.toLocaleString("en-US");
export const percent = (share) => `${(share * 100).toFixed(1)} %`;

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

/** Put each error next to its field (`.error[data-for~=field]`) and mark the input invalid. */
export function showErrors(errors, slots) {
  for (const slot of slots) {
    const wanted = slot.dataset.for.split(" ");
    const error = errors.find((e) => wanted.includes(e.field));
    slot.textContent = error ? error.message : "";
    const input = document.querySelector(`[aria-describedby~="${slot.id}"]`);
    if (input) input.toggleAttribute("aria-invalid", Boolean(error));
  }
}

/**
 * Show the worker's boot stages in #core-status; after boot, progress goes to
 * `onTaskProgress(stage)`. `onReady()` runs each time the core is (again) ready.
 */
export function bindCoreStatus(core, { onReady = () => {}, onTaskProgress = () => {}, stillWorks = "" } = {}) {
  core.addEventListener("progress", ({ detail }) => {
    if (core.isReady) {
      onTaskProgress(detail.stage);
      return;
    }
    $("core-status").dataset.state = "booting";
    $("core-progress").max = detail.total;
    $("core-progress").value = detail.done;
    $("core-stage").textContent = `${detail.stage} (${detail.done}/${detail.total})`;
  });
  core.addEventListener("ready", ({ detail }) => {
    $("core-status").dataset.state = "ready";
    $("core-progress").value = $("core-progress").max;
    $("core-stage").textContent = `Ready: exact tokenizer loaded in ${(detail.bootMs / 1000).toFixed(1)} s, running in your browser.`;
    onReady();
  });
  core.addEventListener("failed", ({ detail }) => {
    $("core-status").dataset.state = "failed";
    $("core-stage").textContent = `The tokenizer could not start: ${detail.message}.${stillWorks} Reload to retry.`;
  });
  core.addEventListener("restarting", () => {
    $("core-status").dataset.state = "booting";
    $("core-stage").textContent = "Restarting the tokenizer…";
  });
}

/**
 * The document input: #text (typing waits for a pause, a paste counts at once, a large
 * paste bypasses the box), #file and drops on #drop. Calls `onDocument(document, name)`
 * with a string or a file's bytes (Uint8Array), or `onEmpty(hadText)` for a blank box.
 */
export function bindDocumentInput({ onDocument, onEmpty, onTooLarge }) {
  const area = $("text");
  const typed = debounce(() => {
    if (!area.value.trim()) onEmpty(Boolean(area.value));
    else onDocument(area.value, "");
  }, TEXT_DEBOUNCE_MS);
  area.addEventListener("input", (event) => (event.inputType?.startsWith("insertFrom") ? typed.now() : typed()));
  area.addEventListener("paste", (event) => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    if (text.length < LARGE_PASTE_CHARS) return;
    event.preventDefault();
    typed.cancel();
    area.value = "";
    onDocument(text, `Pasted text (${integer(text.length)} characters, kept out of the box so the page stays responsive)`);
  });
  const readFile = async (file) => {
    if (file.size > SPEC.limits.document_bytes) {
      onTooLarge(`${file.name} is too large (${integer(file.size)} bytes): the limit is ${integer(SPEC.limits.document_bytes)} bytes; split it first`);
      return;
    }
    typed.cancel();
    area.value = "";
    onDocument(new Uint8Array(await file.arrayBuffer()), file.name);
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

/** Busy state and status line of the document panel (#text-status, #cancel, #drop). */
export function setTextStatus(message, busy = false) {
  $("text-status").textContent = message;
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
    status.replaceChildren("A new version of ragchunk is available. ");
    const button = Object.assign(document.createElement("button"), { type: "button", textContent: "Switch to it" });
    button.addEventListener("click", () => waiting.postMessage({ type: "skip-waiting" }));
    status.append(button);
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
    status.textContent = "Ready to work offline: this site keeps working without a connection.";
    status.dataset.state = "ready";
  }
}

/**
 * Keep settings in the URL so a link reproduces the view (never the text): `fields` maps
 * a query parameter to its control (input, select, or a NodeList of radios). Values in the
 * URL are applied on load; a value equal to the control's default is left out.
 */
export function bindUrlState(fields, form) {
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
  form.addEventListener("input", save);
  form.addEventListener("change", save);
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
      $("copy-status").textContent = "Copied.";
    } catch {
      // Without clipboard permission, select the snippet so Ctrl+C copies it.
      getSelection().selectAllChildren($("python-snippet"));
      $("copy-status").textContent = "Selected: press Ctrl+C (⌘C) to copy.";
    }
  });
}

/**
 * Embed mode (`?embed=calculator` or `?embed=splitter`): only the tool, no site chrome;
 * the frame tells its parent its height — a number, never anything the person typed.
 */
export function applyEmbedMode() {
  const tool = new URLSearchParams(location.search).get("embed");
  if (!tool || window.parent === window) return;
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
