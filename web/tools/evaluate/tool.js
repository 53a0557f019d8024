// Evaluate on your questions: DOM only. The documents go into the worker's workspace as in
// the splitter; the questions and the grid go with an "evaluate" request, which the Python
// core answers as the CLI's evaluate --json; with the embedding model the worker runs it
// (onnxruntime-web, fetched the first time the model is chosen). This module shows the
// rows (table.js), the chart (chart.js), the recommendation and what each question retrieved.
import { SPEC } from "../../spec.js";
import { fixed, msg, onLanguageChange, show, showText, t } from "../../i18n/i18n.js";
import { Cancelled } from "../../core/bridge.js";
import { expandArchives, loadFiles } from "../../ui/corpus.js";
import { $ } from "../../ui/dom.js";
import { bindDocumentInput } from "../../ui/document.js";
import { errorMessage, internalError, pageError, showErrors } from "../../ui/errors.js";
import { startPage } from "../../ui/page.js";
import { setPlanLink } from "../../ui/plan-link.js";
import { bindCoreStatus, TextStatus } from "../../ui/status.js";
import { bindUrlState } from "../../ui/url-state.js";
import { drawChart } from "./chart.js";
import { codeUnits, highlighted, questionLines, withAnswer } from "./text.js";
import { csvOf, ResultsTable, settingLabel } from "./table.js";

const SAMPLE = new URL("sample/", import.meta.url);
const SAMPLE_FILES = ["chatlogs.md", "state_of_the_union.md"];
const PASTED_SOURCE = "pasted.md";
const DEFAULT_QUESTIONS_NAME = "Questions";

const core = await startPage();
const slots = [...document.querySelectorAll(".error[data-for]")];
const status = new TextStatus();
// The documents in the workspace: {doc, source, name, chars, error}.
let docs = [];
// Each document's text by source, fetched from the core when a question's chunks are shown.
const texts = new Map();
let questionsName = DEFAULT_QUESTIONS_NAME;
let result = null;
let busy = false;

const checked = (name) => [...document.querySelectorAll(`input[name="${name}"]:checked`)].map((box) => box.value);
const usesModel = () => checked("retriever").some((name) => name !== "bm25");

// --- documents ---------------------------------------------------------------------------

function dropAll() {
  for (const entry of docs) if (entry.doc) core.request("drop", { doc: entry.doc });
  docs = [];
  texts.clear();
}

function showDocuments() {
  $("doc-list").replaceChildren(...docs.map((entry) => {
    const item = document.createElement("li");
    if (entry.error) {
      item.className = "notes";
      showText(item, `${entry.source}: ${errorMessage(entry.error)}`);
    } else show(item, "eval.doc_line", { name: entry.source, chars: entry.chars });
    return item;
  }));
  const pick = $("doc-view-pick");
  pick.replaceChildren(...docs.filter((entry) => entry.doc).map((entry) => new Option(entry.source, entry.doc)));
  $("doc-view-box").hidden = !pick.options.length;
  if (pick.options.length) viewDocument();
  $("drop").dataset.documents = String(docs.filter((entry) => entry.doc).length);
}

/** One document (a paste or one file) in place of every other. */
async function takeDocument(document, name) {
  // A file's name; typed text, or a large paste (its name a message of the catalog), is pasted.md.
  const source = typeof name === "string" && name ? name : PASTED_SOURCE;
  status.show("status.progress", { stage: msg("stage.reading") }, true);
  let answer;
  try {
    answer = await core.request("load", { name: source, source }, document);
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    status.show("status.cancelled_eval_docs");
    return false;
  }
  if (!answer.ok) {
    status.restore();
    showErrors(answer.errors ?? [internalError(answer.internal)], slots);
    return false;
  }
  dropAll();
  showErrors([], slots);
  docs = [{ doc: answer.result.doc, source, name: source, chars: answer.result.chars, error: null }];
  status.show("eval.docs_ready", { count: 1 });
  showDocuments();
  return true;
}

/** Several files, a folder or a .zip, one at a time, in place of every document. */
async function takeFiles(files) {
  dropAll();
  showErrors([], slots);
  const taken = [];
  try {
    for await (const entry of loadFiles(core, await expandArchives(files), status, "eval.loading")) taken.push(entry);
  } catch (error) {
    for (const entry of taken) if (entry.doc) core.request("drop", { doc: entry.doc });
    if (!(error instanceof Cancelled)) throw error;
    status.show("status.cancelled_eval_docs");
    showDocuments();
    return;
  }
  docs = taken;
  status.show("eval.docs_ready", { count: docs.filter((entry) => entry.doc).length });
  showDocuments();
}

bindDocumentInput({
  onDocument: takeDocument,
  onDocuments: takeFiles,
  onEmpty: () => {},
  onTooLarge: (error) => showErrors([error], slots),
});

async function loadSample() {
  const files = await Promise.all(SAMPLE_FILES.map(async (name) => {
    const data = new Uint8Array(await (await fetch(new URL(name, SAMPLE))).arrayBuffer());
    return { source: name, name, size: data.length, read: async () => data.slice() };
  }));
  const questions = await (await fetch(new URL("questions.csv", SAMPLE))).text();
  await takeFiles(files);
  $("questions").value = questions;
  questionsName = "questions.csv";
  showText($("questions-source"), "questions.csv");
  listQuestions();
  if (docs.some((entry) => entry.doc)) run();
}

// --- questions and select-to-answer ---------------------------------------------------------

$("questions").addEventListener("input", () => {
  listQuestions();
});

$("questions-file").addEventListener("change", async () => {
  const file = $("questions-file").files[0];
  $("questions-file").value = "";
  if (!file) return;
  $("questions").value = await file.text();
  questionsName = file.name;
  showText($("questions-source"), file.name);
  listQuestions();
});

/** The questions of the box one can give an answer to (plain lines), in the answer-for choice. */
function listQuestions() {
  if (!$("questions").value.trim()) {
    questionsName = DEFAULT_QUESTIONS_NAME;
    showText($("questions-source"), "");
  }
  const plain = questionsName === DEFAULT_QUESTIONS_NAME || /\.txt$/i.test(questionsName);
  const lines = plain ? questionLines($("questions").value) : [];
  const pick = $("answer-for");
  const kept = pick.value;
  pick.replaceChildren(...lines.map(({ line, question }) => new Option(question.slice(0, 80), String(line))));
  if ([...pick.options].some((option) => option.value === kept)) pick.value = kept;
  updateSetAnswer();
}

async function viewDocument() {
  const entry = docs.find((d) => d.doc === $("doc-view-pick").value);
  if (!entry) return;
  showText($("doc-view"), await textOf(entry));
}
$("doc-view-pick").addEventListener("change", viewDocument);

function selectedInView() {
  const selection = document.getSelection();
  if (!selection || selection.isCollapsed || !$("doc-view").contains(selection.anchorNode)) return "";
  return selection.toString().replace(/\s+/g, " ").trim();
}

function updateSetAnswer() {
  $("set-answer").disabled = !$("answer-for").options.length || !selectedInView();
}
document.addEventListener("selectionchange", updateSetAnswer);

$("set-answer").addEventListener("click", () => {
  const quote = selectedInView();
  if (!quote) return;
  $("questions").value = withAnswer($("questions").value, Number($("answer-for").value), quote);
  listQuestions();
  $("questions").dispatchEvent(new Event("change"));
});

// --- the evaluation -------------------------------------------------------------------------

async function textOf(entry) {
  if (!texts.has(entry.source)) {
    const reply = await core.request("text", { doc: entry.doc });
    texts.set(entry.source, reply.ok ? reply.result.text : "");
  }
  return texts.get(entry.source);
}

/** The grid's sizes as typed ("128, 256"), or the error of the first that is not a whole number. */
function sizes() {
  const typed = $("sizes").value.split(",").map((part) => part.trim()).filter(Boolean);
  if (!typed.length) return { error: pageError("chunk_size", "empty", {}) };
  for (const value of typed) {
    if (!/^\d+$/.test(value)) return { error: pageError("chunk_size", "not_whole", { value, unit: "tokens" }) };
  }
  return { sizes: typed.map(Number) };
}

function runStatus(key, params = {}) {
  show($("run-status"), key, params);
}

function setBusy(on) {
  busy = on;
  // Tests wait on it: how many evaluations have ended (with results or not).
  if (!on) $("run").dataset.finished = String(Number($("run").dataset.finished ?? 0) + 1);
  $("cancel").hidden = !on;
  $("run").disabled = on;
  $("run-progress").hidden = !on;
  $("drop").dataset.busy = on ? "true" : "false";
}

async function run() {
  if (busy) return;
  const loaded = docs.filter((entry) => entry.doc);
  const grid = sizes();
  const k = $("k").value.trim();
  const errors = [];
  if (!loaded.length) errors.push(pageError("text", "text_empty"));
  if (!$("questions").value.trim()) errors.push(pageError("questions", "questions_empty", { name: questionsName }));
  if (grid.error) errors.push(grid.error);
  if (!/^\d+$/.test(k)) errors.push(pageError("k", "not_whole", { value: k, unit: "chunks" }));
  showErrors(errors, slots);
  if (errors.length) return;
  const payload = {
    docs: loaded.map((entry) => entry.doc),
    questions: $("questions").value,
    questions_name: questionsName,
    by: checked("by"),
    sizes: grid.sizes,
    retrievers: checked("retriever"),
    k: Number(k),
    encoding: $("encoding").value,
  };
  setBusy(true);
  runStatus("status.progress", { stage: msg("stage.locating") });
  let reply;
  try {
    reply = await core.request("evaluate", payload);
  } catch (error) {
    setBusy(false);
    if (!(error instanceof Cancelled)) throw error;
    runStatus("status.cancelled_eval");
    return;
  }
  setBusy(false);
  if (!reply.ok) {
    showText($("run-status"), "");
    showErrors(reply.errors ?? [internalError(reply.internal)], slots);
    return;
  }
  result = reply.result;
  runStatus("eval.done", { questions: result.questions, rows: result.results.length });
  if (payload.retrievers.some((name) => name !== "bm25")) keepModel();
  showResult();
  $("eval-results").dataset.runs = String(Number($("eval-results").dataset.runs ?? 0) + 1);
}

$("run").addEventListener("click", run);
$("sample").addEventListener("click", loadSample);
$("cancel").addEventListener("click", () => core.cancel());
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && !$("cancel").hidden) core.cancel();
});

bindCoreStatus(core, {
  onTaskProgress: (stage, done, total, detail) => {
    if (!busy) return;
    $("run-progress").max = Math.max(1, total);
    $("run-progress").value = done;
    if (detail.stage === "model") {
      runStatus("eval.progress_model", { done: fixed(done / 1e6, 1), total: fixed(total / 1e6, 1) });
    } else if (detail.stage === "embedding" || detail.stage === "chunking") {
      const setting = detail.params.setting === "questions" ? msg("eval.the_questions") : detail.params.setting;
      // A setting is being chunked (the count of those done is one less); texts are counted once embedded.
      runStatus(`eval.progress_${detail.stage}`, { setting, done: detail.stage === "chunking" ? done + 1 : done, total });
    } else {
      runStatus("status.progress", { stage });
    }
  },
});
core.addEventListener("restarting", () => {
  docs = [];
  texts.clear();
  showDocuments();
  status.show("status.cancelled_eval_docs");
});

// --- what a person sees ----------------------------------------------------------------------

const table = new ResultsTable($("eval-table"), $("eval-body"));

// The recommendation says whole percents, as the core's sentence does.
const whole = (share) => msg("format.percent", { n: fixed(share * 100, 0) });

function recommendationText(retriever, answer) {
  const row = result.results.find((r) => r.retriever === retriever && settingLabel(r) === answer.recommended);
  const best = result.results.find((r) => r.retriever === retriever && settingLabel(r) === answer.best);
  const parts = [msg("eval.recommend", {
    retriever: msg(`eval.name_${retriever}`), setting: answer.recommended, recall: whole(row.recall),
    low: whole(row.recall_interval[0]), high: whole(row.recall_interval[1]), tokens: Math.round(row.tokens_read),
  })];
  if (best !== row) {
    parts.push(msg("eval.recommend_best", { setting: answer.best, recall: whole(best.recall), tokens: Math.round(best.tokens_read) }));
  }
  if (answer.cannot_tell.length) {
    const names = answer.cannot_tell.slice(0, 3).join(", ") + (answer.cannot_tell.length > 3 ? " …" : "");
    parts.push(msg("eval.recommend_alike", { names }));
  }
  return parts;
}

function showRecommendation() {
  const box = $("recommendation");
  const lines = Object.entries(result.recommendation).map(([retriever, answer]) => {
    const line = document.createElement("span");
    line.className = "sentence";
    line.dataset.retriever = retriever;
    const parts = recommendationText(retriever, answer);
    show(line, `eval.sentence_${parts.length}`, Object.fromEntries(parts.map((part, i) => [`p${i}`, part])));
    return line;
  });
  if (!lines.length) {
    const line = document.createElement("span");
    show(line, "eval.no_answers");
    lines.push(line);
  }
  box.replaceChildren(...lines);
  const first = Object.entries(result.recommendation)[0];
  const chosen = first && result.results.find((r) => r.retriever === first[0] && settingLabel(r) === first[1].recommended);
  $("to-splitter").hidden = !chosen;
  if (chosen) $("to-splitter").href = linkFor(chosen);
  // The planner takes what the recommended setting reads per question, at this k.
  setPlanLink($("plan-link"), chosen ? { read: Math.round(chosen.tokens_read), k: result.k } : null);
}

/** The splitter (the calculator for fixed windows) with the setting in its link. */
function linkFor(row) {
  const lang = new URLSearchParams(location.search).get("lang");
  const common = { size: row.size, overlap: row.overlap, ...(lang ? { lang } : {}) };
  if (row.by === "fixed") return `./?${new URLSearchParams({ ...common, enc: result.tokenizer })}`;
  return `splitter.html?${new URLSearchParams({ by: row.by, ...common, sizer: result.tokenizer, context: row.context })}`;
}

function showNotFound() {
  const items = result.not_found.slice(0, 10).map((missing) => {
    const item = document.createElement("li");
    if (missing.closest === null && missing.source) show(item, "eval.not_found_source", { id: missing.id, source: missing.source });
    else show(item, "eval.not_found", { id: missing.id, answer: missing.answer.slice(0, 80) });
    return item;
  });
  if (result.not_found.length > 10) {
    const more = document.createElement("li");
    show(more, "eval.not_found_more", { count: result.not_found.length - 10 });
    items.push(more);
  }
  $("not-found").replaceChildren(...items);
}

function showPerQuestionChoice() {
  const pick = $("pq-setting");
  pick.replaceChildren(...result.results.map((row, index) =>
    new Option(`${settingLabel(row)} · ${t(`eval.name_${row.retriever}`)}`, String(index))));
  const answer = Object.entries(result.recommendation)[0];
  const recommended = answer && result.results.findIndex((r) => r.retriever === answer[0] && settingLabel(r) === answer[1].recommended);
  if (recommended >= 0) pick.value = String(recommended);
}

async function showPerQuestion() {
  const row = result.results[Number($("pq-setting").value)];
  if (!row) return;
  const bySource = new Map(docs.filter((entry) => entry.doc).map((entry) => [entry.source, entry]));
  const asked = new Map(result.asked.map((q) => [q.id, q.question]));
  const items = [];
  for (const entry of row.per_question.slice(0, 50)) {
    const item = document.createElement("li");
    const title = document.createElement("p");
    title.className = "question";
    showText(title, asked.get(entry.id) ?? entry.id);
    const list = document.createElement("ol");
    for (const [rank, chunk] of entry.retrieved.entries()) {
      const doc = bySource.get(chunk.source);
      const text = doc ? await textOf(doc) : "";
      const li = document.createElement("li");
      li.className = "retrieved";
      li.dataset.rank = String(rank + 1);
      const answers = entry.answers.filter((a) => a.source === chunk.source);
      li.append(...highlighted(text, chunk, answers, codeUnits(text)));
      list.append(li);
    }
    item.append(title, list);
    items.push(item);
  }
  $("per-question").replaceChildren(...items);
}
$("pq-setting").addEventListener("change", showPerQuestion);

function showResult() {
  $("eval-results").hidden = false;
  showRecommendation();
  showNotFound();
  table.show(result.results);
  drawChart($("chart"), result);
  showPerQuestionChoice();
  showPerQuestion();
}

onLanguageChange(() => {
  if (result) drawChart($("chart"), result);
});

function download(name, text, type) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(new Blob([text], { type }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}
// The CLI's evaluate --json prints the object and a newline.
$("download-json").addEventListener("click", () => download("evaluation.json", `${result.json}\n`, "application/json"));
$("download-csv").addEventListener("click", () => download("evaluation.csv", csvOf(result.results), "text/csv"));

// --- the model's first download ----------------------------------------------------------------

/** Ask the service worker to keep the model and its runtime for offline use (once they have run). */
async function keepModel() {
  const registration = await navigator.serviceWorker?.getRegistration();
  const worker = registration?.active;
  if (!worker) return;
  navigator.serviceWorker.addEventListener("message", ({ data }) => {
    if (data?.type === "kept") $("model-note").dataset.kept = String(data.paths.length);
  }, { once: true });
  worker.postMessage({ type: "keep", paths: SPEC.evaluate.files });
}

function showModelNote() {
  const { model, runtime } = SPEC.evaluate;
  // The model's ids are our WordPiece's: its tables come with it the first time.
  const tables = SPEC.tokenizers["bert-base-uncased"].tables.reduce((sum, table) => sum + table.bytes, 0);
  if (usesModel()) show($("model-note"), "eval.model_note", { mb: fixed((model.bytes + runtime.bytes + tables) / 1e6, 1) });
  else showText($("model-note"), "");
}
for (const box of document.querySelectorAll('input[name="retriever"]')) box.addEventListener("change", showModelNote);

bindUrlState({ sizes: $("sizes"), k: $("k"), encoding: $("encoding") });
showModelNote();
listQuestions();
