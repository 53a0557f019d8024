// The text splitter: DOM only. The document and the settings go to the worker, which
// splits with the Python core; thousands of chunks scroll smoothly because only the cards
// in view are in the DOM.
import { fixed, msg, onLanguageChange, percent, show, showText, t } from "../../i18n/i18n.js";
import { $, debounce } from "../../ui/dom.js";
import { TEXT_DEBOUNCE_MS } from "../../ui/document.js";
import { applyEmbedMode } from "../../ui/embed-mode.js";
import { internalError, showErrors, showNotes } from "../../ui/errors.js";
import { numberOptions } from "../../ui/form.js";
import { startPage } from "../../ui/page.js";
import { DocumentRequests } from "../../ui/request.js";
import { bindCopyButton, pyString, shellWord, showSnippets } from "../../ui/snippets.js";
import { bindCoreStatus } from "../../ui/status.js";
import { bindUrlState } from "../../ui/url-state.js";

// Cards have a fixed height (style.css .chunk-card) so the list can place them by index.
const CARD_HEIGHT = 208;
const OVERSCAN = 4;

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
// The chunks of the last split, page by page as the core sends them (records.page_columns):
// {doc, length, pages: Map(first -> page)}; a card reads its chunk with chunkAt.
let chunks = { doc: null, length: 0, pages: new Map() };
let exported = null;
const PAGE_SIZE = 200;

function settings() {
  const sizer = $("sizer").value;
  return {
    by: $("by").value,
    chunk_size: $("chunk_size").value,
    overlap: $("overlap").value,
    ...(sizer === "estimate" ? { chars_per_token: $("chars_per_token").value } : { encoding: sizer }),
    ...numberOptions(),
  };
}

function clearResults() {
  chunks = { doc: null, length: 0, pages: new Map() };
  exported = null;
  $("split-results").hidden = true;
  $("text-notes").replaceChildren();
  resetCards();
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
  const exact = result.tokenizer.startsWith("chars/")
    ? msg("split.estimate", { ratio: Number(result.tokenizer.slice(6)) })
    : msg("split.exact", { encoding: result.tokenizer });
  const by = msg(`split.by_name_${result.by}`);
  show($("s-tokenizer"), "{exact} {target}", { exact, target: msg("split.target", { size: result.size, overlap: result.overlap, by }) });
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
      show(count, "split.hist_count", { count: b.count });
      item.append(label, bar, count);
      return item;
    }),
  );
}

/**
 * Chunk `i` as the core sent it (numbers from the page's columns, texts sliced from its one
 * string), or null while its page is on its way (asked for here, once).
 */
function chunkAt(i) {
  const first = i - (i % PAGE_SIZE);
  const page = chunks.pages.get(first);
  if (!page) {
    requestPage(first);
    return null;
  }
  if (page.loading) return null;
  const k = i - first;
  const from = page.offsets[k];
  const head = from + page.overlap[k];
  return {
    id: page.id[k], start: page.start[k], end: page.end[k], content_start: page.content_start[k], tokens: page.tokens[k],
    overlap_tokens: page.overlap_tokens[k], heading_path: page.paths[page.path[k]],
    overlap_text: page.texts.slice(from, head), new_text: page.texts.slice(head, page.offsets[k + 1]),
  };
}

/** Ask the core for the page of chunks that starts at `first`; the cards are drawn when it comes. */
async function requestPage(first) {
  const asked = chunks;
  asked.pages.set(first, { loading: true });
  const reply = await core.request("chunks", { doc: asked.doc, first, count: PAGE_SIZE }).catch(() => null);
  if (asked !== chunks) return; // a newer split replaced these chunks
  if (!reply?.ok) {
    asked.pages.delete(first);
    return;
  }
  asked.pages.set(first, reply.result);
  for (const [id, card] of rendered) {
    if (id >= first && id < first + PAGE_SIZE && card.dataset.pending) {
      card.remove();
      rendered.delete(id);
    }
  }
  renderVisible();
}

/** A card's place while its chunk's page is on its way. */
function pendingCard(i) {
  const card = document.createElement("article");
  card.className = "chunk-card";
  card.dataset.id = String(i);
  card.dataset.pending = "true";
  card.style.top = `${i * CARD_HEIGHT}px`;
  card.setAttribute("aria-busy", "true");
  const meta = document.createElement("p");
  meta.className = "meta";
  show(meta, "split.meta_loading", { n: i + 1 });
  card.append(meta);
  return card;
}

function chunkCard(chunk) {
  // An article of the feed (#chunk-list role="feed"): it scrolls its own text, so it is in
  // the tab order (arrow keys read it; a scroll box out of the keyboard's reach is a trap).
  const card = document.createElement("article");
  card.className = "chunk-card";
  card.tabIndex = 0;
  card.setAttribute("aria-setsize", String(chunks.length));
  card.setAttribute("aria-posinset", String(chunk.id + 1));
  card.setAttribute("aria-labelledby", `chunk-meta-${chunk.id}`);
  card.style.top = `${chunk.id * CARD_HEIGHT}px`;
  card.dataset.id = String(chunk.id);
  const meta = document.createElement("p");
  meta.className = "meta";
  meta.id = `chunk-meta-${chunk.id}`;
  const where = chunk.heading_path.length ? ` · ${chunk.heading_path.join(" › ")}` : "";
  const numbers = { n: chunk.id + 1, tokens: chunk.tokens, overlap: chunk.overlap_tokens };
  show(meta, "{text}{where}", { text: msg(chunk.overlap_tokens ? "split.meta_overlap" : "split.meta", numbers), where });
  const body = document.createElement("pre");
  body.className = "window-text";
  const head = chunk.content_start - chunk.start;
  if (head > 0) {
    const mark = document.createElement("mark");
    mark.className = "overlap";
    mark.dataset.i18nAttr = "title=split.carried";
    mark.title = t("split.carried");
    mark.textContent = chunk.overlap_text;
    body.append(mark);
  }
  body.append(document.createTextNode(chunk.new_text));
  card.append(meta, body);
  return card;
}

// The cards in the DOM by chunk id. Cards that stay in view are kept, not rebuilt, so the
// focus (and a card's own scroll position) survives scrolling the list.
const rendered = new Map();

function resetCards() {
  rendered.clear();
  $("chunk-list").replaceChildren($("chunk-spacer"));
}

function renderVisible() {
  const list = $("chunk-list");
  $("chunk-spacer").style.height = `${chunks.length * CARD_HEIGHT}px`;
  const first = Math.max(0, Math.floor(list.scrollTop / CARD_HEIGHT) - OVERSCAN);
  const last = Math.min(chunks.length, Math.ceil((list.scrollTop + list.clientHeight) / CARD_HEIGHT) + OVERSCAN);
  for (const [id, card] of rendered) {
    // A focused card out of view stays: removing it would drop the focus to the page.
    if ((id < first || id >= last) && !card.contains(document.activeElement)) {
      card.remove();
      rendered.delete(id);
    }
  }
  // New cards go in chunk order (reading order and focus order follow the DOM).
  let next = [...rendered].filter(([id]) => id >= last).sort((a, b) => a[0] - b[0])[0]?.[1] ?? null;
  for (let i = last - 1; i >= first; i--) {
    let card = rendered.get(i);
    if (!card) {
      const chunk = chunkAt(i);
      card = chunk ? chunkCard(chunk) : pendingCard(i);
      rendered.set(i, card);
      list.insertBefore(card, next);
    }
    next = card;
  }
}

/** Focus the card of chunk `id` (rendering it first when it is out of view). */
function focusCard(id) {
  if (id < 0 || id >= chunks.length) return;
  const list = $("chunk-list");
  if (!rendered.has(id)) {
    list.scrollTop = id * CARD_HEIGHT;
    renderVisible();
  }
  rendered.get(id).focus();
}

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** Focus the first tab stop after the chunk list (`forward`) or the last one before it. */
function leaveFeed(forward) {
  const list = $("chunk-list");
  const after = (el) => list.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
  const stops = [...document.querySelectorAll(FOCUSABLE)]
    .filter((el) => !list.contains(el) && Boolean(after(el)) === forward);
  if (!forward) stops.reverse();
  // Controls in a closed <details> keep their boxes but take no focus: try each in turn.
  for (const el of stops) {
    el.focus();
    if (document.activeElement === el) return;
  }
}

// The feed pattern (WAI-ARIA APG): Page Down / Page Up move between cards; Control+End and
// Control+Home leave the list (every card is a tab stop: a long list is many Tab presses);
// arrow keys, Home and End scroll the focused card's own text.
$("chunk-list").addEventListener("keydown", (event) => {
  const card = event.target.closest?.(".chunk-card");
  if (card && event.ctrlKey && !event.altKey && !event.metaKey && (event.key === "End" || event.key === "Home")) {
    event.preventDefault();
    leaveFeed(event.key === "End");
    return;
  }
  if (!card || event.altKey || event.ctrlKey || event.metaKey) return;
  const step = { PageDown: 1, PageUp: -1 }[event.key];
  if (!step) return;
  event.preventDefault();
  focusCard(Number(card.dataset.id) + step);
});

let frame = 0;
$("chunk-list").addEventListener("scroll", () => {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(renderVisible);
});

function runSplit(document, name = null) {
  // A new document is split with the settings as they are now: a re-split they scheduled is moot.
  if (document !== null) resplit.cancel();
  const previousName = documentName;
  if (name !== null) documentName = name;
  return requests.send("split", { ...settings(), name: fileName() }, document, {
    // The core kept the previous document: so does its name.
    refused: () => {
      documentName = previousName;
    },
    done: (result) => {
      exported = null;
      chunks = { doc: result.doc, length: result.count, pages: new Map([[0, result.page]]) };
      showNotes($("text-notes"), result);
      requests.status.show(documentName ? "status.split_named" : "status.split", { name: documentName, chunks: result.stats.chunks, chars: result.chars });
      renderStats(result);
      splitSnippets(result);
      $("split-results").hidden = false;
      $("chunk-list").scrollTop = 0;
      resetCards();
      renderVisible();
    },
  });
}

const fileName = () => (typeof documentName === "string" ? documentName : "");

function fileStem() {
  return (fileName() || "document.md").replace(/\.[^.]*$/, "");
}

function splitSnippets(result) {
  const source = fileName() || "document.md";
  const estimate = result.tokenizer.startsWith("chars/");
  const counted = result.model ? `model=${pyString(result.model)}`
    : `tokenizer=${estimate ? `ragchunk.CharEstimate(${result.tokenizer.slice(6)})` : pyString(result.tokenizer)}`;
  const context = result.context && result.context !== "none" ? `, context=${pyString(result.context)}` : "";
  const flags = result.model ? `--model ${result.model}`
    : estimate ? `--chars-per-token ${result.tokenizer.slice(6)}` : `--encoding ${result.tokenizer}`;
  showSnippets(
    [
      "from pathlib import Path",
      "",
      "import ragchunk",
      "",
      `options = ragchunk.SplitOptions(by=${pyString(result.by)}, size=${result.size}, overlap=${result.overlap}, ${counted}${context})`,
      `result = ragchunk.split_document(${pyString(source)}, Path(${pyString(source)}).read_bytes(), options)`,
      "print(result.chunks, sum(result.chunk_tokens), result.overlap_tokens)",
      `Path(${pyString(fileStem() + ".chunks.jsonl")}).write_text(result.jsonl, encoding="utf-8")`,
      "",
    ].join("\n"),
    `python -m ragchunk split ${shellWord(source)} --by ${result.by} --size ${result.size} --overlap ${result.overlap} ` +
      `${flags}${context ? ` --context ${result.context}` : ""} -o ${shellWord(fileStem() + ".chunks.jsonl")} --stats`,
  );
}

async function download() {
  if (!requests.hasDocument) return;
  exported ??= core.request("export", { doc: requests.doc });
  const reply = await exported;
  if (!reply.ok) {
    showErrors(reply.errors ?? [internalError(reply.internal)], slots);
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

const resplit = debounce(() => {
  if (requests.hasDocument) runSplit(null);
}, TEXT_DEBOUNCE_MS);

function onSettings() {
  $("ratio-field").hidden = $("sizer").value !== "estimate";
  resplit();
}

bindCoreStatus(core, { onTaskProgress: (stage, done, total) => requests.status.progress(stage, done, total) });
requests.bindInput((document, name) => runSplit(document, name));
// A new language can change what a typed number means ("3,5" is 3.5 in Russian): split again.
onLanguageChange(() => onSettings());
$("settings").addEventListener("input", onSettings);
$("settings").addEventListener("change", onSettings);
$("settings").addEventListener("submit", (event) => event.preventDefault());
bindUrlState({ by: $("by"), size: $("chunk_size"), overlap: $("overlap"), sizer: $("sizer"), cpt: $("chars_per_token") });
bindCopyButton();
$("download").addEventListener("click", download);
$("ratio-field").hidden = $("sizer").value !== "estimate";
applyEmbedMode();
