/** `GET /v1/stats`: the dashboard panels' numbers as JSON, computed by the engine over the window or a range. */
import { Router } from "express";
import { NeardupError } from "../../core/errors.js";
import { DEFAULT_BY_FIELD, DEFAULT_TOP } from "../../dashboards/definition.js";
import type { DedupService } from "../../service/dedup-service.js";
import { parseTime } from "../../service/input.js";
import { computeStats, intervalMs } from "../../service/stats.js";

/** A field path: names of letters, digits, `_ - @` joined by dots. */
const FIELD = /^[A-Za-z0-9_@-]+(\.[A-Za-z0-9_@-]+)*$/;

/** One query parameter as a string, or undefined; repeated or nested ones are refused. */
function single(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw new NeardupError("INVALID_INPUT", `${name} must be given once, as a plain value`, { field: name });
  return v;
}

/** ISO-8601 or epoch milliseconds, as everywhere in the API. */
function time(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  return parseTime(/^\d+$/.test(raw) ? Number(raw) : raw, name, fallback);
}

export function statsRoutes(service: () => DedupService): Router {
  const router = Router({ caseSensitive: true });
  router.get("/stats", async (req, res) => {
    const query = req.query as Record<string, unknown>;
    for (const key of Object.keys(query)) {
      if (!["from", "to", "interval", "by", "top"].includes(key)) throw new NeardupError("INVALID_INPUT", `${key} is not a known parameter (from, to, interval, by, top)`, { field: key });
    }
    const svc = service();
    const now = Date.now();
    const to = time(single(query, "to"), "to", now);
    const from = time(single(query, "from"), "from", to - svc.options.windowMs);
    const interval = single(query, "interval");
    if (interval !== undefined) intervalMs(interval);
    const byGiven = single(query, "by");
    const by = byGiven ?? DEFAULT_BY_FIELD;
    if (by.length > 255 || !FIELD.test(by)) throw new NeardupError("INVALID_INPUT", `by must be a field path like fields.source; got ${JSON.stringify(by)}`, { field: "by" });
    const topRaw = single(query, "top");
    const top = topRaw === undefined ? DEFAULT_TOP : /^\d{1,3}$/.test(topRaw) ? Number(topRaw) : NaN; // not "0x10", "1e1" or " 5"
    if (!Number.isInteger(top) || top < 1 || top > 100) throw new NeardupError("INVALID_INPUT", `top must be a whole number from 1 to 100; got ${JSON.stringify(topRaw)}`, { field: "top" });
    res.json(await computeStats(svc.engine, svc.options.index, { from, to, interval, by, byGiven: byGiven !== undefined, top }));
  });
  return router;
}
