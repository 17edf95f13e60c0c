// The page's entry: the question box (Enter submits, Shift+Enter is a new line), the
// Stop button, switching between the conversation and the library, the threads sidebar,
// and the API key dialog of a server that needs one.

import { api, apiKey, unauthorized } from "./api.js";
import { $, announce, h } from "./dom.js";
import { Library } from "./library.js";
import { Turn } from "./run.js";
import { Threads } from "./threads.js";
import { Viewer } from "./viewer.js";
import { hideCard } from "./answer.js";

const form = $("#ask-form");
const question = $("#question");
const stopButton = $("#stop");
const askButton = $("#ask");
const conversation = $("#conversation");
const viewer = new Viewer($("#viewer"));
const library = new Library($("#library-view"));
let threadId = null;
let current = null;

const threads = new Threads($("#sidebar"), {
  onOpen(thread, runs) {
    threadId = thread.id;
    conversation.replaceChildren();
    thread.turns.forEach((turn, i) => {
      const t = new Turn(conversation, { question: turn.question, viewer });
      const info = runs[i];
      if (info && info.answer) t.finish(info.answer);
      else t.answerEl.replaceChildren(h("p", {}, turn.answer));
      t.answerEl.setAttribute("aria-busy", "false");
      t.stepsBox.hidden = true;
    });
    show("ask");
    closeSidebar();
    announce(`Thread opened: ${thread.turns.length} turn${thread.turns.length === 1 ? "" : "s"}`);
    question.focus();
  },
  onNew() {
    threadId = null;
    conversation.replaceChildren();
    show("ask");
    closeSidebar();
    question.focus();
  },
});
$("#sidebar").addEventListener("thread-deleted", () => { threadId = null; conversation.replaceChildren(); });

function setRunning(turn) {
  current = turn;
  const busy = Boolean(turn);
  stopButton.disabled = !busy;
  askButton.disabled = busy;
}

async function ask() {
  const text = question.value.trim();
  if (!text || current) return;
  question.value = "";
  show("ask");
  const turn = new Turn(conversation, {
    question: text, viewer,
    onStart: (t) => setRunning(t),
    onRunStarted: (event) => {
      // The thread exists from the run's start: list it now, not after the answer.
      threadId = event.thread_id;
      threads.current = threadId;
      threads.refresh();
    },
    onEnd: (t) => {
      if (t.threadId) threadId = t.threadId;
      setRunning(null);
      threads.current = threadId;
      threads.refresh();
    },
  });
  turn.el.scrollIntoView({ block: "start" });
  announce("Question sent");
  await turn.ask(text, threadId);
}

form.addEventListener("submit", (e) => { e.preventDefault(); ask(); });
question.addEventListener("keydown", (e) => {
  if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); ask(); }
});
stopButton.addEventListener("click", () => { if (current) current.cancel(); });

// The sticky header's height (two rows on a phone), for what must stay below it.
const header = $("header.top");
new ResizeObserver(() => {
  document.documentElement.style.setProperty("--header-h", `${header.offsetHeight}px`);
}).observe(header);

// Views: the conversation or the library.
function show(view) {
  const ask = view === "ask";
  $("#ask-view").hidden = !ask;
  $("#library-view").hidden = ask;
  $("#nav-ask").setAttribute("aria-current", ask ? "page" : "false");
  $("#nav-library").setAttribute("aria-current", ask ? "false" : "page");
  if (!ask) { viewer.close(); library.refresh(); }
}
$("#nav-ask").addEventListener("click", () => { show("ask"); question.focus(); });
$("#nav-library").addEventListener("click", () => { show("library"); $("#doc-filter").focus(); });

// The sidebar is a drawer on narrow screens.
const menu = $("#menu");
function closeSidebar() {
  document.body.classList.remove("sidebar-open");
  menu.setAttribute("aria-expanded", "false");
}
menu.addEventListener("click", () => {
  const open = !document.body.classList.contains("sidebar-open");
  document.body.classList.toggle("sidebar-open", open);
  menu.setAttribute("aria-expanded", String(open));
  if (open) $("#new-thread").focus();
});
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") { hideCard(); if (document.body.classList.contains("sidebar-open")) { closeSidebar(); menu.focus(); } }
});

// API keys: asked for when the server needs one, kept in session storage only.
const dialog = $("#key-dialog");
const keyInput = $("#key-input");
const keyError = $("#key-error");
function askForKey(message = "") {
  keyError.textContent = message;
  keyInput.value = "";
  if (!dialog.open) dialog.showModal();
  keyInput.focus();
}
$("#key-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const value = keyInput.value.trim();
  if (!value) return;
  apiKey.set(value);
  try {
    await api.get("/v1/threads?limit=1");
  } catch (error) {
    apiKey.set("");
    keyError.textContent = `That key was refused [${error.code}]`;
    return;
  }
  dialog.close();
  await start();
});
$("#key-button").addEventListener("click", () => askForKey());
$("#key-forget").addEventListener("click", () => { apiKey.set(""); location.reload(); });
unauthorized.add((error) => {
  apiKey.set("");
  askForKey(`The server needs a valid API key [${error.code || "unauthorized"}]`);
});

async function start() {
  await Promise.all([threads.refresh(), $("#library-view").hidden ? null : library.refresh()]);
  document.documentElement.dataset.ready = "true";
}

(async () => {
  const config = await (await fetch("/web/config.json")).json();
  $("#version").textContent = `v${config.version}`;
  if (config.auth_required) {
    $("#key-button").hidden = false;
    if (!apiKey.get()) { askForKey(); return; }
  }
  await start();
})();
