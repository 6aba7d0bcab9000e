/// Clips polygons and lines to an axis-aligned rectangle in tile units.
///
/// Polygons are clipped by following each ring's pieces inside the rectangle
/// and joining them along the rectangle's edge (a Weiler–Atherton walk on a
/// rectangle), not by Sutherland–Hodgman: a concave room cut by the tile
/// edge comes out as separate valid polygons instead of one ring with
/// zero-width bridges along the edge, which would be an invalid polygon.
///
/// Contract: input rings are simple and a polygon's holes lie inside its
/// exterior (valid OGC polygons), in any orientation. Output polygons are
/// `[exterior, holes...]` with open rings (no repeated closing point),
/// exteriors of positive and holes of negative `signedArea` (y down).
public enum RectClipper {
    public static func clipPolygon(_ rings: [[TileUnitPoint]], to r: TileUnitRect) -> [[[TileUnitPoint]]] {
        guard let first = rings.first, first.count >= 3 else { return [] }
        var inside = [[TileUnitPoint]]()        // rings wholly inside the rectangle
        var chains = [Chain]()
        var anyOutsideUntouched = false
        for (i, raw) in rings.enumerated() {
            var ring = open(raw)
            guard ring.count >= 3 else { continue }
            let a = signedArea(ring)
            if a == 0 { continue }
            // Exterior positive, holes negative: the polygon's interior is then
            // always on the right of the direction of travel (y down).
            if (i == 0) != (a > 0) { ring.reverse() }
            var box = (minX: Double.infinity, minY: Double.infinity, maxX: -Double.infinity, maxY: -Double.infinity)
            for p in ring { box = (min(box.minX, p.x), min(box.minY, p.y), max(box.maxX, p.x), max(box.maxY, p.y)) }
            if box.minX >= r.minX && box.maxX <= r.maxX && box.minY >= r.minY && box.maxY <= r.maxY {
                inside.append(ring); continue
            }
            if box.maxX < r.minX || box.minX > r.maxX || box.maxY < r.minY || box.minY > r.maxY {
                anyOutsideUntouched = true; continue
            }
            let found = chainsOf(ring, r)
            if found.isEmpty { anyOutsideUntouched = true }
            chains.append(contentsOf: found)
        }

        var out = inside
        if chains.isEmpty {
            // No ring crosses the rectangle's edge: the rectangle is wholly inside
            // or wholly outside the polygon. Test one corner.
            if anyOutsideUntouched && containsEvenOdd(rings, TileUnitPoint(x: r.minX, y: r.minY)) {
                out.append(corners(r))
            }
        } else {
            out.append(contentsOf: link(chains, r))
        }
        return assemble(out)
    }

    /// Clips a polyline; each piece inside the rectangle becomes its own line.
    public static func clipLine(_ line: [TileUnitPoint], to r: TileUnitRect) -> [[TileUnitPoint]] {
        var parts = [[TileUnitPoint]]()
        var cur = [TileUnitPoint]()
        for i in 0..<max(line.count - 1, 0) {
            let a = line[i], b = line[i + 1]
            guard let (t0, t1) = clipSegment(a, b, r) else {
                if cur.count >= 2 { parts.append(cur) }
                cur = []
                continue
            }
            let p0 = snap(lerp(a, b, t0), r), p1 = snap(lerp(a, b, t1), r)
            if cur.isEmpty { cur.append(p0) } else if t0 > 0 {
                if cur.count >= 2 { parts.append(cur) }
                cur = [p0]
            }
            cur.append(p1)
            if t1 < 1 {
                if cur.count >= 2 { parts.append(cur) }
                cur = []
            }
        }
        if cur.count >= 2 { parts.append(cur) }
        return parts
    }

    // MARK: - pieces

    struct Chain {
        var points: [TileUnitPoint]
        var tIn: Double
        var tOut: Double
    }

    static func open(_ ring: [TileUnitPoint]) -> [TileUnitPoint] {
        var r = ring
        while r.count > 1 && r.first == r.last { r.removeLast() }
        return r
    }

    @inline(__always)
    static func lerp(_ a: TileUnitPoint, _ b: TileUnitPoint, _ t: Double) -> TileUnitPoint {
        if t == 0 { return a }
        if t == 1 { return b }
        return TileUnitPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
    }

    /// Liang–Barsky: the parameter interval of a–b inside the closed rectangle.
    static func clipSegment(_ a: TileUnitPoint, _ b: TileUnitPoint, _ r: TileUnitRect) -> (Double, Double)? {
        var t0 = 0.0, t1 = 1.0
        let dx = b.x - a.x, dy = b.y - a.y
        for (p, q) in [(-dx, a.x - r.minX), (dx, r.maxX - a.x), (-dy, a.y - r.minY), (dy, r.maxY - a.y)] {
            if p == 0 { if q < 0 { return nil }; continue }
            let t = q / p
            if p < 0 { if t > t1 { return nil }; if t > t0 { t0 = t } }
            else { if t < t0 { return nil }; if t < t1 { t1 = t } }
        }
        return (t0, t1)
    }

    /// Puts a computed crossing exactly on the edge it crosses, so that its
    /// position along the boundary is exact.
    static func snap(_ p: TileUnitPoint, _ r: TileUnitRect) -> TileUnitPoint {
        let eps = 1e-9 * max(r.maxX - r.minX, r.maxY - r.minY)
        var q = p
        if abs(q.x - r.minX) < eps { q.x = r.minX } else if abs(q.x - r.maxX) < eps { q.x = r.maxX }
        if abs(q.y - r.minY) < eps { q.y = r.minY } else if abs(q.y - r.maxY) < eps { q.y = r.maxY }
        q.x = min(max(q.x, r.minX), r.maxX)
        q.y = min(max(q.y, r.minY), r.maxY)
        return q
    }

    /// Position along the boundary, clockwise on screen from the top-left corner: 0 ≤ t < 4.
    static func boundaryT(_ p: TileUnitPoint, _ r: TileUnitRect) -> Double {
        let w = r.maxX - r.minX, h = r.maxY - r.minY
        if p.y == r.minY && p.x < r.maxX { return (p.x - r.minX) / w }
        if p.x == r.maxX && p.y < r.maxY { return 1 + (p.y - r.minY) / h }
        if p.y == r.maxY && p.x > r.minX { return 2 + (r.maxX - p.x) / w }
        if p.x == r.minX && p.y > r.minY { return 3 + (r.maxY - p.y) / h }
        // Not exactly on an edge (cannot happen after snap); use the nearest one.
        let d = [abs(p.y - r.minY), abs(p.x - r.maxX), abs(p.y - r.maxY), abs(p.x - r.minX)]
        switch d.firstIndex(of: d.min()!)! {
        case 0: return min(max((p.x - r.minX) / w, 0), 0.999_999_999)
        case 1: return 1 + min(max((p.y - r.minY) / h, 0), 0.999_999_999)
        case 2: return 2 + min(max((r.maxX - p.x) / w, 0), 0.999_999_999)
        default: return 3 + min(max((r.maxY - p.y) / h, 0), 0.999_999_999)
        }
    }

    static func cornerPoint(_ k: Int, _ r: TileUnitRect) -> TileUnitPoint {
        switch k % 4 {
        case 0: return TileUnitPoint(x: r.minX, y: r.minY)
        case 1: return TileUnitPoint(x: r.maxX, y: r.minY)
        case 2: return TileUnitPoint(x: r.maxX, y: r.maxY)
        default: return TileUnitPoint(x: r.minX, y: r.maxY)
        }
    }

    static func corners(_ r: TileUnitRect) -> [TileUnitPoint] { (0..<4).map { cornerPoint($0, r) } }

    /// The pieces of a ring inside the rectangle, each from where it enters to where it leaves.
    static func chainsOf(_ ring: [TileUnitPoint], _ r: TileUnitRect) -> [Chain] {
        // Start at a vertex strictly outside so that every piece has an entry and an exit.
        guard let start = ring.firstIndex(where: { !r.contains($0) }) else { return [] }
        let n = ring.count
        var chains = [Chain]()
        var cur: [TileUnitPoint]? = nil
        for k in 0..<n {
            let a = ring[(start + k) % n], b = ring[(start + k + 1) % n]
            guard let (t0, t1) = clipSegment(a, b, r) else { continue }
            if cur == nil {
                // a is outside (or on the edge, leaving from it): this is an entry.
                cur = [snap(lerp(a, b, t0), r)]
            }
            if t1 < 1 {
                let exit = snap(lerp(a, b, t1), r)
                if cur!.last != exit { cur!.append(exit) }
                if cur!.count >= 2 {
                    chains.append(Chain(points: cur!, tIn: boundaryT(cur![0], r), tOut: boundaryT(exit, r)))
                }
                cur = nil
            } else if cur!.last != b {
                cur!.append(b)
            }
        }
        // The loop ends at the outside start vertex, so every piece was closed.
        return chains
    }

    /// Joins pieces into closed rings by walking the boundary clockwise (screen)
    /// from each exit to the next entry, keeping the interior on the right.
    static func link(_ chains: [Chain], _ r: TileUnitRect) -> [[TileUnitPoint]] {
        var used = [Bool](repeating: false, count: chains.count)
        var rings = [[TileUnitPoint]]()
        for s in chains.indices where !used[s] {
            used[s] = true
            var ring = chains[s].points
            var cur = s
            var guardSteps = 0
            while guardSteps <= chains.count {
                guardSteps += 1
                let tOut = chains[cur].tOut
                var best = s
                var bestD = forward(tOut, chains[s].tIn)
                for j in chains.indices where !used[j] {
                    let d = forward(tOut, chains[j].tIn)
                    if d < bestD { bestD = d; best = j }
                }
                // Corners passed on the way.
                var k = Int(tOut.rounded(.down)) + 1
                while Double(k) < tOut + bestD {
                    let c = cornerPoint(k, r)
                    if ring.last != c { ring.append(c) }
                    k += 1
                }
                if best == s { break }
                used[best] = true
                for p in chains[best].points where ring.last != p { ring.append(p) }
                cur = best
            }
            while ring.count > 1 && ring.first == ring.last { ring.removeLast() }
            if ring.count >= 3 { rings.append(ring) }
        }
        return rings
    }

    @inline(__always)
    static func forward(_ from: Double, _ to: Double) -> Double {
        let d = to - from
        return d >= 0 ? d : d + 4
    }

    static func containsEvenOdd(_ rings: [[TileUnitPoint]], _ p: TileUnitPoint) -> Bool {
        var inside = false
        for ring in rings where ring.count > 2 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y) { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    /// Groups rings into polygons: positive rings are exteriors; each negative
    /// ring goes to the smallest exterior that contains it.
    static func assemble(_ rings: [[TileUnitPoint]]) -> [[[TileUnitPoint]]] {
        var exteriors = [(ring: [TileUnitPoint], area: Double)]()
        var holes = [[TileUnitPoint]]()
        for ring in rings {
            let a = signedArea(ring)
            if a > 0 { exteriors.append((ring, a)) } else if a < 0 { holes.append(ring) }
        }
        var polys = exteriors.map { [$0.ring] }
        guard !polys.isEmpty else { return [] }
        for h in holes {
            if polys.count == 1 { polys[0].append(h); continue }
            var best: Int? = nil
            for (i, e) in exteriors.enumerated() {
                // A vertex of the hole strictly inside the exterior decides (vertices may touch its edge).
                let probe = h.first { containsEvenOdd([e.ring], $0) } ?? h[0]
                if containsEvenOdd([e.ring], probe), best == nil || e.area < exteriors[best!].area { best = i }
            }
            if let b = best { polys[b].append(h) }
        }
        return polys
    }
}
