// Settings in the URL, so a link reproduces the view (never the text).
import { canonicalNumber } from "../core/formula.js";
import { decimalComma } from "../i18n/i18n.js";
import { $ } from "./dom.js";

/**
 * `fields` maps a query parameter to its control (input, select, or a NodeList of radios).
 * Values in the URL are applied on load; a value equal to the control's default is left
 * out. The language switcher (select#lang, `lang`) is always one of them. Returns the
 * function that writes the URL from the fields.
 */
export function bindUrlState(fields) {
  const languages = $("lang");
  if (languages) fields = { ...fields, lang: languages };
  const params = new URLSearchParams(location.search);
  const read = (control) => (control instanceof NodeList ? [...control].find((r) => r.checked)?.value ?? "" : control.value);
  // A number is written as every language reads it: a Russian link with "3,5" would be an
  // error in English. What is not a number stays as typed (its error shows again on load).
  const written = (control) => {
    const value = read(control);
    const numeric = control instanceof HTMLInputElement && ["numeric", "decimal"].includes(control.inputMode);
    return numeric ? canonicalNumber(value, decimalComma()) ?? value : value;
  };
  const initial = (control) => {
    if (control instanceof NodeList) return [...control].find((r) => r.defaultChecked)?.value ?? "";
    if (control instanceof HTMLSelectElement) return [...control.options].find((o) => o.defaultSelected)?.value ?? control.options[0]?.value;
    return control.defaultValue;
  };
  for (const [name, control] of Object.entries(fields)) {
    if (!params.has(name)) continue;
    const value = params.get(name);
    if (control instanceof NodeList) {
      for (const radio of control) radio.checked = radio.value === value;
    } else if (control instanceof HTMLSelectElement) {
      if (control === languages) continue; // i18n.js chose the language (and ignores an unknown one)
      if ([...control.options].some((o) => o.value === value)) control.value = value;
    } else {
      control.value = value;
    }
  }
  const save = () => {
    const next = new URLSearchParams(location.search);
    for (const [name, control] of Object.entries(fields)) {
      if (read(control) === initial(control)) next.delete(name);
      else next.set(name, written(control));
    }
    const query = next.toString();
    history.replaceState(null, "", query ? `?${query}` : location.pathname);
  };
  // Saved once the event has reached the window: after the page's own handlers, which may set
  // other fields as they go (the overlap that follows the size, the price a model fills in),
  // so the link always holds what the page shows.
  const elements = new Set(Object.values(fields).flatMap((control) => (control instanceof NodeList ? [...control] : [control])));
  const saveFor = (event) => {
    if (elements.has(event.target)) save();
  };
  window.addEventListener("input", saveFor);
  window.addEventListener("change", saveFor);
  return save;
}
