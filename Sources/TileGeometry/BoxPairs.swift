/// An axis-aligned box (closed: boxes that only touch overlap).
public struct Box: Sendable {
    public var minX: Double, minY: Double, maxX: Double, maxY: Double
    @inlinable public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
    @inlinable public func overlaps(_ o: Box) -> Bool {
        minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY
    }
    @inlinable public func contains(_ o: Box) -> Bool {
        minX <= o.minX && o.maxX <= maxX && minY <= o.minY && o.maxY <= maxY
    }
}

/// Every pair of overlapping boxes, in time near n log n plus the number of
/// pairs, whatever their shape: a multi-level grid.
///
/// A sweep along one axis alone is quadratic when many boxes share an
/// x-range (the densified straight wall of a CAD export: thousands of
/// collinear edges with the same x), and a single grid is quadratic when
/// box sizes differ widely (one long wall beside many short ones). Here each
/// box goes to the level whose cells are 1–4 times its size, into the (at
/// most four) cells its box touches; a box looks for partners in the cells it
/// touches on its own and every coarser level, so a pair is always found from
/// the smaller box's side, and is reported only in the one cell holding the
/// lower-left corner of the two boxes' overlap, so exactly once.
public enum BoxPairs {
    /// Levels grow by 4× (fewer levels to visit than 2×, at most 4× more
    /// neighbours per cell); 15 levels from 2^28 cells to one cover any extent.
    public static let levelShift = 2, levels = 15, finestBits = 28

    /// Calls `visit(i, j)`, i < j, once for every pair of overlapping boxes, in
    /// an order fixed by the input; `visit` returns false to stop.
    /// `boxes` must have finite coordinates.
    public static func forEach(_ boxes: [Box], _ visit: (Int, Int) -> Bool) {
        var work = 0
        forEach(boxes, work: &work, visit)
    }

    /// The same, adding to `work` the number of candidate boxes looked at
    /// (what the time grows with; the scaling tests count it).
    public static func forEach(_ boxes: [Box], work: inout Int, _ visit: (Int, Int) -> Bool) {
        let n = boxes.count
        guard n > 1 else { return }
        if n <= 16 { work += n * n / 2; bruteForce(boxes, visit); return }
        var ox = Double.infinity, oy = Double.infinity, ex = -Double.infinity, ey = -Double.infinity
        for b in boxes { ox = min(ox, b.minX); oy = min(oy, b.minY); ex = max(ex, b.maxX); ey = max(ey, b.maxY) }
        let span = max(ex - ox, ey - oy)
        guard span > 0, span.isFinite else { work += n * n / 2; bruteForce(boxes, visit); return }
        // The finest cell: the extent over 2^28, so that cell numbers stay far from any overflow.
        let base = span / Double(1 << finestBits)
        var level = [Int](repeating: 0, count: n)
        for (i, b) in boxes.enumerated() {
            let r = max(b.maxX - b.minX, b.maxY - b.minY) / base
            if r > 1 { level[i] = min(levels - 1, (r.exponent + levelShift) / levelShift) }
        }
        func cellSize(_ l: Int) -> Double { base * Double(1 << (levelShift * l)) }
        func cell(_ v: Double, _ o: Double, _ size: Double) -> Int { Int(((v - o) / size).rounded(.down)) }
        func key(_ l: Int, _ cx: Int, _ cy: Int) -> UInt64 { UInt64(l) << 58 | UInt64(cx) << 29 | UInt64(cy) }

        var entries = [(key: UInt64, index: Int32)]()
        entries.reserveCapacity(n * 2)
        var used = [Bool](repeating: false, count: levels)
        for (i, b) in boxes.enumerated() {
            let l = level[i], s = cellSize(l)
            used[l] = true
            for cx in cell(b.minX, ox, s)...cell(b.maxX, ox, s) {
                for cy in cell(b.minY, oy, s)...cell(b.maxY, oy, s) { entries.append((key(l, cx, cy), Int32(i))) }
            }
        }
        entries.sort { ($0.key, $0.index) < ($1.key, $1.index) }
        var ranges = [UInt64: Range<Int>]()
        var start = 0
        for k in 1...entries.count where k == entries.count || entries[k].key != entries[start].key {
            ranges[entries[start].key] = start..<k
            start = k
        }
        let usedLevels = (0..<levels).filter { used[$0] }
        for (i, b) in boxes.enumerated() {
            for l in usedLevels where l >= level[i] {
                let s = cellSize(l)
                for cx in cell(b.minX, ox, s)...cell(b.maxX, ox, s) {
                    for cy in cell(b.minY, oy, s)...cell(b.maxY, oy, s) {
                        guard let r = ranges[key(l, cx, cy)] else { continue }
                        work += r.count
                        for k in r {
                            let j = Int(entries[k].index)
                            // Same level: both find the pair; the lower index reports it.
                            if j == i || (level[j] == level[i] && j < i) { continue }
                            let o = boxes[j]
                            guard b.overlaps(o),
                                  cell(max(b.minX, o.minX), ox, s) == cx, cell(max(b.minY, o.minY), oy, s) == cy else { continue }
                            if !visit(min(i, j), max(i, j)) { return }
                        }
                    }
                }
            }
        }
    }

    static func bruteForce(_ boxes: [Box], _ visit: (Int, Int) -> Bool) {
        for i in boxes.indices {
            for j in (i + 1)..<boxes.count where boxes[i].overlaps(boxes[j]) {
                if !visit(i, j) { return }
            }
        }
    }
}
