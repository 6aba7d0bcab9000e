/// Exact validity checks on quantised rings (integer arithmetic, no tolerance).
public enum PolygonValidity {
    /// True when no two edges of the polygon cross or overlap, and no ring
    /// touches itself. Rings are open; the first is the exterior.
    /// Different rings may touch at single points (allowed by OGC).
    public static func isSimple(_ rings: [[TileCoord]]) -> Bool {
        var simple = true
        EdgeSweep.overlappingPairs(rings, closed: false, x: { Double($0.x) }, y: { Double($0.y) }) { e, f in
            if e.follows(f) {
                // Neighbours share one vertex; they may not fold back onto each other.
                simple = !collinearOverlap(e.a, e.b, f.a, f.b)
            } else if e.ring == f.ring {
                simple = !intersects(e.a, e.b, f.a, f.b)
            } else {
                simple = !(crosses(e.a, e.b, f.a, f.b) || collinearOverlap(e.a, e.b, f.a, f.b))
            }
            return simple
        }
        return simple
    }

    /// Sign of the turn a→b→c: 1, −1, or 0 when collinear.
    @inline(__always)
    public static func orient(_ a: TileCoord, _ b: TileCoord, _ c: TileCoord) -> Int {
        let v = (Int64(b.x) - Int64(a.x)) * (Int64(c.y) - Int64(a.y)) - (Int64(b.y) - Int64(a.y)) * (Int64(c.x) - Int64(a.x))
        return v > 0 ? 1 : (v < 0 ? -1 : 0)
    }

    @inline(__always)
    static func onSegment(_ a: TileCoord, _ b: TileCoord, _ p: TileCoord) -> Bool {
        min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }

    /// Any contact, touching included.
    static func intersects(_ a: TileCoord, _ b: TileCoord, _ c: TileCoord, _ d: TileCoord) -> Bool {
        let o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
        if o1 != o2 && o3 != o4 { return true }
        if o1 == 0 && onSegment(a, b, c) { return true }
        if o2 == 0 && onSegment(a, b, d) { return true }
        if o3 == 0 && onSegment(c, d, a) { return true }
        if o4 == 0 && onSegment(c, d, b) { return true }
        return false
    }

    /// A proper crossing: the interiors of both segments meet at one point.
    static func crosses(_ a: TileCoord, _ b: TileCoord, _ c: TileCoord, _ d: TileCoord) -> Bool {
        let o1 = orient(a, b, c), o2 = orient(a, b, d), o3 = orient(c, d, a), o4 = orient(c, d, b)
        return o1 * o2 < 0 && o3 * o4 < 0
    }

    /// Collinear segments sharing more than a point.
    static func collinearOverlap(_ a: TileCoord, _ b: TileCoord, _ c: TileCoord, _ d: TileCoord) -> Bool {
        guard orient(a, b, c) == 0 && orient(a, b, d) == 0 else { return false }
        // Project on the dominant axis.
        let useX = abs(Int64(b.x) - Int64(a.x)) >= abs(Int64(b.y) - Int64(a.y))
        func k(_ p: TileCoord) -> Int64 { useX ? Int64(p.x) : Int64(p.y) }
        let lo = max(min(k(a), k(b)), min(k(c), k(d)))
        let hi = min(max(k(a), k(b)), max(k(c), k(d)))
        return hi > lo
    }
}
