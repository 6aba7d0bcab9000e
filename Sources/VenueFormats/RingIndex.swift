import VenueModel

/// Where a point lies with respect to a ring.
enum RingSide: Equatable { case inside, outside, boundary }

/// Point-in-ring tests against one closed ring, each in time near log n plus
/// the number of edges the point's horizontal line crosses.
///
/// A plain ray cast looks at every edge: asking where each of 100,000 holes
/// lies in a 100,000-vertex outline would take 10^10 steps. Here the edges'
/// latitude intervals go into a centred interval tree, and a test reads only
/// the edges whose interval holds the point's latitude — the only ones a
/// horizontal ray can meet. Rings of few edges are scanned directly.
struct RingIndex {
    private let ring: [LonLat]
    private struct Node { var center: Double; var left: Int32; var right: Int32; var start: Int32; var count: Int32 }
    private var nodes: [Node] = []
    /// Per node, its edges ordered by south end ascending, then by north end descending.
    private var bySouth: [Int32] = [], byNorth: [Int32] = []
    private var root: Int32 = -1

    /// `ring` is closed (first == last).
    init(_ ring: [LonLat]) {
        self.ring = ring
        let n = ring.count - 1
        guard n >= 32 else { return }
        root = build(Array(0..<Int32(n)))
    }

    private func south(_ e: Int32) -> Double { min(ring[Int(e)].lat, ring[Int(e) + 1].lat) }
    private func north(_ e: Int32) -> Double { max(ring[Int(e)].lat, ring[Int(e) + 1].lat) }

    private mutating func build(_ edges: [Int32]) -> Int32 {
        guard !edges.isEmpty else { return -1 }
        // The median of the intervals' middles: each side gets at most half, so the depth is log n.
        let mids = edges.map { (south($0) + north($0)) / 2 }.sorted()
        let center = mids[mids.count / 2]
        var left = [Int32](), right = [Int32](), here = [Int32]()
        for e in edges {
            if north(e) < center { left.append(e) } else if south(e) > center { right.append(e) } else { here.append(e) }
        }
        let me = Int32(nodes.count)
        nodes.append(Node(center: center, left: -1, right: -1, start: Int32(bySouth.count), count: Int32(here.count)))
        bySouth += here.sorted { (south($0), $0) < (south($1), $1) }
        byNorth += here.sorted { (north($0), $1) > (north($1), $0) }
        let l = build(left), r = build(right)
        nodes[Int(me)].left = l
        nodes[Int(me)].right = r
        return me
    }

    /// Inside, outside, or on the ring's boundary (a vertex or an edge).
    func side(of p: LonLat) -> RingSide {
        var examined = 0
        return side(of: p, examined: &examined)
    }

    /// The same, adding to `examined` the edges looked at (the scaling tests count them).
    func side(of p: LonLat, examined: inout Int) -> RingSide {
        var inside = false
        if root < 0 {
            examined += ring.count - 1
            for e in 0..<(ring.count - 1) {
                if let s = RingIndex.crossing(ring[e], ring[e + 1], p) { if s == .boundary { return .boundary }; inside.toggle() }
            }
            return inside ? .inside : .outside
        }
        var node = root
        while node >= 0 {
            let nd = nodes[Int(node)]
            let range = Int(nd.start)..<Int(nd.start + nd.count)
            examined += 1
            if p.lat < nd.center {
                for k in range { let e = bySouth[k]; if south(e) > p.lat { break }; examined += 1
                    if let s = RingIndex.crossing(ring[Int(e)], ring[Int(e) + 1], p) { if s == .boundary { return .boundary }; inside.toggle() } }
                node = nd.left
            } else if p.lat > nd.center {
                for k in range { let e = byNorth[k]; if north(e) < p.lat { break }; examined += 1
                    if let s = RingIndex.crossing(ring[Int(e)], ring[Int(e) + 1], p) { if s == .boundary { return .boundary }; inside.toggle() } }
                node = nd.right
            } else {
                for k in range { let e = bySouth[k]; examined += 1
                    if let s = RingIndex.crossing(ring[Int(e)], ring[Int(e) + 1], p) { if s == .boundary { return .boundary }; inside.toggle() } }
                break
            }
        }
        return inside ? .inside : .outside
    }

    /// `.boundary` when p lies on segment ab; `.inside` when the ray from p
    /// towards +lon crosses ab (half-open in latitude, so a vertex on the ray
    /// counts once); nil otherwise.
    @inline(__always)
    static func crossing(_ a: LonLat, _ b: LonLat, _ p: LonLat) -> RingSide? {
        let o = (b.lon - a.lon) * (p.lat - a.lat) - (b.lat - a.lat) * (p.lon - a.lon)
        if o == 0 && min(a.lon, b.lon) <= p.lon && p.lon <= max(a.lon, b.lon)
            && min(a.lat, b.lat) <= p.lat && p.lat <= max(a.lat, b.lat) { return .boundary }
        guard (a.lat > p.lat) != (b.lat > p.lat) else { return nil }
        let x = (b.lon - a.lon) * (p.lat - a.lat) / (b.lat - a.lat) + a.lon
        return p.lon < x ? .inside : nil
    }
}
