"""Draws docs/img/quality-curves.png from bench/out/quality/results.json.

Usage: bench/quality/.venv/bin/python bench/quality/plot.py
Top row: F1 against a similarity threshold (pair is a duplicate when the
score >= threshold). Bottom row: F1 against a Hamming distance limit.
"""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
results = json.loads((ROOT / "bench" / "out" / "quality" / "results.json").read_text(encoding="utf-8"))
buckets = ["<50", "50-200", "200-1000", ">1000"]
similarity = ["tfidf cosine", "edit similarity", "char 3-gram jaccard", "minhash jaccard"]
distance = ["neardup simhash distance", "plain simhash distance", "simhash-py distance (core features)"]

fig, axes = plt.subplots(2, 4, figsize=(16, 7), sharey=True)
for col, bucket in enumerate(buckets):
    curves = results["curves"][bucket]
    for row, names in enumerate([similarity, distance]):
        ax = axes[row][col]
        for name in names:
            if name not in curves:
                continue
            pts = curves[name]
            ax.plot([p["threshold"] for p in pts], [p["f1"] for p in pts], marker=".", label=name)
        ax.set_title(f"{bucket} chars")
        ax.set_xlabel("threshold" if row == 0 else "max Hamming distance")
        ax.grid(alpha=0.3)
        if col == 0:
            ax.set_ylabel("F1")
            ax.legend(fontsize=8, loc="lower left" if row == 0 else "lower right")
fig.suptitle(f"neardup quality benchmark: F1 over thresholds (seed {results['seed']}, {results['scoredPairs']} scored pairs)")
fig.tight_layout()
out = ROOT / "docs" / "img" / "quality-curves.png"
out.parent.mkdir(parents=True, exist_ok=True)
fig.savefig(out, dpi=90)
print(f"wrote {out}")
