/// The pairs of polygon edges whose bounding boxes overlap, found by sweeping
/// along x over the edges sorted by their west end — or, when that sweep would
/// look at far more pairs than there are edges, with `BoxPairs`: the only pairs
/// an exact crossing test has to look at (near n log n either way). The
/// tests themselves stay with the caller, in its own coordinate type and
/// arithmetic (integer tile units, or degrees).
public enum EdgeSweep {
    public struct Edge<P> {
        public var a: P
        public var b: P
        public var ring: Int
        /// Position of `a` in its ring, and how many edges the ring has.
        public var index: Int
        public var ringEdges: Int
        @usableFromInline var west: Double
        @usableFromInline var east: Double

        @inlinable init(a: P, b: P, ring: Int, index: Int, ringEdges: Int, west: Double, east: Double) {
            self.a = a; self.b = b; self.ring = ring; self.index = index; self.ringEdges = ringEdges
            self.west = west; self.east = east
        }

        /// True when the two edges follow each other in one ring (they share a vertex).
        @inlinable public func follows(_ o: Edge) -> Bool {
            guard ring == o.ring else { return false }
            let d = abs(index - o.index)
            return d == 1 || d == ringEdges - 1
        }
    }

    /// Calls `visit` for every pair of edges whose boxes overlap, each pair once,
    /// in a fixed order; `visit` returns false to stop. `closed`: every ring
    /// repeats its first position at the end (GeoJSON), else rings are open.
    @inlinable
    public static func overlappingPairs<P>(_ rings: [[P]], closed: Bool, x: (P) -> Double, y: (P) -> Double,
                                           _ visit: (Edge<P>, Edge<P>) -> Bool) {
        var edges = [Edge<P>]()
        for (ri, r) in rings.enumerated() {
            let n = closed ? r.count - 1 : r.count
            guard n > 0 else { continue }
            for i in 0..<n {
                let a = r[i], b = r[(i + 1) % r.count]
                edges.append(Edge(a: a, b: b, ring: ri, index: i, ringEdges: n, west: min(x(a), x(b)), east: max(x(a), x(b))))
            }
        }
        edges.sort { ($0.west, $0.ring, $0.index) < ($1.west, $1.ring, $1.index) }
        if sweepPairs(edges) > 8 * edges.count + 4096 {
            // Many edges share an x-range (a densified straight wall, rows of holes):
            // the sweep would look at nearly every pair; the grid looks at neighbours only.
            let boxes = edges.map { e in
                Box(minX: e.west, minY: min(y(e.a), y(e.b)), maxX: e.east, maxY: max(y(e.a), y(e.b)))
            }
            BoxPairs.forEach(boxes) { i, j in visit(edges[i], edges[j]) }
            return
        }
        for i in edges.indices {
            let e = edges[i]
            var j = i + 1
            while j < edges.count && edges[j].west <= e.east {
                let f = edges[j]
                j += 1
                if max(min(y(e.a), y(e.b)), min(y(f.a), y(f.b))) > min(max(y(e.a), y(e.b)), max(y(f.a), y(f.b))) { continue }
                if !visit(e, f) { return }
            }
        }
    }

    /// How many pairs the x-sweep over `edges` (sorted by west end) would look
    /// at, found by binary search in n log n without looking at them.
    @inlinable
    public static func sweepPairs<P>(_ edges: [Edge<P>]) -> Int {
        var total = 0
        for i in edges.indices {
            let east = edges[i].east
            var lo = i + 1, hi = edges.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if edges[mid].west <= east { lo = mid + 1 } else { hi = mid }
            }
            total += lo - i - 1
        }
        return total
    }
}
