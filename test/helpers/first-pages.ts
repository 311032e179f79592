import type { Engine } from "../../src/engine/index.js";

/**
 * `engine` with every sorted first page (a search with a sort and no
 * `search_after`) that goes through it recorded by its size, in `sizes`:
 * a write's lookup asked alone (`OLDEST_FIRST_PAGE`) or a shared one
 * (`SHARED_PAGE`). Everything else goes to `engine` unchanged.
 */
export function countingFirstPages(engine: Engine): { engine: Engine; sizes: number[] } {
  const sizes: number[] = [];
  const first = (body: Record<string, unknown> | undefined) => body?.sort !== undefined && body.search_after === undefined;
  const msearch = engine.msearch.bind(engine);
  const search = engine.search.bind(engine);
  const wrapped = Object.assign(Object.create(engine) as Engine, {
    msearch: (requests: Parameters<Engine["msearch"]>[0]) => {
      for (const r of requests) if (first(r.body)) sizes.push(r.body.size as number);
      return msearch(requests);
    },
    search: (request: Parameters<Engine["search"]>[0]) => {
      if (first(request.body)) sizes.push(request.body.size as number);
      return search(request);
    },
  });
  return { engine: wrapped, sizes };
}
