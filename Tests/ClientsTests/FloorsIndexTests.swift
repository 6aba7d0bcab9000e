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

    /// `"floors": ["ordinal", "building"]`: the building floors follow the
    /// ordinal ones, grouped by building, with their building's ids, name and
    /// the filter that shows them in the venue-wide vector tiles.
    func testBuildingFloorsWithTheirBuildings() throws {
        var v = StyleTests.venue()
        let hall = ClientVenue.Building(id: "building_1", sourceID: "b-hall", name: "North Hall")
        let pavilion = ClientVenue.Building(id: "building_2", sourceID: "b-pavilion", name: nil)
        v.floors += [.init(id: "floor_b1_m1", ordinal: -1, shortName: "B1", name: nil, building: hall),
                     .init(id: "floor_b1_0", ordinal: 0, shortName: "G", name: nil, building: hall),
                     .init(id: "floor_b2_0", ordinal: 0, shortName: "G", name: nil, building: pavilion)]
        let doc = try JSONSerialization.jsonObject(with: FloorsIndex.make(v, style: .builtIn)) as! [String: Any]
        XCTAssertEqual(doc["default_floor"] as? String, "floor_0", "an ordinal floor when there are any")
        let floors = doc["floors"] as! [[String: Any]]
        XCTAssertEqual(floors.map { $0["id"] as! String }, ["floor_1", "floor_0", "floor_m1", "floor_b1_0", "floor_b1_m1", "floor_b2_0"])
        XCTAssertEqual(floors.map { $0["building"] as? String }, [nil, nil, nil, "building_1", "building_1", "building_2"])
        XCTAssertEqual(floors.map { $0["building_id"] as? String }, [nil, nil, nil, "b-hall", "b-hall", "b-pavilion"])
        XCTAssertEqual(floors[3]["building_name"] as? String, "North Hall")
        XCTAssertEqual(floors[5]["ordinal"] as? Int, 0)
        XCTAssertEqual(floors[5]["style"] as? String, "floor_b2_0/style.json", "its own raster pyramid")
        XCTAssertEqual((floors[5]["tilesets"] as! [[String: Any]]).first?["tiles"] as? String, "floor_b2_0/png/{z}/{x}/{y}.png")
        // Its vector filter: level 0 of that building (and what belongs to no building).
        let filter = "\(floors[5]["filter"]!)"
        XCTAssertTrue(filter.contains(";0;") && filter.contains("b-pavilion") && filter.contains("building_id"), filter)
        XCTAssertNil(floors[1]["filter"], "an ordinal floor's filter is its level, as before")
        let buildings = try XCTUnwrap(doc["buildings"] as? [[String: Any]])
        XCTAssertEqual(buildings.map { $0["id"] as! String }, ["building_1", "building_2"])
        XCTAssertEqual(buildings[0]["floors"] as? [String], ["floor_b1_0", "floor_b1_m1"])
        XCTAssertEqual(buildings[0]["name"] as? String, "North Hall")
        XCTAssertEqual(buildings[1]["building_id"] as? String, "b-pavilion")
        // Ordinal floors alone: no buildings, no building fields.
        let plain = try JSONSerialization.jsonObject(with: FloorsIndex.make(StyleTests.venue(), style: .builtIn)) as! [String: Any]
        XCTAssertNil(plain["buildings"])
        // Building floors alone: the default is a building floor; the page gets a raster source per building floor.
        v.floors.removeFirst(3)
        XCTAssertEqual(v.defaultFloor?.id, "floor_b1_0")
        let html = String(decoding: try PreviewPage.html(v, style: .builtIn), as: UTF8.self)
        XCTAssertTrue(html.contains(#""floor_b2_0":"floor_b2_0/png/{z}/{x}/{y}.png""#))
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
