/** Engine-free endpoints: fingerprint one text, compare two. */
import { Router } from "express";
import { z } from "zod";
import type { Analysis, Fingerprinter } from "../../core/fingerprinter.js";
import { hamming } from "../../core/fingerprint.js";
import { cosine, charCosine, editSimilarity, levenshtein, shingleJaccard } from "../../core/similarity/index.js";
import { parseWith } from "../../service/input.js";

const textSchema = z.string({ error: (i) => (i.input === undefined ? "is required" : "must be a string") });
const fingerprintBody = z.object({ text: textSchema, top: z.number().int().min(0).max(100).optional() }).strict();
const compareBody = z.object({ a: textSchema, b: textSchema }).strict();

/** Term counts as a vector with weight 1 per occurrence: the plain TF cosine. */
function tfVector(a: Analysis): Map<string, number> {
  return new Map(a.termCounts);
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

export function analysisRoutes(fingerprinter: () => Promise<Fingerprinter>): Router {
  const router = Router();

  router.post("/fingerprint", async (req, res) => {
    const body = parseWith(fingerprintBody, req.body);
    const fp = await fingerprinter();
    const a = fp.analyze(body.text, "text");
    const top = [...a.vector.entries()].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, body.top ?? 10);
    res.json({
      simhash: a.hex,
      segments: a.segments,
      version: a.version,
      length: a.length,
      short: a.short,
      terms: top.map(([term, weight]) => ({ term, weight: round(weight) })),
    });
  });

  router.post("/compare", async (req, res) => {
    const body = parseWith(compareBody, req.body);
    const fp = await fingerprinter();
    const a = fp.analyze(body.a, "a");
    const b = fp.analyze(body.b, "b");
    const verdict = fp.compare(a, b);
    res.json({
      hamming: hamming(a.simhash, b.simhash),
      simhash: { a: a.hex, b: b.hex },
      tfidf_cosine: round(cosine(a.vector, b.vector)),
      tf_cosine: round(cosine(tfVector(a), tfVector(b))),
      char_cosine: round(charCosine(a.normalized, b.normalized)),
      edit_distance: levenshtein(a.normalized, b.normalized),
      edit_similarity: round(editSimilarity(a.normalized, b.normalized)),
      jaccard_bigrams: round(shingleJaccard(a.normalized, b.normalized, 2)),
      verdict: { duplicate: verdict.duplicate, rule: verdict.rule, bucket: verdict.bucket },
    });
  });

  return router;
}
