import TestSupport
import TileGeometry
import XCTest

/// Clipping keeps area: the area of what `RectClipper` returns equals the area
/// of the polygon inside the rectangle computed independently (Sutherland–
/// Hodgman per ring, exterior minus holes), and the output is well-formed.
final class RectClipperTests: XCTestCase {
    typealias P = TileUnitPoint

    static func shArea(_ ring: [P], _ r: TileUnitRect) -> Double {
        clippedArea(ring.map { (x: $0.x, y: $0.y) }, minX: r.minX, minY: r.minY, maxX: r.maxX, maxY: r.maxY)
    }

    func star(_ rng: inout SeededRandom, cx: Double, cy: Double, radius: Double, n: Int) -> [P] {
        let step = 2 * Double.pi / Double(n)
        return (0..<n).map { i in
            let a = Double(i) * step + Double.random(in: 0..<(step / 2), using: &rng)
            let r = radius * Double.random(in: 0.35...1, using: &rng)
            return P(x: cx + r * cos(a), y: cy + r * sin(a))
        }
    }

    func testClippingKeepsArea() {
        var rng = SeededRandom(state: 7)
        let rect = TileUnitRect(extent: 4096, buffer: 80)
        for trial in 0..<400 {
            let cx = Double.random(in: -2000...6000, using: &rng), cy = Double.random(in: -2000...6000, using: &rng)
            let radius = Double.random(in: 100...5000, using: &rng)
            var rings = [star(&rng, cx: cx, cy: cy, radius: radius, n: Int.random(in: 3...40, using: &rng))]
            // Holes: small squares on a ring around the centre, inside the star's inner disk.
            let holes = Int.random(in: 0...6, using: &rng)
            for h in 0..<holes {
                let a = Double(h) / Double(max(holes, 1)) * 2 * Double.pi
                let hx = cx + radius * 0.2 * cos(a), hy = cy + radius * 0.2 * sin(a), s = radius * 0.04
                rings.append([P(x: hx - s, y: hy - s), P(x: hx + s, y: hy - s), P(x: hx + s, y: hy + s), P(x: hx - s, y: hy + s)])
            }
            if rings[0].count < 6 { rings = [rings[0]] }   // few vertices: the inner disk may be too small for holes
            let expected = RectClipperTests.shArea(rings[0], rect) - rings.dropFirst().reduce(0) { $0 + RectClipperTests.shArea($1, rect) }
            let out = RectClipper.clipPolygon(rings, to: rect)
            var got = 0.0
            for poly in out {
                XCTAssertGreaterThan(signedArea(poly[0]), 0, "trial \(trial): exterior not positive")
                for h in poly.dropFirst() { XCTAssertLessThan(signedArea(h), 0, "trial \(trial): hole not negative") }
                for ring in poly {
                    XCTAssertNotEqual(ring.first, ring.last, "rings are open")
                    for p in ring { XCTAssertTrue(p.x >= rect.minX && p.x <= rect.maxX && p.y >= rect.minY && p.y <= rect.maxY) }
                }
                got += poly.reduce(0) { $0 + signedArea($1) }
            }
            XCTAssertEqual(got, expected, accuracy: max(1e-6, expected * 1e-9), "trial \(trial)")
        }
    }

    func testConcaveShapeCutByTheEdgeBecomesSeparatePolygons() {
        // A U opening downwards whose legs cross the bottom edge: two pieces, no bridge along the edge.
        let u = [P(x: 100, y: 3000), P(x: 100, y: 5000), P(x: 300, y: 5000), P(x: 300, y: 3500),
                 P(x: 700, y: 3500), P(x: 700, y: 5000), P(x: 900, y: 5000), P(x: 900, y: 3000)]
        let rect = TileUnitRect(minX: 0, minY: 0, maxX: 4096, maxY: 4096)
        let out = RectClipper.clipPolygon([u], to: rect)
        XCTAssertEqual(out.count, 1)   // the bar of the U keeps the legs joined inside
        let cut = RectClipper.clipPolygon([u], to: TileUnitRect(minX: 0, minY: 3800, maxX: 4096, maxY: 4096))
        XCTAssertEqual(cut.count, 2)
        XCTAssertEqual(cut.reduce(0) { $0 + signedArea($1[0]) }, 2 * 200 * 296, accuracy: 1e-6)
    }

    func testPolygonWithHoleCrossingATileCorner() {
        // A big square around the tile's top-left corner with a hole that also straddles it.
        let ext = [P(x: -1000, y: -1000), P(x: 1000, y: -1000), P(x: 1000, y: 1000), P(x: -1000, y: 1000)]
        let hole = [P(x: -200, y: -200), P(x: -200, y: 300), P(x: 300, y: 300), P(x: 300, y: -200)]
        let rect = TileUnitRect(minX: 0, minY: 0, maxX: 4096, maxY: 4096)
        let out = RectClipper.clipPolygon([ext, hole], to: rect)
        XCTAssertEqual(out.count, 1)
        // The hole is cut open: it becomes a notch of the exterior, not a hole.
        XCTAssertEqual(out[0].count, 1)
        XCTAssertEqual(signedArea(out[0][0]), 1000 * 1000 - 300 * 300, accuracy: 1e-6)
    }

    func testRectangleInsidePolygonAndHoleAroundRectangle() {
        let rect = TileUnitRect(minX: 0, minY: 0, maxX: 10, maxY: 10)
        let big = [P(x: -100, y: -100), P(x: 100, y: -100), P(x: 100, y: 100), P(x: -100, y: 100)]
        let out = RectClipper.clipPolygon([big], to: rect)
        XCTAssertEqual(out.count, 1)
        XCTAssertEqual(signedArea(out[0][0]), 100, accuracy: 1e-9)
        let hole = [P(x: -50, y: -50), P(x: 50, y: -50), P(x: 50, y: 50), P(x: -50, y: 50)]
        XCTAssertTrue(RectClipper.clipPolygon([big, hole], to: rect).isEmpty)
        let far = [P(x: 200, y: 200), P(x: 300, y: 200), P(x: 300, y: 300)]
        XCTAssertTrue(RectClipper.clipPolygon([far], to: rect).isEmpty)
    }

    func testLineClipping() {
        let rect = TileUnitRect(minX: 0, minY: 0, maxX: 10, maxY: 10)
        // In, out, back in: two parts.
        let line = [P(x: -5, y: 5), P(x: 5, y: 5), P(x: 5, y: 20), P(x: 8, y: 20), P(x: 8, y: 2)]
        let parts = RectClipper.clipLine(line, to: rect)
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(parts[0], [P(x: 0, y: 5), P(x: 5, y: 5), P(x: 5, y: 10)])
        XCTAssertEqual(parts[1], [P(x: 8, y: 10), P(x: 8, y: 2)])
    }

    func testSimplifyKeepsEndpointsAndRespectsTolerance() {
        let wiggle = (0...100).map { P(x: Double($0), y: $0 % 2 == 0 ? 0 : 0.3) }
        XCTAssertEqual(Simplify.line(wiggle, tolerance: 0.5), [wiggle[0], wiggle[100]])
        XCTAssertEqual(Simplify.line(wiggle, tolerance: 0.1).count, wiggle.count)
        XCTAssertEqual(Simplify.line(wiggle, tolerance: 0), wiggle)
    }

    func testValidityDetectsCrossingsAndPinches() {
        func c(_ pts: [(Int32, Int32)]) -> [TileCoord] { pts.map { TileCoord(x: $0.0, y: $0.1) } }
        XCTAssertTrue(PolygonValidity.isSimple([c([(0, 0), (10, 0), (10, 10), (0, 10)])]))
        XCTAssertFalse(PolygonValidity.isSimple([c([(0, 0), (10, 10), (10, 0), (0, 10)])]))        // bow tie
        XCTAssertFalse(PolygonValidity.isSimple([c([(0, 0), (10, 0), (5, 5), (10, 10), (0, 10), (5, 5)])]))  // pinched
        XCTAssertFalse(PolygonValidity.isSimple([c([(0, 0), (10, 0), (10, 10), (0, 10)]), c([(5, 5), (15, 5), (15, 6), (5, 6)])]))  // hole crosses
        XCTAssertTrue(PolygonValidity.isSimple([c([(0, 0), (10, 0), (10, 10), (0, 10)]), c([(0, 5), (5, 6), (5, 4)])]))   // hole touches at a point
    }
}
