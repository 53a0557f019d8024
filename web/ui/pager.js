// A long table shown a page of rows at a time. Laying out a table of 2,000 rows held the
// page's main thread for ~300 ms in one go (bench/bench_memory.py --corpus); a page of
// TABLE_ROWS rows takes a few milliseconds, whatever the size of the corpus.
//
// Markup: <nav class="pager" hidden> with two buttons data-step="-1" / "1" and one
// .pager-range element; the pager shows itself when there is more than one page.

import { show } from "../i18n/i18n.js";

export const TABLE_ROWS = 100;

export class Pager {
  /** `nav` holds the controls; `render` draws the table again when the page changes. */
  constructor(nav, render) {
    this.nav = nav;
    this.page = 0;
    this.range = nav.querySelector(".pager-range");
    this.buttons = [...nav.querySelectorAll("button[data-step]")];
    for (const button of this.buttons) {
      button.addEventListener("click", () => {
        this.page += Number(button.dataset.step);
        render();
      });
    }
  }

  /** Back to the first page (a new corpus, a new order). */
  reset() {
    this.page = 0;
  }

  /** The rows of `items` on the current page (kept within the pages there are); updates the controls. */
  slice(items) {
    const pages = Math.max(1, Math.ceil(items.length / TABLE_ROWS));
    this.page = Math.min(Math.max(0, this.page), pages - 1);
    const first = this.page * TABLE_ROWS;
    const rows = items.slice(first, first + TABLE_ROWS);
    this.nav.hidden = pages < 2;
    show(this.range, "corpus.range", { first: rows.length ? first + 1 : 0, last: first + rows.length, total: items.length });
    for (const button of this.buttons) {
      const step = Number(button.dataset.step);
      button.disabled = step < 0 ? this.page === 0 : this.page >= pages - 1;
    }
    return rows;
  }
}
