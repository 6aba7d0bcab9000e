import Foundation
import Styling
import XCTest
@testable import Clients

final class FloorsIndexTests: XCTestCase {
    func testFloorsInDisplayOrderWithTilesetsAndLegend() throws {
        let data = try FloorsIndex.make(StyleTests.venue(), style: .builtIn)
        let doc = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        XCTAssertEqual((doc["venue"] as? [String: String])?["name"], "Harbour <Arcade>")
        XCTAssertEqual(doc["default_floor"] as? String, "floor_0")
        XCTAssertEqual(doc["bounds"] as? [Double], [-0.01, 51.0, 0.01, 51.01])
        let floors = doc["floors"] as! [[String: Any]]
        XCTAssertEqual(floors.map { $0["id"] as! String }, ["floor_1", "floor_0", "floor_m1"])
        XCTAssertEqual(floors.map { $0["level"] as! String }, ["1", "0", "-1"])
        XCTAssertEqual(floors.map { $0["short_name"] as! String }, ["1", "G", "B1"])
        XCTAssertEqual(floors.map { $0["name"] as! String }, ["1", "Ground", "Basement"])
        let g = floors[1]
        XCTAssertEqual(g["style"] as? String, "floor_0/style.json")
        let ts = g["tilesets"] as! [[String: Any]]
        XCTAssertEqual(ts.map { $0["tiles"] as! String }, ["floor_0/png/{z}/{x}/{y}.png", "floor_0/png@2x/{z}/{x}/{y}.png", "floor_0/mvt/{z}/{x}/{y}.pbf"])
        XCTAssertEqual(ts.map { $0["tilejson"] as! String }, ["floor_0/png/tilejson.json", "floor_0/png@2x/tilejson.json", "floor_0/mvt/tilejson.json"])
        let all = doc["all_floors"] as! [String: Any]
        XCTAssertEqual(all["style"] as? String, "style.json")

        let legend = doc["legend"] as! [[String: Any]]
        XCTAssertEqual(legend.map { $0["layer_id"] as! String }, LayerTable.drawingOrder)
        let rooms = legend.first { $0["layer_id"] as? String == "floor_rooms_[FLOOR]" }!
        XCTAssertEqual(rooms["name"] as? String, "Rooms")
        XCTAssertEqual(rooms["fill_color"] as? String, "#F6EBDA")
        XCTAssertEqual(rooms["outline_color"] as? String, "#CDB089")
        XCTAssertEqual(rooms["hidden"] as? Bool, false)
        XCTAssertEqual(legend.first { $0["layer_id"] as? String == "floor_restrooms_[FLOOR]" }?["name"] as? String, "Restrooms")
        XCTAssertEqual(legend.first { $0["layer_id"] as? String == "venue" }?["hidden"] as? Bool, true)
        XCTAssertEqual(legend.first { $0["layer_id"] as? String == "floor_icons_[FLOOR]" }?["icon"] as? String, "{category}")
        // Small: a few kilobytes whatever the number of tiles.
        XCTAssertLessThan(data.count, 16_000)
    }

    func testAbsoluteURLsWithABaseURL() throws {
        let doc = try JSONSerialization.jsonObject(with: FloorsIndex.make(StyleTests.venue(base: "https://cdn.example.com"), style: .builtIn)) as! [String: Any]
        XCTAssertEqual(doc["glyphs"] as? String, "https://cdn.example.com/harbour/glyphs/{fontstack}/{range}.pbf")
        let f = (doc["floors"] as! [[String: Any]])[0]
        XCTAssertEqual(f["style"] as? String, "https://cdn.example.com/harbour/floor_1/style.json")
    }

    func testPreviewPageEscapesAndInlinesRelativeStyles() throws {
        let html = String(decoding: try PreviewPage.html(StyleTests.venue(base: "https://cdn.example.com"), style: .builtIn), as: UTF8.self)
        XCTAssertTrue(html.contains("<title>Harbour &lt;Arcade&gt; — VenueTiles preview</title>"))
        XCTAssertFalse(html.contains("__VENUETILES_"))
        XCTAssertFalse(html.contains("cdn.example.com"), "the page loads what is beside it")
        XCTAssertTrue(html.contains(#""floor_0":"floor_0/png/{z}/{x}/{y}.png""#))
        XCTAssertTrue(html.contains(#"<script src="maplibre-gl/maplibre-gl.js"></script>"#))
        let vendored = try PreviewPage.vendored()
        XCTAssertEqual(vendored.map(\.name), PreviewPage.vendoredFiles)
        XCTAssertTrue(String(decoding: vendored[0].data.prefix(200), as: UTF8.self).contains("MapLibre GL JS"))
    }
}

final class LayerDescriptionTests: XCTestCase {
    func testVectorLayerDescriptions() {
        XCTAssertEqual(FloorsIndex.layerDescription("floor_rooms_floor_0"), "Rooms")
        XCTAssertEqual(FloorsIndex.layerDescription("floor_rooms_floor_m1"), "Rooms")
        XCTAssertEqual(FloorsIndex.layerDescription("floor_other_rooms_floor_0"), "Other rooms")
        XCTAssertEqual(FloorsIndex.layerDescription("floor_rooms"), "Rooms, every floor: filter on level (\"0\", \"0;1\"), ordinal or level_id")
        XCTAssertEqual(FloorsIndex.layerDescription("building_outlines_b-1"), "Buildings")
        XCTAssertEqual(FloorsIndex.layerDescription("venue"), "Venue")
        XCTAssertEqual(FloorsIndex.layerDescription("floor_labels"), "Labels: one point per named unit (name, name:<lang>)")
        XCTAssertNil(FloorsIndex.layerDescription("something_else"))
        XCTAssertTrue(FloorsIndex.layerDescription("outdoors")?.hasPrefix("Outdoors") == true)
        XCTAssertTrue(FloorsIndex.layerDescription("building_labels")?.hasPrefix("Building labels: one point") == true)
    }
}
