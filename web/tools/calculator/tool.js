// The calculator: DOM only. Numbers come from the JS mirror of the formula at once and
// from the Python core (in the worker) as soon as it is ready; text goes to the worker.
import { SPEC } from "../../spec.js";
import { Cancelled } from "../../core/bridge.js";
import { modelFigures, readCalcForm } from "../../core/formula.js";
import { bytes, fixed, integer, money, msg, onLanguageChange, percent, quantity, setHtmlParams, show, showText, t } from "../../i18n/i18n.js";
import { expandArchives, loadFiles } from "../../ui/corpus.js";
import { $, debounce } from "../../ui/dom.js";
import { TEXT_DEBOUNCE_MS } from "../../ui/document.js";
import { applyEmbedMode } from "../../ui/embed-mode.js";
import { errorMessage, internalError, showErrors, showNotes } from "../../ui/errors.js";
import { numberOptions } from "../../ui/form.js";
import { labelModelOptions } from "../../ui/model-options.js";
import { Pager } from "../../ui/pager.js";
import { setPlanLink } from "../../ui/plan-link.js";
import { startPage } from "../../ui/page.js";
import { countAnalysis, DocumentRequests } from "../../ui/request.js";
import { bindCopyButton, showSnippets } from "../../ui/snippets.js";
import { bindCoreStatus } from "../../ui/status.js";
import { bindUrlState } from "../../ui/url-state.js";

const PREVIEW_STEP = SPEC.defaults.preview;

const form = $("calc");
const errorSlots = [...document.querySelectorAll(".error[data-for]")];
const calcSlots = errorSlots.filter((slot) => slot.closest("#calc"));
const textSlots = errorSlots.filter((slot) => !slot.closest("#calc"));

const core = await startPage();
let calcSeq = 0;
let shownWindows = 0;
const requests = new DocumentRequests(core, {
  slots: textSlots,
  busy: "status.tokenizing",
  cancelled: "status.cancelled_text",
  clear: clearTextResults,
});

// --- calculator -----------------------------------------------------------------------

const modelOf = (id) => (id ? SPEC.models.find((m) => m.id === id) ?? null : null);

function readForm() {
  const data = new FormData(form);
  return {
    unit: data.get("unit"),
    doc: $("doc").value,
    documents: $("documents").value,
    chars_per_token: $("chars_per_token").value,
    chunk_size: $("chunk_size").value,
    overlap: $("overlap").value,
    price: $("price").value,
    ...numberOptions(),
  };
}

function renderPlan(reply, source) {
  $("results").dataset.source = source;
  if (!reply.ok) {
    showErrors(reply.errors ?? [{ ...internalError(reply.internal), field: "doc_tokens" }], calcSlots);
    for (const id of ["r-chunks", "r-total", "r-repeated", "r-extra", "r-cost"]) showText($(id), "—");
    show($("r-detail"), "calc.detail_invalid");
    $("results").dataset.state = "invalid";
    renderModel(null, "r"); // no plan, no vectors: the last valid plan's must not stay on screen
    setPlanLink($("plan-link"), null);
    return;
  }
  showErrors([], calcSlots);
  const p = reply.result;
  show($("r-chunks"), "{n}", { n: p.chunks });
  show($("r-total"), "{n}", { n: p.total_tokens });
  show($("r-repeated"), "value.of_total", { tokens: p.repeated_tokens, share: percent(p.repeated_share) });
  show($("r-extra"), "{n}", { n: percent(p.extra_share) });
  if (p.cost === null) show($("r-cost"), "calc.cost_none");
  else show($("r-cost"), "calc.cost_value", { cost: money(p.cost), price: p.price_per_million });
  const estimated = readForm().unit === "chars" ? msg("calc.detail_estimated", { tokens: quantity("tokens", p.doc_tokens) }) : "";
  if (p.chunks === 1) show($("r-detail"), "calc.detail_fits", { estimated });
  else show($("r-detail"), "calc.detail_step", { step: quantity("tokens", p.step), last: quantity("tokens", p.last_chunk_tokens),
    estimated });
  $("results").dataset.state = "ok";
  setPlanLink($("plan-link"), { size: p.chunk_size });
  const model = modelOf($("model").value);
  renderModel(p.model ?? (model ? modelFigures(model, p.chunks, p.chunk_size) : null), "r");
  calcSnippets(p);
}

/** A model's vectors and their storage in the rows `${prefix}-vectors` / `-storage`; its truncation warning. */
function renderModel(figures, prefix) {
  $(`${prefix === "r" ? "" : "f-"}vectors-row`).hidden = !figures;
  $(`${prefix === "r" ? "" : "f-"}storage-row`).hidden = !figures;
  if (prefix === "r") {
    const warning = $("model-warning");
    warning.hidden = !figures?.truncates;
    if (figures?.truncates) {
      show(warning, figures.prefix ? "calc.truncates_prefix" : "calc.truncates",
        { model: figures.model, largest: quantity("tokens", figures.largest_chunk), size: Number(plainNumber($("chunk_size").value)),
          prefix: figures.prefix });
    }
  }
  if (!figures) return;
  show($(`${prefix}-vectors`), "calc.vectors_value", { vectors: figures.vectors, dims: quantity("dimensions", figures.dimensions) });
  show($(`${prefix}-storage`), "calc.storage_value",
    { float32: bytes(figures.float32_bytes), int8: bytes(figures.int8_bytes), binary: bytes(figures.binary_bytes) });
}

// The typed number as the core read it (its digits, grouping dropped, "." as the decimal mark).
const plainNumber = (raw) => {
  const groups = numberOptions().decimal_comma ? /[_ \u00a0\u202f]/g : /[,_ \u00a0\u202f]/g;
  return raw.trim().replace(groups, "").replaceAll(",", ".");
};

function calcSnippets(p) {
  const values = readForm();
  const chars = values.unit === "chars";
  const ratio = chars ? Number(plainNumber(values.chars_per_token)) : null;
  const doc = chars ? `ragchunk.tokens_from_chars(${Number(plainNumber(values.doc))}, ${ratio})` : String(p.doc_tokens);
  const price = p.price_per_million === null ? "" : `, price_per_million=${p.price_per_million}`;
  const documents = p.documents > 1 ? `, documents=${p.documents}` : "";
  const model = modelOf($("model").value);
  showSnippets(
    [
      "import ragchunk",
      "",
      `doc_tokens = ${doc}`,
      `p = ragchunk.plan(doc_tokens, ${p.chunk_size}, ${p.overlap}${price}${documents})`,
      'print(p.chunks, p.total_tokens, p.repeated_tokens, f"{p.repeated_share:.1%}", f"{p.extra_share:.1%}", p.cost)',
      ...(model ? [`print(ragchunk.calculator.vector_storage(p.chunks, ${model.dimensions}))  # ${model.id}`] : []),
      "",
    ].join("\n"),
    `python -m ragchunk calc ${chars ? `--chars ${Number(plainNumber(values.doc))} --chars-per-token ${ratio}` : `--tokens ${p.doc_tokens}`}` +
      `${p.documents > 1 ? ` --docs ${p.documents}` : ""}${model ? ` --model ${model.id}` : ""}` +
      ` --size ${p.chunk_size} --overlap ${p.overlap}${p.price_per_million === null ? "" : ` --price ${p.price_per_million}`}`,
  );
}

function recalculate() {
  const values = readForm();
  $("ratio-field").hidden = values.unit !== "chars";
  renderPlan(readCalcForm(SPEC, values), "page");
  if (files.length) fileTotals();
  if (!core.isReady) return;
  const seq = ++calcSeq;
  const model = $("model").value;
  core.request("calculate", { ...values, ...(model ? { model } : {}) }).then((reply) => {
    if (seq === calcSeq) renderPlan(reply, "core");
  }, () => {});
}

// --- a model ----------------------------------------------------------------------------

// The price the page put in the box for a model (a person's own price is never replaced).
let autoPrice = "";

/** A chosen model: its tokenizer counts the text, its price fills the box, its figures show. */
function chooseModel() {
  const model = modelOf($("model").value);
  const price = model?.price_per_million === null || !model ? "" : String(model.price_per_million);
  if ($("price").value === autoPrice) {
    $("price").value = price;
    autoPrice = price;
  }
  if (model) {
    show($("model-hint"), "calc.model_hint", { model: model.id, limit: quantity("tokens", model.limit), special: model.special_tokens,
      dims: quantity("dimensions", model.dimensions), tokenizer: model.tokenizer });
  } else {
    showText($("model-hint"), "");
  }
  const recount = model && $("encoding").value !== model.tokenizer;
  if (recount) $("encoding").value = model.tokenizer;
  recalculate();
  if (recount) recountText();
}

// --- files ----------------------------------------------------------------------------

// The files given at once (several, a folder, a .zip): {doc, source, name, chars, kind,
// tokens, error} each, in source order; their totals come from the core ("calculate" with
// their lengths), so they are the calculator's arithmetic summed per document.
let files = [];
// The rows of the files table, a page at a time (the chunk counts of the last totals).
let shownCounts = [];
const filePages = new Pager($("files-pages"), () => renderFiles(shownCounts));
let filesRun = 0;
let totalsSeq = 0;

/** Count one loaded file with the tokenizer of the page (no windows: the counts are what the table needs). */
async function countEntry(entry) {
  const reply = await core.request("analyze", { doc: entry.doc, encoding: $("encoding").value, chunk_size: null,
    overlap: null, first: 0, count: 0 });
  if (reply.ok) Object.assign(entry, { tokens: reply.result.tokens, error: null });
  else entry.error = (reply.errors ?? [internalError(reply.internal)])[0];
}

async function runFiles(given) {
  try {
    await countFiles(given);
  } finally {
    countAnalysis();
  }
}

async function countFiles(given) {
  const run = ++filesRun;
  requests.seq++; // a single document's reply still on its way is moot
  const expanded = await expandArchives(given);
  const loaded = [];
  showErrors([], textSlots);
  try {
    for await (const entry of loadFiles(core, expanded, requests.status, "status.files_progress")) {
      if (run !== filesRun) {
        if (entry.doc) core.request("drop", { doc: entry.doc });
        return;
      }
      loaded.push(Object.assign(entry, { tokens: 0 }));
      if (entry.doc) await countEntry(entry);
    }
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    if (run === filesRun) {
      requests.status.show("status.cancelled_text");
      for (const entry of loaded) if (entry.doc) core.request("drop", { doc: entry.doc });
    }
    return;
  }
  if (run !== filesRun) return;
  for (const entry of files) if (entry.doc) core.request("drop", { doc: entry.doc });
  if (requests.doc !== null) core.request("drop", { doc: requests.doc });
  requests.doc = null;
  requests.hasDocument = false;
  clearTextResults();
  files = loaded;
  filePages.reset();
  await filesDone();
}

/** Count every file again (a new tokenizer). */
async function recountFiles() {
  try {
    await recountEach();
  } finally {
    countAnalysis();
  }
}

async function recountEach() {
  const run = ++filesRun;
  const live = files.filter((e) => e.doc);
  try {
    for (let i = 0; i < live.length; i++) {
      requests.status.show("status.files_recount", { done: i, total: live.length }, true);
      await countEntry(live[i]);
      if (run !== filesRun) return;
    }
  } catch (error) {
    if (error instanceof Cancelled && run === filesRun) requests.status.show("status.cancelled_text");
    return;
  }
  await filesDone();
}

function filesDone() {
  const counted = files.filter((e) => !e.error);
  const tokens = counted.reduce((sum, e) => sum + e.tokens, 0);
  requests.status.show("status.files_done", { documents: quantity("files", counted.length),
    skipped: files.length - counted.length, tokens: quantity("tokens", tokens) });
  $("files").hidden = false;
  $("r-not-files").hidden = false; // two answers show: say which is which
  return fileTotals();
}

/** The corpus totals for the files at the form's chunk size, overlap, price and model. */
async function fileTotals() {
  const counted = files.filter((e) => !e.error);
  const seq = ++totalsSeq;
  const model = $("model").value;
  const values = readForm();
  const reply = await core.request("calculate", { ...values, lengths: counted.map((e) => e.tokens), ...(model ? { model } : {}) })
    .catch(() => null);
  if (seq !== totalsSeq || !reply) return;
  // The documents and their tokens need no chunk settings: they stay while a setting is invalid.
  show($("f-documents"), "{n}", { n: counted.length });
  show($("f-tokens"), "{n}", { n: counted.reduce((sum, e) => sum + e.tokens, 0) });
  if (!reply.ok) {
    for (const id of ["f-chunks", "f-total", "f-repeated", "f-cost"]) showText($(id), "—");
    renderModel(null, "f");
    renderFiles(counted.map((e) => [e, null]));
    return;
  }
  const p = reply.result;
  show($("f-chunks"), "{n}", { n: p.chunks });
  show($("f-total"), "{n}", { n: p.total_tokens });
  show($("f-repeated"), "value.of_total", { tokens: p.repeated_tokens, share: percent(p.repeated_share) });
  if (p.cost === null) show($("f-cost"), "calc.cost_none");
  else show($("f-cost"), "calc.cost_value", { cost: money(p.cost), price: p.price_per_million });
  renderModel(p.model ?? null, "f");
  renderFiles(counted.map((e, i) => [e, p.chunks_per_document[i]]));
}

function renderFiles(counts) {
  shownCounts = counts;
  const chunksOf = new Map(counts);
  $("files-table").tBodies[0].replaceChildren(...filePages.slice(files).map((entry) => {
    const row = document.createElement("tr");
    const skipped = Boolean(entry.error);
    const chunks = chunksOf.get(entry) ?? null; // null: the chunk settings are invalid
    const cells = [entry.source, skipped ? "—" : integer(entry.chars), skipped ? "—" : integer(entry.tokens),
      skipped || chunks === null ? "—" : integer(chunks),
      skipped ? errorMessage(entry.error) : entry.kind && !["markdown", "text"].includes(entry.kind) ? msg(`kind.${entry.kind}`) : ""];
    cells.forEach((value, index) => {
      const cell = document.createElement(index ? "td" : "th");
      if (!index) cell.scope = "row";
      if (index && index < 4) cell.className = "num";
      if (typeof value === "string") cell.textContent = value;
      else show(cell, value.key, value.params);
      row.append(cell);
    });
    if (skipped) row.className = "skipped";
    return row;
  }));
  const counted = counts.map(([entry]) => entry);
  show($("files-total"), "files.total", { documents: quantity("documents", counted.length),
    skipped: files.length - counted.length });
  showText($("files-chars"), integer(counted.reduce((sum, e) => sum + e.chars, 0)));
  showText($("files-tokens"), integer(counted.reduce((sum, e) => sum + e.tokens, 0)));
  const unknown = counts.some(([, n]) => n === null);
  showText($("files-chunks"), unknown ? "—" : integer(counts.reduce((sum, [, n]) => sum + n, 0)));
}

// A restarted worker has lost the files' documents: a new tokenizer could not count them again.
core.addEventListener("restarting", () => {
  files = [];
  $("files").hidden = $("r-not-files").hidden = true;
});

/** A single document replaces the files. */
function leaveFiles() {
  filesRun++;
  for (const entry of files) if (entry.doc) core.request("drop", { doc: entry.doc });
  files = [];
  $("files").hidden = $("r-not-files").hidden = true;
}

// --- text -----------------------------------------------------------------------------

function chunkSettings() {
  const mirror = readCalcForm(SPEC, { ...readForm(), unit: "tokens", doc: "1", price: "" });
  return mirror.ok ? { chunk_size: mirror.result.chunk_size, overlap: mirror.result.overlap } : null;
}

function clearTextResults() {
  $("text-stats").hidden = true;
  $("preview").hidden = true;
  $("windows").replaceChildren();
  $("text-notes").replaceChildren();
  shownWindows = 0;
}

function windowItem(w) {
  const item = document.createElement("li");
  item.className = "window";
  item.dataset.index = String(w.index);
  item.dataset.tokens = String(w.tokens);
  // A window scrolls its own text (style.css .window), so it takes the focus: arrow keys read it.
  item.tabIndex = 0;
  item.setAttribute("aria-labelledby", `window-meta-${w.index}`);
  const meta = document.createElement("p");
  meta.className = "meta";
  meta.id = `window-meta-${w.index}`;
  const numbers = { n: w.index + 1, tokens: quantity("tokens", w.tokens), start: w.token_start, end: w.token_end, overlap: w.overlap_tokens };
  show(meta, w.index > 0 ? "preview.meta_overlap" : "preview.meta", numbers);
  const body = document.createElement("pre");
  body.className = "window-text";
  if (w.head) {
    const mark = document.createElement("mark");
    mark.className = "overlap";
    mark.dataset.i18nAttr = "title=preview.repeated";
    mark.title = t("preview.repeated");
    mark.textContent = w.head;
    body.append(mark);
  }
  body.append(document.createTextNode(w.body));
  item.append(meta, body);
  return item;
}

function renderWindows(result, append) {
  const list = $("windows");
  if (!append) list.replaceChildren();
  if (!result.windows) {
    $("preview").hidden = true;
    return;
  }
  list.append(...result.windows.map(windowItem));
  shownWindows = list.children.length;
  $("preview").hidden = false;
  show($("preview-title"), "preview.title_count", { shown: shownWindows, total: result.window_count });
  const more = Math.min(PREVIEW_STEP, result.window_count - shownWindows);
  $("more").hidden = more <= 0;
  show($("more"), "preview.more", { count: more });
}

function renderAnalysis(result, { fillLength }) {
  $("text-stats").hidden = false;
  show($("t-tokens"), "text.tokens_value", { tokens: result.tokens, encoding: result.encoding });
  show($("t-chars"), "{n}", { n: result.chars });
  const ratio = result.chars_per_token;
  const rule = SPEC.defaults.chars_per_token;
  if (ratio === null) showText($("t-ratio"), "—");
  else show($("t-ratio"), "text.ratio_value", { ratio: fixed(ratio, 2), rule, tokens: quantity("tokens", Math.ceil(result.chars / rule)) });
  showNotes($("text-notes"), result);
  if (fillLength) {
    form.querySelector('input[name="unit"][value="tokens"]').checked = true;
    $("doc").value = String(result.tokens);
    show($("doc-hint"), "calc.doc_hint_exact", { encoding: result.encoding });
    recalculate();
  }
  renderWindows(result, false);
}

/**
 * Tokenize `document` (a string or a file's bytes), or the last document when null. `name`
 * is the file's name, or a message of the catalog that labels a large paste.
 */
function analyze(document, { name = "", fillLength = true } = {}) {
  // A document still on its way is the one to count again, as new (its length fills the field).
  if (document === null && requests.pending) return analyze(requests.pending.document, requests.pending.meta);
  // A new document is analysed with the settings as they are now: a refresh they scheduled is moot.
  if (document !== null) {
    onChunking.cancel();
    if (files.length) leaveFiles();
  }
  const settings = chunkSettings();
  const payload = {
    encoding: $("encoding").value,
    chunk_size: settings?.chunk_size ?? null,
    overlap: settings?.overlap ?? null,
    first: 0,
    count: Math.max(PREVIEW_STEP, fillLength ? PREVIEW_STEP : shownWindows),
    name: typeof name === "string" ? name : "",
  };
  return requests.send("analyze", payload, document, {
    meta: { name },
    done: (r) => {
      requests.status.show(name ? "status.analyzed_named" : "status.analyzed",
        { name, tokens: quantity("tokens", r.tokens), chars: quantity("chars", r.chars) });
      renderAnalysis(r, { fillLength });
    },
  });
}

async function showMore() {
  const settings = chunkSettings();
  if (!settings || !requests.hasDocument) return;
  const first = shownWindows;
  const reply = await core.request("analyze", { doc: requests.doc, encoding: $("encoding").value, ...settings, first,
    count: PREVIEW_STEP });
  if (!reply.ok) {
    showErrors(reply.errors ?? [internalError(reply.internal)], textSlots);
    return;
  }
  renderWindows(reply.result, true);
  // The focus goes on to the first new window: the button sits after them (and hides after
  // the last batch, which would drop the focus to the page).
  $("windows").children[first]?.focus();
}

const onChunking = debounce(() => {
  if (requests.active && chunkSettings()) analyze(null, { fillLength: false });
}, TEXT_DEBOUNCE_MS);

// --- wiring -----------------------------------------------------------------------------

bindCoreStatus(core, {
  onReady: recalculate,
  onTaskProgress: (stage, done, total) => requests.status.progress(stage, done, total),
  stillWorks: "core.still_calculator",
});
requests.bindInput((document, name) => analyze(document, { name }), runFiles);

form.addEventListener("input", (event) => {
  if (event.target.id === "model") return; // its change event does it (chooseModel)
  // A length typed over the counted one is no longer the text's exact count.
  if (event.target.id === "doc") show($("doc-hint"), "calc.doc_hint");
  recalculate();
  if (["chunk_size", "overlap"].includes(event.target.id)) onChunking();
});
form.addEventListener("submit", (event) => event.preventDefault());
bindUrlState({
  unit: form.querySelectorAll('input[name="unit"]'),
  doc: $("doc"),
  cpt: $("chars_per_token"),
  size: $("chunk_size"),
  overlap: $("overlap"),
  price: $("price"),
  enc: $("encoding"),
  docs: $("documents"),
  model: $("model"),
});
bindCopyButton();
/** The text (or the files) counted again with the tokenizer of the page. */
function recountText() {
  if (files.length) recountFiles();
  else if (requests.active) analyze(null);
}

$("encoding").addEventListener("change", () => {
  // A tokenizer that is not the chosen model's means no model.
  const model = modelOf($("model").value);
  if (model && model.tokenizer !== $("encoding").value) {
    $("model").value = "";
    chooseModel();
  }
  recountText();
});
$("model").addEventListener("change", chooseModel);
$("more").addEventListener("click", showMore);

// The worked example of "How it is computed": the core's plan of the defaults (build.py
// computes it), in the page's numbers.
function showExample() {
  const { share, extra, ...numbers } = SPEC.example;
  setHtmlParams($("how-example"), { ...numbers, share: percent(share), extra: percent(extra) });
}

// A new language re-reads the typed numbers ("12,5" means 12.5 in Russian) and re-says the rest.
onLanguageChange(() => {
  showExample();
  recalculate();
});

labelModelOptions();
showExample();
if ($("model").value) chooseModel(); // from the URL
else recalculate();
requests.restoreText();
applyEmbedMode();
