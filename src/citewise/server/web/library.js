// The library: upload by drag and drop or a file picker (several files, progress per
// file, the error code of a refused file), the documents with their status (stored,
// searchable, embedded), filter by name, delete, re-ingest, and the counts.

import { api, upload } from "./api.js";
import { announce, h } from "./dom.js";
import { forgetDocument } from "./viewer.js";

export class Library {
  constructor(root) {
    this.root = root;
    this.docs = [];
    this.status = new Map();
    this.counts = root.querySelector("#lib-counts");
    this.list = root.querySelector("#doc-list");
    this.uploads = root.querySelector("#uploads");
    this.filter = root.querySelector("#doc-filter");
    this.picker = root.querySelector("#file-input");
    this.drop = root.querySelector("#drop-zone");
    this.filter.addEventListener("input", () => this.render());
    this.picker.addEventListener("change", () => { this.send([...this.picker.files]); this.picker.value = ""; });
    this.drop.addEventListener("dragover", (e) => { e.preventDefault(); this.drop.classList.add("over"); });
    this.drop.addEventListener("dragleave", () => this.drop.classList.remove("over"));
    this.drop.addEventListener("drop", (e) => {
      e.preventDefault();
      this.drop.classList.remove("over");
      this.send([...(e.dataTransfer ? e.dataTransfer.files : [])]);
    });
    this.drop.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); this.picker.click(); }
    });
  }

  async refresh() {
    try {
      const [list, lib] = await Promise.all([api.get("/v1/documents?limit=1000"), api.get("/v1/library")]);
      this.docs = list.documents;
      this.status = new Map(lib.items.map((s) => [s.id, s]));
      this.lib = lib;
      this.render();
    } catch (error) {
      this.counts.textContent = `The library could not be loaded: ${error.code}`;
    }
  }

  /** Upload files one after the other; `names` maps a file to the name it is stored under. */
  async send(files, names = new Map()) {
    for (const file of files) {
      const name = names.get(file) || file.name;
      const bar = h("progress", { max: "1", value: "0", "aria-label": `Upload of ${name}` });
      const outcome = h("span", { class: "outcome" }, "uploading…");
      const row = h("li", { class: "upload", dataset: { name } }, h("span", { class: "name" }, name), bar, outcome);
      this.uploads.prepend(row);
      try {
        const result = await upload(file, name, (fraction) => { bar.value = fraction; });
        outcome.textContent = result.status;
        row.dataset.status = result.status;
        forgetDocument(result.document.id);
        announce(`${name}: ${result.status}`);
      } catch (error) {
        row.dataset.status = "error";
        row.dataset.code = error.code;
        const message = error.message.length > 120 ? `${error.message.slice(0, 117)}…` : error.message;
        outcome.textContent = `refused: ${message} [${error.code}]`;
        outcome.title = error.message;
        outcome.classList.add("error");
        announce(`${name} was refused: ${error.code}`);
      }
    }
    await this.refresh();
  }

  reingest(doc) {
    const input = h("input", { type: "file", hidden: true });
    input.addEventListener("change", () => {
      const file = input.files[0];
      input.remove();
      // Sent under the document's own name, so it replaces that document.
      if (file) this.send([file], new Map([[file, doc.source]]));
    });
    document.body.append(input);
    input.click();
  }

  async remove(doc, button) {
    if (button.dataset.confirm !== "yes") {
      button.dataset.confirm = "yes";
      button.textContent = "Confirm delete";
      setTimeout(() => { if (button.isConnected) { button.dataset.confirm = ""; button.textContent = "Delete"; } }, 5000);
      return;
    }
    button.disabled = true;
    try {
      await api.del(`/v1/documents/${encodeURIComponent(doc.id)}`);
      forgetDocument(doc.id);
      announce(`${doc.source} deleted`);
    } catch (error) {
      announce(`Not deleted: ${error.code}`);
    }
    await this.refresh();
  }

  render() {
    const needle = this.filter.value.trim().toLowerCase();
    const shown = this.docs.filter((d) => !needle || d.source.toLowerCase().includes(needle)
      || (d.title || "").toLowerCase().includes(needle));
    const lib = this.lib || { chunks: 0, dense: false };
    this.counts.textContent = `${this.docs.length} document${this.docs.length === 1 ? "" : "s"} · ${lib.chunks} chunk${lib.chunks === 1 ? "" : "s"}`
      + (needle ? ` · ${shown.length} shown` : "");
    const badge = (on, label, title) => h("span", { class: `badge ${on ? "on" : on === null ? "na" : "off"}`, title }, label);
    this.list.replaceChildren(...shown.map((d) => {
      const s = this.status.get(d.id);
      const remove = h("button", { type: "button", class: "danger", onclick: (e) => this.remove(d, e.currentTarget) }, "Delete");
      return h("li", { class: "doc-row", dataset: { id: d.id, source: d.source } },
        h("div", { class: "doc-main" },
          h("strong", { class: "doc-name" }, d.source),
          d.title && d.title !== d.source ? h("span", { class: "muted" }, ` — ${d.title}`) : null,
          h("div", { class: "muted small" }, `${d.content_type} · ${d.length} chars · ${s ? s.chunks : "?"} chunk${s && s.chunks === 1 ? "" : "s"}`)),
        h("div", { class: "badges", "aria-label": "Status" },
          badge(true, "stored", "in the database"),
          badge(s ? s.searchable : false, s && s.searchable ? "searchable" : "not searchable yet", "in the lexical index"),
          badge(s ? s.embedded : null, s && s.embedded ? "embedded" : s && s.embedded === null ? "no vectors (dense off)" : "not embedded yet", "has vectors")),
        h("div", { class: "doc-actions" },
          h("button", { type: "button", onclick: () => this.reingest(d), "aria-label": `Re-ingest ${d.source}` }, "Re-ingest"),
          remove));
    }));
    if (!shown.length) this.list.append(h("li", { class: "muted" }, this.docs.length ? "No document matches." : "No documents yet: upload some."));
  }
}
