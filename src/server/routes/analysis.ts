/** Engine-free endpoints: fingerprint one text, compare two (large texts are analysed on the worker pool, off the event loop). */
import { Router } from "express";
import { z } from "zod";
import { parseWith } from "../../service/input.js";
import type { Analyzer } from "../../workers/index.js";
import { noQuery } from "../http-guards.js";

const textSchema = z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") });
const fingerprintBody = z.object({ text: textSchema, top: z.number().int().min(0).max(100).optional() }).strict();
const compareBody = z.object({ a: textSchema, b: textSchema }).strict();

export interface AnalysisRouteOptions {
  /** /v1/compare computes the exact edit distance within the work of two texts this long (core `levenshteinInBudget`). Default 4,000. */
  compareEditMaxChars?: number;
  /** Called when a comparison is past the edit budget (for the metric). */
  onEditEstimated?: () => void;
}

export function analysisRoutes(analyzer: Analyzer, options: AnalysisRouteOptions = {}): Router {
  const router = Router({ caseSensitive: true });
  const editMaxChars = options.compareEditMaxChars ?? 4000;

  router.post("/fingerprint", async (req, res) => {
    noQuery(req);
    const body = parseWith(fingerprintBody, req.body);
    res.json(await analyzer.report({ kind: "fingerprint", text: body.text, top: body.top ?? 10 }));
  });

  router.post("/compare", async (req, res) => {
    noQuery(req);
    const body = parseWith(compareBody, req.body);
    const report = (await analyzer.report({ kind: "compare", a: body.a, b: body.b, editMaxChars })) as { edit_measure: string };
    if (report.edit_measure !== "levenshtein") options.onEditEstimated?.();
    res.json(report);
  });

  return router;
}
