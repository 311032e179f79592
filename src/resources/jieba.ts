/**
 * The bundled jieba resources: the Han segmenter and the contents of its
 * `idf.utf8` and `stop_words.utf8` files (from the `nodejs-jieba` package,
 * MIT). This is the one place that reads them, so `src/core` stays free of I/O.
 */
import { readFile } from "node:fs/promises";
import * as jieba from "nodejs-jieba";
import type { CoreResources } from "../core/fingerprinter.js";
import { NeardupError } from "../core/errors.js";
import { cachedSegmenter, CPPJIEBA_SEPARATORS } from "../core/segment-cache.js";

let loaded: Promise<CoreResources> | undefined;

async function read(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (cause) {
    throw new NeardupError("ENVIRONMENT", `cannot read jieba ${what} at ${path}`, { cause });
  }
}

/**
 * Loads jieba's dictionaries (about 1 s, once per process; later calls share
 * the result) and returns the segmenter and the IDF and stop-word file contents.
 */
export function loadJiebaResources(): Promise<CoreResources> {
  loaded ??= (async () => {
    const [idfText, stopWordsText] = await Promise.all([
      read(jieba.DEFAULT_IDF_DICT, "IDF dictionary"),
      read(jieba.DEFAULT_STOP_WORD_DICT, "stop-word list"),
    ]);
    jieba.load();
    // cut(text, true): dictionary + HMM for unknown words, jieba's default mode.
    // cppjieba cuts at its separators first, so repeated sentences come from a cache.
    const segmentHan = cachedSegmenter((text: string): string[] => jieba.cut(text, true), { separators: CPPJIEBA_SEPARATORS, joiner: "\n" });
    return { segmentHan, idfText, stopWordsText };
  })();
  return loaded;
}
