#!/usr/bin/env python3
"""Writes the bundled sample venue, "Harbour Arcade", as an IMDF folder.

A fictional two-building shopping arcade drawn in local metres and placed at a
fictional spot. It exercises what the tiles must get right: three floors
(ordinals -1, 0, 1), two buildings sharing ordinal 0, a walkway with a hole
(the atrium) filled by an open-to-below unit, a MultiPolygon unit, openings,
fixtures, amenities, anchors and occupants with names in two languages.

    scripts/make_sample.py samples/harbour-arcade
    scripts/make_sample.py --with-defects Tests/VenueFormatsTests/Fixtures/harbour-arcade

--with-defects adds what real data contains and a reader must survive: a unit
whose level_id names no level, an unclosed ring, an unknown file.
"""
import json, math, os, sys, uuid

ORIGIN = (10.0015, 53.5405)  # lon, lat of local (0, 0)
M_PER_DEG_LAT = 111_320.0

def ll(x, y):
    lon = ORIGIN[0] + x / (M_PER_DEG_LAT * math.cos(math.radians(ORIGIN[1])))
    lat = ORIGIN[1] + y / M_PER_DEG_LAT
    return [round(lon, 9), round(lat, 9)]

NS = uuid.UUID("6f1c2d6e-8a55-4d0e-9a2a-3c1f5b7e9d10")
def uid(name):
    return str(uuid.uuid5(NS, name))

def ring(pts):
    """Closed ring, counter-clockwise as RFC 7946 wants for exteriors."""
    area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))
    if area < 0:
        pts = pts[::-1]
    return [ll(x, y) for x, y in pts] + [ll(*pts[0])]

def hole(pts):
    area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))
    if area > 0:
        pts = pts[::-1]
    return [ll(x, y) for x, y in pts] + [ll(*pts[0])]

def rect(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

def poly(*rings_):
    return {"type": "Polygon", "coordinates": [ring(rings_[0])] + [hole(r) for r in rings_[1:]]}

def point(x, y):
    return {"type": "Point", "coordinates": ll(x, y)}

def centre(pts):
    xs = [p[0] for p in pts]; ys = [p[1] for p in pts]
    return ((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2)

def names(en, de=None):
    d = {"en": en}
    if de: d["de"] = de
    return d

def fc(kind, feats):
    return {"type": "FeatureCollection", "name": kind, "features": feats}

def feature(kind, fid, geometry, **props):
    return {"id": fid, "type": "Feature", "feature_type": kind, "geometry": geometry, "properties": props}

def build(with_defects):
    files = {}
    venue_id, north, east = uid("venue"), uid("building/north"), uid("building/east")
    files["manifest.json"] = {"version": "1.0.0", "created": "2026-11-21T00:00:00Z", "language": "en",
                              "generated_by": {"name": "VenueTiles scripts/make_sample.py", "version": "1"}}
    files["venue.geojson"] = fc("venue", [feature("venue", venue_id, poly(rect(-10, -10, 125, 50)),
        category="shoppingcenter", restriction=None, name=names("Harbour Arcade", "Hafen-Arkaden"),
        alt_name=None, hours="Mo-Sa 09:00-20:00", phone=None, website=None,
        display_point=point(55, 20), address_id=None)])
    files["building.geojson"] = fc("building", [
        feature("building", north, None, name=names("North Hall", "Nordhalle"), alt_name=None,
                category="unspecified", restriction=None, display_point=point(40, 20), address_id=None),
        feature("building", east, None, name=names("East Pavilion", "Ostpavillon"), alt_name=None,
                category="unspecified", restriction=None, display_point=point(100, 20), address_id=None),
    ])
    files["footprint.geojson"] = fc("footprint", [
        feature("footprint", uid("fp/north"), poly(rect(0, 0, 80, 40)), category="ground", name=None, building_ids=[north]),
        feature("footprint", uid("fp/east"), poly(rect(85, 5, 115, 35)), category="ground", name=None, building_ids=[east]),
    ])
    levels = [
        ("north/-1", -1, "Parking", "B1", north, rect(0, 0, 80, 40)),
        ("north/0", 0, "Ground Floor", "G", north, rect(0, 0, 80, 40)),
        ("east/0", 0, "Pavilion Ground", "G", east, rect(80, 5, 115, 35)),
        ("north/1", 1, "Upper Floor", "1", north, rect(0, 0, 80, 40)),
    ]
    lv = {}
    level_feats = []
    for key, ordinal, name, short, bid, outline in levels:
        lv[key] = uid("level/" + key)
        level_feats.append(feature("level", lv[key], poly(outline), category="unspecified", restriction=None,
            outdoor=False, ordinal=ordinal, name=names(name), short_name=names(short),
            display_point=point(*centre(outline)), address_id=None, building_ids=[bid]))
    # Out of ordinal order on purpose, as real files are.
    files["level.geojson"] = fc("level", [level_feats[3], level_feats[1], level_feats[0], level_feats[2]])

    units, openings, fixtures, amenities, anchors, occupants = [], [], [], [], [], []
    def unit(key, level, category, geom, name=None, dp=None):
        f = feature("unit", uid("unit/" + key), geom, category=category, restriction=None, accessibility=None,
                    name=name, alt_name=None, level_id=lv[level], display_point=point(*dp) if dp else None)
        units.append(f)
        return f["id"]
    def opening(key, level, a, b, category="pedestrian"):
        openings.append(feature("opening", uid("opening/" + key), {"type": "LineString", "coordinates": [ll(*a), ll(*b)]},
            category=category, accessibility=None, access_control=None, door=None, name=None, alt_name=None,
            display_point=point((a[0] + b[0]) / 2, (a[1] + b[1]) / 2), level_id=lv[level]))
    def shop(key, level, x0, y0, x1, y1, name, occupant_category="shopping", door_y=None):
        pts = rect(x0, y0, x1, y1)
        u = unit(key, level, "room", poly(pts), None, centre(pts))
        anchor_id = uid("anchor/" + key)
        anchors.append(feature("anchor", anchor_id, point(*centre(pts)), address_id=None, unit_id=u))
        occupants.append(feature("occupant", uid("occupant/" + key), None, name=name, category=occupant_category,
                                 anchor_id=anchor_id, hours=None, phone=None, website=None, validity=None, correlation_id=None))
        if door_y is not None:
            mx = (x0 + x1) / 2
            opening(key, level, (mx - 1, door_y), (mx + 1, door_y))
        return u

    # Ground floor, North Hall.
    unit("g/corridor", "north/0", "walkway", poly(rect(0, 16, 80, 24)), names("Main Mall", "Hauptgang"), (40, 20))
    for i, (n_en, n_de, cat) in enumerate([("Nordic Books", "Nordische Bücher", "shopping"), ("Café Anker", None, "restaurant"),
                                           ("Sail & Rope", None, "shopping"), ("Lighthouse Optics", "Leuchtturm Optik", "shopping"),
                                           ("Harbour Pharmacy", "Hafen-Apotheke", "healthcare"), ("Gull Toys", None, "shopping")]):
        x0 = i * 80 / 6
        shop(f"g/shop{i}", "north/0", x0, 24, x0 + 80 / 6, 40, names(n_en, n_de), cat, door_y=24)
    rr = unit("g/restroom", "north/0", "restroom", poly(rect(0, 0, 8, 16)), names("Restrooms", "WC"), (4, 8))
    unit("g/elevator", "north/0", "elevator", poly(rect(8, 0, 12, 6)), names("Elevator", "Aufzug"), (10, 3))
    unit("g/stairs", "north/0", "stairs", poly(rect(12, 0, 18, 8)), None, (15, 4))
    unit("g/service", "north/0", "nonpublic", poly(rect(8, 6, 18, 16)), None, (13, 11))
    shop("g/market", "north/0", 18, 0, 52, 16, names("Fish Market Hall", "Fischmarkthalle"), "foodandbeverage", door_y=16)
    # A shop with a structural column inside: a polygon with a hole.
    u = unit("g/fashion", "north/0", "room", poly(rect(52, 0, 72, 16), rect(60, 6, 62, 8)), None, (56, 12))
    anchors.append(feature("anchor", uid("anchor/g/fashion"), point(56, 12), address_id=None, unit_id=u))
    occupants.append(feature("occupant", uid("occupant/g/fashion"), None, name=names("Tidewater Fashion"), category="shopping",
                             anchor_id=uid("anchor/g/fashion"), hours=None, phone=None, website=None, validity=None, correlation_id=None))
    unit("g/column", "north/0", "column", poly(rect(60, 6, 62, 8)))
    unit("g/escalator", "north/0", "escalator", poly(rect(72, 0, 80, 16)), None, (76, 8))
    opening("g/entrance-west", "north/0", (0, 18), (0, 22), "pedestrian.principal")
    opening("g/to-pavilion", "north/0", (80, 18), (80, 22))
    fixtures.append(feature("fixture", uid("fixture/g/kiosk"), poly(rect(36, 18.5, 39, 21.5)), category="desk",
        name=names("Information"), alt_name=None, anchor_id=None, level_id=lv["north/0"], display_point=point(37.5, 20)))
    fixtures.append(feature("fixture", uid("fixture/g/fountain"), poly([(46, 18), (49, 18), (50.5, 20), (49, 22), (46, 22), (44.5, 20)]),
        category="water", name=names("Fountain", "Brunnen"), alt_name=None, anchor_id=None, level_id=lv["north/0"], display_point=point(47.5, 20)))
    for key, cat, xy, unit_key in [("wc", "restroom", (4, 8), "g/restroom"), ("info", "information", (37.5, 17), "g/corridor"),
                                   ("atm", "atm", (70, 22.5), "g/corridor")]:
        amenities.append(feature("amenity", uid("amenity/" + key), point(*xy), category=cat, accessibility=None,
            name=None, alt_name=None, hours=None, phone=None, website=None, unit_ids=[uid("unit/" + unit_key)],
            address_id=None, correlation_id=None))

    # Ground floor, East Pavilion: one food court unit made of two seating halls (a MultiPolygon).
    unit("p/bridge", "east/0", "footbridge", poly(rect(80, 17, 85, 23)), None, (82.5, 20))
    unit("p/walkway", "east/0", "walkway", poly(rect(85, 17, 115, 23)), None, (100, 20))
    court = {"type": "MultiPolygon", "coordinates": [[ring(rect(85, 5, 115, 17))], [ring(rect(85, 23, 115, 35))]]}
    unit("p/foodcourt", "east/0", "foodservice", court, names("Food Court", "Gastronomie"), (100, 11))
    opening("p/door-south", "east/0", (95, 17), (99, 17))
    opening("p/door-north", "east/0", (95, 23), (99, 23))
    amenities.append(feature("amenity", uid("amenity/p/water"), point(112, 20), category="drinkingwater", accessibility=None,
        name=None, alt_name=None, hours=None, phone=None, website=None, unit_ids=[uid("unit/p/walkway")],
        address_id=None, correlation_id=None))

    # Upper floor: the walkway has a hole over the atrium, filled by an open-to-below unit.
    atrium = rect(30, 17, 50, 23)
    unit("1/walkway", "north/1", "walkway", poly(rect(0, 16, 80, 24), atrium), names("Gallery", "Galerie"), (20, 20))
    unit("1/atrium", "north/1", "opentobelow", poly(atrium))
    for i, n_en in enumerate(["Compass Outdoor", "Anchor Games", "Blue Whale Cinema"]):
        shop(f"1/shop{i}", "north/1", i * 80 / 3, 24, (i + 1) * 80 / 3, 40, names(n_en), "entertainment" if i == 2 else "shopping", door_y=24)
    unit("1/restroom", "north/1", "restroom.female", poly(rect(0, 0, 8, 16)), None, (4, 8))
    unit("1/elevator", "north/1", "elevator", poly(rect(8, 0, 12, 6)), None, (10, 3))
    unit("1/stairs", "north/1", "stairs", poly(rect(12, 0, 18, 8)), None, (15, 4))
    shop("1/office", "north/1", 18, 0, 72, 16, names("Harbour Offices"), "businessservices", door_y=16)
    unit("1/escalator", "north/1", "escalator", poly(rect(72, 0, 80, 16)), None, (76, 8))

    # Basement: parking.
    unit("b/parking", "north/-1", "parking", poly(rect(18, 0, 80, 40)), names("Parking", "Parkhaus"), (50, 20))
    unit("b/elevator", "north/-1", "elevator", poly(rect(8, 0, 12, 6)), None, (10, 3))
    unit("b/stairs", "north/-1", "stairs", poly(rect(12, 0, 18, 8)), None, (15, 4))
    unit("b/storage", "north/-1", "storage", poly(rect(0, 6, 18, 40)), None, (9, 22))
    unit("b/lobby", "north/-1", "lobby", poly(rect(0, 0, 8, 6)), None, (4, 3))
    opening("b/ramp", "north/-1", (80, 10), (80, 18), "service")

    if with_defects:
        # A unit on a level that does not exist: skipped with a warning.
        unit_bad = feature("unit", uid("unit/orphan"), poly(rect(0, 0, 2, 2)), category="room", restriction=None,
                           accessibility=None, name=None, alt_name=None, level_id=uid("level/nowhere"), display_point=None)
        units.append(unit_bad)
        # An unclosed ring: repaired with a warning.
        g = poly(rect(20, 30, 24, 34))
        g["coordinates"][0] = g["coordinates"][0][:-1]
        units.append(feature("unit", uid("unit/unclosed"), g, category="room", restriction=None, accessibility=None,
                             name=None, alt_name=None, level_id=lv["north/1"], display_point=None))

    files["unit.geojson"] = fc("unit", units)
    files["opening.geojson"] = fc("opening", openings)
    files["fixture.geojson"] = fc("fixture", fixtures)
    files["amenity.geojson"] = fc("amenity", amenities)
    files["anchor.geojson"] = fc("anchor", anchors)
    files["occupant.geojson"] = fc("occupant", occupants)
    files["address.geojson"] = fc("address", [])
    return files

def main():
    args = sys.argv[1:]
    defects = "--with-defects" in args
    args = [a for a in args if a != "--with-defects"]
    if len(args) != 1:
        sys.exit(__doc__)
    out = args[0]
    os.makedirs(out, exist_ok=True)
    for name, doc in build(defects).items():
        with open(os.path.join(out, name), "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
    if defects:
        with open(os.path.join(out, "README.txt"), "w") as f:
            f.write("Test fixture written by scripts/make_sample.py --with-defects. Not an IMDF file.\n")

if __name__ == "__main__":
    main()
