// "Plan the context for this chunk size": a tool's link to the context planner
// (tools/planner), with its chunk size, or the tokens its evaluation read per question.
// Settings only, never a text.
import { browserLanguage, language } from "../i18n/i18n.js";

/**
 * Point `link` (an <a href="planner.html"> of the page, which the offline file rewrites to
 * its own address of the planner) at the planner with `params` ({size}, or {read, k});
 * null hides it. The page's language goes with it when it is not the browser's.
 */
export function setPlanLink(link, params) {
  link.dataset.base ??= link.getAttribute("href");
  link.parentElement.hidden = !params;
  if (!params) return;
  const url = new URL(link.dataset.base, location.href);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, String(value));
  if (language() !== browserLanguage()) url.searchParams.set("lang", language());
  link.href = url.href;
}
