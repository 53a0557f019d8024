// The page's languages: one catalog per language (en.json, ru.json, hi.json next to this
// file, loaded from the page's own origin), `t(key, params)` for every string built in JS,
// `data-i18n*` attributes for the text written in the HTML, and numbers formatted for the
// language with Intl. The HTML holds the English text, so the first paint and a page
// without JavaScript read English; a catalog replaces it once loaded.
//
//   data-i18n="key"                 textContent
//   data-i18n-html="key"            innerHTML (catalogs are ours: <var>, <code>, <mark> ...)
//   data-i18n-attr="title=key;placeholder=key2"
//   data-i18n-title="key"           document.title (on the h1: build.py wants a plain <title>)
//
// Text set through `show()` remembers its key and params, so switching the language
// re-renders it in place (numbers re-formatted), with no reload and nothing lost.

export const LANGUAGES = ["en", "ru", "hi"];
// Latin digits everywhere ("11,408" in Hindi too), each language's grouping and marks.
const LOCALES = { en: "en-US", ru: "ru-RU", hi: "hi-IN" };

let current = "en";
let catalog = {};
const formatters = new Map();
const plurals = new Map();
const listeners = new Set();

/**
 * The language of this view: `?lang=` when it names one we have, else the first of the
 * browser's languages we have (ru-RU -> ru, hi -> hi), else English.
 */
export function chooseLanguage(search = location.search, preferences = navigator.languages ?? [navigator.language]) {
  const asked = new URLSearchParams(search).get("lang");
  if (LANGUAGES.includes(asked)) return asked;
  return browserLanguage(preferences);
}

export function browserLanguage(preferences = navigator.languages ?? [navigator.language]) {
  for (const tag of preferences ?? []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0];
    if (LANGUAGES.includes(primary)) return primary;
  }
  return "en";
}

export const language = () => current;
export const locale = () => LOCALES[current];

/** Whether "," is this language's decimal mark (Russian "12,5"); typed numbers follow it. */
export const decimalComma = () => numberFormat({ minimumFractionDigits: 1 }).formatToParts(1.5).find((p) => p.type === "decimal")?.value === ",";

async function loadCatalog(lang) {
  // A build that cannot fetch (a page opened from disk) hands the catalogs in, as it hands in the core.
  const given = globalThis.ragchunkCatalogs?.[lang];
  if (given) return given;
  const response = await fetch(new URL(`${lang}.json`, import.meta.url));
  if (!response.ok) throw new Error(`i18n/${lang}.json: HTTP ${response.status}`);
  return response.json();
}

/** Load `lang`'s catalog, translate the page and tell every `onLanguageChange` listener. */
export async function setLanguage(lang) {
  const wanted = LANGUAGES.includes(lang) ? lang : "en";
  catalog = await loadCatalog(wanted);
  current = wanted;
  formatters.clear();
  plurals.clear();
  translatePage();
  for (const listener of listeners) listener(current);
}

/** Call `listener(lang)` after each language change. */
export function onLanguageChange(listener) {
  listeners.add(listener);
}

function numberFormat(options) {
  const key = JSON.stringify(options);
  if (!formatters.has(key)) formatters.set(key, new Intl.NumberFormat(LOCALES[current], { numberingSystem: "latn", ...options }));
  return formatters.get(key);
}

/** A number as this language writes it: 11,408 / 11 408 / 11,408 (lakhs: 12,34,567). */
export const formatNumber = (n) => numberFormat(Number.isInteger(n) ? { maximumFractionDigits: 0 } : { maximumFractionDigits: 20 }).format(n);
export const integer = (n) => numberFormat({ maximumFractionDigits: 0 }).format(n);
export const formatFixed = (n, digits) => numberFormat({ minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);

/** A share (0..1) as a percent with one decimal: "12.3 %", "12,3 %". */
export const formatPercent = (share) => t("format.percent", { n: fixed(share * 100, 1) });

export function formatMoney(cost) {
  if (cost === 0) return integer(0);
  if (cost >= 1) return numberFormat({ minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(cost);
  return numberFormat({ maximumSignificantDigits: 3 }).format(cost);
}

/** A byte count as this language writes it: "950 bytes", "141.3 KB", "1.2 GB" (powers of 1,000). */
export function formatBytes(n) {
  const units = [["tb", 1e12], ["gb", 1e9], ["mb", 1e6], ["kb", 1e3]];
  for (const [unit, scale] of units) {
    if (n >= scale) return t(`format.${unit}`, { n: fixed(n / scale, 1) });
  }
  return t("format.bytes", { n, count: n });
}

// Params that are formatted when the text is rendered, so a language switch re-formats them.
export const fixed = (value, digits) => ({ format: "fixed", value, digits });
export const percent = (share) => ({ format: "percent", value: share });
export const money = (value) => ({ format: "money", value });
export const bytes = (value) => ({ format: "bytes", value });
/** A translated message as a param of another ("{label}" of an error is a field name). */
export const msg = (key, params = {}) => ({ format: "message", key, params });
/** A number with its noun in the language's plural form, as a param: quantity("tokens", 1) says "1 token". */
export const quantity = (noun, n) => msg(`count.${noun}`, { count: n });

function render(value) {
  if (typeof value === "number") return formatNumber(value);
  if (value === null || value === undefined) return "";
  if (typeof value !== "object") return String(value);
  if (value.format === "fixed") return formatFixed(value.value, value.digits);
  if (value.format === "percent") return formatPercent(value.value);
  if (value.format === "money") return formatMoney(value.value);
  if (value.format === "bytes") return formatBytes(value.value);
  if (value.format === "message") return t(value.key, value.params);
  return String(value);
}

/** Whether the catalog has `key`. */
export const has = (key) => Object.hasOwn(catalog, key);

/**
 * The text of `key` with `{name}` filled from `params` (numbers formatted for the
 * language). A value of the catalog that is an object is chosen by plural rule on
 * `params.count`: {"one": "{count} chunk", "other": "{count} chunks"}.
 */
export function t(key, params = {}) {
  // A key the catalog lacks is its own template: show(element, "{n}", {n}) shows a number.
  let text = catalog[key] ?? key;
  if (typeof text === "object") {
    const count = typeof params.count === "object" ? params.count.value : params.count;
    if (!plurals.has(current)) plurals.set(current, new Intl.PluralRules(LOCALES[current]));
    text = text[plurals.get(current).select(Number(count ?? 0))] ?? text.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? render(params[name]) : whole));
}

/** Set an element's text to `key` (with params), kept in step with the language. */
export function show(element, key, params = {}) {
  element.removeAttribute("data-i18n");
  element.i18n = { key, params };
  element.setAttribute("data-i18n-live", "");
  element.textContent = t(key, params);
}

/** Set an element's text to something not translated (a name, a number, a dash). */
export function showText(element, text) {
  element.removeAttribute("data-i18n");
  element.removeAttribute("data-i18n-live");
  delete element.i18n;
  element.textContent = text;
}

/** Translate the `data-i18n*` text under `root` (and re-render the text set by `show`). */
export function translate(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) {
    if (has(element.dataset.i18n)) element.textContent = t(element.dataset.i18n);
  }
  for (const element of root.querySelectorAll("[data-i18n-html]")) {
    if (has(element.dataset.i18nHtml)) element.innerHTML = t(element.dataset.i18nHtml, element.i18nParams ?? {});
  }
  for (const element of root.querySelectorAll("[data-i18n-attr]")) {
    for (const pair of element.dataset.i18nAttr.split(";")) {
      const [attribute, key] = pair.split("=");
      if (has(key)) element.setAttribute(attribute, t(key));
    }
  }
  // The document's title comes from the page's heading (build.py reads a plain <title>).
  for (const element of root.querySelectorAll("[data-i18n-title]")) {
    if (has(element.dataset.i18nTitle)) document.title = t(element.dataset.i18nTitle);
  }
  for (const element of root.querySelectorAll("[data-i18n-live]")) {
    if (element.i18n) element.textContent = t(element.i18n.key, element.i18n.params);
  }
}

/** Fill a `data-i18n-html` element's `{params}` (numbers only: they are not escaped). */
export function setHtmlParams(element, params) {
  element.i18nParams = params;
  if (has(element.dataset.i18nHtml)) element.innerHTML = t(element.dataset.i18nHtml, params);
}

function translatePage() {
  document.documentElement.lang = current;
  // Tests (and styles) can wait for the language to be in place.
  document.documentElement.dataset.language = current;
  translate(document);
  const switcher = document.getElementById("lang");
  if (switcher) switcher.value = current;
  // Links to the other tool keep a language that differs from the browser's choice.
  for (const link of document.querySelectorAll("a[data-keep-lang]")) {
    const url = new URL(link.getAttribute("href"), location.href);
    if (current === browserLanguage()) url.searchParams.delete("lang");
    else url.searchParams.set("lang", current);
    link.href = url.href;
  }
}

/**
 * The language of the page: choose it, load its catalog and translate the page; the
 * switcher (select#lang) changes it in place. A catalog that cannot be loaded leaves the
 * English of the HTML (and English in JS, from en.json when it can be had).
 */
export async function startI18n() {
  try {
    await setLanguage(chooseLanguage());
  } catch {
    await setLanguage("en").catch(() => {});
  }
  document.getElementById("lang")?.addEventListener("change", (event) => {
    setLanguage(event.target.value).catch(() => {
      event.target.value = current;
    });
  });
}
