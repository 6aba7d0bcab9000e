/// Signed distance from a point to a polygon's outline (holes included), in
/// time near the number of edges close to the point rather than all of them.
///
/// The pole of inaccessibility asks this for every cell it refines: with the
/// plain scan over every edge a unit of 30,000 holes took 34 s of CPU to
/// label, and 100,000 holes minutes. The edges go into a uniform grid of
/// about one edge per cell; the nearest edge is searched ring by ring of cells
/// outwards until no unsearched cell can hold a nearer one, and the
/// inside/outside parity counts the crossings of the ray towards +x through
/// the cells of the point's row, each crossing in the one cell that holds it.
/// Every test uses the plain scan's own formulas on the same edges, so the
/// result is the same number bit for bit.
struct EdgeGrid {
    private var ax: [Double] = [], ay: [Double] = [], bx: [Double] = [], by: [Double] = []
    private let minX: Double, minY: Double, size: Double, nx: Int, ny: Int
    /// Edges of cell k: entries[offsets[k]..<offsets[k + 1]].
    private var offsets: [Int32] = [], entries: [Int32] = []

    init?(_ rings: [[MercatorPoint]]) {
        var lo = MercatorPoint(x: .infinity, y: .infinity), hi = MercatorPoint(x: -.infinity, y: -.infinity)
        for ring in rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                // The edge as the plain scan takes it: a = ring[i], b = ring[j].
                ax.append(ring[i].x); ay.append(ring[i].y); bx.append(ring[j].x); by.append(ring[j].y)
                lo.x = min(lo.x, ring[i].x); lo.y = min(lo.y, ring[i].y); hi.x = max(hi.x, ring[i].x); hi.y = max(hi.y, ring[i].y)
                j = i
            }
        }
        let n = ax.count
        let w = max(hi.x - lo.x, 1e-9), h = max(hi.y - lo.y, 1e-9)
        size = max((w * h / Double(max(n, 1))).squareRoot(), max(w, h) / 4096)
        minX = lo.x; minY = lo.y
        nx = min(4096, Int(w / size) + 1); ny = min(4096, Int(h / size) + 1)
        // Long slanted edges cover many cells; past ~32 cells per edge the grid
        // would cost more than it saves (the caller scans instead).
        var total = 0
        for e in 0..<n {
            let (rows, cols) = cells(e)
            total += rows.count * cols.count
        }
        guard total <= 32 * n + 65_536 else { return nil }
        // Filled through locals: a method of self called with a closure that
        // writes self.entries works on a copy of self, so each write would copy
        // the whole array (quadratic in the edges).
        var counts = [Int32](repeating: 0, count: nx * ny + 1)
        for e in 0..<n {
            let (rows, cols) = cells(e)
            for r in rows { for c in cols { counts[r * nx + c] += 1 } }
        }
        var offsets = [Int32](repeating: 0, count: nx * ny + 1)
        for k in 0..<(nx * ny) { offsets[k + 1] = offsets[k] + counts[k] }
        var fill = offsets
        var entries = [Int32](repeating: 0, count: Int(offsets[nx * ny]))
        for e in 0..<n {
            let (rows, cols) = cells(e)
            for r in rows { for c in cols { entries[Int(fill[r * nx + c])] = Int32(e); fill[r * nx + c] += 1 } }
        }
        self.offsets = offsets
        self.entries = entries
    }

    /// The cell entries of the grid: about one per edge (tests check the index stays linear).
    var entryCount: Int { entries.count }

    private func col(_ x: Double) -> Int { min(nx - 1, max(0, Int(((x - minX) / size).rounded(.down)))) }
    private func row(_ y: Double) -> Int { min(ny - 1, max(0, Int(((y - minY) / size).rounded(.down)))) }

    /// The rows and columns of cells edge e's box covers.
    private func cells(_ e: Int) -> (rows: ClosedRange<Int>, cols: ClosedRange<Int>) {
        (row(min(ay[e], by[e]))...row(max(ay[e], by[e])), col(min(ax[e], bx[e]))...col(max(ax[e], bx[e])))
    }

    private func cell(_ c: Int, _ r: Int) -> ArraySlice<Int32> { entries[Int(offsets[r * nx + c])..<Int(offsets[r * nx + c + 1])] }

    /// Squared distance from p to edge e (the plain scan's formula).
    @inline(__always)
    private func distance2(_ p: MercatorPoint, _ e: Int) -> Double {
        var x = bx[e], y = by[e]
        let dx = ax[e] - x, dy = ay[e] - y
        if dx != 0 || dy != 0 {
            let t = ((p.x - x) * dx + (p.y - y) * dy) / (dx * dx + dy * dy)
            if t > 1 { x = ax[e]; y = ay[e] } else if t > 0 { x += dx * t; y += dy * t }
        }
        let ex = p.x - x, ey = p.y - y
        return ex * ex + ey * ey
    }

    /// What a query read: cells visited and edges measured (tests count it).
    struct Work { var cells = 0, edges = 0 }

    func signedDistance(_ p: MercatorPoint) -> Double {
        var work = Work()
        return signedDistance(p, work: &work)
    }

    func signedDistance(_ p: MercatorPoint, work: inout Work) -> Double {
        let cx = col(p.x), cy = row(p.y)
        var best = Double.infinity
        func visit(_ c: Int, _ r: Int) {
            work.cells += 1
            for e in cell(c, r) { work.edges += 1; best = min(best, distance2(p, Int(e))) }
        }
        var r = 0
        while true {
            // The cells at Chebyshev distance r from the point's: the square's
            // border only (walking the whole square each time cost r³ steps).
            let c0 = max(0, cx - r), c1 = min(nx - 1, cx + r)
            if cy - r >= 0 { for c in c0...c1 { visit(c, cy - r) } }
            if r > 0, cy + r < ny { for c in c0...c1 { visit(c, cy + r) } }
            let r0 = max(0, cy - r + 1), r1 = min(ny - 1, cy + r - 1)
            if r > 0, r0 <= r1 {
                if cx - r >= 0 { for rr in r0...r1 { visit(cx - r, rr) } }
                if cx + r < nx { for rr in r0...r1 { visit(cx + r, rr) } }
            }
            // The nearest point any cell beyond this square can hold.
            var bound = Double.infinity
            if cx - r > 0 { bound = min(bound, p.x - (minX + Double(cx - r) * size)) }
            if cx + r < nx - 1 { bound = min(bound, minX + Double(cx + r + 1) * size - p.x) }
            if cy - r > 0 { bound = min(bound, p.y - (minY + Double(cy - r) * size)) }
            if cy + r < ny - 1 { bound = min(bound, minY + Double(cy + r + 1) * size - p.y) }
            if bound == .infinity || (bound > 0 && best <= bound * bound) { break }
            r += 1
        }
        return (inside(p, work: &work) ? 1 : -1) * best.squareRoot()
    }

    /// Parity of the crossings of the ray from p towards +x.
    private func inside(_ p: MercatorPoint, work: inout Work) -> Bool {
        guard p.y >= minY, p.y <= minY + Double(ny) * size else { return false }
        let r = row(p.y)
        var inside = false
        for c in col(p.x)..<nx {
            work.cells += 1
            for e32 in cell(c, r) {
                work.edges += 1
                let e = Int(e32)
                guard (ay[e] > p.y) != (by[e] > p.y) else { continue }
                let xi = (bx[e] - ax[e]) * (p.y - ay[e]) / (by[e] - ay[e]) + ax[e]
                // The cell of the crossing, with xi held to the edge's own span
                // (rounding may put it a hair outside, in a cell the edge is not in).
                if p.x < xi && col(min(max(xi, min(ax[e], bx[e])), max(ax[e], bx[e]))) == c { inside.toggle() }
            }
        }
        return inside
    }
}
