import VectorTiles
import TestSupport
import TileGeometry
import VenueModel
import XCTest

final class VectorTileGeometryTests: XCTestCase {
    let tile = TileID(z: 23, x: 4_425_550, y: 2_709_180)

    func mercator(_ t: TileID, _ x: Double, _ y: Double, extent: Double = 4096) -> MercatorPoint {
        TileTransform(tile: t, extent: Int(extent)).invert(TileUnitPoint(x: x, y: y))
    }

    func polygon(_ t: TileID, _ pts: [(Double, Double)]) -> [MercatorPoint] {
        let r = pts.map { mercator(t, $0.0, $0.1) }
        return r + [r[0]]
    }

    func testZ23CoordinatesComeBackWithinOneUnit() throws {
        // A room with sub-metre detail at z23, where one unit is about 1.2 mm.
        var rng = SeededRandom(state: 3)
        let pts = (0..<50).map { i -> (Double, Double) in
            let a = Double(i) / 50 * 2 * Double.pi
            let r = 1500 + Double(rng.next() % 500)
            return (2048 + r * cos(a), 2048 - r * sin(a))
        }
        let ring = polygon(tile, pts)
        let r = VectorTileGeometry(extent: 4096, buffer: 80, tolerance: 0).make(.polygons([[ring]]), tile: tile)
        guard case .polygons(let rings) = r.geometry else { return XCTFail("no polygon") }
        XCTAssertEqual(rings.count, 1)
        let t = TileTransform(tile: tile, extent: 4096)
        for q in rings[0] {
            let back = t.invert(TileUnitPoint(x: Double(q.x), y: Double(q.y)))
            let nearest = ring.map { hypot($0.x - back.x, $0.y - back.y) }.min()!
            XCTAssertLessThanOrEqual(nearest, t.unitSize * 0.71)   // half a unit diagonally
        }
        XCTAssertEqual(rings[0].count, 50)   // no vertex lost at full precision
        XCTAssertGreaterThan(signedArea(rings[0]), 0)
    }

    func testUnitExactlyOnATileEdge() throws {
        // A room whose west edge is the tile's east edge: with the buffer it is in both tiles'
        // data, and in the west tile it lies entirely in the buffer.
        let east = TileID(z: tile.z, x: tile.x + 1, y: tile.y)
        let ring = polygon(east, [(0, 1000), (0, 2000), (1000, 2000), (1000, 1000)])
        let g = VectorTileGeometry(extent: 4096, buffer: 80, tolerance: 0)
        guard case .polygons(let inEast) = g.make(.polygons([[ring]]), tile: east).geometry else { return XCTFail() }
        XCTAssertEqual(Set(inEast[0].map(\.x)), [0, 1000])
        guard case .polygons(let inWest) = g.make(.polygons([[ring]]), tile: tile).geometry else { return XCTFail() }
        XCTAssertEqual(Set(inWest[0].map(\.x)), [4096, 4176])
        XCTAssertGreaterThan(signedArea(inWest[0]), 0)
        // Without a buffer it only touches the west tile: nothing of it is left there.
        XCTAssertNil(VectorTileGeometry(extent: 4096, buffer: 0, tolerance: 0).make(.polygons([[ring]]), tile: tile).geometry)
    }

    func testMultiPolygonKeepsAllParts() {
        let a = polygon(tile, [(100, 100), (100, 500), (500, 500), (500, 100)])
        let b = polygon(tile, [(3000, 3000), (3000, 3500), (3500, 3500), (3500, 3000)])
        let outside = polygon(tile, [(9000, 9000), (9000, 9500), (9500, 9500), (9500, 9000)])
        let r = VectorTileGeometry().make(.polygons([[a], [b], [outside]]), tile: tile)
        guard case .polygons(let rings) = r.geometry else { return XCTFail() }
        XCTAssertEqual(rings.count, 2)
        XCTAssertTrue(rings.allSatisfy { signedArea($0) > 0 })
    }

    func testInputWindingDoesNotMatter() {
        // IMDF rings are counter-clockwise in lon/lat; after the y flip they are clockwise on screen.
        let cw = polygon(tile, [(100, 100), (500, 100), (500, 500), (100, 500)])
        let ccw = Array(cw.reversed())
        let hole = polygon(tile, [(200, 200), (300, 200), (300, 300), (200, 300)])
        for ext in [cw, ccw] {
            for h in [hole, Array(hole.reversed())] {
                guard case .polygons(let rings) = VectorTileGeometry().make(.polygons([[ext, h]]), tile: tile).geometry else { return XCTFail() }
                XCTAssertEqual(rings.count, 2)
                XCTAssertEqual(signedArea(rings[0]), 160_000)
                XCTAssertEqual(signedArea(rings[1]), -10_000)
            }
        }
    }

    func testCollapsedSliverIsDroppedNotWritten() {
        let sliver = polygon(tile, [(100, 100), (100.2, 100.1), (900, 100.3)])
        XCTAssertNil(VectorTileGeometry().make(.polygons([[sliver]]), tile: tile).geometry)
    }

    func testPinchedRingIsSplit() {
        // Two squares touching at one corner after rounding: a figure eight becomes two rings.
        let eight = polygon(tile, [(0, 0), (100, 0), (100, 100), (200.2, 100.2), (200, 200), (100, 200), (99.8, 99.9), (0, 100)])
        let r = VectorTileGeometry().make(.polygons([[eight]]), tile: tile)
        guard case .polygons(let rings) = r.geometry else { return XCTFail("dropped") }
        XCTAssertEqual(r.invalidDropped, 0)
        XCTAssertEqual(rings.count, 2)
        XCTAssertTrue(rings.allSatisfy { signedArea($0) > 0 && PolygonValidity.isSimple([$0]) })
    }
}
