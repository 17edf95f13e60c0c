// One turn of the conversation: the question, the live timeline of the agent's steps
// (thought → tool call with its input → observation with its size and latency), warnings
// where they occur, the answer as it is written, then — once the run ends — the answer
// with clickable citations, its sources, ratings and the "how" panel. A paused run shows
// its pending tool calls with Approve / Reject / Edit; deciding resumes the same stream.

import { api } from "./api.js";
import { announce, formatMs, formatSize, h } from "./dom.js";
import { renderAnswerText, renderHow, renderSources } from "./answer.js";
import { RunStream } from "./stream.js";

const pretty = (value) => JSON.stringify(value, null, 2);

export class Turn {
  constructor(container, { question, viewer, onEnd = () => {}, onStart = () => {}, onRunStarted = () => {} }) {
    this.viewer = viewer;
    this.onRunStarted = onRunStarted;
    this.onEnd = onEnd;
    this.onStart = onStart;
    this.runId = null;
    this.threadId = null;
    this.stream = null;
    this.answer = null;
    this.thoughts = new Map();
    this.stepCount = 0;
    this.steps = h("ol", { class: "timeline", "aria-label": "Agent steps" });
    this.stepsSummary = h("summary", {}, "Steps");
    this.stepsBox = h("details", { class: "steps", open: true }, this.stepsSummary, this.steps);
    this.warnings = h("ul", { class: "warnings", "aria-label": "Warnings" });
    this.answerEl = h("div", { class: "answer", "aria-live": "polite", "aria-busy": "true" });
    this.liveText = null;
    this.pausedEl = h("div", { class: "paused" });
    this.sources = h("div", { class: "sources" });
    this.how = h("details", { class: "how" });
    this.statusEl = h("p", { class: "run-status muted", role: "status" });
    this.el = h("article", { class: "turn", "aria-label": "Question and answer" },
      h("h2", { class: "question" }, question), this.statusEl, this.stepsBox, this.warnings,
      this.answerEl, this.pausedEl, this.sources, this.how);
    this.how.hidden = true;
    this.stepsBox.hidden = true; // shown with the first step
    container.append(this.el);
  }

  /** Ask: POST /v1/runs and follow its stream to the end. */
  async ask(question, threadId) {
    await this.follow("/v1/runs", { question, ...(threadId ? { thread_id: threadId } : {}) });
  }

  async follow(path, body, lastSeq = 0) {
    this.stream = new RunStream({
      lastSeq,
      onEvent: (event) => this.handle(event),
      onState: (state) => {
        if (state === "reconnecting") this.statusEl.textContent = "Connection lost — reconnecting…";
        else if (state === "open") this.statusEl.textContent = "";
      },
    });
    this.onStart(this);
    try {
      await this.stream.run(path, body);
    } catch (error) {
      this.fail(error.code || "network_error", error.message || "the request failed");
    }
    this.runId = this.runId || this.stream.runId;
    this.onEnd(this);
  }

  cancel() {
    if (!this.runId) return Promise.resolve();
    this.statusEl.textContent = "Stopping…";
    return api.post(`/v1/runs/${encodeURIComponent(this.runId)}/cancel`, {}).catch((error) => {
      this.statusEl.textContent = `Could not stop: ${error.code}`;
    });
  }

  get running() {
    return this.stream !== null && !this.stream.done;
  }

  addStep(kind, seq, ...children) {
    const li = h("li", { class: `step step-${kind}`, dataset: { kind, seq: String(seq) } }, ...children);
    this.steps.append(li);
    this.stepsBox.hidden = false;
    this.stepCount += 1;
    this.stepsSummary.textContent = `Steps (${this.stepCount})`;
    return li;
  }

  handle(event) {
    this.runId = event.run_id;
    this.threadId = event.thread_id;
    this.el.dataset.runId = event.run_id;
    switch (event.kind) {
      case "run_started":
        this.statusEl.textContent = event.resumed ? "Resumed" : `Working (${event.model})…`;
        if (!event.resumed) this.onRunStarted(event);
        break;
      case "thought": {
        let li = this.thoughts.get(event.message_id);
        if (!li) {
          li = this.addStep("thought", event.seq, h("span", { class: "label" }, "Thought"), h("span", { class: "text" }));
          this.thoughts.set(event.message_id, li);
        }
        li.querySelector(".text").append(event.text);
        break;
      }
      case "action":
        this.addStep("action", event.seq, h("span", { class: "label" }, "Tool call"),
          h("code", { class: "tool" }, event.tool), h("pre", { class: "args" }, pretty(event.input)));
        break;
      case "observation":
        this.addStep("observation", event.seq, h("details", {},
          h("summary", {}, h("span", { class: "label" }, event.is_error ? "Tool error" : "Observation"), " ",
            h("code", { class: "tool" }, event.tool), " ",
            h("span", { class: "size" }, formatSize([...event.text].length)), " · ",
            h("span", { class: "latency" }, formatMs(event.duration_ms))),
          h("pre", { class: "observation-text" }, event.text)));
        break;
      case "answer_delta":
        if (!this.liveText) {
          this.liveText = h("p", { class: "streaming" });
          this.answerEl.replaceChildren(this.liveText);
        }
        this.liveText.append(event.text);
        break;
      case "warning": {
        const text = `${event.code}: ${event.message}`;
        this.addStep("warning", event.seq, h("span", { class: "label" }, "Warning"), text);
        this.warnings.append(h("li", { class: "warning" }, text));
        break;
      }
      case "run_paused":
        this.statusEl.textContent = "Waiting for your decision";
        this.showPaused(event.interrupts);
        announce("The run is paused: a tool call needs your decision");
        break;
      case "run_finished":
        this.finish(event.answer);
        break;
      case "error":
        if (event.answer && event.answer.text) this.finish(event.answer, false);
        this.fail(event.code, event.message);
        break;
      default:
        break;
    }
  }

  fail(code, message) {
    this.answerEl.setAttribute("aria-busy", "false");
    this.el.append(h("p", { class: "error", role: "alert" }, `Run ended: ${message} [${code}]`));
    this.statusEl.textContent = "";
  }

  /** Show a finished answer (also used for the turns of an opened thread). */
  finish(answer, complete = true) {
    this.answer = answer;
    this.runId = answer.run_id;
    this.el.dataset.runId = answer.run_id;
    this.threadId = answer.thread_id;
    this.pausedEl.replaceChildren();
    const open = (citationIndex) => this.viewer.show(answer, citationIndex);
    renderAnswerText(this.answerEl, answer, open);
    this.answerEl.setAttribute("aria-busy", "false");
    if (complete) {
      renderSources(this.sources, answer, open);
      for (const issue of answer.issues || []) {
        const text = `${issue.code}: ${issue.message}`;
        if (![...this.warnings.children].some((li) => li.textContent === text)) {
          this.warnings.append(h("li", { class: "warning" }, text));
        }
      }
    }
    renderHow(this.how, answer);
    this.how.hidden = false;
    this.stepsBox.open = false; // the timeline collapses only once the answer is there
    this.statusEl.textContent = "";
    announce(`Answer ready, ${answer.citations.length} citation${answer.citations.length === 1 ? "" : "s"}`);
  }

  showPaused(interrupts) {
    const decisions = new Map();
    const box = h("div", { class: "interrupts", role: "group", "aria-label": "Pending tool calls" });
    const submit = async () => {
      if (decisions.size < interrupts.length) return;
      box.querySelectorAll("button, textarea, input").forEach((el) => { el.disabled = true; });
      const seq = this.stream ? this.stream.lastSeq : 0;
      await this.follow(`/v1/runs/${encodeURIComponent(this.runId)}/resume`,
        { decisions: interrupts.map((i) => decisions.get(i.id)) }, seq);
    };
    for (const it of interrupts) {
      const args = h("textarea", { class: "args-edit", rows: "4", readonly: true,
        "aria-label": `Arguments of ${it.tool}` });
      args.value = pretty(it.input);
      const reason = h("input", { type: "text", "aria-label": `Reason to reject ${it.tool}`,
        placeholder: "Reason (for reject)" });
      const outcome = h("p", { class: "decision", role: "status" });
      const decide = (decision, label) => {
        decisions.set(it.id, { interrupt_id: it.id, ...decision });
        outcome.textContent = label;
        fieldset.querySelectorAll("button").forEach((b) => { b.disabled = true; });
        submit();
      };
      const editBtn = h("button", { type: "button", onclick: () => {
        if (args.readOnly) { args.readOnly = false; args.focus(); editBtn.textContent = "Send edited arguments"; return; }
        let input;
        try { input = JSON.parse(args.value); } catch { outcome.textContent = "The arguments are not valid JSON."; return; }
        if (!input || typeof input !== "object" || Array.isArray(input)) { outcome.textContent = "The arguments must be a JSON object."; return; }
        decide({ action: "edit", input }, "Edited — resuming…");
      } }, "Edit arguments");
      const fieldset = h("fieldset", { class: "interrupt" },
        h("legend", {}, "Approval needed: ", h("code", {}, it.tool)),
        it.reason ? h("p", {}, it.reason) : null, args,
        h("div", { class: "actions" },
          h("button", { type: "button", class: "primary", onclick: () => decide({ action: "approve" }, "Approved — resuming…") }, "Approve"),
          reason,
          h("button", { type: "button", onclick: () => decide({ action: "reject", message: reason.value.trim() || null }, "Rejected — resuming…") }, "Reject"),
          editBtn),
        outcome);
      box.append(fieldset);
    }
    this.pausedEl.replaceChildren(box);
    const first = box.querySelector("button");
    if (first) first.focus();
  }
}
