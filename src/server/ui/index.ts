/**
 * The page at /ui (and / redirecting to it): the dashboard charts drawn with
 * Vega-Lite over /v1/stats, a box to paste a text and see its near-duplicates
 * (/v1/search), and the recent clusters. Static files only, served by the
 * service itself; Vega, Vega-Lite and vega-embed come from node_modules (no CDN).
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router } from "express";
import { PANELS } from "../../dashboards/definition.js";
import { pageSpec } from "../../dashboards/vega.js";

const require = createRequire(import.meta.url);
/** The browser builds (UMD) of the chart libraries, by the name the page asks for. */
const VENDOR: Record<string, string> = {
  "vega.min.js": join(dirname(require.resolve("vega")), "vega.min.js"),
  "vega-lite.min.js": join(dirname(require.resolve("vega-lite")), "vega-lite.min.js"),
  "vega-embed.min.js": join(dirname(require.resolve("vega-embed")), "vega-embed.min.js"),
};
/** HTML, script and style of the page (copied next to the compiled module by `npm run build`). */
const ASSETS = fileURLToPath(new URL("./assets/", import.meta.url));

/** The charts the page draws: one Vega-Lite spec per charted panel, from the shared definition. */
export function pagePanels(): { id: string; title: string; description: string; spec: Record<string, unknown> }[] {
  return PANELS.filter((p) => p.chart !== undefined).map((p) => ({ id: p.id, title: p.title, description: p.description, spec: pageSpec(p) }));
}

export function uiRoutes(): Router {
  const router = Router({ caseSensitive: true });
  const panels = pagePanels();
  router.get("/", (_req, res) => res.redirect(302, "/ui/"));
  // Express matches "/ui" for "/ui/" too: redirect only the bare path.
  router.get("/ui", (req, res, next) => (req.originalUrl.split("?")[0] === "/ui" ? res.redirect(301, "/ui/") : next()));
  router.get("/ui/panels.json", (_req, res) => {
    res.json({ panels });
  });
  router.get("/ui/vendor/:file", (req, res, next) => {
    const path = VENDOR[req.params.file];
    if (!path) return next();
    res.type("application/javascript").sendFile(path, { maxAge: "1d" });
  });
  router.use("/ui", express.static(ASSETS, { index: "index.html", fallthrough: true }));
  return router;
}
