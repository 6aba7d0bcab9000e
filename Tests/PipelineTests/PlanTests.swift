import Foundation
import Pipeline
import Styling
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

final class PlanTests: XCTestCase {
    static var fixture: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade").path
    }

    func prepared() throws -> PreparedVenue {
        var r = IMDFReader()
        return Prepare.run(sourceID: "h", venue: try r.read(path: Self.fixture), style: Style.builtIn)
    }

    func testPrepareOrdersItemsByLayerAndDropsHiddenLayers() throws {
        let v = try prepared()
        XCTAssertEqual(v.floors.map(\.id), ["floor_m1", "floor_0", "floor_1"])
        let ground = v.floors[1]
        // The level outlines come first (floor_outlines is the lowest drawn layer in the default style).
        XCTAssertEqual(ground.items.count, ground.featureIDs.count)
        let outlineIDs = Set(ground.floor.levels.map(\.id))
        XCTAssertTrue(outlineIDs.contains(ground.featureIDs[0]))
        XCTAssertTrue(outlineIDs.contains(ground.featureIDs[1]))
        // The venue polygon and footprints are hidden by the default style; anchors and sections never draw.
        XCTAssertFalse(ground.featureIDs.contains(v.venue.id))
        let anchorIDs = Set(v.venue.features.filter { $0.featureClass == .anchor || $0.featureClass == .building }.map(\.id))
        XCTAssertTrue(anchorIDs.isDisjoint(with: ground.featureIDs))
    }

    func testPlanListsEachTilesItemsOnceInDrawingOrder() throws {
        let v = try prepared()
        for floor in v.floors {
            for z in [17, 20, 23] {
                let p = Plan.run(floor: floor, zoom: z)
                XCTAssertEqual(Array(p.tiles), p.tiles.sorted())
                XCTAssertEqual(Set(p.tiles).count, p.tiles.count)
                for items in p.items {
                    XCTAssertFalse(items.isEmpty)
                    XCTAssertEqual(Array(items), items.sorted(), "items out of drawing order")
                    XCTAssertEqual(Set(items).count, items.count, "an item listed twice (MultiPolygon parts)")
                }
            }
        }
        // Coverage grows about fourfold per zoom once tiles are small compared to the venue.
        let f = v.floors[1]
        let n22 = Plan.run(floor: f, zoom: 22).tiles.count, n23 = Plan.run(floor: f, zoom: 23).tiles.count
        XCTAssertGreaterThan(Double(n23) / Double(n22), 3)
        XCTAssertLessThan(Double(n23) / Double(n22), 5)
    }
}
