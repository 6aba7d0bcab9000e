#!/usr/bin/env python3
"""Triangulates every polygon of a synthetic venue with our Triangulator and with
mapbox-earcut (the C++ earcut, from PyPI) on the same rings, side by side, and
writes bench/triangulation.md.

    scripts/bench_triangulation.py [small|medium|large]    (default: large)

Rings are projected to local metres (an equirectangular frame around the venue
centre) by this script and written to one file both sides read. Our time is
the median of 5 passes inside the Swift benchmark (no Python in the loop); the
C++ time is the median of 5 passes over the same polygons, calling
mapbox_earcut.triangulate_float64 once per polygon with NumPy arrays prepared
beforehand, so only the call overhead of Python is counted against it.
"""
import json, math, os, statistics, struct, subprocess, sys, time

size = sys.argv[1] if len(sys.argv) > 1 else "large"
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
work = "/tmp/venuetiles-trianglebench"
src = os.path.join(root, "..", "shared", "bench", "data", size, "imdf")
if not os.path.isdir(src):
    src = os.path.join(work, size, "imdf")
    if not os.path.isdir(src):
        subprocess.run([sys.executable, os.path.join(root, "scripts", "make_synthetic.py"), size, src], check=True)
subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "mapbox-earcut", "numpy"], check=False)
import numpy as np
import mapbox_earcut

polys = []
for name in ["level.geojson", "unit.geojson", "fixture.geojson"]:
    for f in json.load(open(os.path.join(src, name)))["features"]:
        g = f.get("geometry")
        if not g:
            continue
        parts = [g["coordinates"]] if g["type"] == "Polygon" else g["coordinates"] if g["type"] == "MultiPolygon" else []
        polys += parts
lon0 = statistics.mean(p[0][0][0] for p in polys); lat0 = statistics.mean(p[0][0][1] for p in polys)
k = 6371008.8 * math.pi / 180
def local(r):
    pts = [((x - lon0) * k * math.cos(math.radians(lat0)), (y - lat0) * k) for x, y in r]
    return pts[:-1] if len(pts) > 1 and pts[0] == pts[-1] else pts
rings = [[local(r) for r in p] for p in polys]

subprocess.run(["swift", "build", "-c", "release", "--product", "triangulation-bench"], cwd=root, check=True, stdout=subprocess.DEVNULL)
os.makedirs(work, exist_ok=True)

def run(name, polygons):
    path = os.path.join(work, f"{name}-rings.bin")
    with open(path, "wb") as fh:
        fh.write(struct.pack("<I", len(polygons)))
        for p in polygons:
            fh.write(struct.pack("<I", len(p)))
            for r in p:
                fh.write(struct.pack("<I", len(r)))
                fh.write(struct.pack(f"<{2 * len(r)}d", *[c for pt in r for c in pt]))
    out = subprocess.run([os.path.join(root, ".build", "release", "triangulation-bench"), path, "5"], check=True, capture_output=True, text=True).stdout.split()
    n, ours_tris, ours_s = int(out[0]), int(out[1]), float(out[2])
    arrays = [(np.array([c for r in p for c in r], dtype=np.float64).reshape(-1, 2), np.array(np.cumsum([len(r) for r in p]), dtype=np.uint32)) for p in polygons]
    tri = (np.array([[0, 0], [1, 0], [0, 1]], dtype=np.float64), np.array([3], dtype=np.uint32))
    times, overhead = [], []
    for _ in range(5):
        t0 = time.perf_counter()
        tris = 0
        for v, ends in arrays:
            tris += len(mapbox_earcut.triangulate_float64(v, ends)) // 3
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        for _ in arrays:
            mapbox_earcut.triangulate_float64(*tri)
        overhead.append(time.perf_counter() - t0)
    cpp = statistics.median(times)
    cpp_net = max(cpp - statistics.median(overhead), 1e-9)
    points = sum(len(r) for p in polygons for r in p)
    return (f"| {name} | {n} | {points} | {ours_tris} / {tris} | {ours_s:.4f} | {cpp:.4f} | {cpp_net:.4f} | "
            f"{n / ours_s:,.0f} | {n / cpp_net:,.0f} | **{ours_s / cpp_net:.2f}×** |")

# The earcut test suite's "water" shapes are shorelines around many islands; this is one such shape, 200 times.
def water(seed):
    import random
    rnd = random.Random(seed)
    outline = []
    for i in range(400):
        a = i / 400 * 2 * math.pi
        r = 1000 + 40 * math.sin(a * 17) + 15 * math.sin(a * 53) + rnd.random() * 5
        outline.append((r * math.cos(a), r * math.sin(a)))
    islands = []
    for gx in range(-4, 5):
        for gy in range(-4, 5):
            if (gx + gy) % 2:
                continue
            islands.append([(gx * 160 + (30 + rnd.random() * 25) * math.cos(k / 9 * 2 * math.pi),
                             gy * 160 + (30 + rnd.random() * 25) * math.sin(k / 9 * 2 * math.pi)) for k in range(9)])
    return [outline] + islands

rows = [run(f"{size} venue (units, fixtures, levels)", rings), run("water with 41 islands ×200", [water(s) for s in range(200)])]
text = f"""# Triangulation benchmark

One run on this machine. Our time: median of 5 passes inside the Swift benchmark (Benchmarks/TriangulationBench).
C++ earcut: mapbox-earcut {getattr(mapbox_earcut, '__version__', '')} from PyPI, median of 5 passes calling it once per polygon
from Python; "net" subtracts the measured cost of the same number of Python calls on a single triangle.

| rings | polygons | points | triangles ours / C++ | ours s | C++ s | C++ net s | ours polygons/s | C++ polygons/s (net) | ours / C++ net |
|---|---|---|---|---|---|---|---|---|---|
{rows[0]}
{rows[1]}

Target: within 2× of the C++ earcut.
"""
open(os.path.join(root, "bench", "triangulation.md"), "w").write(text)
print(text)
