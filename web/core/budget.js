// The context planner's formula, mirrored line for line from pycore/ragchunk/llms/budget.py
// (and the checks plan_context makes on counts, from llms/context.py), so the planner answers
// while Python boots. tests/unit/test_budget_mirror.py runs this file under Node over
// thousands of generated cases and asserts the same JSON as Python's. No imports: the test
// loads it on its own. Integer steps use BigInt where a quotient is taken, so nothing rounds;
// the two costs are one float expression each, in the order Python writes them.

export const RETRIEVED = "retrieved context";
export const ANSWER = "answer";

/**
 * The window shared between `fixed` parts ([name, tokens]), `k` chunks and the answer, as
 * ragchunk.llms.budget.budget (the same keys, in plain JSON).
 */
export function budget(window, answer, fixed, k, chunkTokens, templateTokens, inputPrice, outputPrice) {
  const fixedTokens = fixed.reduce((sum, [, tokens]) => sum + tokens, 0);
  const perChunk = chunkTokens + templateTokens;
  const retrieved = k * perChunk;
  const parts = [...fixed, [RETRIEVED, retrieved], [ANSWER, answer]];
  let over = null;
  let running = 0;
  for (const [name, tokens] of parts) {
    running += tokens;
    if (running > window) {
      over = name;
      break;
    }
  }
  const used = fixedTokens + retrieved + answer;
  const room = window - fixedTokens - answer;
  const maxK = perChunk === 0 ? null : Number(BigInt(Math.max(room, 0)) / BigInt(perChunk));
  const maxChunkSize = k === 0 ? null : Math.max(Number(BigInt(Math.max(room, 0)) / BigInt(k)) - templateTokens, 0);
  const inputTokens = fixedTokens + retrieved;
  let cost = null;
  if (inputPrice !== null && outputPrice !== null) {
    cost = (inputTokens * inputPrice + answer * outputPrice) / 1000000;
  }
  return {
    parts: parts.map(([name, tokens]) => ({ name, tokens })),
    used,
    left: window - used,
    over,
    room,
    max_k: maxK,
    max_chunk_size: maxChunkSize,
    input_tokens: inputTokens,
    cost_per_request: cost,
    cost_per_1000: cost === null ? null : cost * 1000,
  };
}

const grouped = (n) => n.toLocaleString("en-US");

/** Python's "{:g}" of a ratio (1.0 -> "1", 1.09 -> "1.09"), for the estimate's note. */
const shortNumber = (x) => String(Number(x.toPrecision(6)));

/**
 * A part given as a number of tokens ({tokens} of a count, exact), or counted from text
 * ({tokens, exact, given: "text"}), as plan_context's Part.
 */
function part(name, value) {
  if (typeof value === "number") return { name, tokens: value, exact: true, given: "count", detail: "" };
  return { name, tokens: value.tokens, exact: value.exact, given: "text", detail: "" };
}

/**
 * ragchunk.plan_context for counts already checked (whole, in range), with the texts
 * counted: `llm` an entry of the catalog (SPEC.planner.llms); `system`, `tools`, `question`
 * and `history` a number of tokens or {tokens, exact} of a text, history also [turns,
 * tokens per turn]; `templateTokens` the template's tokens ({text} left out),
 * `templateText` whether it has any text and `templateExact` false while the page only
 * estimates them (Python always counts them); `ratio` an estimated model's own (null: the
 * catalog's); `window` the window a server runs the model with (null: the catalog's).
 * Returns {ok: true, result} with the keys of ContextPlan.to_json(), or {ok: false, errors:
 * [{field, code, params}]} for an answer larger than the window or than the model writes.
 */
export function planCounts(llm, { system = 0, tools = 0, history = 0, question = 0, k = 0, chunkTokens = 0,
  templateTokens = 0, templateText = false, templateExact = true, answer, inputPrice = null, outputPrice = null,
  ratio = null, window = null }) {
  const size = window ?? llm.window;
  if (answer > size) {
    return { ok: false, errors: [{ field: "answer", code: "answer_over_window", params: { answer, window: size } }] };
  }
  if (llm.max_output !== null && answer > llm.max_output) {
    return { ok: false, errors: [{ field: "answer", code: "answer_over_model",
      params: { answer, llm: llm.id, maximum: llm.max_output } }] };
  }
  const exact = llm.exact;
  const historyPart = Array.isArray(history)
    ? { name: "history", tokens: history[0] * history[1], exact: true, given: "count",
      detail: `${grouped(history[0])} × ${grouped(history[1])}` }
    : part("history", history);
  const fixed = [part("system prompt", system), part("tools", tools), historyPart, part("question", question)];
  const prices = [inputPrice ?? llm.input_price, outputPrice ?? llm.output_price];
  const shared = budget(size, answer, fixed.map((p) => [p.name, p.tokens]), k, chunkTokens, templateTokens, ...prices);
  const retrieved = { name: RETRIEVED, tokens: k * (chunkTokens + templateTokens),
    exact: (exact || !templateText) && templateExact, given: "count",
    detail: `${grouped(k)} × (${grouped(chunkTokens)} + ${grouped(templateTokens)})` };
  const usedRatio = ratio ?? llm.ratio;
  const notes = [];
  if (!exact) {
    notes.push(`${llm.id} has no tokenizer here: its text is estimated as ${llm.counted_by} tokens ×` +
      ` ${shortNumber(usedRatio)} (${ratio === null ? llm.ratio_source : "your ratio"})`);
  }
  if (llm.notes) notes.push(llm.notes);
  return {
    ok: true,
    result: {
      llm: llm.id,
      window: size,
      max_output: llm.max_output,
      parts: [...fixed, retrieved, { name: ANSWER, tokens: answer, exact: true, given: "count", detail: "" }],
      used: shared.used,
      left: shared.left,
      fits: shared.over === null,
      over: shared.over,
      k,
      chunk_tokens: chunkTokens,
      template_tokens: templateTokens,
      max_k: shared.max_k,
      max_chunk_size: shared.max_chunk_size,
      input_price: prices[0],
      output_price: prices[1],
      cost_per_request: shared.cost_per_request,
      cost_per_1000: shared.cost_per_1000,
      counted_by: llm.counted_by,
      ratio: usedRatio,
      estimate: !exact,
      notes,
    },
  };
}

/** The tokenizer that counts text for LLM `id` of `llms` (SPEC.planner.llms): its own, or the estimate's reference. */
export const countedBy = (llms, id) => llms.find((llm) => llm.id === id)?.counted_by;
