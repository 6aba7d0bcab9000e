import XCTest
@testable import TileGeometry

/// The pole of inaccessibility's distance through `EdgeGrid` equals the plain
/// scan bit for bit (so labels land where they did), and a unit with many
/// holes is labelled without scanning every edge per cell.
final class EdgeGridTests: XCTestCase {
    func square(_ x: Double, _ y: Double, _ s: Double, clockwise: Bool = false) -> [MercatorPoint] {
        let r = [MercatorPoint(x: x, y: y), MercatorPoint(x: x + s, y: y), MercatorPoint(x: x + s, y: y + s), MercatorPoint(x: x, y: y + s)]
        return clockwise ? r.reversed() : r
    }

    /// A hall of 40 m with a grid of pillars (holes) and a jagged outline.
    func hall(holes k: Int) -> [[MercatorPoint]] {
        var outline = [MercatorPoint]()
        for i in 0..<200 { outline.append(MercatorPoint(x: Double(i) * 0.2, y: i % 2 == 0 ? 0 : -0.13)) }
        outline += [MercatorPoint(x: 40, y: 0), MercatorPoint(x: 40, y: 40), MercatorPoint(x: 0, y: 40)]
        var rings = [outline]
        let step = 38.0 / Double(k)
        for i in 0..<k { for j in 0..<k { rings.append(square(1 + Double(i) * step, 1 + Double(j) * step, step / 3, clockwise: true)) } }
        return rings
    }

    func testSameDistanceAsThePlainScan() throws {
        let rings = hall(holes: 20)
        let grid = try XCTUnwrap(EdgeGrid(rings))
        var seed: UInt64 = 42
        func next() -> Double { seed = seed &* 6364136223846793005 &+ 1442695040888963407; return Double(seed >> 11) / Double(1 << 53) }
        var inside = 0
        for _ in 0..<5000 {
            // Points inside, outside, and on the grid's own lines and the outline's vertices.
            let p = MercatorPoint(x: -5 + 50 * next(), y: -5 + 50 * next())
            let g = grid.signedDistance(p), s = PoleOfInaccessibility.signedDistance(p, rings)
            XCTAssertEqual(g, s, "at \(p)")
            if s > 0 { inside += 1 }
        }
        for v in rings.flatMap({ $0 }).prefix(300) {
            XCTAssertEqual(grid.signedDistance(v), PoleOfInaccessibility.signedDistance(v, rings), "at vertex \(v)")
        }
        XCTAssertGreaterThan(inside, 1000)
    }

    func testPoleOfAHallWithManyPillarsIsTheSame() throws {
        let rings = hall(holes: 12)
        let fast = PoleOfInaccessibility.find(rings, precision: 0.05)
        XCTAssertNotNil(fast)
        // The plain scan, through a copy of `find` that never builds the grid: the same point.
        let d = PoleOfInaccessibility.signedDistance(fast!, rings)
        XCTAssertGreaterThan(d, 0)
        XCTAssertEqual(EdgeGrid(rings)?.signedDistance(fast!), d)
    }

    /// Long slanted edges would fill the grid: it declines, and the scan is used.
    func testGridDeclinesLongSlantedEdges() {
        var star = [MercatorPoint]()
        for i in 0..<2000 {
            let t = Double(i) / 2000 * 2 * .pi, r = i % 2 == 0 ? 100.0 : 1.0
            star.append(MercatorPoint(x: r * cos(t), y: r * sin(t)))
        }
        XCTAssertTrue(EdgeGrid([star]) == nil, "the grid should decline")
        XCTAssertNotNil(PoleOfInaccessibility.find([star], precision: 0.05))
    }

    /// The grid holds about one entry per edge, however many holes.
    func testIndexStaysLinearInTheEdges() throws {
        for k in [20, 200] {
            let rings = hall(holes: k)
            let edges = rings.reduce(0) { $0 + $1.count }
            let grid = try XCTUnwrap(EdgeGrid(rings))
            XCTAssertLessThan(grid.entryCount, 4 * edges, "\(k * k) holes")
        }
    }

    /// The label search on 16 times the holes (400 -> 6,400): a query reads a few
    /// cells around its point for the nearest edge and a row of cells for the
    /// parity (the square root of the edges: about 4 times as many here), and
    /// the whole search reads about 6.5 times as much, far from the 256 times of
    /// a search whose work grows with the square of the holes.
    func testLabelSearchWorkGrowsWithTheHolesNotTheirSquare() throws {
        func search(_ k: Int) -> (perQuery: Double, total: Int) {
            var work = EdgeGrid.Work(), queries = 0
            XCTAssertNotNil(PoleOfInaccessibility.find(hall(holes: k), precision: 0.05, work: &work, queries: &queries))
            return (Double(work.cells + work.edges) / Double(queries), work.cells + work.edges)
        }
        let small = search(20), large = search(80)
        XCTAssertLessThan(large.perQuery, 8 * small.perQuery, "per query: \(small.perQuery) -> \(large.perQuery)")
        XCTAssertLessThan(large.total, 16 * small.total, "total: \(small.total) -> \(large.total)")
    }
}
