import HeapModule

/// The point inside a polygon farthest from its outline (holes included):
/// where a label fits best. Grid refinement with a priority queue, after
/// the "polylabel" description (Agafonkin, 2016): cells are split while they
/// could still hold a point better than the best found by more than `precision`.
public enum PoleOfInaccessibility {
    public static func find(_ rings: [[MercatorPoint]], precision: Double) -> MercatorPoint? {
        var work = EdgeGrid.Work(), queries = 0
        return find(rings, precision: precision, work: &work, queries: &queries)
    }

    /// `work`: what the edge grid read (nothing when the edges are scanned), `queries`: distances asked.
    static func find(_ rings: [[MercatorPoint]], precision: Double, work: inout EdgeGrid.Work, queries: inout Int) -> MercatorPoint? {
        guard let ext = rings.first, ext.count >= 3 else { return nil }
        var box = MercatorRect.empty
        ext.forEach { box.extend($0) }
        let w = box.maxX - box.minX, h = box.maxY - box.minY
        let size = min(w, h)
        guard size > 0 else { return ext[0] }

        struct Cell: Comparable {
            var x: Double, y: Double, half: Double, d: Double
            var potential: Double { d + half * 2.0.squareRoot() }
            static func < (a: Cell, b: Cell) -> Bool { a.potential < b.potential }
        }
        // Many edges (a unit with thousands of holes): the grid, not a scan per cell.
        let grid = rings.reduce(0) { $0 + $1.count } > 256 ? EdgeGrid(rings) : nil   // nil: scan
        func cell(_ x: Double, _ y: Double, _ half: Double) -> Cell {
            let p = MercatorPoint(x: x, y: y)
            queries += 1
            return Cell(x: x, y: y, half: half, d: grid?.signedDistance(p, work: &work) ?? signedDistance(p, rings))
        }

        var queue = Heap<Cell>()
        var half = size / 2
        var y = box.minY
        while y < box.maxY {
            var x = box.minX
            while x < box.maxX { queue.insert(cell(x + half, y + half, half)); x += size }
            y += size
        }
        // Start from the centroid (often good), or the bounding box centre.
        var best = cell(box.minX + w / 2, box.minY + h / 2, 0)
        if let c = centroid(ext) {
            let cc = cell(c.x, c.y, 0)
            if cc.d > best.d { best = cc }
        }
        var steps = 0
        while let c = queue.popMax(), steps < 100_000 {
            steps += 1
            if c.d > best.d { best = c }
            if c.potential - best.d <= precision { continue }
            half = c.half / 2
            for (dx, dy) in [(-1.0, -1.0), (1, -1), (-1, 1), (1, 1)] {
                queue.insert(cell(c.x + dx * half, c.y + dy * half, half))
            }
        }
        return best.d > 0 ? MercatorPoint(x: best.x, y: best.y) : nil
    }

    /// Distance to the nearest ring edge, negative outside the polygon.
    static func signedDistance(_ p: MercatorPoint, _ rings: [[MercatorPoint]]) -> Double {
        var inside = false
        var minD2 = Double.infinity
        for ring in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                var x = b.x, y = b.y
                let dx = a.x - x, dy = a.y - y
                if dx != 0 || dy != 0 {
                    let t = ((p.x - x) * dx + (p.y - y) * dy) / (dx * dx + dy * dy)
                    if t > 1 { x = a.x; y = a.y } else if t > 0 { x += dx * t; y += dy * t }
                }
                let ex = p.x - x, ey = p.y - y
                minD2 = min(minD2, ex * ex + ey * ey)
                j = i
            }
        }
        return (inside ? 1 : -1) * minD2.squareRoot()
    }

    static func centroid(_ ring: [MercatorPoint]) -> MercatorPoint? {
        var a = 0.0, cx = 0.0, cy = 0.0
        let o = ring[0]   // relative to the first point: Mercator values are large
        var j = ring.count - 1
        for i in 0..<ring.count {
            let p = MercatorPoint(x: ring[i].x - o.x, y: ring[i].y - o.y), q = MercatorPoint(x: ring[j].x - o.x, y: ring[j].y - o.y)
            let f = p.x * q.y - q.x * p.y
            cx += (p.x + q.x) * f; cy += (p.y + q.y) * f; a += f * 3
            j = i
        }
        return a == 0 ? nil : MercatorPoint(x: o.x + cx / a, y: o.y + cy / a)
    }
}
