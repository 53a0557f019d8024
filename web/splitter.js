// The text splitter page: DOM only. The document and the settings go to the worker, which
// splits with the Python core; thousands of chunks scroll smoothly because only the cards
// in view are in the DOM.
import { SPEC } from "./spec.js";
import { Cancelled, createCore } from "./bridge.js";
import {
  $, applyEmbedMode, bindCopyButton, bindCoreStatus, bindDocumentInput, bindUrlState, countAnalysis, debounce, enableOffline, integer, pyString,
  setTextStatus, shellWord, showErrors, showSnippets, TEXT_DEBOUNCE_MS,
} from "./common.js";

// Cards have a fixed height (style.css .chunk-card) so the list can place them by index.
const CARD_HEIGHT = 208;
const OVERSCAN = 4;

const core = createCore();
const slots = [...document.querySelectorAll(".error[data-for]")];
let seq = 0;
let hasDocument = false;
let documentName = "";
let chunks = [];
let exported = null;

function settings() {
  const sizer = $("sizer").value;
  return {
    by: $("by").value,
    chunk_size: $("chunk_size").value,
    overlap: $("overlap").value,
    ...(sizer === "estimate" ? { chars_per_token: $("chars_per_token").value } : { encoding: sizer }),
  };
}

function clearResults() {
  chunks = [];
  exported = null;
  $("split-results").hidden = true;
  $("text-notes").replaceChildren();
  renderVisible();
}

function renderStats(result) {
  const s = result.stats;
  $("s-chunks").textContent = integer(s.chunks);
  $("s-range").textContent = s.chunks ? `${integer(s.min_tokens)} / ${integer(s.median_tokens)} / ${integer(s.max_tokens)}` : "—";
  $("s-mean").textContent = s.chunks ? s.mean_tokens.toFixed(1) : "—";
  $("s-total").textContent = integer(s.total_tokens);
  $("s-overlap").textContent = `${integer(s.overlap_tokens)} (${s.overlap_percent.toFixed(1)} % of the total)`;
  const exact = result.tokenizer.startsWith("chars/")
    ? `Sizes are estimates at ${result.tokenizer.slice(6)} characters per token.`
    : `Sizes are exact ${result.tokenizer} token counts of each chunk's final text.`;
  $("s-tokenizer").textContent = `${exact} Target ${integer(result.size)} tokens, overlap up to ${integer(result.overlap)}, cut at ${result.by}.`;
  const most = Math.max(1, ...s.histogram.map((b) => b.count));
  $("histogram").replaceChildren(
    ...s.histogram.map((b) => {
      const item = document.createElement("li");
      const label = document.createElement("span");
      label.className = "bin-label";
      label.textContent = b.low === b.high ? `${integer(b.low)}` : `${integer(b.low)}–${integer(b.high)}`;
      const bar = document.createElement("span");
      bar.className = "bin-bar";
      bar.style.width = `${(b.count / most) * 100}%`;
      const count = document.createElement("span");
      count.className = "bin-count";
      count.textContent = `${integer(b.count)} ${b.count === 1 ? "chunk" : "chunks"}`;
      item.append(label, bar, count);
      return item;
    }),
  );
}

function chunkCard(chunk) {
  const card = document.createElement("article");
  card.className = "chunk-card";
  card.setAttribute("role", "listitem");
  card.setAttribute("aria-setsize", String(chunks.length));
  card.setAttribute("aria-posinset", String(chunk.id + 1));
  card.style.top = `${chunk.id * CARD_HEIGHT}px`;
  card.dataset.id = String(chunk.id);
  const meta = document.createElement("p");
  meta.className = "meta";
  const where = chunk.heading_path.length ? ` · ${chunk.heading_path.join(" › ")}` : "";
  const overlap = chunk.overlap_tokens ? ` · overlap ${integer(chunk.overlap_tokens)}` : "";
  meta.textContent = `#${integer(chunk.id + 1)} · ${integer(chunk.tokens)} tokens${overlap}${where}`;
  const body = document.createElement("pre");
  body.className = "window-text";
  const head = chunk.content_start - chunk.start;
  if (head > 0) {
    const mark = document.createElement("mark");
    mark.className = "overlap";
    mark.title = "Carried from the previous chunk";
    mark.textContent = chunk.overlap_text;
    body.append(mark);
  }
  body.append(document.createTextNode(chunk.new_text));
  card.append(meta, body);
  return card;
}

function renderVisible() {
  const list = $("chunk-list");
  const spacer = $("chunk-spacer");
  spacer.style.height = `${chunks.length * CARD_HEIGHT}px`;
  const first = Math.max(0, Math.floor(list.scrollTop / CARD_HEIGHT) - OVERSCAN);
  const last = Math.min(chunks.length, Math.ceil((list.scrollTop + list.clientHeight) / CARD_HEIGHT) + OVERSCAN);
  const cards = [];
  for (let i = first; i < last; i++) cards.push(chunkCard(chunks[i]));
  list.replaceChildren(spacer, ...cards);
}

let frame = 0;
$("chunk-list").addEventListener("scroll", () => {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(renderVisible);
});

async function runSplit(document, name = null) {
  const mine = ++seq;
  if (name !== null) documentName = name;
  setTextStatus(core.isReady ? "Splitting…" : "Waiting for the tokenizer to load…", true);
  showErrors([], slots);
  let reply;
  try {
    reply = await core.request("split", { ...settings(), name: documentName || "the file" }, document);
  } catch (error) {
    if (error instanceof Cancelled && mine === seq) {
      setTextStatus("Cancelled. The splitter is restarting; drop or paste the document again when it is ready.");
      hasDocument = false;
      clearResults();
    }
    return;
  }
  if (mine !== seq) return;
  countAnalysis();
  if (!reply.ok) {
    if ((reply.errors ?? []).some((e) => ["text", "file"].includes(e.field))) {
      hasDocument = false;
      clearResults();
    }
    setTextStatus("");
    showErrors(reply.errors ?? [{ field: "text", message: `Internal error: ${reply.internal}` }], slots);
    return;
  }
  hasDocument = true;
  exported = null;
  const result = reply.result;
  chunks = result.chunks;
  $("text-notes").replaceChildren(...result.notes.map((note) => Object.assign(window.document.createElement("li"), { textContent: note })));
  const label = documentName ? `${documentName}: ` : "";
  setTextStatus(`${label}${integer(result.stats.chunks)} chunks from ${integer(result.chars)} characters.`);
  renderStats(result);
  splitSnippets(result);
  $("split-results").hidden = false;
  $("chunk-list").scrollTop = 0;
  renderVisible();
}

function fileStem() {
  return (documentName && !documentName.startsWith("Pasted text") ? documentName : "document.md").replace(/\.[^.]*$/, "");
}

function splitSnippets(result) {
  const source = documentName && !documentName.startsWith("Pasted text") ? documentName : "document.md";
  const estimate = result.tokenizer.startsWith("chars/");
  const sizer = estimate ? `ragchunk.CharEstimate(${result.tokenizer.slice(6)})` : pyString(result.tokenizer);
  showSnippets(
    [
      "from pathlib import Path",
      "",
      "import ragchunk",
      "from ragchunk.export import to_jsonl",
      "",
      `text = Path(${pyString(source)}).read_text(encoding="utf-8")`,
      `result = ragchunk.split(text, by=${pyString(result.by)}, size=${result.size}, overlap=${result.overlap}, tokenizer=${sizer})`,
      "print(len(result.chunks), result.stats.total_tokens, result.stats.overlap_tokens)",
      `Path(${pyString(fileStem() + ".chunks.jsonl")}).write_text(to_jsonl(result), encoding="utf-8")`,
      "",
    ].join("\n"),
    `python -m ragchunk split ${shellWord(source)} --by ${result.by} --size ${result.size} --overlap ${result.overlap} ` +
      `${estimate ? `--chars-per-token ${result.tokenizer.slice(6)}` : `--encoding ${result.tokenizer}`} -o ${shellWord(fileStem() + ".chunks.jsonl")} --stats`,
  );
}

async function download() {
  if (!hasDocument) return;
  exported ??= core.request("export", {});
  const reply = await exported;
  if (!reply.ok) {
    showErrors(reply.errors ?? [{ field: "text", message: `Internal error: ${reply.internal}` }], slots);
    exported = null;
    return;
  }
  const blob = new Blob([reply.result.jsonl], { type: "application/x-ndjson" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `${fileStem()}.chunks.jsonl`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

const onSettings = debounce(() => {
  $("ratio-field").hidden = $("sizer").value !== "estimate";
  if (hasDocument) runSplit(null);
}, TEXT_DEBOUNCE_MS);

// Offline caching starts once the core has loaded, from the HTTP cache it just filled.
core.addEventListener("ready", () => enableOffline(), { once: true });
bindCoreStatus(core, { onTaskProgress: (stage) => setTextStatus(`${stage}…`, true) });
bindDocumentInput({
  onDocument: (document, name) => runSplit(document, name),
  onEmpty: (hadText) => {
    hasDocument = false;
    seq++;
    clearResults();
    setTextStatus("");
    showErrors(hadText ? [{ field: "text", message: "text is empty: paste some text or drop a file" }] : [], slots);
  },
  onTooLarge: (message) => showErrors([{ field: "file", message }], slots),
});
$("settings").addEventListener("input", onSettings);
$("settings").addEventListener("change", onSettings);
$("settings").addEventListener("submit", (event) => event.preventDefault());
bindUrlState(
  { by: $("by"), size: $("chunk_size"), overlap: $("overlap"), sizer: $("sizer"), cpt: $("chars_per_token") },
  $("settings"),
);
bindCopyButton();
$("download").addEventListener("click", download);
$("cancel").addEventListener("click", () => core.cancel());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("cancel").hidden) core.cancel();
});
$("ratio-field").hidden = $("sizer").value !== "estimate";
applyEmbedMode();
