"""Realistic synthetic IMDF venues for benchmarks (scripts/make_synthetic.py --realistic).

The grid venues of make_synthetic.py are axis-aligned: two thirds of their
tiles repeat, which hides the PNG encoder behind the duplicate-tile cache. These
venues look like real ones instead: every building is rotated 17 degrees, L-shaped,
with a courtyard (a hole in every level) and an atrium (open to below above the
ground floor); a bent spine corridor with branches at irregular spacing and
angles; rooms of varied width and depth along both sides of every corridor,
trapezoids rather than rectangles, some L-shaped, some with columns; doors,
counters, amenities with icons and named tenants (labels of varied length).
Corridors are the same on every floor, rooms are not.

Deterministic: every random choice comes from random.Random seeded by the size,
building and floor, so the same size gives the same bytes.
"""
import math
import random

# buildings, floors, building width and height (metres, before rotation)
SIZES = {"small": (1, 2, 180, 110), "medium": (2, 4, 300, 200), "large": (3, 6, 250, 500)}
ROTATION = math.radians(17)
CATEGORIES = ["room"] * 12 + ["foodservice", "foodservice", "restroom", "storage", "office", "nonpublic", "office", "retail"]
AMENITIES = ["information", "atm", "restroom", "elevator", "escalator", "cafe", "firstaid", "drinkingfountain",
             "vendingmachine", "security", "checkin", "wheelchair", "babychanging", "lostandfound"]
WORDS_A = ["North", "Blue", "Cedar", "Harbour", "Golden", "Little", "Grand", "Urban", "Silver", "Old Town", "Pacific", "Maple"]
WORDS_B = ["Books", "Coffee Roasters", "Optics", "Travel Goods", "Pharmacy", "Noodle Bar", "Outfitters", "Gallery",
           "Electronics", "Bakery", "Florist", "Shoes", "News", "Duty Free", "Lounge", "Sushi"]


def rotate(p):
    c, s = math.cos(ROTATION), math.sin(ROTATION)
    return (p[0] * c - p[1] * s, p[0] * s + p[1] * c)


def inside(p, poly):
    """Point in polygon (ray casting)."""
    x, y, hit = p[0], p[1], False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def crosses(a, b, c, d):
    """Whether segments ab and cd properly cross."""
    def side(p, q, r):
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0


def overlap(p, q):
    """Whether two simple polygons overlap (a vertex inside the other, or edges crossing)."""
    if any(inside(v, q) for v in p) or any(inside(v, p) for v in q):
        return True
    return any(crosses(a, b, c, d) for a, b in zip(p, p[1:] + p[:1]) for c, d in zip(q, q[1:] + q[:1]))


def within(p, outer):
    return all(inside(v, outer) for v in p) and not any(
        crosses(a, b, c, d) for a, b in zip(p, p[1:] + p[:1]) for c, d in zip(outer, outer[1:] + outer[:1]))


def band(p, q, width):
    """The rectangle of a corridor from p to q."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy)
    nx, ny = -dy / n * width / 2, dx / n * width / 2
    return [(p[0] + nx, p[1] + ny), (q[0] + nx, q[1] + ny), (q[0] - nx, q[1] - ny), (p[0] - nx, p[1] - ny)]


def disk(c, r, n=16):
    return [(c[0] + r * math.cos(2 * math.pi * k / n), c[1] + r * math.sin(2 * math.pi * k / n)) for k in range(n)]


class Grid:
    """Placed polygons by 20 m cell, so overlap tests stay local."""
    def __init__(self):
        self.cells = {}

    def keys(self, poly):
        xs, ys = [v[0] for v in poly], [v[1] for v in poly]
        return [(i, j) for i in range(int(min(xs) // 20), int(max(xs) // 20) + 1) for j in range(int(min(ys) // 20), int(max(ys) // 20) + 1)]

    def hits(self, poly):
        seen = set()
        for k in self.keys(poly):
            for idx, q in self.cells.get(k, []):
                if idx not in seen:
                    seen.add(idx)
                    if overlap(poly, q):
                        return True
        return False

    def add(self, idx, poly):
        for k in self.keys(poly):
            self.cells.setdefault(k, []).append((idx, poly))


def plan_building(rng, w, h):
    """Footprint (L-shaped), courtyard, corridors and atrium of one building: the same on every floor."""
    nw, nh = w * rng.uniform(0.3, 0.4), h * rng.uniform(0.3, 0.4)
    footprint = [(0, 0), (w, 0), (w, h - nh), (w - nw, h - nh), (w - nw, h), (0, h)]   # notch at the top right
    cw, ch = w * 0.14, h * 0.18
    cx, cy = w * rng.uniform(0.18, 0.3), h * rng.uniform(0.62, 0.72)
    courtyard = [(cx, cy), (cx + cw, cy), (cx + cw * 0.9, cy + ch), (cx + cw * 0.05, cy + ch)]
    ys = [h * 0.42 + rng.uniform(-8, 8) for _ in range(4)]
    spine = [(6 + (w - 12) * k / 3, ys[k]) for k in range(4)]
    corridors = [band(spine[k], spine[k + 1], 8) for k in range(3)] + [disk(p, 4, 8) for p in spine[1:-1]]
    x = 22 + rng.uniform(0, 10)
    branches = []
    while x < w - 20:
        # The spine's height at x, then a branch up and one down at a slant.
        k = min(2, int((x - 6) / ((w - 12) / 3)))
        (x0, y0), (x1, y1) = spine[k], spine[k + 1]
        y = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        for direction in (1, -1):
            slant = math.radians(rng.uniform(-22, 22))
            top = (h - 6) if direction > 0 else 6
            end = (x + math.tan(slant) * (top - y), top)
            branches.append(((x, y), end))
        x += rng.uniform(30, 55)
    for p, q in branches:
        corridors.append(band(p, q, 5))
    mid = spine[1]
    atrium = disk((mid[0] + 14, mid[1] + rng.choice((-1, 1)) * 12), rng.uniform(9, 12))
    return footprint, courtyard, spine, branches, corridors, atrium


def rooms_along(rng, p, q, side, start, half):
    """Rooms (and a door on each front) lining one side of the corridor whose axis
    is p→q and half-width `half`, from `start` metres on."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy)
    ux, uy = dx / n, dy / n
    nx, ny = -uy * side, ux * side
    t, out = start, []
    while t < n - 8:
        width = rng.uniform(6, 18)
        t1 = min(n - 3, t + width)
        depth, off = rng.uniform(8, 16), half + 0.15   # a wall's width off the corridor
        def at(s, d):
            return (p[0] + ux * s + nx * d, p[1] + uy * s + ny * d)
        back0, back1 = depth + rng.uniform(-1.5, 1.5), depth + rng.uniform(-1.5, 1.5)
        poly = [at(t, off), at(t1, off), at(t1, off + back1), at(t, off + back0)]
        if rng.random() < 0.25:
            # L-shaped: a corner of the back cut out.
            cut_s, cut_d = (t1 - t) * rng.uniform(0.3, 0.5), min(back0, back1) * rng.uniform(0.3, 0.5)
            poly = [at(t, off), at(t1, off), at(t1, off + back1 - cut_d), at(t1 - cut_s, off + back1 - cut_d),
                    at(t1 - cut_s, off + back1), at(t, off + back0)]
        front = (at(t + (t1 - t) / 2 - 0.8, off), at(t + (t1 - t) / 2 + 0.8, off))
        out.append((poly, front))
        t = t1 + rng.uniform(0, 1.5)
    return out


def floor_units(rng, plan):
    """Rooms of one floor: along both sides of every corridor, inside the footprint, clear of everything else."""
    footprint, courtyard, spine, branches, corridors, atrium = plan
    taken = Grid()
    for i, c in enumerate(corridors + [courtyard, atrium]):
        taken.add(-1 - i, c)
    axes = [(spine[k], spine[k + 1], 4.0) for k in range(3)] + [(p, q, 2.5) for p, q in branches]
    rooms = []
    for p, q, half in axes:
        for side in (1, -1):
            for poly, door in rooms_along(rng, p, q, side, rng.uniform(2, 8), half):
                if within(poly, footprint) and not taken.hits(poly):
                    taken.add(len(rooms), poly)
                    rooms.append((poly, door))
    return rooms


def generate(size, feat, ll, uid):
    """Features of the realistic venue of `size`, by IMDF file name (without .geojson)."""
    buildings, floors, w, h = SIZES[size]
    files = {k: [] for k in ["building", "footprint", "level", "unit", "opening", "fixture", "amenity", "anchor", "occupant"]}

    def ring(pts, ox, ccw=True):
        """A closed ring in lon/lat, counter-clockwise (outer) or clockwise (hole)."""
        pts = [rotate((x + ox, y)) for x, y in pts]
        area = sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1]))
        if (area < 0) == ccw:
            pts = pts[::-1]
        return [ll(*v) for v in pts] + [ll(*pts[0])]

    def line(pts, ox):
        return [ll(*rotate((x + ox, y))) for x, y in pts]

    def point(p, ox):
        return {"type": "Point", "coordinates": ll(*rotate((p[0] + ox, p[1])))}

    for b in range(buildings):
        rng = random.Random(f"realistic/{size}/{b}")
        plan = plan_building(rng, w, h)
        footprint, courtyard, spine, branches, corridors, atrium = plan
        ox = b * (w + 25)
        bid = uid(f"rb{b}")
        files["building"].append(feat("building", bid, None, name={"en": f"Terminal {b + 1}"}, category="unspecified", display_point=None))
        files["footprint"].append(feat("footprint", uid(f"rfp{b}"), {"type": "Polygon", "coordinates": [ring(footprint, ox)]},
                                       category="ground", name=None, building_ids=[bid]))
        for f in range(floors):
            frng = random.Random(f"realistic/{size}/{b}/{f}")
            ordinal = f - 1 if floors > 2 else f
            lid = uid(f"rl{b}/{f}")
            files["level"].append(feat("level", lid, {"type": "Polygon", "coordinates": [ring(footprint, ox), ring(courtyard, ox, ccw=False)]},
                                       category="unspecified", outdoor=False, ordinal=ordinal, name={"en": f"Level {ordinal}"},
                                       short_name={"en": str(ordinal)}, building_ids=[bid], display_point=None))
            for i, c in enumerate(corridors):
                files["unit"].append(feat("unit", uid(f"rc{b}/{f}/{i}"), {"type": "Polygon", "coordinates": [ring(c, ox)]},
                                          category="walkway", name=None, level_id=lid, display_point=None))
            files["unit"].append(feat("unit", uid(f"ra{b}/{f}"), {"type": "Polygon", "coordinates": [ring(atrium, ox)]},
                                      category="walkway" if f == 0 else "opentobelow", name={"en": "Atrium"}, level_id=lid, display_point=None))
            add_rooms(files, frng, floor_units(frng, plan), f"{b}/{f}", lid, ox, (ring, line, point), feat, uid)
            branch0 = len(corridors) - len(branches)   # the branches' corridor units come last
            for k, (p, q) in enumerate(branches):
                if frng.random() < 0.6:
                    s = frng.uniform(0.2, 0.8)
                    a = (p[0] + (q[0] - p[0]) * s, p[1] + (q[1] - p[1]) * s)
                    files["amenity"].append(feat("amenity", uid(f"ram{b}/{f}/{k}"), point(a, ox),
                                                 category=frng.choice(AMENITIES), unit_ids=[uid(f"rc{b}/{f}/{branch0 + k}")], name=None))
    width = buildings * (w + 25)
    venue = [(-15, -15), (width, -15), (width, h + 15), (-15, h + 15)]
    return files, ring(venue, 0)


def inside_clear(poly, p, margin):
    """Whether p is inside the polygon (even-odd) and at least `margin` from each of its edges."""
    x, y = p
    inside = False
    for (x1, y1), (x2, y2) in zip(poly, poly[1:] + poly[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
        dx, dy = x2 - x1, y2 - y1
        t = max(0.0, min(1.0, ((x - x1) * dx + (y - y1) * dy) / (dx * dx + dy * dy or 1.0)))
        if math.hypot(x - (x1 + t * dx), y - (y1 + t * dy)) < margin:
            return False
    return inside


def add_rooms(files, rng, rooms, key, lid, ox, shapes, feat, uid):
    ring, line, point = shapes
    for i, (poly, door) in enumerate(rooms):
        k = f"{key}/{i}"
        cat = rng.choice(CATEGORIES)
        if i % 37 == 5:
            cat = "elevator"
        elif i % 41 == 9:
            cat = "stairs"
        cx, cy = sum(x for x, _ in poly) / len(poly), sum(y for _, y in poly) / len(poly)
        rings = [ring(poly, ox)]
        # A column (a 0.8 m hole) at the corners' mean, only where it lies inside the
        # room clear of its walls: in an L-shaped room that point can fall on a wall,
        # and a hole crossing its outer ring is bad data (repaired with a warning).
        if rng.random() < 0.1 and inside_clear(poly, (cx, cy), 0.7):
            rings.append(ring([(cx - 0.4, cy - 0.4), (cx + 0.4, cy - 0.4), (cx + 0.4, cy + 0.4), (cx - 0.4, cy + 0.4)], ox, ccw=False))
        name = f"{rng.choice(WORDS_A)} {rng.choice(WORDS_B)}" if cat in ("room", "foodservice", "retail") else None
        uk = uid("ru" + k)
        files["unit"].append(feat("unit", uk, {"type": "Polygon", "coordinates": rings}, category=cat,
                                  name={"en": name} if name else None, level_id=lid, display_point=point((cx, cy), ox)))
        files["opening"].append(feat("opening", uid("ro" + k), {"type": "LineString", "coordinates": line(door, ox)},
                                     category="pedestrian", level_id=lid))
        if rng.random() < 0.2:
            # A counter: a thin slanted box near the room's centre.
            a = rng.uniform(0, math.pi)
            c, s = math.cos(a), math.sin(a)
            box = [(cx + dx * c - dy * s + 1.2, cy + dx * s + dy * c + 1.2) for dx, dy in ((-1.5, -0.4), (1.5, -0.4), (1.5, 0.4), (-1.5, 0.4))]
            files["fixture"].append(feat("fixture", uid("rf" + k), {"type": "Polygon", "coordinates": [ring(box, ox)]},
                                         category="furniture", name=None, level_id=lid))
        if name:
            aid = uid("ran" + k)
            files["anchor"].append(feat("anchor", aid, point((cx, cy), ox), unit_id=uk))
            files["occupant"].append(feat("occupant", uid("roc" + k), None, name={"en": name}, category="shopping", anchor_id=aid))
