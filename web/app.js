// The calculator page: DOM only. Numbers come from the JS mirror of the formula at once
// and from the Python core (in the worker) as soon as it is ready; text goes to the worker.
import { SPEC } from "./spec.js";
import { Cancelled, createCore } from "./bridge.js";
import { readCalcForm } from "./formula.js";
import {
  $, applyEmbedMode, bindCopyButton, bindCoreStatus, bindDocumentInput, bindUrlState, countAnalysis, debounce, enableOffline, integer, percent,
  setTextStatus, showErrors, showSnippets, TEXT_DEBOUNCE_MS,
} from "./common.js";

const PREVIEW_STEP = SPEC.defaults.preview;

const form = $("calc");
const errorSlots = [...document.querySelectorAll(".error[data-for]")];
const calcSlots = errorSlots.filter((slot) => slot.closest("#calc"));
const textSlots = errorSlots.filter((slot) => !slot.closest("#calc"));

function money(cost) {
  if (cost === 0) return "0";
  if (cost >= 1) return cost.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return cost.toLocaleString("en-US", { maximumSignificantDigits: 3 });
}

const core = createCore();
let calcSeq = 0;
let textSeq = 0;
let hasDocument = false;
let shownWindows = 0;

// --- calculator -----------------------------------------------------------------------

function readForm() {
  const data = new FormData(form);
  return {
    unit: data.get("unit"),
    doc: $("doc").value,
    chars_per_token: $("chars_per_token").value,
    chunk_size: $("chunk_size").value,
    overlap: $("overlap").value,
    price: $("price").value,
  };
}

function renderPlan(reply, source) {
  $("results").dataset.source = source;
  if (!reply.ok) {
    showErrors(reply.errors ?? [{ field: "doc_tokens", message: reply.internal }], calcSlots);
    for (const id of ["r-chunks", "r-total", "r-repeated", "r-extra", "r-cost"]) $(id).textContent = "—";
    $("r-detail").textContent = "Fix the highlighted field to see the result.";
    $("results").dataset.state = "invalid";
    return;
  }
  showErrors([], calcSlots);
  const p = reply.result;
  $("r-chunks").textContent = integer(p.chunks);
  $("r-total").textContent = integer(p.total_tokens);
  $("r-repeated").textContent = `${integer(p.repeated_tokens)} (${percent(p.repeated_share)} of the total)`;
  $("r-extra").textContent = percent(p.extra_share);
  $("r-cost").textContent = p.cost === null ? "enter a price" : `${money(p.cost)} at ${p.price_per_million} per million tokens`;
  const unit = readForm().unit === "chars" ? ` (${integer(p.doc_tokens)} tokens estimated from characters)` : "";
  $("r-detail").textContent = p.chunks === 1
    ? `The document fits in one chunk${unit}.`
    : `Step ${integer(p.step)} tokens; the last chunk holds the remaining ${integer(p.last_chunk_tokens)} tokens${unit}.`;
  $("results").dataset.state = "ok";
  calcSnippets(p);
}

const plainNumber = (raw) => raw.trim().replace(/[,_ \u00a0\u202f]/g, "");

function calcSnippets(p) {
  const values = readForm();
  const chars = values.unit === "chars";
  const ratio = chars ? Number(plainNumber(values.chars_per_token)) : null;
  const doc = chars ? `ragchunk.tokens_from_chars(${Number(plainNumber(values.doc))}, ${ratio})` : String(p.doc_tokens);
  const price = p.price_per_million === null ? "" : `, price_per_million=${p.price_per_million}`;
  showSnippets(
    [
      "import ragchunk",
      "",
      `doc_tokens = ${doc}`,
      `p = ragchunk.plan(doc_tokens, ${p.chunk_size}, ${p.overlap}${price})`,
      'print(p.chunks, p.total_tokens, p.repeated_tokens, f"{p.repeated_share:.1%}", f"{p.extra_share:.1%}", p.cost)',
      "",
    ].join("\n"),
    `python -m ragchunk calc ${chars ? `--chars ${Number(plainNumber(values.doc))} --chars-per-token ${ratio}` : `--tokens ${p.doc_tokens}`}` +
      ` --size ${p.chunk_size} --overlap ${p.overlap}${p.price_per_million === null ? "" : ` --price ${p.price_per_million}`}`,
  );
}

function recalculate() {
  const values = readForm();
  $("ratio-field").hidden = values.unit !== "chars";
  renderPlan(readCalcForm(SPEC, values), "page");
  if (!core.isReady) return;
  const seq = ++calcSeq;
  core.request("calculate", values).then((reply) => {
    if (seq === calcSeq) renderPlan(reply, "core");
  }, () => {});
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
  const meta = document.createElement("p");
  meta.className = "meta";
  const overlapNote = w.index > 0 ? ` · overlap ${integer(w.overlap_tokens)}` : "";
  meta.textContent = `Chunk ${integer(w.index + 1)} · ${integer(w.tokens)} tokens (${integer(w.token_start)}–${integer(w.token_end)})${overlapNote}`;
  const body = document.createElement("pre");
  body.className = "window-text";
  if (w.head) {
    const mark = document.createElement("mark");
    mark.className = "overlap";
    mark.title = "Repeated from the previous chunk";
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
  $("preview-title").textContent = `First chunks (${integer(shownWindows)} of ${integer(result.window_count)})`;
  const more = Math.min(PREVIEW_STEP, result.window_count - shownWindows);
  $("more").hidden = more <= 0;
  $("more").textContent = `Show ${more} more`;
}

function renderAnalysis(result, { fillLength }) {
  $("text-stats").hidden = false;
  $("t-tokens").textContent = `${integer(result.tokens)} (${result.encoding})`;
  $("t-chars").textContent = integer(result.chars);
  const ratio = result.chars_per_token;
  const rule = SPEC.defaults.chars_per_token;
  $("t-ratio").textContent = ratio === null ? "—"
    : `${ratio.toFixed(2)} (the ${rule}-characters rule would estimate ${integer(Math.ceil(result.chars / rule))} tokens)`;
  $("text-notes").replaceChildren(...result.notes.map((note) => Object.assign(document.createElement("li"), { textContent: note })));
  if (fillLength) {
    form.querySelector('input[name="unit"][value="tokens"]').checked = true;
    $("doc").value = String(result.tokens);
    $("doc-hint").textContent = `Exact token count of your text (${result.encoding}).`;
    recalculate();
  }
  renderWindows(result, false);
}

/** Tokenize `document` (a string or a file's bytes), or the last document when null. */
async function analyze(document, { name = "", fillLength = true } = {}) {
  const seq = ++textSeq;
  const settings = chunkSettings();
  const payload = {
    encoding: $("encoding").value,
    chunk_size: settings?.chunk_size ?? null,
    overlap: settings?.overlap ?? null,
    first: 0,
    count: Math.max(PREVIEW_STEP, fillLength ? PREVIEW_STEP : shownWindows),
    name,
  };
  setTextStatus(core.isReady ? "Tokenizing…" : "Waiting for the tokenizer to load…", true);
  showErrors([], textSlots);
  let reply;
  try {
    reply = await core.request("analyze", payload, document);
  } catch (error) {
    if (error instanceof Cancelled && seq === textSeq) {
      setTextStatus("Cancelled. The tokenizer is restarting; paste or drop the text again when it is ready.");
      hasDocument = false;
      clearTextResults();
    }
    return;
  }
  if (seq !== textSeq) return;
  countAnalysis();
  if (!reply.ok) {
    hasDocument = false;
    clearTextResults();
    setTextStatus("");
    showErrors(reply.errors ?? [{ field: "text", message: `Internal error: ${reply.internal}` }], textSlots);
    return;
  }
  hasDocument = true;
  const r = reply.result;
  setTextStatus(`${name ? name + ": " : ""}${integer(r.tokens)} tokens, ${integer(r.chars)} characters.`);
  renderAnalysis(r, { fillLength });
}

async function showMore() {
  const settings = chunkSettings();
  if (!settings || !hasDocument) return;
  const reply = await core.request("analyze", { encoding: $("encoding").value, ...settings, first: shownWindows, count: PREVIEW_STEP });
  if (reply.ok) renderWindows(reply.result, true);
  else showErrors(reply.errors ?? [{ field: "text", message: `Internal error: ${reply.internal}` }], textSlots);
}

const onChunking = debounce(() => {
  if (hasDocument && chunkSettings()) analyze(null, { fillLength: false });
}, TEXT_DEBOUNCE_MS);

// --- wiring -----------------------------------------------------------------------------

// Offline caching starts once the core has loaded, from the HTTP cache it just filled.
core.addEventListener("ready", () => enableOffline(), { once: true });
bindCoreStatus(core, {
  onReady: recalculate,
  onTaskProgress: (stage) => setTextStatus(`${stage}…`, true),
  stillWorks: " The calculator still works.",
});
bindDocumentInput({
  onDocument: (document, name) => analyze(document, { name }),
  onEmpty: (hadText) => {
    hasDocument = false;
    textSeq++;
    clearTextResults();
    setTextStatus("");
    showErrors(hadText ? [{ field: "text", message: "text is empty: paste some text or drop a file" }] : [], textSlots);
  },
  onTooLarge: (message) => showErrors([{ field: "file", message }], textSlots),
});

form.addEventListener("input", (event) => {
  recalculate();
  if (["chunk_size", "overlap"].includes(event.target.id)) onChunking();
});
form.addEventListener("submit", (event) => event.preventDefault());
bindUrlState(
  {
    unit: form.querySelectorAll('input[name="unit"]'),
    doc: $("doc"),
    cpt: $("chars_per_token"),
    size: $("chunk_size"),
    overlap: $("overlap"),
    price: $("price"),
    enc: $("encoding"),
  },
  document.body,
);
bindCopyButton();
$("encoding").addEventListener("change", () => {
  if (hasDocument) analyze(null);
});
$("more").addEventListener("click", showMore);
$("cancel").addEventListener("click", () => core.cancel());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("cancel").hidden) core.cancel();
});

recalculate();
applyEmbedMode();
