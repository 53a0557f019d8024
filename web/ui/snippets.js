// "The same in Python and on the command line": the snippets box and its copy button.
import { show } from "../i18n/i18n.js";
import { $ } from "./dom.js";

/** A Python string literal for any text (JSON strings are valid Python strings). */
export const pyString = (text) => JSON.stringify(text);

/** A shell word, quoted when it needs to be. */
export const shellWord = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'"'"'`)}'`);

/** Fill the box with the Python and the command line of what the tool just did. */
export function showSnippets(python, cli) {
  $("python-snippet").textContent = python;
  $("cli-snippet").textContent = cli;
}

export function bindCopyButton() {
  $("copy-python").addEventListener("click", async () => {
    const text = $("python-snippet").textContent;
    try {
      await navigator.clipboard.writeText(text);
      show($("copy-status"), "code.copied");
    } catch {
      // Without clipboard permission, select the snippet so Ctrl+C copies it.
      getSelection().selectAllChildren($("python-snippet"));
      show($("copy-status"), "code.selected");
    }
  });
}
