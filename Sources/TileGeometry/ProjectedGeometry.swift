import VenueModel

/// A geometry in Web Mercator metres, normalized to three shapes so that the
/// hot paths (coverage, drawing) switch over fewer cases.
public enum ProjectedGeometry: Sendable {
    case points([MercatorPoint])
    case lines([[MercatorPoint]])
    /// Each polygon is its rings, exterior first; rings are closed.
    case polygons([[[MercatorPoint]]])

    public init(_ g: Geometry) {
        func p(_ r: [LonLat]) -> [MercatorPoint] { r.map(WebMercator.project) }
        switch g {
        case .point(let pt): self = .points([WebMercator.project(pt)])
        case .multiPoint(let ps): self = .points(p(ps))
        case .lineString(let l): self = .lines([p(l)])
        case .multiLineString(let ls): self = .lines(ls.map(p))
        case .polygon(let poly): self = .polygons([poly.rings.map(p)])
        case .multiPolygon(let polys): self = .polygons(polys.map { $0.rings.map(p) })
        }
    }

    public var bounds: MercatorRect {
        var r = MercatorRect.empty
        switch self {
        case .points(let ps): ps.forEach { r.extend($0) }
        case .lines(let ls): ls.forEach { $0.forEach { r.extend($0) } }
        case .polygons(let polys): polys.forEach { $0.forEach { $0.forEach { r.extend($0) } } }
        }
        return r
    }
}

/// Planar helpers shared by coverage and its tests.
public enum Planar {
    /// True when segment a–b meets the closed rectangle (Liang–Barsky).
    @inline(__always)
    public static func segment(_ a: MercatorPoint, _ b: MercatorPoint, intersects r: MercatorRect) -> Bool {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        // p·t ≤ q for each of the four edges.
        let ps = (-dx, dx, -dy, dy)
        let qs = (a.x - r.minX, r.maxX - a.x, a.y - r.minY, r.maxY - a.y)
        func clip(_ p: Double, _ q: Double) -> Bool {
            if p == 0 { return q >= 0 }
            let t = q / p
            if p < 0 { if t > t1 { return false }; if t > t0 { t0 = t } }
            else { if t < t0 { return false }; if t < t1 { t1 = t } }
            return true
        }
        return clip(ps.0, qs.0) && clip(ps.1, qs.1) && clip(ps.2, qs.2) && clip(ps.3, qs.3)
    }

    /// Even-odd point-in-polygon over all rings (holes excluded).
    public static func contains(rings: [[MercatorPoint]], _ p: MercatorPoint) -> Bool {
        var inside = false
        for ring in rings where ring.count > 1 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y) {
                    let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y)
                    if p.x < x { inside.toggle() }
                }
                j = i
            }
        }
        return inside
    }

    /// Signed area by the shoelace formula (positive for counter-clockwise, y north).
    /// Computed relative to the first vertex: Mercator values are millions of
    /// metres, and their products would drown a room's area in rounding.
    public static func signedArea(_ ring: [MercatorPoint]) -> Double {
        guard ring.count > 2 else { return 0 }
        let o = ring[0]
        var s = 0.0
        var j = ring.count - 1
        for i in 0..<ring.count {
            s += ((ring[j].x - o.x) - (ring[i].x - o.x)) * ((ring[j].y - o.y) + (ring[i].y - o.y))
            j = i
        }
        return s / 2
    }
}
