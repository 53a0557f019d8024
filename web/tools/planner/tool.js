// The context planner: DOM only. The budget comes from the JS mirror of the formula
// (core/budget.js) at once, and from the Python core (the worker's "context") as soon as it is
// ready, with every pasted text counted by the LLM's tokenizer (or estimated, said as such).
import { SPEC } from "../../spec.js";
import { ANSWER, planCounts, RETRIEVED } from "../../core/budget.js";
import { collectingErrors, readCount, readReal } from "../../core/formula.js";
import { decimalComma, fixed, has, money, msg, onLanguageChange, percent, quantity, show, showText }
  from "../../i18n/i18n.js";
import { $, debounce } from "../../ui/dom.js";
import { TEXT_DEBOUNCE_MS } from "../../ui/document.js";
import { applyEmbedMode } from "../../ui/embed-mode.js";
import { internalError, pageError, showErrors } from "../../ui/errors.js";
import { startPage } from "../../ui/page.js";
import { bindCopyButton, pyString, shellWord, showSnippets } from "../../ui/snippets.js";
import { bindCoreStatus } from "../../ui/status.js";
import { bindUrlState } from "../../ui/url-state.js";

const PLANNER = SPEC.planner;
const LIMITS = PLANNER.limits;
// The parts a person may paste, by their count field; the core's name of each.
const TEXT_PARTS = { system: "system prompt", tools: "tools", history: "history", question: "question" };
// Each part's key in the catalogs (plan.part_<key>) and its colour in the bar.
const PART_KEYS = { "system prompt": "system", tools: "tools", history: "history", question: "question",
  [RETRIEVED]: "retrieved", [ANSWER]: "answer" };
const TEXT_PLACEHOLDER = "{text}";
const SOURCE_PLACEHOLDER = "{source}";

const core = await startPage();
const slots = [...document.querySelectorAll(".error[data-for]")];
const llmOf = (id) => PLANNER.llms.find((llm) => llm.id === id) ?? PLANNER.llms.find((llm) => llm.id === PLANNER.defaults.llm);
const llm = () => llmOf($("llm").value);

// --- counts the core gave for the texts ------------------------------------------------------

// By part (and "template"): {text, llm, tokens, exact} of the core's last count, so the
// mirror shows it again at once while the text and the LLM stay the same.
const counted = new Map();
{
  // The build counted the default template for the default LLM (planner_page.py): the first
  // paint is exact, as the page's HTML is, instead of ≈ until the worker is ready.
  const built = $("template").dataset.tokens;
  const { template, llm: id } = PLANNER.defaults;
  if (built) {
    counted.set("template", { text: template.replaceAll(TEXT_PLACEHOLDER, "").replaceAll(SOURCE_PLACEHOLDER, ""),
      llm: id, ratio: "", tokens: Number(built), exact: true });
  }
}

/** A text part as the mirror takes it: the core's count of this text, or ⌈characters ÷ 4⌉ while it counts. */
function textCount(part, text) {
  const known = counted.get(part);
  if (known && known.text === text && known.llm === llm().id && known.ratio === $("ratio").value) {
    return { tokens: known.tokens, exact: known.exact, pending: false };
  }
  return { tokens: Math.ceil(text.length / SPEC.defaults.chars_per_token), exact: false, pending: true };
}

const textOf = (part) => $(`${part}-text`).value;

/** What wraps each chunk once {text} is left out and {source} filled, as plan_context counts it. */
const wrapper = () => $("template").value.replaceAll(TEXT_PLACEHOLDER, "").replaceAll(SOURCE_PLACEHOLDER, $("source").value);

// --- the form --------------------------------------------------------------------------------

/** The typed numbers, checked as the core checks them; {values, errors}. */
function readForm() {
  const comma = decimalComma();
  const { errors, attempt } = collectingErrors();
  const whole = (field, maximum = LIMITS.part_tokens) => attempt(() => readCount(field, $(field).value, 0, maximum, "tokens",
    comma, SPEC.examples[field] ?? SPEC.examples.chunk_size));
  const price = (field) => {
    const raw = $(field).value;
    return raw.trim() ? attempt(() => readReal(field, raw, 0, LIMITS.price_per_million, true, comma, SPEC.examples.price_per_million)) : null;
  };
  const values = {};
  // The window a server gives the model (vLLM --max-model-len, Ollama num_ctx); the LLM's unless typed.
  values.window = attempt(() => readCount("window", $("window").value, 1, LIMITS.window, "tokens", comma,
    SPEC.examples.window));
  if (values.window === llm().window) values.window = null;
  for (const part of Object.keys(TEXT_PARTS)) {
    const text = textOf(part);
    if (text) values[part] = textCount(part, text);
    else if (part === "history") values.history = [whole("turns", LIMITS.k), whole("turn_tokens")];
    else values[part] = whole(part);
  }
  values.k = whole("k", LIMITS.k);
  values.chunkTokens = whole("chunk_size");
  values.answer = whole("answer");
  values.inputPrice = price("input_price");
  values.outputPrice = price("output_price");
  // An estimated model's ratio (its tokens per reference token), the catalog's unless typed.
  const ratio = $("ratio").value;
  values.ratio = !llm().exact && ratio.trim()
    ? attempt(() => readReal("ratio", ratio, 0, LIMITS.ratio, false, comma, String(llm().ratio))) : null;
  if (values.ratio === llm().ratio) values.ratio = null;
  const template = $("template").value;
  if (template && !template.includes(TEXT_PLACEHOLDER)) {
    errors.push(pageError("template", "template_without_text",
      { value: pyString(template.slice(0, 40)).replace(/^"|"$/g, "'"), placeholder: TEXT_PLACEHOLDER }));
  }
  const wrap = wrapper();
  values.templateText = wrap !== "";
  values.template = wrap ? textCount("template", wrap) : { tokens: 0, exact: true, pending: false };
  values.templateTokens = values.template.tokens;
  values.templateExact = !values.template.pending;
  return { values, errors };
}

// --- what the page shows ---------------------------------------------------------------------

/** The LLMs' options in the page's language (build.py writes them in English for the first paint). */
function labelLlmOptions() {
  for (const option of $("llm").options) {
    const model = PLANNER.llms.find((m) => m.id === option.value);
    if (model) show(option, model.exact ? "plan.llm_option" : "plan.llm_option_estimate",
      { name: model.name, window: quantity("tokens", model.window) });
  }
}

function showLlm() {
  const model = llm();
  const answer = model.max_output === null ? msg("plan.answer_shares") : msg("plan.answer_up_to", { n: model.max_output });
  const counted = model.exact ? msg("plan.counted_exact", { tokenizer: model.tokenizer })
    : msg("plan.counted_estimate", { reference: model.counted_by });
  const prices = model.input_price === null ? msg("plan.prices_open")
    : msg("plan.prices_value", { input: fixed(model.input_price, 2), output: fixed(model.output_price, 2), checked: model.checked });
  show($("llm-hint"), "plan.llm_hint", { window: quantity("tokens", model.window), answer, counted, prices });
  if (model.max_output === null) showText($("answer-hint"), "");
  else show($("answer-hint"), "plan.answer_hint", { llm: model.name, n: model.max_output });
  show($("price-hint"), model.input_price === null ? "plan.price_hint_open" : "plan.price_hint", { llm: model.name });
  if (!model.exact) show($("ratio-label"), "plan.ratio_label", { llm: model.name, reference: model.counted_by });
}

/** A text part's count under its box: exact, an estimate, or being counted. */
function showCount(part, value, slot) {
  if (!value || value.pending === undefined) {
    showText(slot, "");
    return;
  }
  const tokens = quantity("tokens", value.tokens);
  if (value.pending) show(slot, core.isReady ? "plan.counting" : "plan.counting_later", { tokens });
  else if (value.exact) show(slot, "plan.count_exact", { tokens, tokenizer: llm().counted_by });
  else show(slot, "plan.count_estimate", { tokens, reference: llm().counted_by });
}

function showCounts(values) {
  for (const part of Object.keys(TEXT_PARTS)) {
    const value = textOf(part) ? values[part] : null;
    showCount(part, value, $(`${part}-count`));
    // A pasted text is the part: its count field shows the count and takes no typing.
    const fields = part === "history" ? [$("turns"), $("turn_tokens")] : [$(part)];
    for (const field of fields) field.disabled = Boolean(value);
    if (value && !value.pending && part !== "history") $(part).value = String(value.tokens);
  }
  showCount("template", values.templateText ? values.template : null, $("template-count"));
}

/** How a part's tokens were had, for its row: a count given, a text counted (or estimated), a product. */
function howCounted(part, plan) {
  const key = PART_KEYS[part.name];
  if (!part.exact) return msg("plan.counted_approx", { reference: plan.counted_by });
  if (key === "retrieved") {
    return msg("plan.how_retrieved", { k: plan.k, size: plan.chunk_tokens, template: plan.template_tokens });
  }
  if (key === "answer") return msg("plan.how_reserved");
  if (part.given === "text") return msg("plan.how_text", { tokenizer: plan.counted_by });
  if (key === "history" && part.detail) {
    const [turns, each] = part.detail.split(" × ").map((n) => Number(n.replaceAll(",", "")));
    return msg("plan.how_turns", { count: turns, each });
  }
  return msg("plan.how_given");
}

function renderBar(plan) {
  const bar = $("window-bar");
  const segments = [];
  let room = plan.window;
  for (const part of plan.parts) {
    const shown = Math.max(0, Math.min(part.tokens, room));
    room -= shown;
    if (!part.tokens) continue;
    const segment = document.createElement("span");
    segment.className = `segment part-${PART_KEYS[part.name]}${plan.over === part.name ? " over" : ""}`;
    segment.style.width = `${(shown / plan.window) * 100}%`;
    segment.title = part.name;
    segments.push(segment);
  }
  if (plan.left > 0) {
    const left = document.createElement("span");
    left.className = "segment part-left";
    left.style.width = `${(plan.left / plan.window) * 100}%`;
    segments.push(left);
  }
  bar.replaceChildren(...segments);
  bar.dataset.over = plan.over ? "true" : "false";
}

function renderParts(plan) {
  const rows = plan.parts.map((part) => {
    const row = document.createElement("tr");
    row.dataset.part = PART_KEYS[part.name];
    const name = document.createElement("th");
    name.scope = "row";
    const swatch = document.createElement("span");
    swatch.className = `swatch part-${PART_KEYS[part.name]}`;
    swatch.setAttribute("aria-hidden", "true");
    const label = document.createElement("span");
    show(label, `plan.part_${PART_KEYS[part.name]}`);
    name.append(swatch, label);
    const tokens = document.createElement("td");
    tokens.className = "num";
    show(tokens, part.exact ? "{n}" : "plan.approx", { n: part.tokens });
    const share = document.createElement("td");
    share.className = "num";
    show(share, "{n}", { n: percent(part.tokens / plan.window) });
    const how = document.createElement("td");
    const said = howCounted(part, plan);
    show(how, said.key, said.params);
    row.append(name, tokens, share, how);
    if (plan.over === part.name) row.className = "over";
    return row;
  });
  $("parts-table").tBodies[0].replaceChildren(...rows);
  show($("r-left"), plan.parts.every((p) => p.exact) ? "{n}" : "plan.approx", { n: plan.left });
  show($("r-left-share"), "{n}", { n: percent(plan.left / plan.window) });
  show($("parts-caption"), "plan.caption", { llm: llm().name, window: quantity("tokens", plan.window), used: plan.used,
    share: percent(plan.used / plan.window) });
}

function render(plan, source) {
  const results = $("plan-results");
  results.dataset.source = source;
  results.dataset.state = "ok";
  results.dataset.fits = plan.over ? "false" : "true";
  renderBar(plan);
  renderParts(plan);
  const warning = $("over-warning");
  warning.hidden = !plan.over;
  if (plan.over) {
    // In a window of one's own, a larger window is the server's setting, not another model.
    show(warning, plan.window === llm().window ? "plan.over" : "plan.over_own", { llm: llm().name, window: plan.window,
      part: msg(`plan.part_${PART_KEYS[plan.over]}`), over_by: -plan.left });
  }
  // A figure made from an estimated part is an estimate too, and says so.
  const figure = (element, n) => show(element, plan.parts.every((p) => p.exact) ? "{n}" : "plan.approx", { n });
  if (plan.max_k === null) show($("r-max-k"), "plan.none");
  else figure($("r-max-k"), plan.max_k);
  if (plan.max_chunk_size === null) show($("r-max-size"), "plan.no_k");
  else figure($("r-max-size"), quantity("tokens", plan.max_chunk_size));
  if (plan.cost_per_request === null) {
    show($("r-cost"), "plan.cost_none");
    show($("r-cost-1000"), "plan.cost_none");
  } else {
    figure($("r-cost"), msg("plan.cost_value", { cost: money(plan.cost_per_request) }));
    figure($("r-cost-1000"), msg("plan.cost_value", { cost: money(plan.cost_per_1000) }));
  }
  const model = llm();
  $("estimate-note").hidden = !plan.estimate;
  if (plan.estimate) {
    const measured = model.ratio_source.startsWith("measured");
    show($("estimate-note"), measured ? "plan.estimate_measured" : "plan.estimate_unmeasured",
      { llm: model.name, reference: model.counted_by, ratio: plan.ratio });
  }
  showPlanSnippets(plan);
}

// JSON's reason for refusing the tools, in the page's language when the catalog knows it
// (json_reason.<its words as a slug>; the English is Python's json module's own).
const jsonReason = (reason) => `json_reason.${reason.replace("':'", "colon").replace("','", "comma").toLowerCase()
  .replace(/[^a-z]+/g, "_").replace(/^_|_$/g, "")}`;
const sayable = (error) => (error.code === "tools_not_json" && has(jsonReason(error.params.reason))
  ? { ...error, params: { ...error.params, reason: msg(jsonReason(error.params.reason)) } } : error);

function renderInvalid(errors, source) {
  showErrors(errors.map(sayable), slots);
  const results = $("plan-results");
  results.dataset.source = source;
  results.dataset.state = "invalid";
  for (const id of ["r-left", "r-left-share", "r-max-k", "r-max-size", "r-cost", "r-cost-1000"]) showText($(id), "—");
  $("parts-table").tBodies[0].replaceChildren();
  $("window-bar").replaceChildren();
  $("over-warning").hidden = true;
  $("estimate-note").hidden = true;
}

// --- the same in Python and on the command line ----------------------------------------------

const FILES = { system: "system.txt", tools: "tools.json", history: "history.txt", question: "question.txt" };

function showPlanSnippets(plan) {
  const model = llm();
  const given = {};
  const flags = {};
  for (const part of Object.keys(TEXT_PARTS)) {
    const text = textOf(part);
    const tokens = plan.parts.find((p) => p.name === TEXT_PARTS[part]).tokens;
    if (text) {
      given[part] = `open(${pyString(FILES[part])}).read()`;
      flags[part] = FILES[part];
    } else if (part === "history") {
      const [turns, each] = [$("turns").value, $("turn_tokens").value].map((v) => Number(v.replace(/[^0-9]/g, "")));
      given.history = `(${turns}, ${each})`;
      flags.history = `${turns}x${each}`;
    } else {
      given[part] = String(tokens);
      flags[part] = String(tokens);
    }
  }
  const template = $("template").value;
  const source = $("source").value;
  const prices = [];
  const priceFlags = [];
  for (const [name, value, own] of [["input_price", plan.input_price, model.input_price], ["output_price", plan.output_price, model.output_price]]) {
    if (value !== null && value !== own) {
      prices.push(`, ${name}=${value}`);
      priceFlags.push(` --${name.replace("_", "-")} ${value}`);
    }
  }
  if (plan.window !== model.window) {
    prices.unshift(`, window=${plan.window}`);
    priceFlags.unshift(` --window ${plan.window}`);
  }
  if (plan.estimate && plan.ratio !== model.ratio) {
    prices.push(`, ratio=${plan.ratio}`);
    priceFlags.push(` --ratio ${plan.ratio}`);
  }
  const python = [
    "import ragchunk",
    "",
    `plan = ragchunk.plan_context(${pyString(model.id)}, system=${given.system}, tools=${given.tools},` +
      ` history=${given.history}, question=${given.question}, k=${plan.k}, chunk_tokens=${plan.chunk_tokens}` +
      `${template ? `, template=${pyString(template)}` : ""}${source ? `, source=${pyString(source)}` : ""}` +
      `, answer=${plan.parts.at(-1).tokens}${prices.join("")})`,
    "print(plan.left, plan.max_k, plan.max_chunk_size, plan.cost_per_request, plan.cost_per_1000)",
    "",
  ].join("\n");
  // The CLI reads \n in --template as a new line.
  const cliTemplate = template.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\t", "\\t");
  const cli = `python -m ragchunk context --llm ${model.id} --system ${flags.system} --tools ${flags.tools}` +
    ` --history ${flags.history} --question ${flags.question} --chunks ${plan.k}x${plan.chunk_tokens}` +
    `${template ? ` --template ${shellWord(cliTemplate)}` : ""}${source ? ` --source ${shellWord(source)}` : ""}` +
    ` --answer ${plan.parts.at(-1).tokens}${priceFlags.join("")}`;
  showSnippets(python, cli);
}

// --- the budget: the mirror at once, the core when it is ready --------------------------------

let planSeq = 0;

function recalculate() {
  showLlm();
  const { values, errors } = readForm();
  showCounts(values);
  if (errors.length) {
    renderInvalid(errors, "page");
    return;
  }
  const answer = planCounts(llm(), values);
  if (!answer.ok) {
    renderInvalid(answer.errors, "page");
    return;
  }
  showErrors([], slots);
  render(answer.result, "page");
  askCore(values);
}

/** The payload of the worker's "context": each text as it is, each count as read. */
function payloadOf(values) {
  const payload = { llm: llm().id };
  for (const part of Object.keys(TEXT_PARTS)) {
    const text = textOf(part);
    if (text) payload[part] = text;
    else if (part === "history") [payload.turns, payload.turn_tokens] = values.history;
    else payload[part] = values[part];
  }
  Object.assign(payload, { k: values.k, chunk_tokens: values.chunkTokens, template: $("template").value,
    source: $("source").value, answer: values.answer, window: values.window, input_price: values.inputPrice,
    output_price: values.outputPrice, ratio: values.ratio });
  return payload;
}

const askCore = debounce((values) => {
  if (!core.isReady) return;
  const seq = ++planSeq;
  const payload = payloadOf(values);
  const texts = Object.fromEntries(Object.keys(TEXT_PARTS).map((part) => [part, textOf(part)]));
  const wrap = wrapper();
  const model = llm().id;
  const ratio = $("ratio").value;
  core.request("context", payload).then((reply) => {
    if (seq !== planSeq) return;
    if (!reply.ok) {
      renderInvalid(reply.errors ?? [internalError(reply.internal)], "core");
      return;
    }
    const plan = reply.result;
    for (const [part, name] of Object.entries(TEXT_PARTS)) {
      const found = plan.parts.find((p) => p.name === name);
      if (texts[part]) counted.set(part, { text: texts[part], llm: model, ratio, tokens: found.tokens, exact: found.exact });
    }
    if (wrap) counted.set("template", { text: wrap, llm: model, ratio, tokens: plan.template_tokens, exact: !plan.estimate });
    showErrors([], slots);
    showCounts(readForm().values);
    render(plan, "core");
  }, () => {});
}, TEXT_DEBOUNCE_MS / 3);

// --- links ------------------------------------------------------------------------------------

// What the page puts in a box for the LLM: its window and prices (build.py writes the default
// LLM's). A box holds the person's own when it differs from that (a box the link fills is
// theirs), and their own is never replaced; one equal to the LLM's follows the next LLM.
const linked = new URLSearchParams(location.search);
const autoValues = { ratio: "" };
for (const [field, param] of [["window", "window"], ["input_price", "in"], ["output_price", "out"]]) {
  autoValues[field] = linked.has(param) ? null : $(field).defaultValue;
}

function fillPrices() {
  const model = llm();
  const own = [["window", model.window], ["input_price", model.input_price], ["output_price", model.output_price]];
  for (const [field, value] of own) {
    const shown = value === null ? "" : String(value);
    const typed = $(field).value !== autoValues[field] && (field !== "window" || $(field).value.trim() !== "");
    // The LLM's own is the field's default: the link leaves it out, as it leaves out every default.
    $(field).defaultValue = shown;
    if (!typed) $(field).value = shown;
    autoValues[field] = shown;
  }
  // The catalog's ratio is the field's default, as a price is (the link leaves it out).
  $("ratio-field").hidden = model.exact;
  if ($("ratio").value === autoValues.ratio) {
    $("ratio").value = $("ratio").defaultValue = model.exact ? "" : String(model.ratio);
    autoValues.ratio = $("ratio").value;
  }
}

/**
 * Settings another tool passed in its link: ?size= (a chunk size) or ?read= (the tokens the
 * evaluation read per question, with its k): the chunk size is then ⌈read ÷ k⌉.
 */
function takeLinkedSettings() {
  const params = new URLSearchParams(location.search);
  const read = Number(params.get("read"));
  if (!params.has("read") || !Number.isFinite(read) || read <= 0) return;
  const k = Math.max(1, Number(params.get("k")) || PLANNER.defaults.k);
  $("k").value = String(k);
  $("chunk_size").value = String(Math.ceil(read / k));
  $("from-hint").hidden = false;
  show($("from-hint"), "plan.from_evaluation", { read: Math.round(read), k, size: Math.ceil(read / k) });
  params.delete("read");
  params.set("k", String(k));
  params.set("size", $("chunk_size").value);
  history.replaceState(null, "", `?${params}`);
}

// --- wiring -------------------------------------------------------------------------------------

const onText = debounce(recalculate, TEXT_DEBOUNCE_MS);
$("plan").addEventListener("input", (event) => {
  if (event.target.id === "llm") return; // its change event does it
  if (event.target.tagName === "TEXTAREA" || event.target.id === "source") {
    // The mirror shows the estimate of a new text at once; the core counts it once the typing pauses.
    onText();
    return;
  }
  recalculate();
});
$("plan").addEventListener("submit", (event) => event.preventDefault());
$("llm").addEventListener("change", () => {
  fillPrices();
  recalculate();
});
bindCoreStatus(core, { onReady: recalculate, stillWorks: "core.still_planner" });
takeLinkedSettings();
bindUrlState({
  llm: $("llm"),
  window: $("window"),
  system: $("system"),
  tools: $("tools"),
  turns: $("turns"),
  turn: $("turn_tokens"),
  question: $("question"),
  k: $("k"),
  size: $("chunk_size"),
  answer: $("answer"),
  in: $("input_price"),
  out: $("output_price"),
  ratio: $("ratio"),
});
bindCopyButton();
// A new language re-reads the typed numbers ("12,5" is 12.5 in Russian) and re-says the rest.
onLanguageChange(recalculate);
labelLlmOptions();
fillPrices();
recalculate();
applyEmbedMode();
