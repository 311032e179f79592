import type { Fingerprint } from "../../src/core/fingerprint.js";

/** The fingerprint with the given bit positions (0 = least significant) flipped. */
export function flip(fp: Fingerprint, bits: number[]): Fingerprint {
  let { hi, lo } = fp;
  for (const b of bits) {
    if (b >= 32) hi = (hi ^ (1 << (b - 32))) >>> 0;
    else lo = (lo ^ (1 << b)) >>> 0;
  }
  return { hi, lo };
}
