/**
 * What Kibana / OpenSearch Dashboards do with a neardup Vega-Lite spec, done
 * here against a real engine: fill in the context variables of `data.url`
 * the way their Vega plugin does (%context% + %timefield% -> a range query,
 * %timefilter% -> the range bounds, %autointerval% -> an interval), send the
 * search, then run the spec's own transforms in Vega on the engine's answer.
 */
import * as vega from "vega";
import * as vl from "vega-lite";
import type { Engine } from "../../src/engine/index.js";

export interface TimeContext {
  from: number;
  to: number;
  /** What %autointerval% becomes, e.g. `1d`. */
  interval: string;
  /**
   * Kibana 8 turns `interval` into `fixed_interval` (Elasticsearch 8 knows no
   * `interval`); OpenSearch Dashboards 2 keeps `interval`, which OpenSearch 2 accepts.
   */
  product: "kibana" | "opensearch-dashboards";
}

function fill(node: unknown, ctx: TimeContext): unknown {
  if (Array.isArray(node)) return node.map((n) => fill(n, ctx));
  if (node === null || typeof node !== "object") return node;
  const obj = node as Record<string, unknown>;
  if (obj["%timefilter%"] === "min") return ctx.from;
  if (obj["%timefilter%"] === "max") return ctx.to;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (k === "interval" && typeof v === "object" && v !== null && "%autointerval%" in v) out[ctx.product === "kibana" ? "fixed_interval" : "interval"] = ctx.interval;
    else out[k] = fill(v, ctx);
  }
  return out;
}

/** The search a product sends for a spec's `data.url` in the given time range. */
export function productRequest(spec: Record<string, unknown>, ctx: TimeContext): { index: string; body: Record<string, unknown> } {
  const url = (spec.data as { url: Record<string, unknown> }).url;
  const body = fill(url.body, ctx) as Record<string, unknown>;
  if ("query" in body) throw new Error("a %context% spec must not carry its own query (the products refuse it)");
  if (url["%context%"] !== true || typeof url["%timefield%"] !== "string") throw new Error("spec does not ask for the dashboard context and time field");
  body.query = { bool: { must: [{ range: { [url["%timefield%"] as string]: { gte: ctx.from, lte: ctx.to, format: "epoch_millis" } } }] } };
  return { index: url.index as string, body };
}

/** Rows after the spec's own data format and transforms, run by Vega on an engine answer. */
export async function specRows(spec: Record<string, unknown>, answer: unknown, fields: string[]): Promise<Record<string, unknown>[]> {
  const data = spec.data as { format?: unknown };
  // No encoding: nothing filters "invalid" values, so every row the transforms make is kept.
  const probe = { data: { values: answer, format: data.format }, transform: spec.transform, mark: "point" };
  const compiled = vl.compile(probe as never).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  await view.runAsync();
  const name = (compiled.marks![0] as { from: { data: string } }).from.data;
  const rows = view.data(name) as Record<string, unknown>[];
  view.finalize();
  return rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])));
}

/** Runs a product spec end to end against the engine. */
export async function runProductSpec(engine: Engine, index: string, spec: Record<string, unknown>, ctx: TimeContext, fields: string[]) {
  const request = productRequest(spec, ctx);
  const answer = await engine.search({ index, body: request.body });
  return { answer, rows: await specRows(spec, answer, fields) };
}
