// The text splitter: DOM only. Documents and settings go to the worker, which splits them
// with the Python core. One document (pasted, or one file) or a corpus (several files, a
// folder, a .zip): files are read and sent one at a time, so memory holds one file; the
// chunks of every document scroll in one list (ui/chunk-list.js) that asks the core for
// them page by page; a corpus's documents are listed in a table (corpus-table.js).
import { SPEC } from "../../spec.js";
import { canonicalNumber } from "../../core/formula.js";
import { decimalComma, fixed, integer, msg, onLanguageChange, percent, quantity, show, showText } from "../../i18n/i18n.js";
import { Cancelled } from "../../core/bridge.js";
import { ChunkList } from "../../ui/chunk-list.js";
import { $, debounce } from "../../ui/dom.js";
import { TEXT_DEBOUNCE_MS } from "../../ui/document.js";
import { applyEmbedMode } from "../../ui/embed-mode.js";
import { errorMessage, internalError, showErrors, showNotes } from "../../ui/errors.js";
import { expandArchives, loadFiles } from "../../ui/corpus.js";
import { numberOptions } from "../../ui/form.js";
import { labelModelOptions } from "../../ui/model-options.js";
import { startPage } from "../../ui/page.js";
import { setPlanLink } from "../../ui/plan-link.js";
import { countAnalysis, DocumentRequests } from "../../ui/request.js";
import { bindCopyButton, pyString, shellWord, showSnippets } from "../../ui/snippets.js";
import { bindCoreStatus } from "../../ui/status.js";
import { bindUrlState } from "../../ui/url-state.js";
import { CorpusTable } from "./corpus-table.js";

// A corpus up to this many characters keeps each document's encoding in the core, so a
// new setting re-packs without encoding again; a bigger one is encoded again (memory).
const KEEP_PREPARED_CHARS = 10_000_000;

// A failed split keeps the previous chunks unless it failed on the document itself.
const DOCUMENT_FIELDS = ["text", "file"];

const core = await startPage();
const slots = [...document.querySelectorAll(".error[data-for]")];
const requests = new DocumentRequests(core, {
  slots,
  busy: "status.splitting",
  cancelled: "status.cancelled_split",
  clear: clearResults,
  dropsDocument: (reply) => (reply.errors ?? []).some((e) => DOCUMENT_FIELDS.includes(e.field)),
});
// A file's name; "" for typed text; a message of the catalog for a large paste.
let documentName = "";
// The documents whose chunks are shown, in source order: {doc, source, name, chars, kind,
// tokens, count, largest, error} (error: why a file of a corpus was not split).
let entries = [];
let corpusMode = false;
let exported = new Map();
let lastResult = null;
// The chunks of the documents shown, and a corpus's table of its documents.
const chunkList = new ChunkList($("chunk-list"), {
  fetchPage: (doc, first, count) => core.request("chunks", { doc, first, count }).then((reply) => (reply.ok ? reply.result : null)),
});
const corpusTable = new CorpusTable({ onFilter: (parts) => chunkList.show(parts, { named: corpusMode }) });

function modelOf(sizer) {
  return sizer.startsWith("model:") ? SPEC.models.find((m) => m.id === sizer.slice(6)) : null;
}

/** Whether the chunks leave room for `model`'s document prefix (the box is hidden for a model without one). */
const withPrefix = (model) => Boolean(model?.document_prefix) && $("prefix").checked;

function settings() {
  const sizer = $("sizer").value;
  const model = modelOf(sizer);
  const counted = model ? { model: model.id, prefix: withPrefix(model) }
    : sizer === "estimate" ? { chars_per_token: $("chars_per_token").value } : { encoding: sizer };
  return {
    by: $("by").value,
    chunk_size: $("chunk_size").value,
    overlap: $("overlap").value,
    context: $("context").value,
    siblings: $("siblings").value,
    ...counted,
    ...numberOptions(),
  };
}

/**
 * Whether the chunks shown match the settings shown: "fresh"; "pending" while a changed
 * setting's split is on its way; "stale" when the settings are refused (the chunks are the
 * last valid settings'), or when `refusedName`, a file that came before that split (and
 * cancelled it), was refused. Only fresh chunks can be downloaded: the core exports the
 * last split it made, which a refused setting or file leaves in place.
 */
function markChunks(state, refusedName = null) {
  $("split-results").dataset.chunks = state;
  const note = $("stale-note");
  note.hidden = state !== "stale";
  if (state === "stale") {
    show(note, refusedName === null ? "split.stale" : "split.stale_refused", { name: refusedName || msg("file.unnamed") });
  }
  for (const id of ["download", "download-langchain"]) $(id).disabled = state !== "fresh";
}

function clearResults() {
  markChunks("fresh");
  entries = [];
  exported = new Map();
  lastResult = null;
  $("split-results").hidden = true;
  $("corpus").hidden = true;
  $("extracted").hidden = true;
  $("text-notes").replaceChildren();
  chunkList.clear();
}

// The size the page put in the box for a model (a person's own number is never replaced).
let autoSize = $("chunk_size").defaultValue;
// The overlap the page put in the box: an eighth of the size, the library's default, until a
// person types their own (or a link gives one).
let autoOverlap = new URLSearchParams(location.search).has("overlap") ? null : $("overlap").defaultValue;

/** The overlap box follows the size while it holds the page's own number (and the size is one
 * the page takes: past its limit the size alone is at fault, the overlap stays as it was). */
function followSize() {
  const size = $("chunk_size").value.trim();
  if (autoOverlap === null || $("overlap").value !== autoOverlap || !/^[1-9]\d*$/.test(size)) return;
  if (Number(size) > SPEC.limits.chunk_size) return;
  autoOverlap = String(Math.floor(Number(size) / SPEC.defaults.overlap_share));
  $("overlap").value = autoOverlap;
}

/** What a chosen model reads: its limit, its special tokens and the largest chunk (the size's hint). */
function showModel() {
  const model = modelOf($("sizer").value);
  // A model's largest chunk is its default size: put it in the box unless a person typed their own.
  // With room left for its prefix it is smaller by the prefix (models.Model.max_chunk_tokens).
  const prefix = withPrefix(model) ? model.prefix_tokens : 0;
  const wanted = model ? String(model.limit - model.special_tokens - prefix) : $("chunk_size").defaultValue;
  if ($("chunk_size").value === autoSize && wanted !== autoSize) {
    $("chunk_size").value = wanted;
    autoSize = wanted;
  }
  followSize();
  $("ratio-field").hidden = $("sizer").value !== "estimate";
  $("prefix-field").hidden = !model?.document_prefix;
  if (!model) {
    showText($("model-hint"), "");
    showText($("size-hint"), "");
    return;
  }
  show($("model-hint"), "model.hint", { model: model.id, limit: quantity("tokens", model.limit), special: model.special_tokens,
    dims: quantity("dimensions", model.dimensions), tokenizer: model.tokenizer });
  const largest = model.limit - model.special_tokens;
  show($("size-hint"), model.document_prefix ? "model.size_hint_prefix" : "model.size_hint",
    { largest: quantity("tokens", largest), prefix: model.document_prefix.trim() });
}

function renderStats(result) {
  const s = result.stats;
  show($("s-chunks"), "{n}", { n: s.chunks });
  if (s.chunks) show($("s-range"), "{min} / {median} / {max}", { min: s.min_tokens, median: s.median_tokens, max: s.max_tokens });
  else showText($("s-range"), "—");
  if (s.chunks) show($("s-mean"), "{n}", { n: fixed(s.mean_tokens, 1) });
  else showText($("s-mean"), "—");
  show($("s-total"), "{n}", { n: s.total_tokens });
  show($("s-overlap"), "value.of_total", { tokens: s.overlap_tokens, share: percent(s.overlap_percent / 100) });
  // The document's own title (front matter, HTML <title>, Word or EPUB metadata): chunk records carry it.
  $("s-title-row").hidden = !result.title;
  showText($("s-title"), result.title ?? "");
  $("s-title").title = result.title ?? ""; // the whole title, where a long one is cut to two lines
  const exact = result.tokenizer.startsWith("chars/")
    ? msg("split.estimate", { ratio: quantity("chars", Number(result.tokenizer.slice(6))) })
    : result.model ? msg("split.exact_model", { model: result.model, encoding: result.tokenizer })
      : msg("split.exact", { encoding: result.tokenizer });
  const by = msg(`split.by_name_${result.by}`);
  const target = msg("split.target", { size: quantity("tokens", result.size), overlap: result.overlap, by });
  show($("s-tokenizer"), "{exact} {target}", { exact, target });
  const most = Math.max(1, ...s.histogram.map((b) => b.count));
  $("histogram").replaceChildren(
    ...s.histogram.map((b) => {
      const item = document.createElement("li");
      const label = document.createElement("span");
      label.className = "bin-label";
      show(label, b.low === b.high ? "{low}" : "{low}–{high}", { low: b.low, high: b.high });
      const bar = document.createElement("span");
      bar.className = "bin-bar";
      bar.style.width = `${(b.count / most) * 100}%`;
      if (b.count === 0) bar.classList.add("empty"); // no sliver for an empty bin
      const count = document.createElement("span");
      count.className = "bin-count";
      show(count, "count.chunks", { count: b.count });
      item.append(label, bar, count);
      return item;
    }),
  );
}

// --- one document --------------------------------------------------------------------------

function runSplit(document, name = null) {
  // A document still on its way is the one to split again, as new.
  if (document === null && requests.pending) return runSplit(requests.pending.document, requests.pending.meta.name);
  // A new document is split with the settings as they are now: a re-split they scheduled is moot.
  if (document !== null) resplit.cancel();
  const previousName = documentName;
  const previousMode = corpusMode;
  let refused = false;
  if (name !== null) documentName = name;
  if (document !== null) corpusMode = false;
  const sent = requests.send("split", { ...settings(), name: fileName() }, document, {
    meta: { name },
    // The core kept the previous document: so do its name and its view.
    refused: () => {
      refused = true;
      documentName = previousName;
      corpusMode = previousMode;
    },
    done: (result, loaded) => {
      markChunks("fresh");
      exported = new Map();
      lastResult = result;
      entries = [{ doc: result.doc, source: fileName(), name: fileName(), chars: result.chars, kind: result.kind,
        tokens: result.tokens, count: result.count, largest: result.largest }];
      showNotes($("text-notes"), result);
      requests.status.show(documentName ? "status.split_named" : "status.split", { name: documentName,
        chunks: quantity("chunks", result.stats.chunks), chars: quantity("chars", result.chars) });
      renderStats(result);
      splitSnippets(result);
      $("corpus").hidden = true;
      $("filter-field").hidden = true;
      $("extracted").hidden = !["html", "pdf", "docx", "epub", "ipynb", "rst"].includes(loaded?.kind);
      $("extracted-text").textContent = "";
      $("split-results").hidden = false;
      chunkList.show(result.count ? [entries[0]] : [], { firstPages: new Map([[result.doc, result.page]]) });
    },
  });
  // A refused setting leaves the last chunks on screen: say they are not these settings'. So
  // does a refused file that cancelled a changed setting's split: say it was the file.
  return sent.then((ok) => {
    if (ok === false && $("split-results").dataset.chunks === "pending") markChunks("stale", refused ? name ?? "" : null);
    return ok;
  });
}

// --- a corpus ----------------------------------------------------------------------------

let corpusRun = 0;

/** Read, load and split each file in turn (a .zip's documents too); then show the corpus. */
async function runCorpus(files) {
  try {
    await loadCorpus(files);
  } finally {
    countAnalysis();
  }
}

async function loadCorpus(files) {
  resplit.cancel();
  const run = ++corpusRun;
  requests.seq++; // a single-document reply still on its way is moot
  documentName = "";
  const expanded = await expandArchives(files);
  const keep = expanded.reduce((sum, f) => sum + f.size, 0) <= KEEP_PREPARED_CHARS;
  const previous = entries.filter((e) => e.doc);
  const loaded = [];
  showErrors([], slots);
  try {
    for await (const entry of loadFiles(core, expanded, requests.status, "status.corpus_progress")) {
      if (run !== corpusRun) {
        if (entry.doc) core.request("drop", { doc: entry.doc });
        return;
      }
      loaded.push(Object.assign(entry, { tokens: 0, count: 0, largest: 0 }));
      if (entry.doc) await splitEntry(entry, keep);
      if (run !== corpusRun) return;
    }
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    if (run === corpusRun) {
      requests.status.show("status.cancelled_split");
      for (const entry of loaded) if (entry.doc) core.request("drop", { doc: entry.doc });
    }
    return;
  }
  // The new corpus stands: the documents of the last one go.
  for (const entry of previous) core.request("drop", { doc: entry.doc });
  corpusMode = true;
  entries = loaded;
  corpusTable.reset();
  requests.doc = null;
  requests.hasDocument = entries.some((e) => e.doc);
  await showCorpus(run);
}

/** Split one loaded document of the corpus with the settings of the page (no chunks sent back yet). */
async function splitEntry(entry, keep) {
  const reply = await core.request("split", { ...settings(), doc: entry.doc, page_size: 0, keep_prepared: keep });
  if (!reply.ok) {
    entry.error = (reply.errors ?? [internalError(reply.internal)])[0];
    entry.count = 0;
    return reply;
  }
  lastResult = reply.result;
  Object.assign(entry, { tokens: reply.result.tokens, count: reply.result.count, largest: reply.result.largest,
    error: null, notes: reply.result.note_details });
  return reply;
}

/** Split every document of the corpus again with the current settings. */
async function resplitCorpus() {
  try {
    await resplitEach();
  } finally {
    countAnalysis();
  }
}

async function resplitEach() {
  const run = ++corpusRun;
  const keep = entries.reduce((sum, e) => sum + e.chars, 0) <= KEEP_PREPARED_CHARS;
  showErrors([], slots);
  const live = entries.filter((e) => e.doc);
  try {
    for (let i = 0; i < live.length; i++) {
      requests.status.show("status.corpus_resplit", { done: i, total: live.length }, true);
      const reply = await splitEntry(live[i], keep);
      if (run !== corpusRun) return;
      // A setting the core refuses is refused for every document: say it once, at its field.
      if (!reply.ok && !DOCUMENT_FIELDS.includes(live[i].error?.field)) {
        requests.status.show("");
        showErrors([live[i].error], slots);
        markChunks("stale");
        return;
      }
    }
  } catch (error) {
    if (error instanceof Cancelled && run === corpusRun) requests.status.show("status.cancelled_split");
    return;
  }
  await showCorpus(run);
}

async function showCorpus(run) {
  const done = entries.filter((e) => e.doc && !e.error);
  const reply = await core.request("corpus", { docs: done.map((e) => e.doc) });
  if (run !== corpusRun || !reply.ok) return;
  markChunks("fresh");
  exported = new Map();
  const skipped = entries.length - done.length;
  requests.status.show("status.corpus_done", { documents: quantity("documents", done.length), skipped,
    chunks: quantity("chunks", reply.result.stats.chunks) });
  renderStats({ ...(lastResult ?? {}), stats: reply.result.stats, tokenizer: lastResult?.tokenizer ?? "", model: lastResult?.model,
    by: lastResult?.by ?? $("by").value, size: lastResult?.size ?? 0, overlap: lastResult?.overlap ?? 0 });
  if (lastResult) splitSnippets(lastResult, true);
  corpusTable.show(entries);
  $("text-notes").replaceChildren();
  $("extracted").hidden = true;
  $("corpus").hidden = false;
  $("split-results").hidden = false;
  chunkList.show(done.filter((e) => e.count), { named: corpusMode });
}

// --- downloads, snippets, the extracted text, the comparison ----------------------------------

const fileName = () => (typeof documentName === "string" ? documentName : "");

function fileStem() {
  return corpusMode ? "corpus" : (fileName() || "document.md").replace(/\.[^.]*$/, "");
}

function splitSnippets(result, corpus = false) {
  const source = corpus ? "docs" : fileName() || "document.md";
  const estimate = result.tokenizer.startsWith("chars/");
  const counted = result.model ? `model=${pyString(result.model)}${result.prefix ? ", prefix=True" : ""}`
    : `tokenizer=${estimate ? `ragchunk.CharEstimate(${result.tokenizer.slice(6)})` : pyString(result.tokenizer)}`;
  // Always written out: the snippet says what the page did, whatever the library's default.
  const context = result.context ? `, context=${pyString(result.context)}` : "";
  const siblings = result.siblings ? `, siblings=${pyString(result.siblings)}` : "";
  const flags = result.model ? `--model ${result.model}`
    : estimate ? `--chars-per-token ${result.tokenizer.slice(6)}` : `--encoding ${result.tokenizer}`;
  const options = `options = ragchunk.SplitOptions(by=${pyString(result.by)}, size=${result.size}, overlap=${result.overlap}, ${counted}${context}${siblings})`;
  const python = corpus ? [
    "from pathlib import Path",
    "",
    "import ragchunk",
    "",
    options,
    `folder = Path(${pyString(source)})`,
    "files = sorted(p for p in folder.rglob(\"*\") if p.is_file() and not any(s.startswith(\".\") for s in p.relative_to(folder).parts))",
    "results = list(ragchunk.split_corpus(((p.relative_to(folder).as_posix(), p.read_bytes()) for p in files), options))",
    "print(sum(r.chunks for r in results), sum(sum(r.chunk_tokens) for r in results))",
    `Path(${pyString(fileStem() + ".chunks.jsonl")}).write_text("".join(r.jsonl for r in results), encoding="utf-8")`,
    "",
  ] : [
    "from pathlib import Path",
    "",
    "import ragchunk",
    "",
    options,
    `result = ragchunk.split_document(${pyString(source)}, Path(${pyString(source)}).read_bytes(), options)`,
    "print(result.chunks, sum(result.chunk_tokens), result.overlap_tokens)",
    `Path(${pyString(fileStem() + ".chunks.jsonl")}).write_text(result.jsonl, encoding="utf-8")`,
    "",
  ];
  showSnippets(
    python.join("\n"),
    `python -m ragchunk split ${shellWord(source)} --by ${result.by} --size ${result.size} --overlap ${result.overlap} ` +
      `${flags}${result.prefix ? " --prefix" : ""}${context ? ` --context ${result.context}` : ""}${siblings ? ` --siblings ${result.siblings}` : ""} -o ${shellWord(fileStem() + ".chunks.jsonl")} --stats`,
  );
}

const shownDocs = () => (corpusMode ? entries.filter((e) => e.doc && !e.error).map((e) => e.doc) : [requests.doc]);

async function download(format) {
  if (!requests.hasDocument || $("split-results").dataset.chunks !== "fresh") return;
  if (!exported.has(format)) exported.set(format, core.request("export", { docs: shownDocs(), format }));
  const reply = await exported.get(format);
  if (!reply.ok) {
    showErrors(reply.errors ?? [internalError(reply.internal)], slots);
    exported.delete(format);
    return;
  }
  const langchain = format === "langchain";
  save(langchain ? reply.result.json : reply.result.jsonl, `${fileStem()}.${langchain ? "langchain.json" : "chunks.jsonl"}`,
    langchain ? "application/json" : "application/x-ndjson");
}

function save(text, name, type) {
  const blob = new Blob([text], { type });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

let extracted = null;

async function extractedText() {
  extracted ??= core.request("text", { doc: requests.doc }).then((reply) => (reply.ok ? reply.result.text : ""));
  return extracted;
}

$("extracted").addEventListener("toggle", async () => {
  if ($("extracted").open && !$("extracted-text").textContent) $("extracted-text").textContent = await extractedText();
});
$("download-text").addEventListener("click", async () => save(await extractedText(), `${fileStem()}.extracted.md`, "text/markdown"));

async function runCompare() {
  if (!requests.hasDocument) return;
  const { by, ...counted } = settings();
  show($("compare-status"), "compare.busy");
  let reply;
  try {
    reply = await core.request("compare", { ...counted, docs: shownDocs() });
  } catch {
    showText($("compare-status"), "");
    return;
  } finally {
    // Its progress ("Comparing… 40 %", with Cancel) went to the document's status line: put
    // back what that line said before.
    requests.status.restore();
  }
  if (!reply.ok) {
    showText($("compare-status"), errorMessage((reply.errors ?? [internalError(reply.internal)])[0]));
    return;
  }
  showText($("compare-status"), "");
  const rows = reply.result.rows;
  $("compare-body").replaceChildren(...rows.map((row) => {
    const tr = document.createElement("tr");
    const method = document.createElement("th");
    method.scope = "row";
    show(method, `compare.method_${row.method}`);
    const values = [integer(row.chunks), integer(row.tokens), row.cost === null ? "—" : fixed(row.cost, 6),
      `${integer(row.min_tokens)} / ${integer(row.median_tokens)} / ${integer(row.max_tokens)}`,
      percent(row.mid_sentence), percent(row.with_heading)];
    tr.append(method, ...values.map((value) => {
      const cell = document.createElement("td");
      // fixed() and percent() are formatted when shown (and again in another language).
      show(cell, "{value}", { value });
      return cell;
    }));
    return tr;
  }));
  $("compare-table").hidden = false;
}

// --- wiring ------------------------------------------------------------------------------

const resplit = debounce(() => {
  if (!requests.active) return;
  if (corpusMode && !requests.pending) resplitCorpus();
  else runSplit(null);
}, TEXT_DEBOUNCE_MS);

/** The planner's link with the chunk size typed, when it is one. */
function showPlanLink() {
  const size = Number(canonicalNumber($("chunk_size").value, decimalComma()));
  setPlanLink($("plan-link"), Number.isInteger(size) && size > 0 && size <= SPEC.limits.chunk_size ? { size } : null);
}

function onSettings() {
  showModel();
  showPlanLink();
  if (!$("split-results").hidden) markChunks("pending");
  $("compare-table").hidden = true;
  resplit();
}

bindCoreStatus(core, { onTaskProgress: (stage, done, total) => requests.status.progress(stage, done, total) });
requests.bindInput((document, name) => {
  extracted = null;
  return runSplit(document, name);
}, (files) => {
  extracted = null;
  return runCorpus(files);
});
// A new language can change what a typed number means ("3,5" is 3.5 in Russian): split again.
onLanguageChange(() => {
  onSettings();
  if (corpusMode) corpusTable.render();
});
$("settings").addEventListener("input", onSettings);
// A text box re-splits as it is typed in ("input"); its "change" when the focus leaves it is
// no news (it would split again and throw the list back to its first chunk).
$("settings").addEventListener("change", (event) => {
  if (event.target.type !== "text") onSettings();
});
$("settings").addEventListener("submit", (event) => event.preventDefault());
bindUrlState({ by: $("by"), size: $("chunk_size"), overlap: $("overlap"), sizer: $("sizer"), cpt: $("chars_per_token"),
  context: $("context"), siblings: $("siblings") });
bindCopyButton();
$("download").addEventListener("click", () => download("jsonl"));
$("download-langchain").addEventListener("click", () => download("langchain"));
$("compare-run").addEventListener("click", runCompare);
labelModelOptions();
showModel();
showPlanLink();
requests.restoreText();
applyEmbedMode();
