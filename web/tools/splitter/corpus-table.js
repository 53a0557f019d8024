// The splitter's documents of a corpus: their table (#documents: one row each, a page of
// rows at a time, sorted by the column a person picks, a last row that adds them up) and
// the chunk list's filter by document (#filter).
import { integer, msg, quantity, show } from "../../i18n/i18n.js";
import { $ } from "../../ui/dom.js";
import { errorMessage } from "../../ui/errors.js";
import { Pager } from "../../ui/pager.js";

const collator = new Intl.Collator();

export class CorpusTable {
  // The documents shown: {doc, source, chars, kind, tokens, count, largest, error} each.
  #entries = [];
  #sortKey = "source";
  #sortDown = false;
  #pages;
  #onFilter;

  /**
   * `onFilter(parts)` shows the chunks of the documents the filter picks: every document
   * with chunks, or the one chosen.
   */
  constructor({ onFilter }) {
    this.#onFilter = onFilter;
    this.#pages = new Pager($("documents-pages"), () => this.render());
    $("documents").querySelector("thead").addEventListener("click", (event) => {
      const button = event.target.closest("button[data-sort]");
      if (!button) return;
      this.#sortDown = this.#sortKey === button.dataset.sort ? !this.#sortDown : false;
      this.#sortKey = button.dataset.sort;
      this.#pages.reset();
      this.render();
    });
    $("filter").addEventListener("change", () => {
      const done = this.#withChunks();
      this.#onFilter($("filter").value ? done.filter((e) => e.doc === $("filter").value) : done);
    });
  }

  /** Show `entries` (`error`: why a file was not split) in the table, and in the filter those with chunks. */
  show(entries) {
    this.#entries = entries;
    this.render();
    const done = this.#withChunks();
    const select = $("filter");
    select.replaceChildren(select.options[0], ...done.map((entry) => new Option(entry.source, entry.doc)));
    select.value = "";
    $("filter-field").hidden = done.length < 2;
  }

  /** Back to the first page of rows (a new corpus). */
  reset() {
    this.#pages.reset();
  }

  /** Draw the table again (another language, another page of rows). */
  render() {
    const entries = this.#entries;
    const sorted = [...entries].sort((a, b) => {
      const x = a[this.#sortKey];
      const y = b[this.#sortKey];
      const order = typeof x === "string" ? collator.compare(x, y) : x - y;
      return this.#sortDown ? -order : order;
    });
    const rows = this.#pages.slice(sorted);
    $("documents-body").replaceChildren(...rows.map((entry) => {
      const row = document.createElement("tr");
      const cells = [entry.source, entry.error ? "—" : integer(entry.chars), entry.error ? "—" : integer(entry.tokens),
        entry.error ? "—" : integer(entry.count), entry.error ? "—" : integer(entry.largest),
        entry.error ? errorMessage(entry.error) : entry.kind && !["markdown", "text"].includes(entry.kind) ? msg(`kind.${entry.kind}`) : ""];
      cells.forEach((value, index) => {
        const cell = document.createElement(index ? "td" : "th");
        if (!index) cell.scope = "row";
        // The kind of a document is a message of the catalog, kept in step with the language.
        if (typeof value === "string") cell.textContent = value;
        else show(cell, value.key, value.params);
        row.append(cell);
      });
      if (entry.error) row.className = "skipped";
      return row;
    }));
    const done = entries.filter((e) => !e.error);
    const total = document.createElement("th");
    total.scope = "row";
    show(total, "corpus.total", { documents: quantity("documents", done.length), skipped: entries.length - done.length });
    const sum = (key) => integer(done.reduce((s, e) => s + e[key], 0));
    const largest = integer(Math.max(0, ...done.map((e) => e.largest)));
    $("documents-total").replaceChildren(total, ...[sum("chars"), sum("tokens"), sum("count"), largest, ""].map((value) => {
      const cell = document.createElement("td");
      cell.textContent = value;
      return cell;
    }));
    for (const button of document.querySelectorAll("#documents thead button")) {
      const header = button.parentElement;
      if (button.dataset.sort === this.#sortKey) header.setAttribute("aria-sort", this.#sortDown ? "descending" : "ascending");
      else header.removeAttribute("aria-sort");
    }
  }

  /** The documents split into at least one chunk, in source order. */
  #withChunks() {
    return this.#entries.filter((e) => e.doc && !e.error && e.count);
  }
}
