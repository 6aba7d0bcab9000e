import Drawing
import TileGeometry
import VenueModel

/// A named unit that may carry a label.
public struct LabelCandidate: Sendable {
    public var featureID: String
    public var layout: TextLayout
    /// Display point (when inside the unit) or pole of inaccessibility.
    public var anchor: MercatorPoint
    /// The rings of the unit's polygon that holds the anchor (exterior first).
    public var rings: [[MercatorPoint]]
    public var area: Double
    /// Its own look (building labels); nil: the floor's label style.
    public var style: LabelStyle?
    /// Placement order before area: 0 unit labels, 1 building labels.
    public var rank: Int
    /// Importance per unit of area (`Cartography.labelWeight`): within a rank,
    /// labels are placed by area × weight.
    public var weight: Double
    /// The name may reach past the unit (a concourse's, not a shop's: a shop's
    /// name over its neighbours would name them).
    public var spills: Bool

    public init(featureID: String, layout: TextLayout, anchor: MercatorPoint, rings: [[MercatorPoint]], area: Double,
                style: LabelStyle? = nil, rank: Int = 0, weight: Double = 1, spills: Bool = false) {
        self.featureID = featureID; self.layout = layout; self.anchor = anchor; self.rings = rings; self.area = area
        self.style = style; self.rank = rank; self.weight = weight; self.spills = spills
    }
}

/// A fixture's footprint, which labels keep off: one polygon (exterior ring,
/// then holes) and its box.
public struct Obstacle: Sendable {
    public var rings: [[MercatorPoint]]
    public var bounds: MercatorRect

    public init(rings: [[MercatorPoint]]) {
        self.rings = rings
        var b = MercatorRect.empty
        rings.first?.forEach { b.extend($0) }
        bounds = b
    }

    /// Whether `box` meets the footprint: an edge of it reaches into the box,
    /// or the box lies inside the polygon (not in a hole).
    public func meets(_ box: MercatorRect) -> Bool {
        guard bounds.intersects(box) else { return false }
        // Wholly inside the box (a kiosk under a name): most offsets a search rejects, without testing edges.
        if box.minX <= bounds.minX && bounds.maxX <= box.maxX && box.minY <= bounds.minY && bounds.maxY <= box.maxY { return true }
        for r in rings where r.count > 1 {
            var j = r.count - 1
            for i in 0..<r.count {
                let a = r[j], b = r[i]
                j = i
                // Most edges lie wholly on one side of the box: no clipping needed.
                if (a.x < box.minX && b.x < box.minX) || (a.x > box.maxX && b.x > box.maxX)
                    || (a.y < box.minY && b.y < box.minY) || (a.y > box.maxY && b.y > box.maxY) { continue }
                if Planar.segment(a, b, intersects: box) { return true }
            }
        }
        return Planar.contains(rings: rings, MercatorPoint(x: (box.minX + box.maxX) / 2, y: (box.minY + box.maxY) / 2))
    }
}

/// A point amenity: a sprite icon from z19 when the style and sprite give it
/// one, else (and below z19) its dot.
public struct IconCandidate: Sendable {
    public var featureID: String
    public var anchor: MercatorPoint
    /// The sprite image; nil: the amenity is only ever drawn as its dot.
    public var name: String?
    /// Size in 256 px tile pixels.
    public var width: Double
    public var height: Double
    /// The amenity's dot, drawn where there is no icon.
    public var fallback: DrawItem
    /// Importance (`Cartography.amenityTier`): 0 first; low zooms draw only the first tiers.
    public var tier: Int

    public init(featureID: String, anchor: MercatorPoint, name: String?, width: Double, height: Double, fallback: DrawItem, tier: Int = 0) {
        self.featureID = featureID; self.anchor = anchor; self.name = name; self.width = width; self.height = height
        self.fallback = fallback; self.tier = tier
    }
}

/// Where labels, icons and amenity dots go, decided once per floor and zoom
/// for the whole floor.
///
/// Because placement never looks at tile boundaries, a label that crosses a
/// tile edge is drawn whole, at the same pixels, in every tile it touches —
/// the seam-free result metatiles aim for, with no metatile edges left to cut
/// labels at (and the plan makes every tile a placed box reaches exist). In
/// this order:
/// 1. icons (from z19), most important tier first, then by feature id; an
///    icon that would overlap a placed one is left out, not replaced by a dot
///    (a dot beside an icon reads as a stray mark);
/// 2. labels, by rank, then area × weight (larger, more important units
///    first), then feature id, so the same input always gives the same
///    labels; a label is placed only when its box (text + halo + 2 px) lies
///    inside its unit at that zoom, or — for a walkway (`spills`) that covers
///    at least the box's area — inside the floor
///    (`floorArea`) and clear of its fixtures (`obstacles`), so a concourse
///    keeps its name at low zoom where the name is longer than the concourse
///    is wide; and only over nothing placed. A unit's name whose box would
///    cover a fixture in the unit (a kiosk under a hall's name) moves to the
///    nearest spot in the unit clear of fixtures and of everything placed
///    (`fixtureFreeAnchor`), and stays where it was when there is none: a name
///    over a fixture beats no name;
/// 3. dots: amenities with no icon at that zoom (all of them below z19), of
///    the tiers `Cartography.maxDotTier` keeps at that zoom, most important
///    first, each kept `Cartography.dotSpacingPx` clear of everything placed:
///    a dot never lands inside a label.
public enum LabelPlacement {
    /// Clearance around the text, in pixels, beyond the halo.
    public static let marginPx = 2.0
    /// Clearance around an icon, in pixels.
    public static let iconMarginPx = 1.0
    /// Below this zoom amenities keep their dots: 24 px icons would cover a whole venue at z17–18.
    public static let iconMinZoom = 19

    /// The icons, labels and dots placed at `zoom`, as draw items whose
    /// geometry is their box (a dot: its own point).
    /// `floorArea`: the floor's outline rings, one orientation (`FloorArea.rings`);
    /// empty: every label stays inside its unit. `obstacles`: the footprints of
    /// the floor's fixtures, which a label reaching past its unit must not
    /// cover and a unit's label moves off when it can.
    public static func place(_ candidates: [LabelCandidate], icons: [IconCandidate] = [], style floorStyle: LabelStyle?, zoom: Int,
                             floorArea: [[MercatorPoint]] = [], obstacles: [Obstacle] = []) -> [DrawItem] {
        let mpp = DrawMetrics.metresPerPixel(zoom: zoom)
        var grid = Grid(cell: 256 * mpp)
        var out = [DrawItem]()
        let amenities = icons.sorted { ($0.tier, $0.featureID) < ($1.tier, $1.featureID) }
        var iconDrawn = Set<String>()
        if zoom >= iconMinZoom {
            for c in amenities {
                guard let name = c.name else { continue }
                let box = rect(c.anchor, halfWidth: (c.width / 2 + iconMarginPx) * mpp, halfHeight: (c.height / 2 + iconMarginPx) * mpp)
                // Decided: the icon or nothing.
                iconDrawn.insert(c.featureID)
                if grid.collides(box) { continue }
                grid.insert(box)
                out.append(DrawItem(geometry: .polygons([ring(box)]), paint: Paint(), icon: IconDraw(anchor: c.anchor, name: name)))
            }
        }
        let order = candidates.indices.sorted {
            let a = candidates[$0], b = candidates[$1]
            if a.rank != b.rank { return a.rank < b.rank }
            let sa = a.area * a.weight, sb = b.area * b.weight
            return sa != sb ? sa > sb : a.featureID < b.featureID
        }
        for i in order {
            let c = candidates[i]
            guard let style = c.style ?? floorStyle else { continue }
            let pad = style.haloWidth + marginPx
            let hw = (c.layout.width / 2 + pad) * mpp, hh = (c.layout.height / 2 + pad) * mpp
            var box = rect(c.anchor, halfWidth: hw, halfHeight: hh)
            guard !c.layout.lines.isEmpty, !grid.collides(box) else { continue }
            let boxArea = (box.maxX - box.minX) * (box.maxY - box.minY)
            let inUnit = fits(box, in: c.rings)
            guard inUnit || (c.spills && c.area >= boxArea && inside(box, floorArea) && !obstacles.contains(where: { $0.meets(box) }))
            else { continue }
            var anchor = c.anchor
            // A building's name is not moved: its footprint need not be drawn on the floor, and TileJSON bounds count its box at the anchor.
            if inUnit && c.rank == 0, let moved = fixtureFreeAnchor(c, box: box, obstacles: obstacles, grid: grid, mpp: mpp) {
                anchor = moved
                box = rect(anchor, halfWidth: hw, halfHeight: hh)
            }
            grid.insert(box)
            // The planning box is what can get ink (text, halo, 1 px of antialiasing), not the clearance.
            let inked = rect(anchor, halfWidth: (c.layout.width / 2 + style.haloWidth + 1) * mpp,
                             halfHeight: (c.layout.height / 2 + style.haloWidth + 1) * mpp)
            out.append(DrawItem(geometry: .polygons([ring(inked)]), paint: Paint(),
                                label: LabelDraw(anchor: anchor, layout: c.layout, style: style)))
        }
        let maxTier = Cartography.maxDotTier(zoom: zoom)
        let half = (DrawMetrics.dotRadiusPx + DrawMetrics.dotRingPx / 2 + Cartography.dotSpacingPx(zoom: zoom) / 2) * mpp
        for c in amenities where c.tier <= maxTier && !iconDrawn.contains(c.featureID) {
            let box = rect(c.anchor, halfWidth: half, halfHeight: half)
            if grid.collides(box) { continue }
            grid.insert(box)
            out.append(c.fallback)
        }
        return out
    }

    /// Steps of the search for a spot clear of fixtures, in pixels, and how far it goes at most.
    static let searchStepPx = 2.0
    static let searchStepsMax = 64

    /// Offsets (in steps) around an anchor, nearest first; ties in a fixed order.
    static let searchOffsets: [(dx: Int, dy: Int)] = {
        let n = searchStepsMax
        var out = [(dx: Int, dy: Int)]()
        for dy in -n...n { for dx in -n...n where (dx, dy) != (0, 0) && dx * dx + dy * dy <= n * n { out.append((dx, dy)) } }
        return out.sorted { ($0.dx * $0.dx + $0.dy * $0.dy, $0.dy, $0.dx) < ($1.dx * $1.dx + $1.dy * $1.dy, $1.dy, $1.dx) }
    }()

    /// Where a unit's label goes when its box (`box`, at the candidate's
    /// anchor, inside the unit) covers a fixture inside the unit: the nearest
    /// anchor whose box lies in the unit, clear of every fixture and of
    /// everything placed, at most the box's longer side away (farther, the name
    /// would no longer sit where a reader looks for it). Nil when the box at
    /// the anchor is clear already, or when no such spot exists.
    static func fixtureFreeAnchor(_ c: LabelCandidate, box: MercatorRect, obstacles: [Obstacle], grid: Grid, mpp: Double) -> MercatorPoint? {
        var unit = MercatorRect.empty
        c.rings.first?.forEach { unit.extend($0) }
        let step = searchStepPx * mpp
        let reach = min(max(box.maxX - box.minX, box.maxY - box.minY) / step, Double(searchStepsMax))
        // Only fixtures the search can meet: a concourse holds hundreds (seats), each would be tested at every offset.
        let near = obstacles.filter { $0.bounds.intersects(box.expanded(by: reach * step)) && $0.bounds.intersects(unit) }
        guard near.contains(where: { $0.meets(box) }) else { return nil }
        for (dx, dy) in searchOffsets {
            guard Double(dx * dx + dy * dy) <= reach * reach else { break }
            let ox = Double(dx) * step, oy = Double(dy) * step
            let b = MercatorRect(minX: box.minX + ox, minY: box.minY + oy, maxX: box.maxX + ox, maxY: box.maxY + oy)
            guard b.minX >= unit.minX, b.maxX <= unit.maxX, b.minY >= unit.minY, b.maxY <= unit.maxY,
                  !near.contains(where: { $0.meets(b) }), !grid.collides(b), fits(b, in: c.rings) else { continue }
            return MercatorPoint(x: c.anchor.x + ox, y: c.anchor.y + oy)
        }
        return nil
    }

    static func rect(_ c: MercatorPoint, halfWidth hw: Double, halfHeight hh: Double) -> MercatorRect {
        MercatorRect(minX: c.x - hw, minY: c.y - hh, maxX: c.x + hw, maxY: c.y + hh)
    }

    static func ring(_ b: MercatorRect) -> [[MercatorPoint]] {
        [[MercatorPoint(x: b.minX, y: b.minY), MercatorPoint(x: b.maxX, y: b.minY), MercatorPoint(x: b.maxX, y: b.maxY),
          MercatorPoint(x: b.minX, y: b.maxY), MercatorPoint(x: b.minX, y: b.minY)]]
    }

    /// Placed boxes, bucketed in square cells.
    struct Grid {
        let cell: Double
        var buckets = [Int64: [MercatorRect]]()

        func range(_ b: MercatorRect) -> (ClosedRange<Int64>, ClosedRange<Int64>) {
            (Int64((b.minX / cell).rounded(.down))...Int64((b.maxX / cell).rounded(.down)),
             Int64((b.minY / cell).rounded(.down))...Int64((b.maxY / cell).rounded(.down)))
        }
        static func key(_ x: Int64, _ y: Int64) -> Int64 { x &* 73_856_093 ^ y &* 19_349_663 }

        func collides(_ b: MercatorRect) -> Bool {
            let (xs, ys) = range(b)
            for x in xs { for y in ys { for o in buckets[Grid.key(x, y)] ?? [] where o.intersects(b) { return true } } }
            return false
        }

        mutating func insert(_ b: MercatorRect) {
            let (xs, ys) = range(b)
            for x in xs { for y in ys { buckets[Grid.key(x, y), default: []].append(b) } }
        }
    }

    /// True when the box's corners, edge midpoints and centre lie inside the
    /// union of `area`'s rings (each a simple exterior ring).
    static func inside(_ b: MercatorRect, _ area: [[MercatorPoint]]) -> Bool {
        guard !area.isEmpty else { return false }
        let xs = [b.minX, (b.minX + b.maxX) / 2, b.maxX], ys = [b.minY, (b.minY + b.maxY) / 2, b.maxY]
        for x in xs {
            for y in ys {
                let p = MercatorPoint(x: x, y: y)
                if !area.contains(where: { Planar.contains(rings: [$0], p) }) { return false }
            }
        }
        return true
    }

    /// True when the box lies inside the polygon: its corners are inside (even-odd
    /// over all rings, so holes count) and no ring edge meets the box.
    package static func fits(_ b: MercatorRect, in rings: [[MercatorPoint]]) -> Bool {
        guard let ext = rings.first, !ext.isEmpty else { return false }
        var e = MercatorRect.empty
        ext.forEach { e.extend($0) }
        guard b.minX >= e.minX, b.maxX <= e.maxX, b.minY >= e.minY, b.maxY <= e.maxY else { return false }
        for corner in [MercatorPoint(x: b.minX, y: b.minY), MercatorPoint(x: b.maxX, y: b.minY),
                       MercatorPoint(x: b.maxX, y: b.maxY), MercatorPoint(x: b.minX, y: b.maxY)] {
            if !Planar.contains(rings: rings, corner) { return false }
        }
        for r in rings {
            for i in 0..<(r.count - 1) where Planar.segment(r[i], r[i + 1], intersects: b) { return false }
        }
        return true
    }
}
