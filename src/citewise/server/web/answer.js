// A finished answer: its text with citation markers as buttons (hover or focus shows the
// quote, the document, its section or page and the support score; a click opens the
// source viewer), the cited sources with a rating each, the answer's rating, and the
// "How this answer was made" panel. All of it is text nodes.

import { api, download } from "./api.js";
import { $, announce, formatMs, h } from "./dom.js";

const MARKER = /\[(\d+)\]/g;

/** The document and snippet a citation points into. */
export function citedPlace(answer, citation) {
  const doc = answer.search_documents[citation.document_index - 1] || null;
  const snippet = doc && citation.snippet_index !== null && citation.snippet_index !== undefined
    ? doc.snippets[citation.snippet_index] || null : null;
  return { doc, snippet };
}

export function docTitle(doc) {
  if (!doc) return "unknown document";
  return (doc.document && doc.document.title) || doc.source;
}

function where(snippet) {
  if (!snippet) return "";
  const parts = [];
  if (snippet.page) {
    parts.push(snippet.page_label ? `page ${snippet.page_label} (PDF page ${snippet.page})`
      : `page ${snippet.page}`);
  }
  if (snippet.section) parts.push(snippet.section);
  if (!snippet.page && snippet.line) parts.push(`line ${snippet.line}`);
  return parts.join(" · ");
}

// What to say beside a quote whose claim the checks found wanting, as `citewise ask` says
// it under the quote: the warnings list named the claim by number only, and a reader saw
// a quote that does not address the question among those that do, looking just as sure.
const FLAGS = {
  off_topic_evidence: "This passage does not address the question",
  unsupported_claim: "This passage does not support the claim",
  quote_not_in_source: "This quote is not in the source",
};

/** Claim index → its flag ({ text, support }). None when the whole answer is said not to
 * be in the sources (the answer says so above its quotes already). */
export function claimFlags(answer) {
  const flags = new Map();
  const issues = answer.issues || [];
  if (issues.some((i) => i.code === "no_answer_in_sources")) return flags;
  for (const issue of issues) {
    const details = issue.details || {};
    const index = details.claim_index;
    if (!Number.isInteger(index) || !(issue.code in FLAGS) || flags.has(index)) continue;
    const support = typeof details.support === "number" ? details.support : null;
    flags.set(index, { text: FLAGS[issue.code], support });
  }
  return flags;
}

/** A flag with the claim's support (the card shows the support on a line of its own). */
function withSupport(flag) {
  return flag.support === null ? flag.text : `${flag.text} (support ${flag.support.toFixed(2)})`;
}

function flagOf(flags, citation) {
  return citation.claim_index === null || citation.claim_index === undefined
    ? null : flags.get(citation.claim_index) || null;
}

// One card for the whole page, moved to the marker that is hovered or focused.
let card = null;
function showCard(marker, answer, citation) {
  if (!card) {
    card = h("div", { id: "cite-card", role: "tooltip", class: "cite-card", hidden: true });
    document.body.append(card);
  }
  const { doc, snippet } = citedPlace(answer, citation);
  const flag = flagOf(claimFlags(answer), citation);
  card.replaceChildren(
    h("blockquote", { class: "quote" }, citation.excerpt),
    h("p", { class: "card-doc" }, h("strong", {}, docTitle(doc)), doc && docTitle(doc) !== doc.source
      ? ` — ${doc.source}` : ""),
    where(snippet) ? h("p", { class: "card-where" }, where(snippet)) : null,
    h("p", { class: "card-support" }, citation.support === null || citation.support === undefined
      ? "support: not scored" : `support ${citation.support.toFixed(2)}`),
    flag ? h("p", { class: "flag" }, flag.text) : null,
  );
  card.hidden = false;
  const rect = marker.getBoundingClientRect();
  const width = Math.min(360, window.innerWidth - 16);
  card.style.width = `${width}px`;
  card.style.left = `${Math.max(8, Math.min(rect.left + window.scrollX, window.scrollX + window.innerWidth - width - 8))}px`;
  card.style.top = `${rect.bottom + window.scrollY + 6}px`;
  marker.setAttribute("aria-describedby", "cite-card");
}

export function hideCard() {
  if (card) card.hidden = true;
}

// The markdown an answer carries: list items ("- ", "* ", "+ ", "1. "; the extractive
// model writes a list when a quote has no closing full stop), `code` and **bold**. Markers
// are found first, on the raw text, so the k-th marker is still citation k whatever the
// markup around it; emphasis is applied to the text between markers only.
const BULLET = /^\s{0,3}([-*+]|\d{1,9}[.)])\s+/;
// Not __bold__: it would eat the underscores of names like __init__.py.
const INLINE = /`([^`\n]+)`|\*\*([^*\n]+)\*\*/g;

function inline(el, text) {
  let last = 0;
  for (const m of text.matchAll(INLINE)) {
    el.append(text.slice(last, m.index));
    el.append(m[1] !== undefined ? h("code", {}, m[1]) : h("strong", {}, m[2]));
    last = m.index + m[0].length;
  }
  el.append(text.slice(last));
}

/** Answer text (markdown with [n] markers) as paragraphs and lists of text nodes and
 * marker buttons. */
export function renderAnswerText(target, answer, onOpen) {
  target.replaceChildren();
  const flags = claimFlags(answer);
  let occurrence = 0;
  const fill = (el, line) => {
    let last = 0;
    for (const match of line.matchAll(MARKER)) {
      inline(el, line.slice(last, match.index));
      const k = occurrence++;
      const n = Number(match[1]);
      const citation = answer.citations.find((c) => c.citation_index === k)
        || answer.citations.find((c) => c.document_index === n) || null;
      if (citation) {
        const { doc } = citedPlace(answer, citation);
        const flag = flagOf(flags, citation);
        el.append(h("button", {
          type: "button", class: flag ? "cite flagged" : "cite",
          dataset: { citation: String(citation.citation_index) },
          "aria-label": `Citation ${n}: ${docTitle(doc)}${flag ? ` (${flag.text})` : ""}`,
          onclick: () => { hideCard(); onOpen(citation.citation_index); },
          onmouseenter: (e) => showCard(e.currentTarget, answer, citation),
          onfocus: (e) => showCard(e.currentTarget, answer, citation),
          onmouseleave: hideCard, onblur: hideCard,
          onkeydown: (e) => { if (e.key === "Escape") hideCard(); },
        }, `[${n}]`));
      } else {
        el.append(match[0]);
      }
      last = match.index + match[0].length;
    }
    inline(el, line.slice(last));
  };
  for (const para of answer.text.split(/\n{2,}/)) {
    if (!para.trim()) continue;
    // A block is a run of list items (a line that does not start one continues the item
    // above) or a paragraph of the lines between them.
    let block = null;
    for (const line of para.split("\n")) {
      const bullet = line.match(BULLET);
      if (bullet) {
        const ordered = /\d/.test(bullet[1]);
        if (!block || block.kind !== (ordered ? "ol" : "ul")) {
          block = { kind: ordered ? "ol" : "ul", el: h(ordered ? "ol" : "ul") };
          if (ordered && Number.parseInt(bullet[1], 10) !== 1) block.el.start = Number.parseInt(bullet[1], 10);
          target.append(block.el);
        }
        const li = h("li");
        fill(li, line.slice(bullet[0].length));
        block.el.append(li);
      } else if (block && block.kind !== "p" && line.trim()) {
        fill(block.el.lastElementChild, `\n${line}`);
      } else {
        if (!block || block.kind !== "p") {
          block = { kind: "p", el: h("p") };
          target.append(block.el);
        } else {
          block.el.append("\n");
        }
        fill(block.el, line);
      }
    }
  }
  if (!target.childElementCount) target.append(h("p", { class: "muted" }, "(no answer text)"));
}

function ratingControl(label, onSend) {
  const select = h("select", { "aria-label": label },
    h("option", { value: "" }, "Rate…"),
    ...[["3", "3 exactly right"], ["2", "2 helpful"], ["1", "1 weak"], ["0", "0 useless"]]
      .map(([v, t]) => h("option", { value: v }, t)));
  const comment = h("input", { type: "text", "aria-label": `${label}: comment (optional)`,
    placeholder: "Comment (optional)", maxlength: "4000" });
  const result = h("span", { class: "rated", role: "status" });
  const send = h("button", {
    type: "button", onclick: async () => {
      if (select.value === "") { result.textContent = "Choose a rating first."; return; }
      send.disabled = true;
      try {
        const created = await onSend(Number(select.value), comment.value.trim() || null);
        result.textContent = `Recorded (#${created.id})`;
        select.disabled = true;
        comment.disabled = true;
        announce("Rating recorded");
      } catch (error) {
        result.textContent = error.code === "already_rated" || error.status === 409
          ? "Already rated" : `Not recorded: ${error.code}`;
        send.disabled = error.status === 409;
      }
    },
  }, "Send");
  return h("span", { class: "rating" }, select, comment, send, result);
}

export function renderSources(target, answer, onOpen) {
  target.replaceChildren();
  const token = answer.trajectory && answer.trajectory.feedback_token;
  const flags = claimFlags(answer);
  const seen = new Set();
  const rows = [];
  for (const c of answer.citations) {
    const flag = flagOf(flags, c);
    // A passage cited by a sound claim and by a flagged one is listed for each.
    const key = `${c.document_index}:${c.snippet_index}:${flag ? flag.text : ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { doc, snippet } = citedPlace(answer, c);
    rows.push(h("li", { class: flag ? "source flagged" : "source" },
      h("button", { type: "button", class: "link", onclick: () => onOpen(c.citation_index) },
        `[${c.document_index}] ${docTitle(doc)}`),
      where(snippet) ? h("span", { class: "muted" }, ` · ${where(snippet)}`) : null,
      h("q", { class: "excerpt" }, c.excerpt),
      flag ? h("p", { class: "flag" }, withSupport(flag)) : null,
      token ? ratingControl(`Rate citation ${c.document_index}`, (rating, comment) =>
        api.post("/v1/feedback", { token, rating, comment, document_index: c.document_index,
          snippet_index: c.snippet_index ?? null })) : null));
  }
  // Not an <ol>: each row is labelled with its marker ([2] may come first), so a list
  // number beside it would be a second, different number.
  if (rows.length) target.append(h("h3", {}, "Sources"), h("ul", { class: "sources-list" }, rows));
  if (token) {
    target.append(h("div", { class: "answer-rating" }, h("span", {}, "Rate this answer: "),
      ratingControl("Rate this answer", (rating, comment) =>
        api.post("/v1/feedback", { token, rating, comment }))));
  }
}

function table(headers, rows) {
  return h("div", { class: "table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c)))))));
}

export function renderHow(target, answer) {
  target.replaceChildren(h("summary", {}, "How this answer was made"));
  const trace = answer.reasoning_trace || [];
  target.append(h("h4", {}, "Reasoning trace"), table(["step", "type", "what", "time", "tokens"],
    trace.map((t) => [String(t.step), t.type,
      t.type === "tool" ? `${t.tool}(${JSON.stringify(t.tool_input || {})}) → ${t.observation || ""}`
        : (t.thought || t.observation || ""),
      formatMs(t.duration_ms), `${t.input_tokens} in / ${t.output_tokens} out`])));
  const usage = answer.usage || { steps: [] };
  const money = (v) => (v === null || v === undefined ? "not priced" : `${v.toFixed(6)} ${usage.currency}`);
  target.append(h("h4", {}, "Usage and cost"), table(["step", "model", "input", "output", "cost"], [
    ...usage.steps.map((s) => [String(s.step), s.model, String(s.input_tokens), String(s.output_tokens), money(s.cost)]),
    ["total", answer.model, String(usage.input_tokens), String(usage.output_tokens), money(usage.cost)]]));
  const q = answer.query || {};
  const d = answer.query_details || {};
  const facts = [["Question", q.original_query], ["Searched first", q.reformulated_query],
    ["Keywords", (q.keywords || []).join(", ")], ["Related queries", (q.related_queries || []).join(" | ")],
    ["Language", q.query_language], ["Aspects", (q.classified_aspects || []).join(", ")],
    ["Queries run", (d.queries || []).join(" | ")], ["In no document", (d.unmentioned || []).join(", ")],
    ["Retrieved / shown", d.retrieved === undefined ? ""
      : `${d.retrieved ?? 0} / ${d.selected ?? 0}`],
    ["Answerability", typeof answer.answerability === "number"
      ? answer.answerability.toFixed(2) : ""],
    ["Confidence", typeof answer.confidence === "number"
      ? answer.confidence.toFixed(2) : ""]].filter(([, v]) => v);
  target.append(h("h4", {}, "Query analysis"),
    h("dl", { class: "facts" }, facts.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)])));
  const run = encodeURIComponent(answer.run_id);
  const status = h("span", { class: "muted", role: "status" });
  const fetchProv = (format, ext) => async () => {
    try { await download(`/v1/runs/${run}/provenance?format=${format}`, `${answer.run_id}.${ext}`); status.textContent = `Downloaded ${ext}`; }
    catch (error) { status.textContent = `Provenance unavailable: ${error.code}`; }
  };
  target.append(h("h4", {}, "Provenance (PROV-O)"), h("p", {},
    h("button", { type: "button", onclick: fetchProv("turtle", "ttl") }, "Download Turtle"), " ",
    h("button", { type: "button", onclick: fetchProv("json-ld", "jsonld") }, "Download JSON-LD"), " ", status));
}

export function focusFirstMarker(root) {
  const marker = $("button.cite", root);
  if (marker) marker.focus();
}
