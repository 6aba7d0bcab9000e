import TileGeometry
import VenueModel

/// The one place where a feature's polygon problems are repaired or the
/// feature is skipped, for every input format alike.
///
/// Real venue data is messy; a nightly build should not die over one bad room,
/// and it must treat the same bad room the same way every time. The contract:
///
/// | problem | action |
/// |---|---|
/// | exterior clockwise / hole counter-clockwise (RFC 7946 §3.1.6) | ring reversed, warning |
/// | hole not inside its exterior | hole dropped, warning |
/// | exterior with zero area | polygon dropped, warning |
/// | two edges cross (self-intersection), in one ring or between rings | polygon dropped, warning with the crossing's position |
///
/// Unclosed rings, repeated positions and rings of fewer than four positions
/// are handled by the GeoJSON reader before this runs. Rings that merely touch
/// at a vertex are allowed (OGC does for rings of one polygon).
public enum GeometryRepair {
    /// The repaired geometry, or nil when nothing of it is left to draw.
    public static func repair(_ g: Geometry, file: String, featureID: String, diagnostics: inout Diagnostics) -> Geometry? {
        switch g {
        case .polygon(let p):
            return repair(p, part: nil, file: file, featureID: featureID, diagnostics: &diagnostics).map(Geometry.polygon)
        case .multiPolygon(let ps):
            var out = [Polygon]()
            for (i, p) in ps.enumerated() {
                if let r = repair(p, part: i, file: file, featureID: featureID, diagnostics: &diagnostics) { out.append(r) }
            }
            if out.isEmpty { return nil }
            return out.count == 1 ? .polygon(out[0]) : .multiPolygon(out)
        default:
            return g
        }
    }

    static func repair(_ p: Polygon, part: Int?, file: String, featureID: String, diagnostics: inout Diagnostics) -> Polygon? {
        let which = part.map { "polygon \($0): " } ?? ""
        var rings = p.rings
        let e = rings[0]
        if e.allSatisfy({ orient(e[0], e[1], $0) == 0 }) {
            diagnostics.warn(file, featureID, "\(which)skipped: the exterior ring has zero area (all positions on one line)")
            return nil
        }
        if let x = firstCrossing([rings[0]]) {
            diagnostics.warn(file, featureID, "\(which)skipped: self-intersection at \(rounded(x)) (edges cross; cannot be repaired safely)")
            return nil
        }
        let area = signedArea(rings[0])
        if area == 0 {
            diagnostics.warn(file, featureID, "\(which)skipped: the exterior ring has zero area")
            return nil
        }
        if area < 0 {
            rings[0].reverse()
            diagnostics.warn(file, featureID, "\(which)exterior ring was clockwise; reversed it (RFC 7946 winding)")
        }
        var kept = [rings[0]]
        for i in rings.indices.dropFirst() {
            var hole = rings[i]
            if !hole.dropLast().allSatisfy({ contains(rings[0], $0) }) {
                diagnostics.warn(file, featureID, "\(which)dropped hole \(i): it is not inside the exterior ring")
                continue
            }
            if signedArea(hole) > 0 {
                hole.reverse()
                diagnostics.warn(file, featureID, "\(which)hole \(i) was counter-clockwise; reversed it (RFC 7946 winding)")
            }
            kept.append(hole)
        }
        if let x = firstCrossing(kept) {
            diagnostics.warn(file, featureID, "\(which)skipped: self-intersection at \(rounded(x)) (edges cross; cannot be repaired safely)")
            return nil
        }
        return Polygon(rings: kept)
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
        var inside = false
        var j = ring.count - 2
        for i in 0..<(ring.count - 1) {
            let a = ring[i], b = ring[j]
            if orient(a, b, p) == 0 && min(a.lon, b.lon) <= p.lon && p.lon <= max(a.lon, b.lon)
                && min(a.lat, b.lat) <= p.lat && p.lat <= max(a.lat, b.lat) { return true }
            if (a.lat > p.lat) != (b.lat > p.lat) {
                let x = (b.lon - a.lon) * (p.lat - a.lat) / (b.lat - a.lat) + a.lon
                if p.lon < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    @inline(__always)
    static func orient(_ a: LonLat, _ b: LonLat, _ c: LonLat) -> Int {
        let v = (b.lon - a.lon) * (c.lat - a.lat) - (b.lat - a.lat) * (c.lon - a.lon)
        return v > 0 ? 1 : (v < 0 ? -1 : 0)
    }

    /// The position where two edges of the polygon properly cross (interiors
    /// meet at one point), or where non-adjacent edges overlap along a line; nil when none.
    /// The pairs come from `EdgeSweep`; every crossing is looked at, and the
    /// first in (lon, lat) order is reported, so the message does not depend on ring order.
    static func firstCrossing(_ rings: [[LonLat]]) -> LonLat? {
        var found: LonLat?
        EdgeSweep.overlappingPairs(rings, closed: true, x: \.lon, y: \.lat) { e, f in
            let o1 = orient(e.a, e.b, f.a), o2 = orient(e.a, e.b, f.b), o3 = orient(f.a, f.b, e.a), o4 = orient(f.a, f.b, e.b)
            var hit: LonLat?
            if o1 * o2 < 0 && o3 * o4 < 0 {
                let t = ((f.a.lon - e.a.lon) * (f.b.lat - f.a.lat) - (f.a.lat - e.a.lat) * (f.b.lon - f.a.lon))
                    / ((e.b.lon - e.a.lon) * (f.b.lat - f.a.lat) - (e.b.lat - e.a.lat) * (f.b.lon - f.a.lon))
                hit = LonLat(lon: e.a.lon + t * (e.b.lon - e.a.lon), lat: e.a.lat + t * (e.b.lat - e.a.lat))
            } else if o1 == 0 && o2 == 0, let p = overlapPoint(e.a, e.b, f.a, f.b) {
                // Collinear edges sharing a stretch: a ring folding back on itself (a spike).
                hit = p
            }
            if let h = hit, found == nil || (h.lon, h.lat) < (found!.lon, found!.lat) { found = h }
            return true
        }
        return found
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
