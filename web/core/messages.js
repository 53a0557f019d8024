// The messages of the worker protocol, held to its one definition: PROTOCOL, which build.py
// writes into core/protocol.js from pycore/ragchunk/api/protocol.json (the file Python's
// ragchunk.api.protocol checks with). The page builds every request with requestMessage();
// the worker refuses what requestErrors() finds with the very errors Python would give:
// each sentence here is built as protocol.py builds it.
import { PROTOCOL } from "./protocol.js";

export { PROTOCOL };

/** A request the page would have sent against the protocol; `errors` are the core's shape. */
export class ProtocolError extends Error {
  constructor(errors) {
    super(`worker protocol: ${errors.map((error) => error.message).join("; ")}`);
    this.name = "ProtocolError";
    this.errors = errors;
  }
}

// --- describing values and fields ---------------------------------------------------------

const ONE = { string: "a string", integer: "a whole number", number: "a number", boolean: "true or false",
  null: "null", array: "a list", object: "an object", bytes: "bytes" };
const MANY = { string: "strings", integer: "whole numbers", number: "numbers", boolean: "true or false values",
  null: "nulls", array: "lists", object: "objects", bytes: "bytes" };

const typesOf = (field) => (typeof field.type === "string" ? [field.type] : [...(field.type ?? [])]);

/** The protocol's type of a value as JSON (or structured clone) carries it; undefined is absent. */
function typeOf(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  if (typeof value === "string") return "string";
  if (value instanceof Uint8Array) return "bytes";
  if (Array.isArray(value)) return "array";
  if (typeof value === "object") return "object";
  return typeof value;
}

function is(kind, value) {
  const found = typeOf(value);
  if (kind === "number") return found === "integer" || (found === "number" && Number.isFinite(value));
  return found === kind;
}

/** What `field` takes, in words: "a string or a number", "a list of strings". */
export function expected(field) {
  return typesOf(field).map((kind) => (kind === "array" && field.items
    ? `a list of ${typesOf(field.items).map((k) => MANY[k]).join(" or ")}` : ONE[kind])).join(" or ");
}

/** What `value` is, in words, where `field` refuses it ("a list holding a number"). */
export function given(field, value) {
  if (typeof value === "number" && !Number.isFinite(value)) return "a number JSON cannot hold";
  const found = typeOf(value);
  if (found === "number") return "a fractional number";
  if (found === "array" && field.items && typesOf(field).includes("array")) {
    const bad = value.find((item) => valueProblems(field.items, item, "").length);
    if (bad !== undefined) return `a list holding ${given(field.items, bad)}`;
  }
  return ONE[found] ?? found;
}

const shown = (value) => (typeof value === "string" ? value : JSON.stringify(value));
const choices = (names) => names.map(shown).join(", ") || "(none)";
const has = (object, name) => Object.hasOwn(object, name) && object[name] !== undefined;

// --- checking any value against a field ------------------------------------------------------

function valueProblems(field, value, path) {
  const where = path ? `${path}: ` : "";
  if (!typesOf(field).some((kind) => is(kind, value))) return [`${where}must be ${expected(field)}, not ${given(field, value)}`];
  if (field.values && value !== null && !field.values.includes(value)) return [`${where}${shown(value)} is not one of ${choices(field.values)}`];
  if (Array.isArray(value) && field.items) return value.flatMap((item, i) => valueProblems(field.items, item, `${path}[${i}]`));
  if (typeOf(value) === "object" && field.shape) return fieldsProblems(PROTOCOL.shapes[field.shape], value, path);
  return [];
}

/** What is wrong with the object `value` that may hold `fields` and only those. */
export function fieldsProblems(fields, value, path = "") {
  const prefix = path ? `${path}.` : "";
  const problems = [];
  for (const [name, field] of Object.entries(fields)) {
    if (!has(value, name)) {
      if (field.required) problems.push(`${prefix}${name}: is missing`);
      continue;
    }
    problems.push(...valueProblems(field, value[name], prefix + name));
  }
  for (const name of Object.keys(value)) {
    if (!Object.hasOwn(fields, name) && value[name] !== undefined) problems.push(`${prefix}${name}: is not a field of the protocol`);
  }
  return problems;
}

// --- requests ------------------------------------------------------------------------------------

/** The error `code` of the protocol's errors, its sentence filled from `params`; its field the definition's, else `field`. */
function protocolError(code, params, field = "request") {
  const template = PROTOCOL.errors[code];
  const message = template.message.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
  return { field: template.field ?? field, message, code, params };
}

function fieldErrors(kind, name, field, present, value) {
  const params = { kind, field: name };
  if (!present) return field.required ? [protocolError("request_field_missing", { ...params, expected: expected(field) }, name)] : [];
  const { values, ...typed } = field;
  if (valueProblems(typed, value, "").length) {
    return [protocolError("request_field_type", { ...params, expected: expected(field), given: given(field, value) }, name)];
  }
  if (values && value !== null && !values.includes(value)) {
    return [protocolError("request_field_value", { ...params, value: shown(value), choices: choices(values) }, name)];
  }
  return [];
}

/**
 * Every way request `kind` breaks the protocol, as the core's errors ({field, message, code,
 * params}, one per field): its document (null or undefined: none), then its payload's fields
 * in the order of the definition, then the fields the kind does not have. [] for a good one.
 */
export function requestErrors(kind, payload, document = null) {
  const spec = typeof kind === "string" && Object.hasOwn(PROTOCOL.kinds, kind) ? PROTOCOL.kinds[kind] : null;
  if (!spec) return [protocolError("unknown_request", { kind: String(kind), choices: Object.keys(PROTOCOL.kinds).join(", ") })];
  const errors = [];
  const sent = document !== null && document !== undefined;
  if (spec.document === "none" && sent) errors.push(protocolError("request_no_document", { kind }));
  else if (spec.document === "required") {
    errors.push(...fieldErrors(kind, "document", { type: ["string", "bytes"], required: true }, sent, document));
  }
  if (typeOf(payload) !== "object") return [...errors, ...fieldErrors(kind, "payload", { type: "object" }, true, payload)];
  const fields = spec.payload;
  for (const [name, field] of Object.entries(fields)) errors.push(...fieldErrors(kind, name, field, has(payload, name), payload[name]));
  for (const name of Object.keys(payload)) {
    if (!Object.hasOwn(fields, name) && payload[name] !== undefined) {
      errors.push(protocolError("request_field_unknown", { kind, field: name, choices: choices(Object.keys(fields)) }, name));
    }
  }
  return errors;
}

/**
 * The message of request `id`: {id, type, payload, document}, or a ProtocolError thrown
 * for a request the protocol refuses (nothing is sent).
 */
export function requestMessage(id, type, payload, document = null) {
  const errors = requestErrors(type, payload, document);
  if (errors.length) throw new ProtocolError(errors);
  return { id, type, payload, document };
}

// --- messages and replies ----------------------------------------------------------------------

/**
 * Which message of `direction` ("to_worker", "from_worker") `message` is, by its type: a
 * kind is a request, no type a reply; null when no message has that type.
 */
export function messageName(direction, message) {
  const tag = message.type;
  if (direction === "to_worker" && typeof tag === "string" && Object.hasOwn(PROTOCOL.kinds, tag)) return "request";
  for (const [name, spec] of Object.entries(PROTOCOL[direction])) {
    const typed = spec.fields.type;
    if ((!typed && tag === undefined) || (typed && (typed.values ?? []).includes(tag))) return name;
  }
  return null;
}

/** The fields of the result of `kind` (its own, or a shape's). */
export function resultFields(kind) {
  const spec = PROTOCOL.kinds[kind];
  return spec.result_shape ? PROTOCOL.shapes[spec.result_shape] : spec.result;
}

/** What is wrong with the worker's `reply` to a request of `kind`; a result is held to the kind's. */
export function replyProblems(kind, reply) {
  const spec = PROTOCOL.from_worker.reply;
  // The variant a reply is, is named by its second field: result, errors, internal, cancelled.
  const variant = Object.keys(spec.one_of).find((name) => has(reply, name)) ?? "result";
  const problems = fieldsProblems({ ...spec.fields, ...spec.one_of[variant] }, reply);
  if (variant === "result" && typeOf(reply.result) === "object" && Object.hasOwn(PROTOCOL.kinds, kind ?? "")) {
    problems.push(...fieldsProblems(resultFields(kind), reply.result, "result"));
  }
  return problems;
}

/**
 * What is wrong with `message` sent `direction`; a reply's result is held to the result of
 * `kind` (its request's) when that is given. [] for a good message.
 */
export function messageProblems(direction, message, kind = null) {
  if (typeOf(message) !== "object") return [`a message must be an object, not ${given({}, message)}`];
  const name = messageName(direction, message);
  if (name === null) return [`type: no message ${direction.replace("_", " ")} has the type ${shown(message.type ?? null)}`];
  if (name === "reply") return replyProblems(kind, message);
  const problems = fieldsProblems(PROTOCOL[direction][name].fields, message);
  if (name === "request" && !problems.length) {
    return requestErrors(message.type, message.payload ?? {}, message.document ?? null).map((error) => error.message);
  }
  return problems;
}
