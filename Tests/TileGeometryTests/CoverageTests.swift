import TestSupport
import TileGeometry
import VenueModel
import XCTest

/// Coverage against an independent computation: each tile's rectangle is
/// clipped against the polygon (Sutherland–Hodgman per triangle-free ring
/// clipping, areas summed with holes subtracted). Every tile with a positive
/// clipped area must be covered; no covered tile may be farther than the pad.
final class CoverageTests: XCTestCase {
    typealias SeededRandom = TestSupport.SeededRandom

    /// Area of `ring` inside `rect`, by the shared reference clipper.
    static func clippedArea(_ ring: [MercatorPoint], _ r: MercatorRect) -> Double {
        TestSupport.clippedArea(ring.map { (x: $0.x, y: $0.y) }, minX: r.minX, minY: r.minY, maxX: r.maxX, maxY: r.maxY)
    }

    func randomPolygon(_ rng: inout SeededRandom, centre: MercatorPoint, radius: Double) -> [[MercatorPoint]] {
        // A star-shaped (hence simple) ring with a concave outline, and maybe a hole near the centre.
        // Evenly spaced, jittered angles keep every gap under 90°, so the ring
        // contains the disk of radius 0.2·radius around the centre (where the hole goes).
        let n = Int.random(in: 6...24, using: &rng)
        let step = 2 * Double.pi / Double(n)
        let angles = (0..<n).map { Double($0) * step + Double.random(in: 0..<(step / 2), using: &rng) }
        var ext = angles.map { a -> MercatorPoint in
            let r = radius * Double.random(in: 0.3...1, using: &rng)
            return MercatorPoint(x: centre.x + r * cos(a), y: centre.y + r * sin(a))
        }
        ext.append(ext[0])
        var rings = [ext]
        if Bool.random(using: &rng) {
            let h = radius * 0.1
            rings.append([MercatorPoint(x: centre.x - h, y: centre.y - h), MercatorPoint(x: centre.x - h, y: centre.y + h),
                          MercatorPoint(x: centre.x + h, y: centre.y + h), MercatorPoint(x: centre.x + h, y: centre.y - h),
                          MercatorPoint(x: centre.x - h, y: centre.y - h)])
        }
        return rings
    }

    func testPolygonCoverageMatchesClippedArea() {
        var rng = SeededRandom(state: 42)
        let base = WebMercator.project(LonLat(lon: 10.0015, lat: 53.5405))
        for trial in 0..<150 {
            let zoom = [17, 19, 21, 23].randomElement(using: &rng)!
            let span = WebMercator.tileSpan(zoom: zoom)
            let centre = MercatorPoint(x: base.x + Double.random(in: 0...span, using: &rng),
                                       y: base.y + Double.random(in: 0...span, using: &rng))
            let rings = randomPolygon(&rng, centre: centre, radius: span * Double.random(in: 0.2...6, using: &rng))
            let pad = Double.random(in: 0...(span / 50), using: &rng)
            let covered = Set(TileCoverage.tiles(of: .polygons([rings]), zoom: zoom, pad: pad))
            var box = MercatorRect.empty
            rings[0].forEach { box.extend($0) }
            let range = TileRange(covering: box.expanded(by: span), zoom: zoom)
            for y in range.minY...range.maxY {
                for x in range.minX...range.maxX {
                    let t = TileID(z: zoom, x: x, y: y)
                    let area = CoverageTests.clippedArea(rings[0], t.bounds) - rings.dropFirst().reduce(0) { $0 + CoverageTests.clippedArea($1, t.bounds) }
                    if area > span * span * 1e-9 {
                        XCTAssertTrue(covered.contains(t), "trial \(trial): tile \(t) holds area \(area) but is not covered")
                    }
                    let grown = t.bounds.expanded(by: pad + span * 1e-9)
                    let grownArea = CoverageTests.clippedArea(rings[0], grown) - rings.dropFirst().reduce(0) { $0 + CoverageTests.clippedArea($1, grown) }
                    let touches = grownArea > 0 || rings.joined().contains { grown.contains($0) }
                        || zip(rings[0], rings[0].dropFirst()).contains { Planar.segment($0, $1, intersects: grown) }
                    if covered.contains(t) {
                        XCTAssertTrue(touches, "trial \(trial): tile \(t) is covered but the polygon does not reach it")
                    }
                }
            }
        }
    }

    func testLineCoverageFollowsTheLineNotItsBoundingBox() {
        let zoom = 20
        let span = WebMercator.tileSpan(zoom: zoom)
        let o = TileID(z: zoom, x: 553_419, y: 338_941).bounds
        // A diagonal across 10×10 tiles covers the diagonal band only.
        let a = MercatorPoint(x: o.minX + 0.5 * span, y: o.maxY - 0.5 * span)
        let b = MercatorPoint(x: o.minX + 9.7 * span, y: o.maxY - 9.2 * span)
        let tiles = TileCoverage.tiles(of: .lines([[a, b]]), zoom: zoom, pad: 0)
        XCTAssertLessThan(tiles.count, 25)
        XCTAssertGreaterThanOrEqual(tiles.count, 10)
        for t in tiles { XCTAssertTrue(Planar.segment(a, b, intersects: t.bounds)) }
    }

    func testPointCoverageWithPadReachesNeighbours() {
        let zoom = 22
        let t = TileID(z: zoom, x: 2_213_678, y: 1_355_766)
        let b = t.bounds
        let nearEdge = MercatorPoint(x: b.maxX - 0.01, y: (b.minY + b.maxY) / 2)
        XCTAssertEqual(TileCoverage.tiles(of: .points([nearEdge]), zoom: zoom, pad: 0), [t])
        XCTAssertEqual(TileCoverage.tiles(of: .points([nearEdge]), zoom: zoom, pad: 0.05),
                       [t, TileID(z: zoom, x: t.x + 1, y: t.y)])
    }

    func testTileRangeIsClosed() {
        let t = TileID(z: 18, x: 100, y: 200).bounds
        let r = TileRange(covering: t, zoom: 18)
        // A rectangle equal to a tile's closed extent touches its eight neighbours' edges too.
        XCTAssertEqual(r.minX, 99); XCTAssertEqual(r.maxX, 101)
        XCTAssertEqual(r.minY, 199); XCTAssertEqual(r.maxY, 201)
        let inner = TileRange(covering: t.expanded(by: -1e-3), zoom: 18)
        XCTAssertEqual(inner.count, 1)
    }
}
