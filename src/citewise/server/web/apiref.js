// The API reference at /docs and /redoc: /openapi.json rendered in the page itself, so
// it works offline (no CDN) under the same CSP as the web page. Per tag: each operation
// with its parameters, request body and responses; then every schema with its fields.

import { h } from "./dom.js";

const METHODS = ["get", "post", "put", "patch", "delete"];
const refName = (ref) => ref.split("/").pop();
const slug = (text) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-");

function typeOf(schema) {
  if (!schema) return "";
  if (schema.$ref) return h("a", { href: `#schema-${slug(refName(schema.$ref))}` }, refName(schema.$ref));
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    if (schema[key]) {
      const parts = schema[key].map(typeOf);
      return h("span", {}, ...parts.flatMap((p, i) => (i ? [key === "allOf" ? " & " : " | ", p] : [p])));
    }
  }
  if (schema.type === "array") return h("span", {}, "array of ", typeOf(schema.items));
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  return schema.type || "any";
}

function paramRows(params) {
  return params.map((p) => h("tr", {}, h("td", {}, h("code", {}, p.name), p.required ? " *" : ""),
    h("td", {}, p.in), h("td", {}, typeOf(p.schema)), h("td", {}, p.description || (p.schema && p.schema.description) || "")));
}

function table(headers, rows) {
  return h("div", { class: "table-wrap" }, h("table", {},
    h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, rows)));
}

function operation(path, method, op) {
  const id = slug(`${method} ${path}`);
  const body = op.requestBody && op.requestBody.content;
  const responses = Object.entries(op.responses || {});
  return h("section", { class: "turn op", id },
    h("h3", { class: "question" }, h("span", { class: `method m-${method}` }, method.toUpperCase()), " ", h("code", {}, path)),
    op.summary ? h("p", {}, h("strong", {}, op.summary)) : null,
    op.description ? h("p", { class: "desc" }, op.description) : null,
    op.parameters && op.parameters.length ? [h("h4", {}, "Parameters"), table(["name", "in", "type", "description"], paramRows(op.parameters))] : null,
    body ? [h("h4", {}, "Request body"), table(["content type", "schema"], Object.entries(body).map(([type, c]) =>
      h("tr", {}, h("td", {}, type), h("td", {}, typeOf(c.schema)))))] : null,
    responses.length ? [h("h4", {}, "Responses"), table(["status", "description", "content"], responses.map(([code, r]) =>
      h("tr", {}, h("td", {}, code), h("td", {}, r.description || ""),
        h("td", {}, ...Object.entries(r.content || {}).flatMap(([type, c]) => [h("div", {}, `${type}: `, typeOf(c.schema))])))))] : null);
}

function schemaSection(name, schema) {
  const required = new Set(schema.required || []);
  const props = Object.entries(schema.properties || {});
  return h("section", { class: "turn", id: `schema-${slug(name)}` },
    h("h3", { class: "question" }, h("code", {}, name)),
    schema.description ? h("p", { class: "desc" }, schema.description) : null,
    props.length ? table(["field", "type", "description"], props.map(([field, s]) =>
      h("tr", {}, h("td", {}, h("code", {}, field), required.has(field) ? " *" : ""), h("td", {}, typeOf(s)), h("td", {}, s.description || ""))))
      : h("p", { class: "muted" }, typeOf(schema)));
}

async function main() {
  const main = document.getElementById("api-main");
  const nav = document.getElementById("api-nav");
  let spec;
  try {
    spec = await (await fetch("/openapi.json")).json();
  } catch {
    main.replaceChildren(h("p", { class: "error", role: "alert" }, "The OpenAPI document could not be loaded."));
    return;
  }
  document.getElementById("api-title").textContent = `${spec.info.title} API`;
  document.getElementById("api-version").textContent = `v${spec.info.version}`;
  const byTag = new Map();
  for (const [path, item] of Object.entries(spec.paths || {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = (op.tags && op.tags[0]) || "other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag).push([path, method, op]);
    }
  }
  const sections = [h("p", { class: "desc" }, spec.info.summary || spec.info.description || "")];
  const links = [];
  for (const [tag, ops] of byTag) {
    sections.push(h("h2", { id: `tag-${slug(tag)}` }, tag), ...ops.map(([p, m, op]) => operation(p, m, op)));
    links.push(h("li", {}, h("a", { href: `#tag-${slug(tag)}` }, tag), h("ul", {}, ops.map(([p, m]) =>
      h("li", {}, h("a", { href: `#${slug(`${m} ${p}`)}` }, `${m.toUpperCase()} ${p}`))))));
  }
  const schemas = Object.entries((spec.components && spec.components.schemas) || {});
  sections.push(h("h2", { id: "schemas" }, "Schemas"), ...schemas.map(([n, s]) => schemaSection(n, s)));
  links.push(h("li", {}, h("a", { href: "#schemas" }, "Schemas")));
  main.replaceChildren(...sections);
  nav.replaceChildren(h("ul", {}, links));
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  document.documentElement.dataset.ready = "true";
}

main();
