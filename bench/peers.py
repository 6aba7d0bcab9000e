#!/usr/bin/env python3
"""Runs the peers on the same venue, floors and zooms as venuetiles, for scripts/bench.

    bench/peers.py export  IMDF_DIR OUT_DIR            one GeoJSON per floor (ordinal)
    bench/peers.py ogr2ogr FLOORS_DIR OUT_DIR MINZ MAXZ GDAL's MVT driver, per floor
    bench/peers.py tippecanoe BIN FLOORS_DIR OUT_DIR MINZ MAXZ
                                                       tippecanoe, per floor, without
                                                       simplification or dropping
    bench/peers.py mapnik  FLOORS_DIR OUT_DIR MANIFEST JOBS
                                                       Mapnik renders exactly the PNG tiles
                                                       venuetiles wrote (from its manifest),
                                                       as renderd does: 8x8 metatiles rendered
                                                       once and cut, png256

Each run prints one line: "<tiles> <seconds>" (export prints the floor count;
mapnik adds the bytes written).
The export is not timed: the peers need GeoJSON while venuetiles reads IMDF
itself, inside its own timing. Mapnik needs Debian's python3-mapnik
(/usr/bin/python3); GDAL needs gdal-bin.
"""
import json, math, os, subprocess, sys, time

def export(imdf, out):
    def load(name):
        p = os.path.join(imdf, name)
        return json.load(open(p))["features"] if os.path.exists(p) else []
    levels = {f["id"]: f for f in load("level.geojson")}
    units = load("unit.geojson")
    unit_level = {u["id"]: u["properties"].get("level_id") for u in units}
    floors = {}
    for lid, l in levels.items():
        floors.setdefault(l["properties"]["ordinal"], []).append(lid)
    shared = []
    for f in load("venue.geojson")[:1] + load("footprint.geojson"):
        if f.get("geometry"):
            shared.append({"type": "Feature", "geometry": f["geometry"],
                           "properties": {"id": f["id"], "category": f["properties"].get("category") or "", "kind": f["feature_type"]}})
    os.makedirs(out, exist_ok=True)
    for ordinal, lids in sorted(floors.items()):
        feats = list(shared)
        for lid in lids:
            feats.append({"type": "Feature", "geometry": levels[lid]["geometry"],
                          "properties": {"id": lid, "category": "level", "kind": "level", "level_id": lid, "ordinal": ordinal}})
        for name in ["unit.geojson", "fixture.geojson", "kiosk.geojson", "opening.geojson", "amenity.geojson"]:
            for f in load(name):
                p = f["properties"]
                lid = p.get("level_id") or next((unit_level.get(u) for u in p.get("unit_ids") or [] if unit_level.get(u)), None)
                if lid in lids and f.get("geometry"):
                    name_en = (p.get("name") or {}).get("en") if isinstance(p.get("name"), dict) else None
                    feats.append({"type": "Feature", "geometry": f["geometry"],
                                  "properties": {"id": f["id"], "category": p.get("category") or "", "kind": f["feature_type"],
                                                 "name": name_en, "level_id": lid, "ordinal": ordinal}})
        with open(os.path.join(out, f"floor_{ordinal}.geojson"), "w") as fh:
            json.dump({"type": "FeatureCollection", "features": feats}, fh)
    print(len(floors))

def count(dirname, exts):
    return sum(1 for r, _, fs in os.walk(dirname) for f in fs if f.endswith(exts))

def ogr(floors, out, minz, maxz):
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    for f in sorted(os.listdir(floors)):
        dst = os.path.join(out, f[:-8])
        subprocess.run(["ogr2ogr", "-f", "MVT", dst, os.path.join(floors, f), "-dsco", f"MINZOOM={minz}", "-dsco", f"MAXZOOM={maxz}",
                        "-dsco", "FORMAT=DIRECTORY", "-dsco", "COMPRESS=NO", "-dsco", "EXTENT=4096", "-dsco", "BUFFER=80"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(count(out, (".pbf", ".mvt")), time.time() - t0)

def tippecanoe(binary, floors, out, minz, maxz):
    # Full precision as far as tippecanoe goes: no simplification, no tiny-polygon
    # reduction, no dropping, no size limits. Its world is 32 bits wide, so the
    # detail is 12 (extent 4096, as ours) up to z20 and 32 - maxzoom above.
    detail = min(12, 32 - maxz)
    os.makedirs(out, exist_ok=True)
    t0 = time.time()
    for f in sorted(os.listdir(floors)):
        dst = os.path.join(out, f[:-8])
        subprocess.run([binary, "-q", "-f", "-e", dst, f"-Z{minz}", f"-z{maxz}", f"--full-detail={detail}", "--buffer=5",
                        "--no-line-simplification", "--no-tiny-polygon-reduction", "--no-feature-limit", "--no-tile-size-limit",
                        "--no-tile-compression", "--no-tile-stats", "-r1", "-l", "floor", os.path.join(floors, f)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(count(out, (".pbf", ".mvt")), time.time() - t0)

STYLE = """<Map srs="epsg:3857">
<Style name="poly"><Rule><Filter>[kind] = 'level'</Filter><PolygonSymbolizer fill="#F3F1EC"/><LineSymbolizer stroke="#9C9587" stroke-width="1"/></Rule>
<Rule><Filter>[kind] = 'unit' or [kind] = 'fixture' or [kind] = 'kiosk'</Filter><PolygonSymbolizer fill="#FBE5C4"/><LineSymbolizer stroke="#D2AE7C" stroke-width="1"/></Rule></Style>
<Style name="line"><Rule><Filter>[kind] = 'opening'</Filter><LineSymbolizer stroke="#FFFFFF" stroke-width="2"/></Rule></Style>
<Style name="point"><Rule><Filter>[kind] = 'amenity'</Filter><MarkersSymbolizer fill="#3E7CC4" stroke="#FFFFFF" width="7" height="7" allow-overlap="true"/></Rule></Style>
</Map>"""

META = 8          # renderd's METATILE: 8x8 tiles rendered in one image, then cut
META_BUFFER = 128  # renderd's default buffer around a metatile, in pixels

def load_floor_map(floors, fid, size):
    import mapnik
    m = mapnik.Map(size, size)
    mapnik.load_map_from_string(m, STYLE)
    ordinal = int(fid[len("floor_m"):]) * -1 if fid.startswith("floor_m") else int(fid[len("floor_"):])
    ds = mapnik.Datasource(type="geojson", file=os.path.join(floors, f"floor_{ordinal}.geojson"))
    layer = mapnik.Layer(fid, "epsg:4326")
    layer.datasource = ds
    for s in ["poly", "line", "point"]:
        layer.styles.append(s)
    m.layers.append(layer)
    m.buffer_size = META_BUFFER
    return m

def mapnik_worker(args):
    """Renders metatiles as renderd does: one 2048 px image per 8x8 block, each
    wanted tile cut from it and encoded as png256 (renderd's default format;
    Mapnik's own quantizer). Returns (tiles written, bytes written)."""
    floors, out, metas = args
    import mapnik
    maps = {}
    n = nbytes = 0
    o = 20037508.342789244
    for fid, z, mx, my, tiles in metas:
        if fid not in maps:
            maps[fid] = load_floor_map(floors, fid, 256 * META)
        m = maps[fid]
        span = 2 * o / (1 << z)
        x0, y0 = mx * META, my * META
        m.zoom_to_box(mapnik.Box2d(x0 * span - o, o - (y0 + META) * span, (x0 + META) * span - o, o - y0 * span))
        im = mapnik.Image(256 * META, 256 * META)
        mapnik.render(m, im)
        for x, y in tiles:
            data = im.view((x - x0) * 256, (y - y0) * 256, 256, 256).tostring("png256")
            d = os.path.join(out, fid, str(z), str(x))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, f"{y}.png"), "wb") as fh:
                fh.write(data)
            n += 1
            nbytes += len(data)
    return n, nbytes

def run_mapnik(floors, out, manifest, jobs):
    """Mapnik on exactly the 1x PNG tiles of venuetiles' manifest, grouped into
    metatiles. Prints "<tiles> <seconds> <bytes>"."""
    import multiprocessing
    m = json.load(open(manifest))
    metas = {}
    for t in m["tiles"]:
        parts = t["path"].split("/")
        if len(parts) == 6 and parts[2] == "png":
            z, x, y = int(parts[3]), int(parts[4]), int(parts[5][:-4])
            metas.setdefault((parts[1], z, x // META, y // META), []).append((x, y))
    units = [k + (sorted(v),) for k, v in sorted(metas.items())]
    chunks = [(floors, out, units[i::jobs]) for i in range(jobs)]
    t0 = time.time()
    with multiprocessing.Pool(jobs) as pool:
        results = pool.map(mapnik_worker, chunks)
    print(sum(r[0] for r in results), time.time() - t0, sum(r[1] for r in results))

if __name__ == "__main__":
    cmd, *a = sys.argv[1:]
    if cmd == "export": export(*a)
    elif cmd == "ogr2ogr": ogr(a[0], a[1], int(a[2]), int(a[3]))
    elif cmd == "tippecanoe": tippecanoe(a[0], a[1], a[2], int(a[3]), int(a[4]))
    elif cmd == "mapnik": run_mapnik(a[0], a[1], a[2], int(a[3]))
    else: sys.exit(__doc__)
