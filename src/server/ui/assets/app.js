// The neardup page: charts from /v1/stats (Vega-Lite specs from /ui/panels.json,
// the same definition as the Kibana and OpenSearch Dashboards saved objects),
// a paste-a-text search (/v1/search) and the recent clusters.
/* global document, window, fetch, URLSearchParams, vegaEmbed */
"use strict";

const $ = (id) => document.getElementById(id);
const percent = (x) => (x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)}%`);
const number = (x) => (x === null || x === undefined ? "–" : String(x));

/** An element with text content only (never HTML from data). */
function el(tag, text, attrs = {}) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function getJson(url, init) {
  const res = await fetch(url, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ? `${body.error.message} (${body.error.code})` : `${url}: HTTP ${res.status}`);
  return body;
}

function table(headers, rows) {
  const wrap = el("div", null, { class: "table-wrap" });
  const t = el("table");
  const head = el("tr");
  for (const h of headers) head.append(el("th", h.label, { scope: "col", class: h.num ? "num" : "" }));
  const thead = el("thead");
  thead.append(head);
  t.append(thead);
  const body = el("tbody");
  for (const r of rows) {
    const tr = el("tr");
    r.forEach((cell, i) => {
      const td = el("td", null, { class: headers[i].num ? "num" : "" });
      td.append(cell instanceof window.Node ? cell : document.createTextNode(String(cell)));
      tr.append(td);
    });
    body.append(tr);
  }
  t.append(body);
  wrap.append(t);
  return wrap;
}

const clusterLink = (id) => el("a", id, { href: `#cluster=${encodeURIComponent(id)}` });

let panels = [];

async function drawCharts(stats) {
  const box = $("charts");
  box.replaceChildren();
  for (const p of panels) {
    const section = el("section", null, { class: "chart", "aria-labelledby": `chart-${p.id}-title` });
    section.append(el("h2", p.id === "rate_by_field" ? `Duplicate rate by ${stats.by}` : p.title, { id: `chart-${p.id}-title` }));
    section.append(el("p", p.description));
    const target = el("div", null, { id: `chart-${p.id}`, "data-rows": String(stats.panels[p.id].length) });
    section.append(target);
    box.append(section);
    const spec = { ...p.spec, data: { values: stats.panels[p.id] } };
    await vegaEmbed(target, spec, { actions: false, renderer: "svg" });
  }
}

function drawSummary(stats) {
  $("total").textContent = number(stats.total);
  $("duplicates").textContent = number(stats.duplicates);
  $("rate").textContent = percent(stats.rate);
  $("span").textContent = `${stats.from.slice(0, 16).replace("T", " ")} – ${stats.to.slice(0, 16).replace("T", " ")} UTC, per ${stats.interval}`;
}

function drawRecentClusters(stats) {
  const rows = stats.panels.recent_clusters;
  const box = $("recent-clusters");
  if (rows.length === 0) {
    box.replaceChildren(el("p", "No duplicates in this range."));
    return;
  }
  box.replaceChildren(
    table(
      [{ label: "original" }, { label: "duplicates", num: true }, { label: "latest duplicate" }],
      rows.map((r) => [clusterLink(r.original), r.duplicates, r.latest === null ? "–" : new Date(r.latest).toISOString().slice(0, 16).replace("T", " ")]),
    ),
  );
}

async function refresh() {
  const params = new URLSearchParams();
  const span = $("range-select").value;
  if (span) {
    const to = Date.now();
    params.set("from", String(to - Number(span)));
    params.set("to", String(to));
  }
  // An empty box asks for the default field, which is never refused (a field named is, when the index does not map it).
  const by = $("by").value.trim();
  if (by) params.set("by", by);
  try {
    const stats = await getJson(`/v1/stats?${params}`);
    showError("");
    drawSummary(stats);
    drawRecentClusters(stats);
    await drawCharts(stats);
  } catch (err) {
    showError(`Could not load the statistics: ${err.message}`);
  }
}

async function search(event) {
  event.preventDefault();
  const text = $("search-text").value;
  const out = $("search-results");
  if (!text.trim()) return;
  out.replaceChildren(el("p", "Searching…"));
  try {
    const result = await getJson("/v1/search", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
    if (result.matches.length === 0) {
      out.replaceChildren(el("p", `No near-duplicates (${result.candidates} candidates compared).`));
      return;
    }
    out.replaceChildren(
      el("p", `${result.matches.length} near-duplicate(s) among ${result.candidates} candidates:`),
      table(
        [{ label: "document" }, { label: "status" }, { label: "distance", num: true }, { label: "cosine", num: true }, { label: "similarity", num: true }, { label: "rule" }],
        result.matches.map((m) => [clusterLink(m.id), m.status, m.distance, m.cosine.toFixed(3), m.similarity.toFixed(3), m.rule ?? "–"]),
      ),
    );
    out.querySelector("table").id = "search-table";
  } catch (err) {
    out.replaceChildren(el("p", `Search failed: ${err.message}`, { role: "alert" }));
  }
}

async function showCluster() {
  const m = /^#cluster=(.+)$/.exec(window.location.hash);
  const box = $("cluster");
  if (!m) return box.replaceChildren();
  const id = decodeURIComponent(m[1]);
  try {
    const cluster = await getJson(`/v1/documents/${encodeURIComponent(id)}/duplicates`);
    const heading = el("h3", `Cluster of ${cluster.original} (${cluster.members.length} documents)`, { tabindex: "-1" });
    box.replaceChildren(
      heading,
      table(
        [{ label: "document" }, { label: "status" }, { label: "distance", num: true }, { label: "similarity", num: true }],
        cluster.members.map((x) => [x.id, x.status, number(x.distance), number(x.similarity)]),
      ),
    );
    heading.focus();
  } catch (err) {
    box.replaceChildren(el("p", `Could not load the cluster: ${err.message}`, { role: "alert" }));
  }
}

async function start() {
  $("range").addEventListener("submit", (e) => {
    e.preventDefault();
    refresh();
  });
  $("search-form").addEventListener("submit", search);
  $("search-text").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("search-form").requestSubmit();
  });
  window.addEventListener("hashchange", showCluster);
  try {
    panels = (await getJson("/ui/panels.json")).panels;
  } catch (err) {
    showError(`Could not load the charts: ${err.message}`);
  }
  await refresh();
  await showCluster();
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", start);
