#!/usr/bin/env python3
"""Writes a synthetic IMDF venue for benchmarks: a grid of shops along corridors.

    scripts/make_synthetic.py [--realistic] [--origin LON,LAT] small|medium|large OUT_DIR

--origin places the venue's south-west corner elsewhere (default 2.35,48.85):
venues of one config at different places draw different tiles, as real
venues do, so no tile of one repeats in another.

With --realistic, a venue like real ones instead (scripts/synthetic_realistic.py:
rotated 17 degrees, L-shaped buildings with a courtyard and an atrium, bent
corridors, irregular and L-shaped rooms, labels; few tiles repeat). Sizes
(buildings x floors x metres): small 1 x 2 x 180x110, medium 2 x 4 x 300x200,
large 3 x 6 x 250x500 (about 800x500 m).

Grid sizes
Sizes (buildings × floors × units per level, about):
  small   1 × 2 ×  ~100   a mall wing
  medium  2 × 4 ×  ~600   a regional mall
  large   3 × 8 × ~2000   an airport terminal complex

The layout is deterministic: the same size gives the same bytes. Rooms are
irregular (notched corners, some with columns as holes) so that tiles are
not all alike, and every floor has doors, fixtures and amenities.
"""
import json, math, os, sys, uuid

SIZES = {"small": (1, 2, 8, 6), "medium": (2, 4, 20, 15), "large": (3, 8, 36, 28)}
ORIGIN = (2.3500, 48.8500)
NS = uuid.UUID("0b7a6c1e-3d2f-4e5a-9b8c-7d6e5f4a3b2c")

def ll(x, y):
    return [round(ORIGIN[0] + x / (111320.0 * math.cos(math.radians(ORIGIN[1]))), 9), round(ORIGIN[1] + y / 111320.0, 9)]

def uid(s):
    return str(uuid.uuid5(NS, s))

def ring(pts, ccw=True):
    a = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))
    if (a < 0) == ccw:
        pts = pts[::-1]
    return [ll(*p) for p in pts] + [ll(*pts[0])]

def rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

def feat(kind, fid, geom, **p):
    return {"id": fid, "type": "Feature", "feature_type": kind, "geometry": geom, "properties": p}

def write(out, files, venue_ring, size):
    os.makedirs(out, exist_ok=True)
    docs = {"manifest.json": {"version": "1.0.0", "language": "en", "created": "2026-01-01T00:00:00Z"},
            "venue.geojson": {"type": "FeatureCollection", "features": [feat("venue", uid("venue"), {"type": "Polygon", "coordinates": [venue_ring]},
                                                                              category="shoppingcenter", name={"en": f"Synthetic {size}"}, display_point=None)]}}
    for k, v in files.items():
        docs[k + ".geojson"] = {"type": "FeatureCollection", "features": v}
    for name, doc in docs.items():
        with open(os.path.join(out, name), "w") as fh:
            json.dump(doc, fh, separators=(",", ":"))
    print(f"{size}: {len(files['level'])} levels, {len(files['unit'])} units -> {out}", file=sys.stderr)

def main():
    args = sys.argv[1:]
    global ORIGIN
    realistic = "--realistic" in args
    args = [a for a in args if a != "--realistic"]
    if "--origin" in args:
        i = args.index("--origin")
        try:
            lon, lat = (float(v) for v in args[i + 1].split(","))
        except (IndexError, ValueError):
            sys.exit("--origin takes LON,LAT in degrees, e.g. --origin 2.36,48.86")
        ORIGIN = (lon, lat)
        del args[i:i + 2]
    if len(args) != 2 or args[0] not in SIZES:
        sys.exit(__doc__)
    size, out = args
    if realistic:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import synthetic_realistic
        files, venue_ring = synthetic_realistic.generate(size, feat, ll, uid)
        write(out, files, venue_ring, f"realistic {size}")
        return
    buildings, floors, cols, rows = SIZES[size]
    cell, corridor = 12.0, 6.0
    bw = cols * cell
    bh = rows * (cell + corridor)
    files = {k: [] for k in ["building", "footprint", "level", "unit", "opening", "fixture", "amenity", "anchor", "occupant"]}
    venue_id = uid("venue")
    categories = ["room", "room", "room", "restroom", "nonpublic", "room", "foodservice", "storage", "room", "office"]
    for b in range(buildings):
        bid = uid(f"b{b}")
        ox = b * (bw + 20)
        files["building"].append(feat("building", bid, None, name={"en": f"Hall {b + 1}"}, category="unspecified", display_point=None))
        files["footprint"].append(feat("footprint", uid(f"fp{b}"), {"type": "Polygon", "coordinates": [ring(rect(ox, 0, ox + bw, bh))]},
                                       category="ground", name=None, building_ids=[bid]))
        for f in range(floors):
            ordinal = f - 1 if floors > 2 else f
            lid = uid(f"l{b}/{f}")
            files["level"].append(feat("level", lid, {"type": "Polygon", "coordinates": [ring(rect(ox, 0, ox + bw, bh))]},
                                       category="unspecified", outdoor=False, ordinal=ordinal, name={"en": f"Level {ordinal}"},
                                       short_name={"en": str(ordinal)}, building_ids=[bid], display_point=None))
            n = 0
            for r in range(rows):
                y0 = r * (cell + corridor)
                cid = uid(f"c{b}/{f}/{r}")
                files["unit"].append(feat("unit", cid, {"type": "Polygon", "coordinates": [ring(rect(ox, y0 + cell, ox + bw, y0 + cell + corridor))]},
                                          category="walkway", name=None, level_id=lid, display_point=None))
                for c in range(cols):
                    x0 = ox + c * cell
                    key = f"{b}/{f}/{r}/{c}"
                    n += 1
                    cat = "elevator" if c == 0 and r % 4 == 0 else "stairs" if c == cols - 1 and r % 4 == 0 else categories[(r * 7 + c * 3 + f) % len(categories)]
                    notch = 1.5 + (c * 7 + r * 3) % 4
                    outline = [(x0, y0), (x0 + cell, y0), (x0 + cell, y0 + cell - notch), (x0 + cell - notch, y0 + cell), (x0, y0 + cell)]
                    rings = [ring(outline)]
                    if (r + c + f) % 5 == 0:
                        rings.append(ring(rect(x0 + 5, y0 + 5, x0 + 6, y0 + 6), ccw=False))
                    uidk = uid("u" + key)
                    files["unit"].append(feat("unit", uidk, {"type": "Polygon", "coordinates": rings}, category=cat,
                                              name={"en": f"Shop {r}-{c}"} if cat == "room" else None, level_id=lid,
                                              display_point={"type": "Point", "coordinates": ll(x0 + cell / 2, y0 + cell / 2)}))
                    files["opening"].append(feat("opening", uid("o" + key), {"type": "LineString", "coordinates": [ll(x0 + 4, y0 + cell), ll(x0 + 7, y0 + cell)]},
                                                 category="pedestrian", level_id=lid))
                    if (r * cols + c) % 6 == 0:
                        files["fixture"].append(feat("fixture", uid("f" + key), {"type": "Polygon", "coordinates": [ring(rect(x0 + 1, y0 + 1, x0 + 3, y0 + 2))]},
                                                     category="furniture", name=None, level_id=lid))
                    if (r * cols + c) % 4 == 1:
                        files["amenity"].append(feat("amenity", uid("a" + key), {"type": "Point", "coordinates": ll(x0 + cell / 2, y0 + cell + corridor / 2)},
                                                     category="information", unit_ids=[cid], name=None))
                    if cat == "room":
                        aid = uid("an" + key)
                        files["anchor"].append(feat("anchor", aid, {"type": "Point", "coordinates": ll(x0 + cell / 2, y0 + cell / 2)}, unit_id=uidk))
                        files["occupant"].append(feat("occupant", uid("oc" + key), None, name={"en": f"Tenant {key}"}, category="shopping", anchor_id=aid))
    width = buildings * (bw + 20)
    write(out, files, ring(rect(-10, -10, width, bh + 10)), size)

if __name__ == "__main__":
    main()
