// Small DOM helpers. Every string that came from a document, an answer or a tool goes in
// as a text node (textContent): nothing the server sends is ever parsed as HTML.

/** Create an element: h("li", {class: "step", dataset: {seq: 3}}, "text", child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, ...children);
  return el;
}

export function append(el, ...children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** Announce a short message to screen readers (the page's polite live region). */
export function announce(message) {
  const region = document.getElementById("status");
  if (!region) return;
  region.textContent = "";
  // A new text node (not the same text) so a repeated message is announced again.
  requestAnimationFrame(() => { region.textContent = message; });
}

export function formatMs(ms) {
  if (ms === undefined || ms === null) return "";
  return ms < 1 ? "<1 ms" : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export function formatSize(chars) {
  return chars < 1000 ? `${chars} chars` : `${(chars / 1000).toFixed(1)}k chars`;
}

/** Offsets in the API count Unicode code points; JS strings index UTF-16 units. */
export function codePointIndexer(text) {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => Math.min(cp, text.length);
  const units = [0];
  let unit = 0;
  for (const ch of text) { unit += ch.length; units.push(unit); }
  return (cp) => units[Math.min(cp, units.length - 1)];
}

let uid = 0;
export const uniqueId = (prefix) => `${prefix}-${++uid}`;
