import TileGeometry

/// Turns projected geometry into MVT geometry for one tile: transform to tile
/// units, clip to the buffered tile, simplify, quantise, clean, orient after
/// quantisation, and verify. What cannot be made valid is dropped and counted,
/// never written.
public struct VectorTileGeometry {
    public var extent: Int
    public var buffer: Int
    /// Douglas–Peucker tolerance in tile units (0: only quantisation).
    public var tolerance: Double

    public init(extent: Int = 4096, buffer: Int = 80, tolerance: Double = 0) {
        precondition(extent > 0 && extent <= 1 << 20 && buffer >= 0)
        self.extent = extent; self.buffer = buffer; self.tolerance = tolerance
    }

    public struct Result {
        public var geometry: MVTGeometry?
        /// Polygons that came out invalid after quantisation and were left out.
        public var invalidDropped = 0
    }

    public func make(_ g: ProjectedGeometry, tile: TileID) -> Result {
        let t = TileTransform(tile: tile, extent: extent)
        let rect = TileUnitRect(extent: extent, buffer: buffer)
        switch g {
        case .points(let ps):
            var out = [TileCoord]()
            for p in ps {
                let u = t.apply(p)
                guard rect.contains(u) else { continue }
                let q = quantise(u)
                if !out.contains(q) { out.append(q) }
            }
            return Result(geometry: out.isEmpty ? nil : .points(out))
        case .lines(let lines):
            var out = [[TileCoord]]()
            for line in lines {
                for part in RectClipper.clipLine(line.map(t.apply), to: rect) {
                    var q = [TileCoord]()
                    for p in Simplify.line(part, tolerance: tolerance) {
                        let c = quantise(p)
                        if q.last != c { q.append(c) }
                    }
                    if q.count >= 2 { out.append(q) }
                }
            }
            return Result(geometry: out.isEmpty ? nil : .lines(out))
        case .polygons(let polys):
            var rings = [[TileCoord]]()
            var dropped = 0
            for poly in polys {
                let units = poly.map { $0.map(t.apply) }
                for clipped in RectClipper.clipPolygon(units, to: rect) {
                    var f = finish(clipped, tolerance: tolerance)
                    // Simplification may have made it invalid: retry with quantisation only.
                    if f.invalid > 0 && tolerance > 0 { f = finish(clipped, tolerance: 0) }
                    for p in f.polygons { rings.append(contentsOf: p) }
                    dropped += f.invalid
                }
            }
            return Result(geometry: rings.isEmpty ? nil : .polygons(rings), invalidDropped: dropped)
        }
    }

    /// One clipped polygon (exterior positive, holes negative) to quantised
    /// polygons. Rounding can pinch a ring (a vertex visited twice): such rings
    /// are split at the pinch into separate rings, as OGC validity wants.
    /// Polygons still invalid after that are counted and left out.
    ///
    /// `convexShortcut` (off only in tests, to compare both ways): a lone ring
    /// that is strictly convex after cleaning is returned as it is, without
    /// the pinch split and the validity sweep, which could only return it
    /// unchanged. At high zooms most polygons clipped to a tile are such
    /// quadrilaterals; the two steps were about half of this function's time.
    func finish(_ poly: [[TileUnitPoint]], tolerance: Double, convexShortcut: Bool = true) -> (polygons: [[[TileCoord]]], invalid: Int) {
        var exteriors = [[TileCoord]](), holes = [[TileCoord]]()
        for (i, ring) in poly.enumerated() {
            let q = VectorTileGeometry.clean(Simplify.ring(ring, tolerance: tolerance).map(quantise))
            if convexShortcut && poly.count == 1 && VectorTileGeometry.isStrictlyConvex(q) {
                // A lone exterior with negative area would be taken for a hole with no exterior: dropped.
                return (signedArea(q) > 0 ? [[q]] : [], 0)
            }
            for piece in VectorTileGeometry.splitPinches(q) {
                let a = signedArea(piece)
                // A hole's piece that turned positive (or an exterior's that turned
                // negative) is a loop rounding folded over: it encloses nothing.
                if i == 0 { if a > 0 { exteriors.append(piece) } else if a < 0 { holes.append(piece) } }
                else if a < 0 { holes.append(piece) }
            }
        }
        var polys = exteriors.map { [$0] }
        for h in holes {
            if polys.count == 1 { polys[0].append(h); continue }
            if let k = exteriors.indices.first(where: { e in h.contains { VectorTileGeometry.strictlyInside($0, exteriors[e]) } }) {
                polys[k].append(h)
            }
        }
        var ok = [[[TileCoord]]](), invalid = 0
        for p in polys {
            if PolygonValidity.isSimple(p) { ok.append(p) } else { invalid += 1 }
        }
        return (ok, invalid)
    }

    /// True when every turn of the ring goes the same way, none straight,
    /// and the ring winds once: then no two of its vertices are equal and no
    /// two edges meet but neighbours at their shared vertex. Turning one way
    /// throughout, the edge direction makes whole turns; each turn changes the
    /// sign of the edges' x-steps twice, so two changes mean one turn.
    static func isStrictlyConvex(_ ring: [TileCoord]) -> Bool {
        let n = ring.count
        guard n >= 3 else { return false }
        var turn = 0, changes = 0, firstSign = 0, lastSign = 0
        for i in 0..<n {
            let a = ring[i == 0 ? n - 1 : i - 1], b = ring[i], c = ring[i == n - 1 ? 0 : i + 1]
            let o = PolygonValidity.orient(a, b, c)
            if o == 0 || (turn != 0 && o != turn) { return false }
            turn = o
            let dx = c.x - b.x
            let sign = dx > 0 ? 1 : (dx < 0 ? -1 : 0)
            if sign != 0 {
                if lastSign != 0 && sign != lastSign { changes += 1 }
                if firstSign == 0 { firstSign = sign }
                lastSign = sign
            }
        }
        if firstSign != lastSign { changes += 1 }
        return changes == 2
    }

    /// Splits a ring wherever it passes through the same vertex twice.
    static func splitPinches(_ ring: [TileCoord]) -> [[TileCoord]] {
        guard ring.count >= 3 else { return [] }
        var out = [[TileCoord]]()
        var stack = [TileCoord]()
        // The stack never holds a point twice, so a point's position in it is its
        // only index. Most rings in a tile are short: a linear search there costs
        // less than hashing every point.
        let indexed = ring.count > 64
        var position = [TileCoord: Int]()
        for p in ring {
            if let k = indexed ? position[p] : stack.firstIndex(of: p) {
                let loop = Array(stack[k...])
                if indexed { for q in loop.dropFirst() { position[q] = nil } }
                stack.removeSubrange((k + 1)...)
                let c = clean(loop)
                if c.count >= 3 { out.append(c) }
            } else {
                if indexed { position[p] = stack.count }
                stack.append(p)
            }
        }
        let c = clean(stack)
        if c.count >= 3 { out.append(c) }
        return out
    }

    static func strictlyInside(_ p: TileCoord, _ ring: [TileCoord]) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if PolygonValidity.orient(a, b, p) == 0 && min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y) {
                return false   // on the boundary
            }
            if (a.y > p.y) != (b.y > p.y) {
                let x = Double(a.x) + Double(p.y - a.y) * Double(b.x - a.x) / Double(b.y - a.y)
                if Double(p.x) < x { inside.toggle() }
            }
            j = i
        }
        return inside
    }

    @inline(__always)
    func quantise(_ p: TileUnitPoint) -> TileCoord {
        TileCoord(x: Int32(p.x.rounded()), y: Int32(p.y.rounded()))
    }

    /// Removes repeated points, points on a straight run and spikes (a point
    /// where the ring turns back on itself), cyclically, until none is left.
    static func clean(_ ring: [TileCoord]) -> [TileCoord] {
        var r = [TileCoord]()
        r.reserveCapacity(ring.count)
        for p in ring where r.last != p { r.append(p) }
        while r.count > 1 && r.first == r.last { r.removeLast() }
        var changed = true
        while changed && r.count >= 3 {
            changed = false
            var out = [TileCoord]()
            out.reserveCapacity(r.count)
            let n = r.count
            for i in 0..<n {
                let prev = out.last ?? r[(i + n - 1) % n]
                let next = r[(i + 1) % n]
                if PolygonValidity.orient(prev, r[i], next) == 0 { changed = true; continue }
                out.append(r[i])
            }
            r = out
        }
        return r
    }
}
