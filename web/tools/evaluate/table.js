// The evaluation's rows: one per setting and retriever, in a table a person sorts by a
// column's button (again: the other way), and as CSV.
import { fixed, integer, percent, show, showText, t } from "../../i18n/i18n.js";

/** The setting of a row as the core names it (ragchunk.evaluate.grid.Setting.label). */
export function settingLabel(row) {
  const suffix = row.by !== "fixed" && row.context === "none" ? " (no context)" : "";
  return `${row.by} ${row.size}/${row.overlap}${suffix}`;
}

const KEYS = {
  setting: (row) => [row.by, row.size],
  retriever: (row) => row.retriever,
  recall: (row) => row.recall ?? -1,
  iou: (row) => row.iou ?? -1,
  tokens_read: (row) => row.tokens_read,
  tokens_to_embed: (row) => row.tokens_to_embed,
  chunks: (row) => row.chunks,
  cost: (row) => row.cost ?? -1,
};

const compare = (a, b) => {
  if (Array.isArray(a)) return compare(a[0], b[0]) || compare(a[1], b[1]);
  return a < b ? -1 : a > b ? 1 : 0;
};

export class ResultsTable {
  constructor(table, body) {
    Object.assign(this, { table, body, rows: [], key: null, descending: false });
    for (const button of table.querySelectorAll("thead button[data-sort]")) {
      button.addEventListener("click", () => {
        this.descending = this.key === button.dataset.sort ? !this.descending : button.dataset.sort !== "setting";
        this.key = button.dataset.sort;
        this.render();
      });
    }
  }

  show(rows) {
    this.rows = rows;
    this.key = null;
    this.render();
  }

  render() {
    const rows = [...this.rows];
    if (this.key) {
      const value = KEYS[this.key];
      rows.sort((a, b) => compare(value(a), value(b)) * (this.descending ? -1 : 1));
    }
    for (const th of this.table.querySelectorAll("thead th")) {
      const sort = th.querySelector("button")?.dataset.sort;
      if (sort && sort === this.key) th.setAttribute("aria-sort", this.descending ? "descending" : "ascending");
      else th.removeAttribute("aria-sort");
    }
    this.body.replaceChildren(...rows.map((row) => {
      const tr = document.createElement("tr");
      tr.dataset.setting = settingLabel(row);
      tr.dataset.retriever = row.retriever;
      const cells = [
        (td) => showText(td, settingLabel(row)),
        (td) => show(td, `eval.name_${row.retriever}`),
        (td) => (row.recall === null ? showText(td, "—") : show(td, "{n}", { n: percent(row.recall) })),
        (td) => (row.recall_interval === null ? showText(td, "—")
          : show(td, "{low} – {high}", { low: percent(row.recall_interval[0]), high: percent(row.recall_interval[1]) })),
        (td) => (row.iou === null ? showText(td, "—") : show(td, "{n}", { n: percent(row.iou) })),
        (td) => show(td, "{n}", { n: integer(Math.round(row.tokens_read)) }),
        (td) => show(td, "{n}", { n: row.tokens_to_embed }),
        (td) => show(td, "{n}", { n: row.chunks }),
        (td) => (row.cost === null ? showText(td, "—") : show(td, "{n}", { n: fixed(row.cost, 4) })),
      ];
      for (const [index, fill] of cells.entries()) {
        const td = document.createElement(index === 0 ? "th" : "td");
        if (index === 0) td.scope = "row";
        fill(td);
        tr.append(td);
      }
      if (row.chunks_past_model) {
        tr.title = t("eval.past_model", { count: row.chunks_past_model });
        tr.dataset.pastModel = String(row.chunks_past_model);
      }
      return tr;
    }));
  }
}

const CSV_COLUMNS = ["by", "size", "overlap", "context", "retriever", "k", "recall", "recall_low", "recall_high",
  "precision", "iou", "hit_rate", "mrr", "precision_omega", "scored_questions", "chunks", "tokens_to_embed",
  "tokens_read", "cost", "chunks_past_model"];

const cell = (value) => {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** The rows as CSV (the figures as the JSON has them; per-question detail is in the JSON). */
export function csvOf(rows) {
  const lines = [CSV_COLUMNS.join(",")];
  for (const row of rows) {
    const values = { ...row, recall_low: row.recall_interval?.[0], recall_high: row.recall_interval?.[1] };
    lines.push(CSV_COLUMNS.map((column) => cell(values[column])).join(","));
  }
  return `${lines.join("\n")}\n`;
}
