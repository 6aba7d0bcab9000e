@testable import Pipeline
import TileGeometry
import XCTest

/// `PlannedTiles` keeps a plan's tiles as words: every tile at every zoom a
/// build plans reads back as it was given, in order, and the words sort as
/// the tiles do (plans are sorted and merged by tile).
final class PlannedTilesTests: XCTestCase {
    func testTilesReadBackAsGivenAtEveryZoom() {
        var g = SplitMix(seed: 42)
        for z in [0, 1, 17, 20, 23, 30] {
            let n = 1 << z
            let tiles = (0..<200).map { _ in TileID(z: z, x: Int(g.next() % UInt64(n)), y: Int(g.next() % UInt64(n))) }
                + [TileID(z: z, x: 0, y: 0), TileID(z: z, x: n - 1, y: n - 1), TileID(z: z, x: 0, y: n - 1)]
            let planned = PlannedTiles(zoom: z, tiles)
            XCTAssertEqual(Array(planned), tiles, "zoom \(z)")
            XCTAssertEqual(planned.zoom, z)
            let sorted = PlannedTiles(zoom: z, tiles.sorted())
            XCTAssertEqual(Array(sorted), Array(planned).sorted(), "the words sort as the tiles do at zoom \(z)")
            let keep = [2, 0, 199, 201]
            XCTAssertEqual(Array(planned.selecting(keep)), keep.map { tiles[$0] })
        }
    }

    func testPlansCompareByTheirTiles() {
        let a = PlannedTiles(zoom: 20, [TileID(z: 20, x: 5, y: 6), TileID(z: 20, x: 5, y: 7)])
        XCTAssertEqual(a, PlannedTiles(zoom: 20, [TileID(z: 20, x: 5, y: 6), TileID(z: 20, x: 5, y: 7)]))
        XCTAssertNotEqual(a, PlannedTiles(zoom: 20, [TileID(z: 20, x: 5, y: 6)]))
        XCTAssertNotEqual(a, PlannedTiles(zoom: 20, [TileID(z: 20, x: 6, y: 5), TileID(z: 20, x: 5, y: 7)]))
        XCTAssertEqual(FloorZoomPlan(zoom: 20, tiles: Array(a), items: TileItemLists()).tiles, a)
    }
}
