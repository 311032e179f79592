import type { Engine, SearchRequest } from "../../src/engine/types.js";

/** `engine` with the id of every hit its grouped queries (`msearch`) return recorded in `hits`; everything else unchanged. */
export function recordingGroupedHits(engine: Engine): { engine: Engine; hits: string[] } {
  const hits: string[] = [];
  const recording = Object.create(engine) as Engine;
  recording.msearch = (async (requests: SearchRequest[]) => {
    const responses = await engine.msearch(requests);
    for (const r of responses) if (!(r instanceof Error)) hits.push(...r.hits.hits.map((h) => h._id!));
    return responses;
  }) as Engine["msearch"];
  return { engine: recording, hits };
}

/** `engine` counting the searches that read candidates' texts by id (an `ids` query: candidates/index.ts `readNormalizedTexts`); everything else unchanged. */
export function countingTextReads(engine: Engine): { engine: Engine; reads: () => number } {
  let reads = 0;
  const counting = Object.create(engine) as Engine;
  counting.search = ((request: SearchRequest) => {
    if ((request.body as { query?: { ids?: unknown } } | undefined)?.query?.ids) reads++;
    return engine.search(request);
  }) as Engine["search"];
  return { engine: counting, reads: () => reads };
}
