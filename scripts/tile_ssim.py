#!/usr/bin/env python3
"""SSIM of every quantized tile against its lossless tile.

    scripts/tile_ssim.py LOSSLESS_DIR QUANTIZED_DIR [--worst N] [--json FILE]

Both folders hold the same tile paths (a build's output, and the same tiles
quantized: `png-quantize-bench LOSSLESS_DIR QUANTIZED_DIR`, or a build with
"quantize": true). A tile is composited over white and over black, SSIM is
scikit-image's structural_similarity (7x7 uniform window, sample covariance,
data range 255) averaged over R, G and B, and its score is the lower of the two
backgrounds, so an error in coverage counts. Tests/PipelineTests/SSIM.swift
computes the same in the suite. Tiles whose bytes are equal score 1 without
being decoded. Prints, per tileset folder (png, png@2x), the distribution and
the worst tiles; exits 1 if a tile is missing from QUANTIZED_DIR.
"""
import argparse
import hashlib
import json
import os
import sys
from multiprocessing import Pool

# One thread per process (the pool below uses the cores), and glibc's malloc
# keeping each tile's arrays for the next instead of mapping and unmapping
# them (every new mapping faults its pages in again). malloc reads these
# variables when the process starts, hence the exec.
if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MALLOC_MMAP_THRESHOLD_="33554432", MALLOC_TRIM_THRESHOLD_="268435456")
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

try:
    import numpy as np
    from PIL import Image
    from skimage.metrics import structural_similarity
except ImportError as e:  # a measuring tool, not a test dependency: scripts/setup does not install it
    sys.exit(f"tile_ssim.py: {e.name} is missing: python3 -m pip install scikit-image pillow numpy")


def composite(rgba, bg):
    a = rgba[..., 3:4] / 255.0
    return rgba[..., :3] * a + bg * (1.0 - a)


def tile_ssim(a_path, b_path):
    a = np.asarray(Image.open(a_path).convert("RGBA"), dtype=np.float64)
    b = np.asarray(Image.open(b_path).convert("RGBA"), dtype=np.float64)
    if a.shape != b.shape:
        raise SystemExit(f"{b_path}: {b.shape[1]}x{b.shape[0]} px, the lossless tile is {a.shape[1]}x{a.shape[0]}")
    return min(structural_similarity(composite(a, bg), composite(b, bg), data_range=255, channel_axis=2)
               for bg in (255.0, 0.0))


def tileset_of(rel):
    """The tileset folder of a tile path: VENUE/FLOOR/TILESET/Z/X/Y.png."""
    parts = rel.split(os.sep)
    return parts[-4] if len(parts) >= 4 else "."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("lossless")
    ap.add_argument("quantized")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--json", help="write every tile's score here")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="processes scoring tiles (default: every core)")
    args = ap.parse_args()

    rels = sorted(os.path.relpath(os.path.join(d, f), args.lossless)
                  for d, _, fs in os.walk(args.lossless) for f in fs if f.endswith(".png"))
    if not rels:
        raise SystemExit(f"no PNG tiles under {args.lossless}")
    # Repeated tiles (same bytes both sides) are scored once, on every core.
    scores, missing, todo, keyed = {}, [], {}, {}
    for rel in rels:
        qa, qb = os.path.join(args.lossless, rel), os.path.join(args.quantized, rel)
        if not os.path.exists(qb):
            missing.append(rel)
            continue
        da, db = open(qa, "rb").read(), open(qb, "rb").read()
        if da == db:
            scores[rel] = (1.0, False)
            continue
        key = (hashlib.sha256(da).digest(), hashlib.sha256(db).digest())
        todo.setdefault(key, (qa, qb))
        keyed[rel] = key
    keys = list(todo)
    with Pool(max(1, args.jobs)) as pool:
        scored = dict(zip(keys, pool.starmap(tile_ssim, [todo[k] for k in keys], chunksize=64)))
    for rel, key in keyed.items():
        scores[rel] = (scored[key], True)

    report = {}
    for ts in sorted({tileset_of(r) for r in scores}):
        rows = [(s, r) for r, (s, changed) in scores.items() if tileset_of(r) == ts]
        changed = np.array([s for r, (s, c) in scores.items() if c and tileset_of(r) == ts])
        vals = np.array([s for s, _ in rows])
        worst = sorted(rows)[:args.worst]
        report[ts] = {
            "tiles": len(rows), "changed": int(len(changed)),
            "below_0.99": int((vals < 0.99).sum()),
            "min": float(vals.min()),
            "changed_percentiles": {p: float(np.percentile(changed, p)) for p in (0, 0.1, 1, 5, 50)} if len(changed) else {},
            "worst": [{"tile": r, "ssim": s} for s, r in worst],
        }
        print(f"{ts}: {len(rows)} tiles, {len(changed)} changed by quantizing, "
              f"{report[ts]['below_0.99']} below 0.99, min {vals.min():.4f}")
        if len(changed):
            pct = report[ts]["changed_percentiles"]
            print("  changed tiles: " + ", ".join(f"p{p:g} {v:.4f}" for p, v in pct.items()))
        for w in report[ts]["worst"]:
            print(f"  {w['ssim']:.4f}  {w['tile']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tilesets": report, "tiles": {r: s for r, (s, _) in scores.items()}}, f, indent=1, sort_keys=True)
    if missing:
        print(f"{len(missing)} tiles missing from {args.quantized}, e.g. {missing[0]}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
