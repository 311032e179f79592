import type { Analysis } from "../core/fingerprinter.js";
import type { Fingerprint } from "../core/fingerprint.js";

export type Status = "original" | "duplicate";

/** A document already recorded, as the re-rank sees it. */
export interface Candidate {
  id: string;
  simhash: Fingerprint;
  /** Document time, epoch milliseconds. */
  time: number;
  status: Status;
  /** Root original when `status` is `duplicate`. */
  duplicateOf: string | undefined;
  /** Its LSH band keys, when known. */
  lsh?: readonly string[] | undefined;
  /** The text, when it came from the engine. */
  text?: string | undefined;
  /** The analysis, when it came from the recent-writes window (saves analysing the text again). */
  analysis?: Analysis | undefined;
}

/** The `neardup` object as stored on a document (data contract v2). */
export interface NeardupSource {
  simhash: string;
  seg0: string;
  seg1: string;
  seg2: string;
  seg3: string;
  /** MinHash LSH band keys (contract v2). */
  lsh?: string[];
  status: Status;
  duplicate_of?: string;
  distance?: number;
  similarity?: number;
  reason?: string;
  length: number;
  version: string;
  /** Epoch milliseconds or an ISO date string. */
  timestamp: number | string;
}
