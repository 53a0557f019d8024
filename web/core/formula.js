// The calculator's formula and field checks, mirrored from pycore/ragchunk/options/fields.py and
// plan.py so the page answers while Python boots. tests/e2e/test_formula_mirror.py runs
// both over a grid of inputs (edge cases and every kind of bad input) and asserts the same
// numbers and the same errors (field, code and params; the page says an error from code +
// params with the catalogs, whose English is the core's message — the test checks that
// too). Integer steps use BigInt so nothing rounds.

// One way to match any digit run (a "[0-9]+\.?[0-9]*" split could backtrack quadratically).
const NUMBER = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SEPARATORS = /[,_ \u00a0\u202f]/g;
// Where the comma is the decimal mark (Russian: "12,5"), only spaces and "_" group digits.
const GROUPS_ONLY = /[_ \u00a0\u202f]/g;
// Where "," groups digits the last group has three digits (or, as in East Asia, four) and the
// first does not start with 0 ("1,024", "12,345.5", "1,0000", Indian "1,00,000"): "0,02",
// "0,020" and "3,5" are decimals typed with a comma.
const GROUPED = /^[+-]?[1-9][0-9]{0,3}(?:,[0-9]{2,4})*,[0-9]{3,4}(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?$/;
const SHOWN_MAX = 24;

export class FieldError extends Error {
  constructor(field, code, params = {}) {
    super(code);
    this.field = field;
    this.code = code;
    this.params = params;
  }
}

function shown(raw) {
  const text = raw.trim();
  return text.length <= SHOWN_MAX ? text : text.slice(0, 20) + "…";
}

/**
 * A typed number as fields.parse_number reads it; `decimalComma` reads "12,5" as 12.5 and
 * `example` is the value a "not a number" error offers (the spec's `examples[field]`), and a
 * misplaced comma's when the value typed with a dot is no number either.
 */
export function parseNumber(field, raw, decimalComma = false, example = "") {
  const text = raw.trim();
  if (!text) throw new FieldError(field, "empty");
  if (!decimalComma && text.includes(",") && !GROUPED.test(text.replace(GROUPS_ONLY, ""))) {
    // The example is what was typed, with a dot ("3,5": 3.5), when that is a number.
    const dotted = compactNumber(text, true);
    const offered = NUMBER.test(dotted) && dotted.length <= SHOWN_MAX ? dotted : example;
    throw new FieldError(field, "comma_not_grouping", { value: shown(raw), example: offered });
  }
  const compact = compactNumber(text, decimalComma);
  if (!NUMBER.test(compact)) {
    throw new FieldError(field, "not_a_number", { value: shown(raw), example });
  }
  return Number(compact);
}

const compactNumber = (text, decimalComma) =>
  decimalComma ? text.replace(GROUPS_ONLY, "").replaceAll(",", ".") : text.replace(SEPARATORS, "");

/**
 * A typed number written so that every language reads it the same ("3,5" typed in Russian:
 * "3.5"; "1,024" in English: "1024"), or null when it is not a number (kept as typed).
 */
export function canonicalNumber(raw, decimalComma = false) {
  try {
    parseNumber("", raw, decimalComma);
  } catch {
    return null;
  }
  return compactNumber(raw.trim(), decimalComma);
}

export function readCount(field, raw, minimum, maximum, unit, decimalComma, example) {
  const value = parseNumber(field, raw, decimalComma, example);
  const text = shown(raw);
  if (value < minimum) {
    throw new FieldError(field, "too_small", { value: text, minimum });
  }
  if (value > maximum) {
    throw new FieldError(field, "too_large", { value: text, maximum });
  }
  if (!Number.isInteger(value)) {
    throw new FieldError(field, "not_whole", { value: text, unit });
  }
  return value;
}

export function readReal(field, raw, minimum, maximum, inclusive, decimalComma, example) {
  const value = parseNumber(field, raw, decimalComma, example);
  const text = shown(raw);
  if (value < minimum || (value === minimum && !inclusive)) {
    throw new FieldError(field, inclusive ? "too_small" : "not_greater", { value: text, minimum });
  }
  if (value > maximum) {
    throw new FieldError(field, "too_large", { value: text, maximum });
  }
  return value;
}

// The exact value of a JS number as the decimal it prints as (the shortest round-trip
// digits, the same digits Python's repr gives): [numerator, denominator] as BigInts.
function decimalFraction(x) {
  const [mantissa, exponent = "0"] = String(x).toLowerCase().split("e");
  const [whole, fraction = ""] = mantissa.split(".");
  const digits = BigInt(whole + fraction);
  const power = Number(exponent) - fraction.length;
  return power >= 0 ? [digits * 10n ** BigInt(power), 1n] : [digits, 10n ** BigInt(-power)];
}

/** ceil(chars ÷ ratio), exact, as plan.tokens_from_chars (410 characters at 4.1 are 100 tokens). */
export function tokensFromChars(chars, ratio) {
  const [numerator, denominator] = decimalFraction(ratio);
  return (BigInt(chars) * denominator + numerator - 1n) / numerator;
}

/** Chunks for a document of `doc` tokens (arguments already valid), as in plan.chunk_count. */
export function chunkCount(doc, size, overlap) {
  if (doc <= 0) return 0;
  if (doc <= size) return 1;
  const rest = BigInt(doc - size);
  const step = BigInt(size - overlap);
  return 1 + Number((rest + step - 1n) / step);
}

/**
 * A form's reader: `attempt(read)` returns what `read()` returns, or null when it throws a
 * FieldError, which joins `errors` as {field, code, params}; any other error passes through.
 */
export function collectingErrors() {
  const errors = [];
  const attempt = (read) => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      errors.push({ field: error.field, code: error.code, params: error.params });
      return null;
    }
  };
  return { errors, attempt };
}

/**
 * The calculator form (strings as typed) to a plan, as ragchunk.options.fields.read_calc_form;
 * `form.decimal_comma` as its `decimal_comma`. Returns {ok: true, result} with the keys
 * of Plan.to_json(), or {ok: false, errors: [{field, code, params}]}.
 */
export function readCalcForm(spec, form) {
  const limits = spec.limits;
  const comma = form.decimal_comma === true;
  const whole = (field, raw, minimum, maximum, unit) =>
    readCount(field, raw, minimum, maximum, unit, comma, spec.examples[field]);
  const real = (field, raw, minimum, maximum, inclusive) =>
    readReal(field, raw, minimum, maximum, inclusive, comma, spec.examples[field]);
  const { errors, attempt } = collectingErrors();
  let doc = null;
  if ((form.unit ?? "tokens") === "chars") {
    const chars = attempt(() => whole("doc_chars", form.doc ?? "", 1, limits.doc_chars, "characters"));
    const ratio = attempt(() => real("chars_per_token", form.chars_per_token ?? "", 0, limits.chars_per_token, false));
    if (chars !== null && ratio !== null) {
      const tokens = tokensFromChars(chars, ratio);
      doc = attempt(() => {
        if (tokens > BigInt(limits.doc_tokens)) {
          throw new FieldError("doc_chars", "too_many_tokens", { value: shown(form.doc), maximum: limits.doc_tokens });
        }
        return Number(tokens);
      });
    }
  } else {
    doc = attempt(() => whole("doc_tokens", form.doc ?? "", 1, limits.doc_tokens, "tokens"));
  }
  const size = attempt(() => whole("chunk_size", form.chunk_size ?? "", 1, limits.chunk_size, "tokens"));
  const overlap = attempt(() => whole("overlap", form.overlap ?? "", 0, limits.chunk_size - 1, "tokens"));
  const priceRaw = form.price ?? "";
  const price = priceRaw.trim()
    ? attempt(() => real("price_per_million", priceRaw, 0, limits.price_per_million, true))
    : null;
  const documentsRaw = String(form.documents ?? "") || "1";
  const documents = attempt(() => whole("documents", documentsRaw, 1, limits.documents, "documents"));
  if (size !== null && overlap !== null && overlap >= size) {
    errors.push({ field: "overlap", code: "overlap_not_smaller", params: { overlap, chunk_size: size } });
  }
  if (errors.length) return { ok: false, errors };
  const perDocument = chunkCount(doc, size, overlap);
  const step = size - overlap;
  const count = BigInt(documents);
  const repeated = BigInt(perDocument - 1) * BigInt(overlap) * count;
  const docTokens = BigInt(doc) * count;
  const total = docTokens + repeated;
  if (docTokens > BigInt(limits.total_tokens)) {
    return {
      ok: false,
      errors: [{ field: "documents", code: "corpus_too_large", params: { documents, doc_tokens: doc, maximum: limits.total_tokens } }],
    };
  }
  if (total > BigInt(limits.total_tokens)) {
    return {
      ok: false,
      errors: [{ field: "overlap", code: "total_too_large", params: { overlap, maximum: limits.total_tokens } }],
    };
  }
  const totalTokens = Number(total);
  const repeatedTokens = Number(repeated);
  return {
    ok: true,
    result: {
      doc_tokens: doc,
      chunk_size: size,
      overlap,
      step,
      chunks: perDocument * documents,
      total_tokens: totalTokens,
      repeated_tokens: repeatedTokens,
      repeated_share: repeatedTokens / totalTokens,
      extra_share: repeatedTokens / Number(docTokens),
      last_chunk_tokens: doc - (perDocument - 1) * step,
      price_per_million: price,
      cost: price === null ? null : (totalTokens / 1000000) * price,
      documents,
    },
  };
}

/** What `vectors` embeddings of `dimensions` take, as calculator.vector_storage. */
export function vectorStorage(vectors, dimensions) {
  return {
    vectors,
    dimensions,
    float32_bytes: vectors * dimensions * 4,
    int8_bytes: vectors * dimensions,
    binary_bytes: vectors * Math.ceil(dimensions / 8),
  };
}

/** A model's figures for `chunks` chunks of up to `chunkSize` tokens, as models.model_figures. */
export function modelFigures(model, chunks, chunkSize) {
  const largest = model.limit - model.special_tokens - (model.document_prefix ? model.prefix_tokens : 0);
  return {
    model: model.id,
    limit: model.limit,
    special_tokens: model.special_tokens,
    prefix: model.document_prefix.trim(),
    prefix_tokens: model.prefix_tokens,
    largest_chunk: largest,
    truncates: chunkSize > largest,
    price_per_million: model.price_per_million,
    ...vectorStorage(chunks, model.dimensions),
  };
}
