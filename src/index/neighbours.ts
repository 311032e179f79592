/**
 * Probe masks for lookups beyond radius 3, from the core's segment neighbours.
 *
 * Pigeonhole (see src/core/neighbours.ts): within Hamming distance r, some
 * 16-bit segment differs in at most floor(r / 4) bits, so probing in every
 * table each bucket within that many bits of the query's segment finds every
 * candidate. The masks are the neighbours of 0; a probe is `segment ^ mask`.
 */
import { segmentNeighbours, segmentRadius } from "../core/neighbours.js";

const cache = new Map<number, Uint16Array>();

/** All 16-bit masks with at most `bits` bits set, 0 first. Counts: 1, 17, 137, 697 for bits = 0..3. */
export function segmentMasks(bits: number): Uint16Array {
  let masks = cache.get(bits);
  if (masks === undefined) {
    masks = Uint16Array.from(segmentNeighbours(0, bits));
    cache.set(bits, masks);
  }
  return masks;
}

/** Bits a segment may differ by and still be probed for a lookup at `radius`: floor(radius / 4). */
export function segmentSlack(radius: number): number {
  return segmentRadius(radius);
}
