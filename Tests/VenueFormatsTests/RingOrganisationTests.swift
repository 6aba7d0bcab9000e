@testable import TileGeometry
import VenueModel
import XCTest
@testable import VenueFormats

/// Rings organised by containment (issue 17 item 1), wrong-way rings as one
/// counted notice (item 8), and the scaling of the checks (issue 23 item 7).
final class RingOrganisationTests: XCTestCase {
    func ring(_ pts: [(Double, Double)]) -> [LonLat] {
        var r = pts.map { LonLat(lon: $0.0, lat: $0.1) }
        r.append(r[0])
        return r
    }

    /// A counter-clockwise axis-aligned rectangle.
    func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [LonLat] {
        ring([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    }

    func repair(_ g: Geometry, file: String = "level.geojson") -> (Geometry?, [Diagnostic]) {
        var d = Diagnostics()
        let out = GeometryRepair.repair(g, file: file, featureID: "L1", diagnostics: &d)
        return (out, d.items)
    }

    /// A level written as one Polygon whose second ring is a separate wing
    /// (beside the first, not inside it): both wings are kept, as a MultiPolygon.
    func testSecondRingBesideTheFirstIsAWingOfItsOwn() {
        let main = rect(0, 0, 10, 4), wing = rect(12, 0, 20, 4)
        let (out, d) = repair(.polygon(Polygon(rings: [main, wing])))
        XCTAssertEqual(out, .multiPolygon([Polygon(rings: [main]), Polygon(rings: [wing])]))
        XCTAssertFalse(d.contains { $0.kind == .warning }, d.description)
        XCTAssertEqual(d.map(\.message), ["polygon rings outside the others kept as polygons of their own: 1"])
    }

    /// Wing, hole in the main part, and an island inside that hole: three parts' worth of rings sorted out.
    func testHoleAndIslandInsideAHoleByContainment() {
        let main = rect(0, 0, 10, 10), hole = Array(rect(2, 2, 8, 8).reversed()), island = rect(4, 4, 6, 6), wing = rect(11, 0, 12, 1)
        let (out, _) = repair(.polygon(Polygon(rings: [main, island, wing, hole])))
        XCTAssertEqual(out, .multiPolygon([Polygon(rings: [main, hole]), Polygon(rings: [island]), Polygon(rings: [wing])]))
    }

    /// The first ring is inside the second: the second is the exterior.
    func testFirstRingInsideTheSecondIsItsHole() {
        let inner = rect(2, 2, 4, 4), outer = rect(0, 0, 10, 10)
        let (out, d) = repair(.polygon(Polygon(rings: [inner, outer])))
        XCTAssertEqual(out, .polygon(Polygon(rings: [outer, inner.reversed()])))
        XCTAssertFalse(d.contains { $0.kind == .warning }, d.description)
    }

    /// A hole sharing a stretch of the exterior's edge only touches it: kept.
    func testHoleAlongTheExteriorWallIsKept() {
        let main = rect(0, 0, 10, 10), notch = Array(rect(0, 2, 3, 5).reversed())
        let (out, d) = repair(.polygon(Polygon(rings: [main, notch])))
        XCTAssertEqual(out, .polygon(Polygon(rings: [main, notch])), d.description)
    }

    /// Two rings crossing each other: only then is a ring dropped — the smaller, with a warning saying so.
    func testCrossingRingsDropTheSmallerWithAWarning() {
        let big = rect(0, 0, 10, 10), small = rect(8, 4, 12, 6)
        let (out, d) = repair(.polygon(Polygon(rings: [big, small])))
        XCTAssertEqual(out, .polygon(Polygon(rings: [big])))
        XCTAssertEqual(d.filter { $0.kind == .warning }.map(\.message),
                       ["dropped ring 1: crosses ring 0 at (10.0, 4.0); dropped the smaller of the two"])
    }

    /// A ring crossing itself goes with the rings inside it; the rest stays.
    func testSelfCrossingRingGoesWithItsHoles() {
        let bowTie = ring([(0, 0), (4, 4), (4, 0), (0, 4)]), wing = rect(10, 0, 14, 4)
        let holeOfBowTie = Array(ring([(0.5, 1.8), (0.9, 1.8), (0.9, 2.2), (0.5, 2.2)]).reversed())
        let (out, d) = repair(.polygon(Polygon(rings: [bowTie, holeOfBowTie, wing])))
        XCTAssertEqual(out, .polygon(Polygon(rings: [wing])))
        XCTAssertEqual(d.filter { $0.kind == .warning }.map(\.message),
                       ["dropped ring 0: self-intersection at (2.0, 2.0) (edges cross; cannot be repaired safely) (and 1 ring inside it)"])
    }

    func testRepeatedRingIsDropped() {
        let a = rect(0, 0, 4, 4)
        let (out, d) = repair(.polygon(Polygon(rings: [a, a])))
        XCTAssertEqual(out, .polygon(Polygon(rings: [a])))
        XCTAssertEqual(d.filter { $0.kind == .warning }.map(\.message), ["dropped ring 1: repeats ring 0"])
    }

    /// MultiPolygon parts: one inside another part's filled area is dropped
    /// (drawn even-odd it would punch a hole); one inside a hole is kept.
    func testMultiPolygonPartsThatOverlap() {
        let a = Polygon(rings: [rect(0, 0, 10, 10), Array(rect(6, 6, 9, 9).reversed())])
        let covered = Polygon(rings: [rect(1, 1, 3, 3)]), inHole = Polygon(rings: [rect(7, 7, 8, 8)])
        let crossing = Polygon(rings: [rect(9, 1, 11, 2)])
        let (out, d) = repair(.multiPolygon([a, covered, inHole, crossing]))
        XCTAssertEqual(out, .multiPolygon([a, inHole]))
        XCTAssertEqual(d.filter { $0.kind == .warning }.map(\.message), [
            "polygon 1 lies inside polygon 0; dropped (the other polygon draws its area)",
            "dropped polygon 3 ring 0: crosses polygon 0 ring 0 at (10.0, 1.0); dropped the smaller of the two",
        ])
    }

    /// Wrong-way rings are normal before RFC 7946: one counted notice per
    /// file however many features, not a warning each.
    func testWrongWayRingsAreOneCountedNoticePerFile() {
        var d = Diagnostics()
        for i in 0..<50 {
            let cw = Array(rect(Double(i) * 2, 0, Double(i) * 2 + 1, 1).reversed())
            _ = GeometryRepair.repair(.polygon(Polygon(rings: [cw])), file: "unit.geojson", featureID: "u\(i)", diagnostics: &d)
        }
        var other = Diagnostics()
        _ = GeometryRepair.repair(.polygon(Polygon(rings: [Array(rect(0, 0, 1, 1).reversed())])), file: "unit.geojson", featureID: "x", diagnostics: &other)
        _ = GeometryRepair.repair(.polygon(Polygon(rings: [Array(rect(0, 0, 1, 1).reversed())])), file: "fixture.geojson", featureID: "y", diagnostics: &other)
        d.append(contentsOf: other)
        XCTAssertEqual(d.warningCount, 0)
        XCTAssertEqual(d.items.map(\.location), [
            "unit.geojson: rings wound the wrong way reversed (RFC 7946 §3.1.6): 51",
            "fixture.geojson: rings wound the wrong way reversed (RFC 7946 §3.1.6): 1",
        ])
    }

    // MARK: scaling, counted in steps rather than seconds

    /// A level outline as CAD exports write it: a rectangle whose edges are
    /// densified into `n` collinear vertices.
    func densifiedOutline(_ n: Int) -> [LonLat] {
        let side = n / 4
        var pts = [LonLat]()
        for i in 0..<side { pts.append(LonLat(lon: Double(i) / Double(side), lat: 0)) }
        for i in 0..<side { pts.append(LonLat(lon: 1, lat: Double(i) / Double(side))) }
        for i in 0..<side { pts.append(LonLat(lon: 1 - Double(i) / Double(side), lat: 1)) }
        for i in 0..<side { pts.append(LonLat(lon: 0, lat: 1 - Double(i) / Double(side))) }
        pts.append(pts[0])
        return pts
    }

    func edgeBoxes(_ ring: [LonLat]) -> [Box] {
        (0..<(ring.count - 1)).map { i in
            let a = ring[i], b = ring[i + 1]
            return Box(minX: min(a.lon, b.lon), minY: min(a.lat, b.lat), maxX: max(a.lon, b.lon), maxY: max(a.lat, b.lat))
        }
    }

    /// The work of finding the edge pairs to test grows linearly with the
    /// vertices of a densified outline (the x-sweep alone looked at n²/8
    /// pairs: 0.4 s at 10k vertices, 142 s at 160k).
    func testCollinearOutlinePairSearchIsLinear() {
        var perEdge = [Double]()
        for n in [10_000, 40_000, 160_000] {
            let boxes = edgeBoxes(densifiedOutline(n))
            var work = 0, pairs = 0
            BoxPairs.forEach(boxes, work: &work) { _, _ in pairs += 1; return true }
            XCTAssertEqual(pairs, n, "each edge meets its two neighbours only")
            perEdge.append(Double(work) / Double(n))
        }
        XCTAssertLessThan(perEdge.max()!, 16, "\(perEdge)")
        XCTAssertLessThan(perEdge[2], perEdge[0] * 1.5, "work per edge must not grow with n: \(perEdge)")
    }

    /// The x-sweep's own count of the pairs it would look at shows why the
    /// grid takes over for such outlines, and only for them.
    func testSweepFallsBackOnlyWhenItWouldBeQuadratic() {
        func sweepCount(_ ring: [LonLat]) -> Int {
            var edges = (0..<(ring.count - 1)).map { i in
                EdgeSweep.Edge(a: ring[i], b: ring[i + 1], ring: 0, index: i, ringEdges: ring.count - 1,
                               west: min(ring[i].lon, ring[i + 1].lon), east: max(ring[i].lon, ring[i + 1].lon))
            }
            edges.sort { ($0.west, $0.index) < ($1.west, $1.index) }
            return EdgeSweep.sweepPairs(edges)
        }
        let n = 40_000
        XCTAssertGreaterThan(sweepCount(densifiedOutline(n)), n * n / 16)
        let circle = (0...n).map { i -> LonLat in
            let t = Double(i % n) / Double(n) * 2 * .pi
            return LonLat(lon: cos(t), lat: sin(t))
        }
        XCTAssertLessThan(sweepCount(circle), 8 * n)
        XCTAssertNil(GeometryRepair.firstCrossing([circle]))
        XCTAssertNil(GeometryRepair.firstCrossing([densifiedOutline(n)]))
        // A crossing in a densified outline is still found.
        var bad = densifiedOutline(n)
        bad.insert(LonLat(lon: 0.5, lat: 1.5), at: n / 8)
        bad.insert(LonLat(lon: 0.6, lat: -0.5), at: n / 8 + 1)
        XCTAssertNotNil(GeometryRepair.firstCrossing([bad]))
    }

    /// A 40k-vertex densified outline with 5,000 holes, organised: the result
    /// is right, and every point-in-ring test reads a handful of edges.
    /// (Sizes kept down for debug builds; the counts above show the growth.)
    func testLargeOutlineWithManyHolesIsOrganised() {
        let outline = densifiedOutline(40_000)
        var holes = [[LonLat]]()
        for i in 0..<71 { for j in 0..<71 where holes.count < 5_000 {
            let x = 0.01 + Double(i) * 0.0138, y = 0.01 + Double(j) * 0.0138
            holes.append(Array(rect(x, y, x + 0.003, y + 0.003).reversed()))
        } }
        let (out, d) = repair(.polygon(Polygon(rings: [outline] + holes)))
        XCTAssertEqual(out?.polygons.count, 1)
        XCTAssertEqual(out?.polygons.first?.rings.count, 5_001)
        XCTAssertTrue(d.isEmpty, d.prefix(3).description)
        let index = RingIndex(outline)
        var examined = 0
        for h in holes { XCTAssertEqual(index.side(of: h[0], examined: &examined), .inside) }
        XCTAssertLessThan(Double(examined) / Double(holes.count), 64, "edges read per test")
    }

    /// 100,000 holes: the pairs of ring boxes to look at grow with the holes, not their square.
    func testManyHolesPairSearchIsLinear() {
        var boxes = [Box(minX: 0, minY: 0, maxX: 1, maxY: 1)]
        for i in 0..<317 { for j in 0..<317 where boxes.count <= 100_000 {
            let x = 0.001 + Double(i) * 0.00315, y = 0.001 + Double(j) * 0.00315
            boxes.append(Box(minX: x, minY: y, maxX: x + 0.002, maxY: y + 0.002))
        } }
        var work = 0, pairs = 0
        BoxPairs.forEach(boxes, work: &work) { i, _ in XCTAssertEqual(i, 0); pairs += 1; return true }
        XCTAssertEqual(pairs, 100_000)
        XCTAssertLessThan(work, 20 * boxes.count)
    }

    /// BoxPairs finds exactly the pairs a brute force finds, on boxes of very different sizes.
    func testBoxPairsMatchesBruteForce() {
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) }
        var boxes = [Box]()
        for k in 0..<3000 {
            let size = pow(10, -5 * next()) * (k % 100 == 0 ? 1 : 0.1)
            let x = next(), y = next()
            boxes.append(Box(minX: x, minY: y, maxX: x + size * next(), maxY: y + size * next()))
        }
        var fast = Set<Int>(), slow = Set<Int>()
        BoxPairs.forEach(boxes) { i, j in XCTAssertTrue(fast.insert(i * 3000 + j).inserted, "pair twice"); return true }
        BoxPairs.bruteForce(boxes) { i, j in slow.insert(i * 3000 + j); return true }
        XCTAssertEqual(fast, slow)
        XCTAssertGreaterThan(slow.count, 100)
    }
}
