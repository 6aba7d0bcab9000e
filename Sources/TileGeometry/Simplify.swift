/// Douglas–Peucker simplification with a tolerance in the points' own units.
/// Endpoints are kept; a closed ring is simplified as two halves split at the
/// vertex farthest from its first one, so no ring collapses to a line by
/// construction (validity is still checked after quantisation).
public enum Simplify {
    public static func line(_ pts: [TileUnitPoint], tolerance: Double) -> [TileUnitPoint] {
        guard tolerance > 0, pts.count > 2 else { return pts }
        var keep = [Bool](repeating: false, count: pts.count)
        keep[0] = true; keep[pts.count - 1] = true
        var stack = [(0, pts.count - 1)]
        let tol2 = tolerance * tolerance
        while let (a, b) = stack.popLast() {
            guard b > a + 1 else { continue }
            var maxD = -1.0, idx = a
            for i in (a + 1)..<b {
                let d = segmentDistance2(pts[i], pts[a], pts[b])
                if d > maxD { maxD = d; idx = i }
            }
            if maxD > tol2 {
                keep[idx] = true
                stack.append((a, idx)); stack.append((idx, b))
            }
        }
        return pts.indices.filter { keep[$0] }.map { pts[$0] }
    }

    /// `ring` is open (no repeated closing point).
    public static func ring(_ ring: [TileUnitPoint], tolerance: Double) -> [TileUnitPoint] {
        guard tolerance > 0, ring.count > 4 else { return ring }
        var far = 0, farD = -1.0
        for (i, p) in ring.enumerated() {
            let dx = p.x - ring[0].x, dy = p.y - ring[0].y
            if dx * dx + dy * dy > farD { farD = dx * dx + dy * dy; far = i }
        }
        let first = line(Array(ring[0...far]), tolerance: tolerance)
        let second = line(Array(ring[far...]) + [ring[0]], tolerance: tolerance)
        return first + second.dropFirst().dropLast()
    }

    @inline(__always)
    static func segmentDistance2(_ p: TileUnitPoint, _ a: TileUnitPoint, _ b: TileUnitPoint) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        var t = 0.0
        let len2 = dx * dx + dy * dy
        if len2 > 0 { t = max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) }
        let ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y
        return ex * ex + ey * ey
    }
}
