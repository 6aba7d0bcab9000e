/// Exact validity checks on quantised rings (integer arithmetic, no tolerance).
public enum PolygonValidity {
    /// True when no two edges of the polygon cross or overlap, and no ring
    /// touches itself. Rings are open; the first is the exterior.
    /// Different rings may touch at single points (allowed by OGC).
    public static func isSimple(_ rings: [[TileCoord]]) -> Bool {
        struct Edge { var a: TileCoord; var b: TileCoord; var ring: Int; var index: Int; var count: Int; var minX: Int32; var maxX: Int32 }
        var edges = [Edge]()
        for (ri, r) in rings.enumerated() {
            for i in 0..<r.count {
                let a = r[i], b = r[(i + 1) % r.count]
                edges.append(Edge(a: a, b: b, ring: ri, index: i, count: r.count, minX: min(a.x, b.x), maxX: max(a.x, b.x)))
            }
        }
        edges.sort { $0.minX < $1.minX }
        for i in edges.indices {
            let e = edges[i]
            var j = i + 1
            while j < edges.count && edges[j].minX <= e.maxX {
                let f = edges[j]
                j += 1
                if max(min(e.a.y, e.b.y), min(f.a.y, f.b.y)) > min(max(e.a.y, e.b.y), max(f.a.y, f.b.y)) { continue }
                if e.ring == f.ring {
                    let d = abs(e.index - f.index)
                    if d == 1 || d == e.count - 1 {
                        // Neighbours share one vertex; they may not fold back onto each other.
                        if collinearOverlap(e.a, e.b, f.a, f.b) { return false }
                        continue
                    }
                    if intersects(e.a, e.b, f.a, f.b) { return false }
                } else {
                    if crosses(e.a, e.b, f.a, f.b) || collinearOverlap(e.a, e.b, f.a, f.b) { return false }
                }
            }
        }
        return true
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
