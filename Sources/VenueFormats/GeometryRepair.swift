import TileGeometry
import VenueModel

/// The one place where a feature's polygon problems are repaired or the
/// feature is skipped, for every input format alike.
///
/// Real venue data is messy; a nightly build should not die over one bad room,
/// and it must treat the same bad room the same way every time. Rings are
/// organised by containment, as GDAL's `organizePolygons` does, not by their
/// place in the GeoJSON array: real IMDF levels write a floor of several
/// separate wings as one Polygon whose later rings lie outside the first.
///
/// | problem | action |
/// |---|---|
/// | ring wound the wrong way (RFC 7946 §3.1.6; older GeoJSON winds either way) | reversed; one counted notice per file |
/// | a "hole" outside every other ring | kept as a part of its own (MultiPolygon); counted notice |
/// | a ring inside another ring | its hole (inside a hole: an island, a part of its own) |
/// | MultiPolygon part inside another part (not in a hole of it) | dropped, warning (its area is drawn by the other) |
/// | ring with zero area | dropped, warning |
/// | ring crossing itself (edges cross or fold back) | dropped with the rings inside it, warning with the position |
/// | two rings crossing each other | the smaller dropped with the rings inside it, warning with the position |
/// | a ring repeating another | dropped, warning |
///
/// Unclosed rings, repeated positions and rings of fewer than four positions
/// are handled by the GeoJSON reader before this runs. Rings that merely touch
/// (at a vertex, or along an edge) are not crossings. The work is near
/// n log n in the number of positions and rings (`EdgeSweep`, `BoxPairs`,
/// `RingIndex`): a CAD outline of 160,000 collinear vertices or a unit with
/// 100,000 holes is checked in well under a second.
public enum GeometryRepair {
    /// The repaired geometry, or nil when nothing of it is left to draw.
    public static func repair(_ g: Geometry, file: String, featureID: String, diagnostics: inout Diagnostics) -> Geometry? {
        switch g {
        case .polygon(let p):
            var o = RingOrganizer([p], multi: false)
            return o.run(file: file, featureID: featureID, diagnostics: &diagnostics)
        case .multiPolygon(let ps):
            var o = RingOrganizer(ps, multi: true)
            return o.run(file: file, featureID: featureID, diagnostics: &diagnostics)
        default:
            return g
        }
    }

    /// A position to 1e-7° (about 1 cm) for messages: enough to find it, free of float noise.
    static func rounded(_ p: LonLat) -> LonLat {
        LonLat(lon: (p.lon * 1e7).rounded() / 1e7, lat: (p.lat * 1e7).rounded() / 1e7)
    }

    /// Twice the signed area of a closed ring in degrees²; positive when counter-clockwise.
    static func signedArea(_ ring: [LonLat]) -> Double {
        guard ring.count > 3 else { return 0 }
        let o = ring[0]
        var s = 0.0
        for i in 0..<(ring.count - 1) {
            let a = ring[i], b = ring[i + 1]
            s += (a.lon - o.lon) * (b.lat - o.lat) - (b.lon - o.lon) * (a.lat - o.lat)
        }
        return s
    }

    /// Point in a closed ring; points on the boundary count as inside.
    static func contains(_ ring: [LonLat], _ p: LonLat) -> Bool {
        RingIndex(ring).side(of: p) != .outside
    }

    @inline(__always)
    static func orient(_ a: LonLat, _ b: LonLat, _ c: LonLat) -> Int {
        let v = (b.lon - a.lon) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lon - a.lon)
        return v > 0 ? 1 : (v < 0 ? -1 : 0)
    }

    /// Calls `found(ringA, ringB, position)` for every pair of edges that
    /// properly cross (interiors meet at one point) or, not being neighbours,
    /// overlap along a line (a ring folding back on itself); ringA == ringB for
    /// a ring crossing itself. The pairs come from `EdgeSweep`.
    static func crossings(_ rings: [[LonLat]], _ found: (Int, Int, LonLat) -> Void) {
        EdgeSweep.overlappingPairs(rings, closed: true, x: \.lon, y: \.lat) { e, f in
            let o1 = orient(e.a, e.b, f.a), o2 = orient(e.a, e.b, f.b), o3 = orient(f.a, f.b, e.a), o4 = orient(f.a, f.b, e.b)
            var hit: LonLat?
            if o1 * o2 < 0 && o3 * o4 < 0 {
                let t = ((f.a.lon - e.a.lon) * (f.b.lat - f.a.lat) - (f.a.lat - e.a.lat) * (f.b.lon - f.a.lon))
                    / ((e.b.lon - e.a.lon) * (f.b.lat - f.a.lat) - (e.b.lat - e.a.lat) * (f.b.lon - f.a.lon))
                hit = LonLat(lon: e.a.lon + t * (e.b.lon - e.a.lon), lat: e.a.lat + t * (e.b.lat - e.a.lat))
            } else if e.ring == f.ring, o1 == 0 && o2 == 0, let p = overlapPoint(e.a, e.b, f.a, f.b) {
                // Collinear edges of one ring sharing a stretch: a spike. (Two rings
                // along one wall only touch; containment decides what they are.)
                hit = p
            }
            if let h = hit { found(min(e.ring, f.ring), max(e.ring, f.ring), h) }
            return true
        }
    }

    /// The first crossing position in (lon, lat) order over all rings, so the
    /// message does not depend on ring order; nil when none.
    static func firstCrossing(_ rings: [[LonLat]]) -> LonLat? {
        var first: LonLat?
        crossings(rings) { _, _, h in if first == nil || (h.lon, h.lat) < (first!.lon, first!.lat) { first = h } }
        return first
    }

    /// A point inside the shared stretch of two collinear segments, when they share more than a point.
    static func overlapPoint(_ a: LonLat, _ b: LonLat, _ c: LonLat, _ d: LonLat) -> LonLat? {
        let useLon = abs(b.lon - a.lon) >= abs(b.lat - a.lat)
        func k(_ p: LonLat) -> Double { useLon ? p.lon : p.lat }
        let lo = max(min(k(a), k(b)), min(k(c), k(d)))
        let hi = min(max(k(a), k(b)), max(k(c), k(d)))
        guard hi > lo else { return nil }
        for p in [a, b, c, d] where k(p) == lo { return p }
        return nil
    }
}
