// The threads sidebar: newest first; open one to see its turns (each rendered from its
// run's stored answer, so old citations open in the viewer too), rename, delete.

import { api } from "./api.js";
import { announce, h } from "./dom.js";

export class Threads {
  constructor(root, { onOpen, onNew }) {
    this.root = root;
    this.list = root.querySelector("#threads");
    this.onOpen = onOpen;
    this.current = null;
    root.querySelector("#new-thread").addEventListener("click", () => { this.current = null; this.mark(); onNew(); });
  }

  async refresh() {
    let threads = [];
    try {
      threads = (await api.get("/v1/threads?limit=200")).threads;
    } catch (error) {
      this.list.replaceChildren(h("li", { class: "muted" }, `Threads unavailable: ${error.code}`));
      return;
    }
    this.list.replaceChildren(...threads.map((t) => this.row(t)));
    if (!threads.length) this.list.append(h("li", { class: "muted" }, "No threads yet."));
    this.mark();
  }

  mark() {
    for (const li of this.list.children) {
      const open = li.querySelector(".thread-open");
      if (open) open.setAttribute("aria-current", li.dataset.id === this.current ? "true" : "false");
    }
  }

  row(t) {
    const title = t.title || "(untitled)";
    const li = h("li", { class: "thread", dataset: { id: t.id } });
    // The full title on hover: the button shows two lines of it at most.
    const open = h("button", { type: "button", class: "thread-open", title, onclick: () => this.open(t.id) },
      h("span", { class: "thread-title" }, title));
    const rename = h("button", { type: "button", class: "icon", "aria-label": `Rename thread ${title}`, onclick: () => this.rename(li, t) }, "✎");
    const del = h("button", { type: "button", class: "icon danger", "aria-label": `Delete thread ${title}`, onclick: (e) => this.remove(t, e.currentTarget) }, "✕");
    li.append(open, rename, del);
    return li;
  }

  async open(id) {
    this.current = id;
    this.mark();
    const thread = await api.get(`/v1/threads/${encodeURIComponent(id)}`);
    const runs = await Promise.all(thread.turns.map((turn) =>
      api.get(`/v1/runs/${encodeURIComponent(turn.run_id)}`).catch(() => null)));
    this.onOpen(thread, runs);
  }

  rename(li, t) {
    const input = h("input", { type: "text", value: t.title || "", "aria-label": "New thread title", maxlength: "200" });
    const done = async (save) => {
      if (save && input.value.trim() && input.value.trim() !== t.title) {
        try {
          await api.patch(`/v1/threads/${encodeURIComponent(t.id)}`, { title: input.value.trim() });
          announce("Thread renamed");
        } catch (error) {
          announce(`Not renamed: ${error.code}`);
        }
      }
      await this.refresh();
      const again = this.list.querySelector(`li[data-id="${CSS.escape(t.id)}"] .thread-open`);
      if (again) again.focus();
    };
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); done(true); } else if (e.key === "Escape") { done(false); }
    });
    li.replaceChildren(input);
    input.focus();
    input.select();
  }

  async remove(t, button) {
    if (button.dataset.confirm !== "yes") {
      button.dataset.confirm = "yes";
      button.textContent = "Delete?";
      button.setAttribute("aria-label", `Confirm: delete thread ${t.title || ""}`);
      return;
    }
    try {
      await api.del(`/v1/threads/${encodeURIComponent(t.id)}`);
      announce("Thread deleted");
      if (this.current === t.id) { this.current = null; this.root.dispatchEvent(new CustomEvent("thread-deleted")); }
    } catch (error) {
      announce(`Not deleted: ${error.code}`);
    }
    await this.refresh();
  }
}
