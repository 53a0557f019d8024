// Errors on the page: the core's ({field, message, code, params}) and the page's own
// ({field, code, params}), said in the page's language from their code and params (the
// catalogs, i18n/*.json, hold every sentence; the English one is the core's own message).
import { decimalComma, has, msg, show, showText, t } from "../i18n/i18n.js";

/** The params of an error as its catalog text wants them. */
export function errorParams(error) {
  const params = { label: msg(`field.${error.field}`), ...(error.params ?? {}) };
  if (typeof params.unit === "string") params.unit = msg(`error_unit.${params.unit}`);
  // An example number is written as the page's language writes it ("0,02" in Russian).
  if (typeof params.example === "string" && decimalComma()) params.example = params.example.replace(".", ",");
  if ("name" in params && !params.name) params.name = msg("file.unnamed");
  if (params.kind && has(`filekind.${params.kind}`)) params.what = msg(`filekind.${params.kind}`);
  // The core's `detail` is English; its `reason` is said in the page's language when the catalog knows it.
  const reason = `reason.${error.code}.${params.reason}`;
  if (typeof params.reason === "string" && has(reason)) params.detail = msg(reason, { ...params });
  return params;
}

/** The catalog key of an error, or null for a code the page does not know (say it in English). */
export const errorKey = (error) => (error.code && has(`error.${error.code}`) ? `error.${error.code}` : null);

/** An error in the page's language (the core's English message when its code is unknown). */
export function errorMessage(error) {
  const key = errorKey(error);
  return key ? t(key, errorParams(error)) : error.message ?? "";
}

/** An error of the page's own (not from the core): its text is the catalog's `error.<code>`. */
export const pageError = (field, code, params = {}) => ({ field, code, params });

export const internalError = (detail) => pageError("text", "internal", { detail });

/** Put each error next to its field (`.error[data-for~=field]`) and mark the input invalid. */
export function showErrors(errors, slots) {
  for (const slot of slots) {
    const wanted = slot.dataset.for.split(" ");
    const error = errors.find((e) => wanted.includes(e.field));
    const key = error && errorKey(error);
    if (key) show(slot, key, errorParams(error));
    else showText(slot, error ? error.message ?? "" : "");
    const input = document.querySelector(`[aria-describedby~="${slot.id}"]`);
    // aria-invalid="" means "not invalid" to assistive technology: say "true" or drop it.
    if (input && error) input.setAttribute("aria-invalid", "true");
    else if (input) input.removeAttribute("aria-invalid");
  }
}

/** The notes of a decoded file (`note_details` of the core), one <li> each, in the page's language. */
export function showNotes(list, result) {
  const details = result.note_details ?? result.notes.map((message) => ({ message }));
  list.replaceChildren(...details.map((note) => {
    const item = document.createElement("li");
    if (note.code && has(`note.${note.code}`)) show(item, `note.${note.code}`, errorParams({ field: "file", params: note.params }));
    else showText(item, note.message);
    return item;
  }));
}
