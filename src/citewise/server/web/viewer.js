// The source viewer: the stored text of a cited document with the cited span in a <mark>
// holding exactly the cited characters (offsets are code points, converted to UTF-16),
// scrolled into view; the document's other citations are marked too; previous / next
// walk every citation of the answer. A PDF shows the cited page's text (page spans come
// from /v1/library/{id}).

import { api } from "./api.js";
import { announce, codePointIndexer, h } from "./dom.js";
import { citedPlace, docTitle } from "./answer.js";

const texts = new Map(); // document id → Promise<{text, pages}>

function loadDocument(id) {
  if (!texts.has(id)) {
    const enc = encodeURIComponent(id);
    const p = Promise.all([api.get(`/v1/documents/${enc}?text=true`), api.get(`/v1/library/${enc}`)])
      .then(([doc, status]) => ({ doc, pages: status.pages || [] }));
    p.catch(() => texts.delete(id));
    texts.set(id, p);
  }
  return texts.get(id);
}

export function forgetDocument(id) {
  texts.delete(id);
}

/** Merge [start, end) ranges (sorted, non-overlapping). */
function merged(ranges) {
  const out = [];
  for (const r of [...ranges].sort((a, b) => a[0] - b[0])) {
    const prev = out[out.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else out.push([...r]);
  }
  return out;
}

export class Viewer {
  constructor(root) {
    this.root = root;
    this.answer = null;
    this.index = 0;
    this.title = root.querySelector("#viewer-title");
    this.meta = root.querySelector("#viewer-meta");
    this.body = root.querySelector("#viewer-text");
    this.position = root.querySelector("#viewer-position");
    root.querySelector("#viewer-prev").addEventListener("click", () => this.step(-1));
    root.querySelector("#viewer-next").addEventListener("click", () => this.step(1));
    root.querySelector("#viewer-close").addEventListener("click", () => this.close());
    root.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.close();
      else if (e.altKey && e.key === "ArrowDown") { e.preventDefault(); this.step(1); }
      else if (e.altKey && e.key === "ArrowUp") { e.preventDefault(); this.step(-1); }
    });
    this.returnFocus = null;
  }

  step(delta) {
    if (!this.answer) return;
    const n = this.answer.citations.length;
    this.show(this.answer, (this.index + delta + n) % n);
  }

  close() {
    this.root.hidden = true;
    document.body.classList.remove("viewer-open");
    if (this.returnFocus && this.returnFocus.isConnected) this.returnFocus.focus();
  }

  async show(answer, citationIndex) {
    const opening = this.root.hidden;
    if (opening) this.returnFocus = document.activeElement;
    this.answer = answer;
    const pos = answer.citations.findIndex((c) => c.citation_index === citationIndex);
    this.index = Math.max(0, pos);
    const citation = answer.citations[this.index];
    const { doc, snippet } = citedPlace(answer, citation);
    this.root.hidden = false;
    document.body.classList.add("viewer-open");
    this.title.textContent = docTitle(doc);
    this.position.textContent = `Citation ${this.index + 1} of ${answer.citations.length}`;
    // Nowhere to walk to with one citation: say so rather than offer two dead buttons.
    for (const id of ["#viewer-prev", "#viewer-next"]) {
      this.root.querySelector(id).disabled = answer.citations.length < 2;
    }
    if (opening) this.title.focus();
    this.meta.textContent = doc ? doc.source : "";
    this.body.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    this.body.setAttribute("aria-busy", "true");
    const docId = doc && doc.document && doc.document.id;
    if (!docId || citation.start_char === null || citation.start_char === undefined) {
      this.body.replaceChildren(h("p", {}, "This citation has no offsets in a stored document."));
      this.body.removeAttribute("aria-busy");
      return;
    }
    let loaded;
    try {
      loaded = await loadDocument(docId);
    } catch (error) {
      this.body.replaceChildren(h("p", { role: "alert" }, `The document could not be loaded: ${error.code}`));
      this.body.removeAttribute("aria-busy");
      return;
    }
    if (this.answer !== answer || answer.citations[this.index] !== citation) return; // moved on
    this.render(loaded, answer, citation, doc, snippet);
  }

  render({ doc: stored, pages }, answer, citation, doc, snippet) {
    const text = stored.text || "";
    // A paged document: show only the page holding the span.
    let from = 0;
    let to = [...text].length;
    const page = pages.find((p) => p.start_char <= citation.start_char && citation.end_char <= p.end_char)
      || (snippet && snippet.page ? pages.find((p) => p.page === snippet.page) : null);
    const metaBits = [stored.source];
    // A PDF's printed label ("iv", "1" on its 9th page) is the page the reader looks for.
    const labels = (stored.metadata && stored.metadata.page_labels) || {};
    const named = (n) => (labels[String(n)] ? `page ${labels[String(n)]} (PDF page ${n})` : `page ${n}`);
    if (page) { from = Math.min(page.start_char, citation.start_char); to = Math.max(page.end_char, citation.end_char); metaBits.push(named(page.page)); }
    else if (snippet && snippet.page) metaBits.push(named(snippet.page));
    if (snippet && snippet.section) metaBits.push(snippet.section);
    this.meta.textContent = metaBits.join(" · ");
    const unit = codePointIndexer(text);
    const slice = (a, b) => text.slice(unit(a), unit(b));
    const active = [citation.start_char, citation.end_char];
    // Other citations of the same document, outside the active span.
    const others = [];
    for (const c of answer.citations) {
      if (c === citation || c.document_index !== citation.document_index || c.start_char === null) continue;
      for (const [s, e] of [[c.start_char, Math.min(c.end_char, active[0])], [Math.max(c.start_char, active[1]), c.end_char]]) {
        if (s < e) others.push([Math.max(s, from), Math.min(e, to)]);
      }
    }
    const pieces = [...merged(others.filter(([s, e]) => s < e)).map((r) => [...r, "other"]), [...active, "active"]]
      .sort((a, b) => a[0] - b[0]);
    const frag = document.createDocumentFragment();
    let at = from;
    let activeMark = null;
    for (const [s, e, kind] of pieces) {
      if (s > at) frag.append(slice(at, s));
      const mark = h("mark", kind === "active"
        ? { class: "cite-active", id: "cited-span", "aria-label": "cited passage" }
        : { class: "cite-other" }, slice(s, e));
      if (kind === "active") activeMark = mark;
      frag.append(mark);
      at = e;
    }
    if (at < to) frag.append(slice(at, to));
    if (page && from > 0) this.body.replaceChildren(h("p", { class: "muted page-note" }, labels[String(page.page)] ? `Page ${labels[String(page.page)]} (PDF page ${page.page})` : `Page ${page.page}`), h("div", { class: "doc" }, frag));
    else this.body.replaceChildren(h("div", { class: "doc" }, frag));
    this.body.removeAttribute("aria-busy");
    // Scroll the text panel only (scrollIntoView would scroll the whole page too).
    const top = activeMark.offsetTop - this.body.clientHeight / 2 + activeMark.offsetHeight / 2;
    this.body.scrollTop = Math.max(0, top);
    announce(`Showing citation ${this.index + 1} of ${answer.citations.length} in ${docTitle(doc)}`);
  }
}
