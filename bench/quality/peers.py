"""Python peers for the neardup quality benchmark (bench/quality/run.ts calls this).

Reads  bench/out/quality/peer-input.jsonl: one pair a line,
       {"id", "a": text, "b": text, "ta": [tokens], "tb": [tokens],
        "fa": [[token, weight]], "fb": [[token, weight]]}
       where tokens/features are exactly what neardup's core produced
       (normalized, segmented, stop words dropped, TF-IDF weighted).
Writes bench/out/quality/peer-output.json with one array per peer, aligned
with the input lines.

What each peer sees:
- minhash: datasketch MinHash (128 permutations, seed 1) over the set of
  core-token 2-shingles (the single token if a text has only one); its
  estimated Jaccard is the score for curves.
- lsh@t: datasketch MinHashLSH(threshold=t) built from all `a` sides; a pair
  is flagged when querying `b` returns its own `a` (candidate semantics, as
  the index is used in practice).
- simhash-py: PyPI `simhash` Simhash(f=64) over core's (token, TF-IDF weight)
  features: same features as neardup, the package's md5 feature hash.
  SimhashIndex(k=3) built from all `a` sides decides; distance is the score.
- simhash-py-text: the same package on the raw text with its own default
  features (character 4-grams of word characters), SimhashIndex(k=3).
"""
import json
import sys
from collections import Counter
import time
from pathlib import Path

from datasketch import MinHash, MinHashLSH
from simhash import Simhash, SimhashIndex

OUT = Path(__file__).resolve().parent.parent / "out" / "quality"
LSH_THRESHOLDS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
NUM_PERM = 128


def shingles(tokens):
    if len(tokens) < 2:
        return {t.encode("utf-8") for t in tokens} or {b""}
    return {(tokens[i] + "\u0001" + tokens[i + 1]).encode("utf-8") for i in range(len(tokens) - 1)}


def minhash(tokens):
    m = MinHash(num_perm=NUM_PERM, seed=1)
    m.update_batch(list(shingles(tokens)))
    return m


def main():
    pairs = [json.loads(line) for line in (OUT / "peer-input.jsonl").open(encoding="utf-8")]
    n = len(pairs)
    timing = {}

    t0 = time.perf_counter()
    ma = [minhash(p["ta"]) for p in pairs]
    mb = [minhash(p["tb"]) for p in pairs]
    timing["minhash"] = (time.perf_counter() - t0) / (2 * n)
    jaccard = [ma[i].jaccard(mb[i]) for i in range(n)]

    lsh = {}
    for t in LSH_THRESHOLDS:
        t0 = time.perf_counter()
        index = MinHashLSH(threshold=t, num_perm=NUM_PERM)
        for i in range(n):
            index.insert(str(i), ma[i])
        lsh[str(t)] = [str(i) in index.query(mb[i]) for i in range(n)]
        timing[f"lsh@{t}"] = (time.perf_counter() - t0) / n

    def simhash_peer(make, name):
        t0 = time.perf_counter()
        sa = [make(p, "a") for p in pairs]
        sb = [make(p, "b") for p in pairs]
        timing[name] = (time.perf_counter() - t0) / (2 * n)
        t0 = time.perf_counter()
        index = SimhashIndex([(str(i), sa[i]) for i in range(n)], f=64, k=3)
        hits = [str(i) in index.get_near_dups(sb[i]) for i in range(n)]
        timing[name + "-index"] = (time.perf_counter() - t0) / n
        return {"distance": [sa[i].distance(sb[i]) for i in range(n)], "index_k3": hits}

    def from_features(p, side):
        feats = [(f, float(w)) for f, w in p["f" + side]]
        return Simhash(feats or [""], f=64)

    def from_text(p, side):
        try:
            return Simhash(p[side], f=64)
        except OverflowError:
            # simhash 2.1.2 on numpy 2: a feature counted more than 255 times
            # overflows its uint8 bit array; the same features, counts capped.
            counts = Counter(Simhash("", f=64)._tokenize(p[side]))
            return Simhash({k: min(v, 255) for k, v in counts.items()}, f=64)

    out = {
        "n": n,
        "minhash": {"jaccard": jaccard},
        "lsh": lsh,
        "simhash_py": simhash_peer(from_features, "simhash-py"),
        "simhash_py_text": simhash_peer(from_text, "simhash-py-text"),
        "seconds_per_doc": timing,
    }
    (OUT / "peer-output.json").write_text(json.dumps(out), encoding="utf-8")
    print(f"peers.py: {n} pairs scored", file=sys.stderr)


if __name__ == "__main__":
    main()
