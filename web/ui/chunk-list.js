// The chunks of one or more documents in one scrolling list: it draws only the cards in
// view and asks for their chunks a page at a time, as they come into view.
//
// Markup: a role="feed" element (#chunk-list, style.css .chunk-list) holding one
// .chunk-spacer, which gives the list the height of every card; the cards are <article
// class="chunk-card"> placed by index, worded by the split.meta* keys of the catalog.
//
//   const list = new ChunkList($("chunk-list"), { fetchPage: (doc, first, count) => ... });
//   list.show([{ doc, count: 412, source: "guide.md" }], { named: true });
//   list.clear();
import { msg, quantity, show, t } from "../i18n/i18n.js";

// Cards have a fixed height (style.css .chunk-card) so the list can place them by index.
const CARD_HEIGHT = 208;
const OVERSCAN = 4;
// The chunks of a page the list asks for: the core's own page size (api.py
// DEFAULT_PAGE_SIZE), so the first page a split sends has as many.
const PAGE_SIZE = 200;

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

const emptyView = () => ({ parts: [], starts: [0], length: 0, pages: new Map(), named: false });

export class ChunkList {
  // The parts shown, their first global index, and the pages of chunks sent, by "doc:first"
  // (records.page_columns).
  #view = emptyView();
  // The cards in the DOM by chunk id. Cards that stay in view are kept, not rebuilt, so the
  // focus (and a card's own scroll position) survives scrolling the list.
  #rendered = new Map();
  #frame = 0;
  #list;
  #spacer;
  #fetchPage;

  /**
   * `list` is the feed, holding its .chunk-spacer. `fetchPage(doc, first, count)` resolves
   * to the page of document `doc`'s chunks from chunk `first` (at most `count`: the core's
   * "chunks", records.page_columns), or to null when there is none (a rejection is null
   * too): its cards stay pending, and ask again once they are drawn anew.
   */
  constructor(list, { fetchPage }) {
    this.#list = list;
    this.#spacer = list.querySelector(".chunk-spacer");
    this.#fetchPage = fetchPage;
    // The feed pattern (WAI-ARIA APG): Page Down / Page Up move between cards; Control+End and
    // Control+Home leave the list (every card is a tab stop: a long list is many Tab presses);
    // arrow keys, Home and End scroll the focused card's own text.
    list.addEventListener("keydown", (event) => {
      const card = event.target.closest?.(".chunk-card");
      if (card && event.ctrlKey && !event.altKey && !event.metaKey && (event.key === "End" || event.key === "Home")) {
        event.preventDefault();
        this.#leaveFeed(event.key === "End");
        return;
      }
      if (!card || event.altKey || event.ctrlKey || event.metaKey) return;
      const step = { PageDown: 1, PageUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      this.#focusCard(Number(card.dataset.id) + step);
    });
    list.addEventListener("scroll", () => {
      cancelAnimationFrame(this.#frame);
      this.#frame = requestAnimationFrame(() => this.#renderVisible());
    });
  }

  /**
   * Show the chunks of `parts` in order, from the top: {doc, count, source} each (a document
   * of the core's workspace, its number of chunks, its name). `firstPages` maps a doc to the
   * first page of its chunks when it is at hand (a split sends it); `named`: each card says
   * its document's source (a corpus). A page still on its way for the chunks shown before
   * is dropped when it comes.
   */
  show(parts, { firstPages = new Map(), named = false } = {}) {
    const starts = [0];
    for (const part of parts) starts.push(starts[starts.length - 1] + part.count);
    const pages = new Map([...firstPages].map(([doc, page]) => [`${doc}:0`, page]));
    this.#view = { parts, starts, length: starts[starts.length - 1], pages, named };
    this.#list.scrollTop = 0;
    this.#resetCards();
    this.#renderVisible();
  }

  /** An empty list: no chunks, no cards. */
  clear() {
    this.#view = emptyView();
    this.#resetCards();
  }

  /** The part and local index of global chunk `i` (binary search over the parts' starts). */
  #locate(i) {
    const view = this.#view;
    let low = 0;
    let high = view.parts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (view.starts[mid] <= i) low = mid;
      else high = mid - 1;
    }
    return [view.parts[low], i - view.starts[low]];
  }

  /**
   * Chunk `i` as the core sent it (numbers from its page's columns, texts sliced from the
   * page's one string), or null while its page is on its way (asked for here, once).
   */
  #chunkAt(i) {
    const [part, local] = this.#locate(i);
    const first = local - (local % PAGE_SIZE);
    const key = `${part.doc}:${first}`;
    const page = this.#view.pages.get(key);
    if (!page) {
      this.#requestPage(part, first, key);
      return null;
    }
    if (page.loading) return null;
    const k = local - first;
    const from = page.offsets[k];
    const head = from + page.overlap[k];
    return {
      index: i, id: page.id[k], start: page.start[k], end: page.end[k], content_start: page.content_start[k],
      tokens: page.tokens[k], overlap_tokens: page.overlap_tokens[k], embedded_tokens: page.embedded_tokens[k],
      heading_path: page.paths[page.path[k]],
      sections: (page.sections?.[k] ?? []).map((p) => page.paths[p]),
      source: this.#view.named ? part.source : "",
      overlap_text: page.texts.slice(from, head), new_text: page.texts.slice(head, page.offsets[k + 1]),
    };
  }

  /** Ask for a page of a document's chunks; its cards are drawn when it comes. */
  async #requestPage(part, first, key) {
    const asked = this.#view;
    asked.pages.set(key, { loading: true });
    const page = await this.#fetchPage(part.doc, first, PAGE_SIZE).catch(() => null);
    if (asked !== this.#view) return; // newer chunks replaced these
    if (!page) {
      asked.pages.delete(key);
      return;
    }
    asked.pages.set(key, page);
    const rendered = this.#rendered;
    const focused = [...rendered].find(([, card]) => card.dataset.pending && card.contains(document.activeElement));
    for (const [id, card] of rendered) {
      if (card.dataset.pending) {
        card.remove();
        rendered.delete(id);
      }
    }
    this.#renderVisible();
    if (focused) rendered.get(focused[0])?.focus();
  }

  /** A card's place while its chunk's page is on its way. */
  #pendingCard(i) {
    const card = document.createElement("article");
    card.className = "chunk-card";
    card.tabIndex = 0;
    card.dataset.id = String(i);
    card.dataset.pending = "true";
    card.style.top = `${i * CARD_HEIGHT}px`;
    card.setAttribute("aria-busy", "true");
    card.setAttribute("aria-setsize", String(this.#view.length));
    card.setAttribute("aria-posinset", String(i + 1));
    const meta = document.createElement("p");
    meta.className = "meta";
    show(meta, "split.meta_loading", { n: i + 1 });
    card.append(meta);
    return card;
  }

  #chunkCard(chunk) {
    // An article of the feed (role="feed"): it scrolls its own text, so it is in the tab
    // order (arrow keys read it; a scroll box out of the keyboard's reach is a trap).
    const card = document.createElement("article");
    card.className = "chunk-card";
    card.tabIndex = 0;
    card.setAttribute("aria-setsize", String(this.#view.length));
    card.setAttribute("aria-posinset", String(chunk.index + 1));
    card.setAttribute("aria-labelledby", `chunk-meta-${chunk.index}`);
    card.style.top = `${chunk.index * CARD_HEIGHT}px`;
    card.dataset.id = String(chunk.index);
    const meta = document.createElement("p");
    meta.className = "meta";
    meta.id = `chunk-meta-${chunk.index}`;
    const where = (chunk.source ? ` · ${chunk.source}` : "") + (chunk.heading_path.length ? ` · ${chunk.heading_path.join(" › ")}` : "");
    // A chunk of several sections names each: its heading path is only what they share.
    const sections = chunk.sections.length > 1 ? msg("split.meta_sections", { n: chunk.sections.length,
      list: chunk.sections.map((path) => path.slice(chunk.heading_path.length).join(" › ") || "—").join("; ") }) : "";
    const numbers = { n: chunk.id + 1, tokens: quantity("tokens", chunk.tokens), overlap: chunk.overlap_tokens };
    // What is embedded with the context line (the statistics count that) when it is more than the text.
    const embedded = chunk.embedded_tokens !== chunk.tokens
      ? msg("split.meta_embedded", { tokens: quantity("tokens", chunk.embedded_tokens) }) : "";
    show(meta, "{text}{embedded}{where}{sections}", { text: msg(chunk.overlap_tokens ? "split.meta_overlap" : "split.meta", numbers),
      embedded, where, sections });
    const body = document.createElement("pre");
    body.className = "window-text";
    const head = chunk.content_start - chunk.start;
    if (head > 0) {
      const mark = document.createElement("mark");
      mark.className = "overlap";
      mark.dataset.i18nAttr = "title=split.carried";
      mark.title = t("split.carried");
      mark.textContent = chunk.overlap_text;
      body.append(mark);
    }
    body.append(document.createTextNode(chunk.new_text));
    card.append(meta, body);
    return card;
  }

  #resetCards() {
    this.#rendered.clear();
    this.#list.replaceChildren(this.#spacer);
  }

  #renderVisible() {
    const list = this.#list;
    const rendered = this.#rendered;
    const length = this.#view.length;
    this.#spacer.style.height = `${length * CARD_HEIGHT}px`;
    const first = Math.max(0, Math.floor(list.scrollTop / CARD_HEIGHT) - OVERSCAN);
    const last = Math.min(length, Math.ceil((list.scrollTop + list.clientHeight) / CARD_HEIGHT) + OVERSCAN);
    for (const [id, card] of rendered) {
      // A focused card out of view stays: removing it would drop the focus to the page.
      if ((id < first || id >= last) && !card.contains(document.activeElement)) {
        card.remove();
        rendered.delete(id);
      }
    }
    // New cards go in chunk order (reading order and focus order follow the DOM).
    let next = [...rendered].filter(([id]) => id >= last).sort((a, b) => a[0] - b[0])[0]?.[1] ?? null;
    for (let i = last - 1; i >= first; i--) {
      let card = rendered.get(i);
      if (!card) {
        const chunk = this.#chunkAt(i);
        card = chunk ? this.#chunkCard(chunk) : this.#pendingCard(i);
        rendered.set(i, card);
        list.insertBefore(card, next);
      }
      next = card;
    }
  }

  /** Focus the card of chunk `id` (rendering it first when it is out of view). */
  #focusCard(id) {
    if (id < 0 || id >= this.#view.length) return;
    if (!this.#rendered.has(id)) {
      this.#list.scrollTop = id * CARD_HEIGHT;
      this.#renderVisible();
    }
    this.#rendered.get(id).focus();
  }

  /** Focus the first tab stop after the list (`forward`) or the last one before it. */
  #leaveFeed(forward) {
    const list = this.#list;
    const after = (el) => list.compareDocumentPosition(el) & Node.DOCUMENT_POSITION_FOLLOWING;
    const stops = [...document.querySelectorAll(FOCUSABLE)]
      .filter((el) => !list.contains(el) && Boolean(after(el)) === forward);
    if (!forward) stops.reverse();
    // Controls in a closed <details> keep their boxes but take no focus: try each in turn.
    for (const el of stops) {
      el.focus();
      if (document.activeElement === el) return;
    }
  }
}
