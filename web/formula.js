// The calculator's formula and field checks, mirrored from pycore/ragchunk/fields.py and
// plan.py so the page answers while Python boots. tests/e2e/test_formula_mirror.py runs
// both over a grid of inputs (edge cases and every kind of bad input) and asserts the same
// numbers and the same messages. Integer steps use BigInt so nothing rounds.

const NUMBER = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/;
const SEPARATORS = /[,_ \u00a0\u202f]/g;
const SHOWN_MAX = 24;

class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

const grouped = (n) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });

function shown(raw) {
  const text = raw.trim();
  return text.length <= SHOWN_MAX ? text : text.slice(0, 20) + "…";
}

function parseNumber(spec, field, raw) {
  const label = spec.labels[field];
  const text = raw.trim();
  if (!text) throw new FieldError(field, `${label} is empty: enter a number`);
  const compact = text.replace(SEPARATORS, "");
  if (!NUMBER.test(compact)) throw new FieldError(field, `${label} (${shown(raw)}) is not a number: enter digits, e.g. 512`);
  return Number(compact);
}

function readCount(spec, field, raw, minimum, maximum, unit = "tokens") {
  const label = spec.labels[field];
  const value = parseNumber(spec, field, raw);
  const text = shown(raw);
  if (value < minimum) throw new FieldError(field, `${label} (${text}) must be at least ${grouped(minimum)}: enter a larger number`);
  if (value > maximum) throw new FieldError(field, `${label} (${text}) is too large: enter at most ${grouped(maximum)}`);
  if (!Number.isInteger(value)) throw new FieldError(field, `${label} (${text}) must be a whole number of ${unit}: round it`);
  return value;
}

function readReal(spec, field, raw, minimum, maximum, inclusive) {
  const label = spec.labels[field];
  const value = parseNumber(spec, field, raw);
  const text = shown(raw);
  if (value < minimum || (value === minimum && !inclusive)) {
    const relation = inclusive ? "at least" : "greater than";
    throw new FieldError(field, `${label} (${text}) must be ${relation} ${minimum}: enter a larger number`);
  }
  if (value > maximum) throw new FieldError(field, `${label} (${text}) is too large: enter at most ${grouped(maximum)}`);
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
 * The calculator form (strings as typed) to a plan, as ragchunk.fields.read_calc_form.
 * Returns {ok: true, result} with the keys of Plan.to_json(), or {ok: false, errors}.
 */
export function readCalcForm(spec, form) {
  const limits = spec.limits;
  const errors = [];
  const attempt = (read) => {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      errors.push({ field: error.field, message: error.message });
      return null;
    }
  };
  let doc = null;
  if ((form.unit ?? "tokens") === "chars") {
    const chars = attempt(() => readCount(spec, "doc_chars", form.doc ?? "", 1, limits.doc_chars, "characters"));
    const ratio = attempt(() => readReal(spec, "chars_per_token", form.chars_per_token ?? "", 0, limits.chars_per_token, false));
    if (chars !== null && ratio !== null) {
      const tokens = tokensFromChars(chars, ratio);
      doc = attempt(() => {
        if (tokens > BigInt(limits.doc_tokens)) {
          throw new FieldError("doc_chars", `document length (${shown(form.doc)}) is too large: it makes more than ${grouped(limits.doc_tokens)} tokens; enter fewer characters`);
        }
        return Number(tokens);
      });
    }
  } else {
    doc = attempt(() => readCount(spec, "doc_tokens", form.doc ?? "", 1, limits.doc_tokens));
  }
  const size = attempt(() => readCount(spec, "chunk_size", form.chunk_size ?? "", 1, limits.chunk_size));
  const overlap = attempt(() => readCount(spec, "overlap", form.overlap ?? "", 0, limits.chunk_size - 1));
  const priceRaw = form.price ?? "";
  const price = priceRaw.trim() ? attempt(() => readReal(spec, "price_per_million", priceRaw, 0, limits.price_per_million, true)) : null;
  if (size !== null && overlap !== null && overlap >= size) {
    errors.push({ field: "overlap", message: `overlap (${grouped(overlap)}) must be smaller than chunk size (${grouped(size)}): lower the overlap` });
  }
  if (errors.length) return { ok: false, errors };
  const chunks = chunkCount(doc, size, overlap);
  const step = size - overlap;
  const repeated = BigInt(chunks - 1) * BigInt(overlap);
  const total = BigInt(doc) + repeated;
  if (total > BigInt(limits.total_tokens)) {
    return { ok: false, errors: [{ field: "overlap", message: `overlap (${grouped(overlap)}) repeats too many tokens: the total would exceed ${grouped(limits.total_tokens)}; lower the overlap or the document length` }] };
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
      chunks,
      total_tokens: totalTokens,
      repeated_tokens: repeatedTokens,
      repeated_share: repeatedTokens / totalTokens,
      extra_share: repeatedTokens / doc,
      last_chunk_tokens: doc - (chunks - 1) * step,
      price_per_million: price,
      cost: price === null ? null : (totalTokens / 1000000) * price,
    },
  };
}
