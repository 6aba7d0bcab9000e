/// Reference computations for tests, written plainly and shared by the test
/// targets (independent of the project's own geometry code).

/// A seeded SplitMix64 generator: the same seed gives the same test cases.
public struct SeededRandom: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The area of a ring inside an axis-aligned rectangle: Sutherland–Hodgman
/// against each edge, then the shoelace formula. Works relative to the
/// rectangle's corner so that large coordinates (Mercator metres, z23 tile
/// numbers) do not drown small areas in rounding.
public func clippedArea(_ ring: [(x: Double, y: Double)], minX: Double, minY: Double, maxX: Double, maxY: Double) -> Double {
    var pts = ring.map { (x: $0.x - minX, y: $0.y - minY) }
    let w = maxX - minX, h = maxY - minY
    if pts.count > 1, pts.first! == pts.last! { pts.removeLast() }
    let inside: [((x: Double, y: Double)) -> Double] = [{ $0.x }, { w - $0.x }, { $0.y }, { h - $0.y }]
    for f in inside {
        guard !pts.isEmpty else { return 0 }
        var out = [(x: Double, y: Double)]()
        for i in pts.indices {
            let a = pts[i], b = pts[(i + 1) % pts.count]
            let da = f(a), db = f(b)
            if da >= 0 { out.append(a) }
            if (da >= 0) != (db >= 0) {
                let t = da / (da - db)
                out.append((a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)))
            }
        }
        pts = out
    }
    var s = 0.0
    for i in pts.indices { let a = pts[i], b = pts[(i + 1) % pts.count]; s += a.x * b.y - b.x * a.y }
    return abs(s) / 2
}
