import Foundation
import Styling
import XCTest

final class StyleTests: XCTestCase {
    func testColours() {
        XCTAssertEqual(Color(hex: "#abc"), Color(r: 0xAA, g: 0xBB, b: 0xCC))
        XCTAssertEqual(Color(hex: "#FBE5C4"), Color(r: 0xFB, g: 0xE5, b: 0xC4))
        XCTAssertEqual(Color(hex: "#FBE5C480"), Color(r: 0xFB, g: 0xE5, b: 0xC4, a: 0x80))
        XCTAssertNil(Color(hex: "FBE5C4"))
        XCTAssertNil(Color(hex: "#GGGGGG"))
        XCTAssertNil(Color(hex: "#12345"))
    }

    func testBuiltInStyleParsesWithoutWarnings() {
        let s = Style.builtIn
        XCTAssertEqual(s.warnings, [])
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.fillColor, Color(hex: "#FBE5C4"))
        XCTAssertEqual(s.resolve("venue")?.hidden, true)
    }

    func testExactLayerWinsOverWildcard() throws {
        let doc = """
        {"id": "t", "version": "1.1", "styles": [
          {"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#111111"},
          {"layer-id": "floor_rooms_floor_b1", "fill-color": "#222222"},
          {"layer-id": "floor_rooms_[FLOOR]", "bogus": 1},
          {"layer-id": "no_such_layer", "hidden": true}
        ]}
        """
        let s = try Style.parse(Data(doc.utf8), source: "t.json")
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_b1")?.fillColor, Color(hex: "#222222"))
        XCTAssertNil(s.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.fillColor)   // later wildcard entry replaced the first
        XCTAssertEqual(s.warnings.count, 2)
        XCTAssertTrue(s.warnings.contains { $0.contains("bogus") })
        XCTAssertTrue(s.warnings.contains { $0.contains("no_such_layer") })
    }

    func testErrorsNameEntryAndProperty() {
        let doc = #"{"id": "t", "styles": [{"layer-id": "venue"}, {"layer-id": "floor_rooms_[FLOOR]", "fill-color": "red"}]}"#
        XCTAssertThrowsError(try Style.parse(Data(doc.utf8), source: "s.json")) { e in
            let d = "\(e)"
            XCTAssertTrue(d.contains("styles[1]") && d.contains("fill-color") && d.contains("s.json"), d)
        }
        XCTAssertThrowsError(try Style.parse(Data(#"{"styles": []}"#.utf8), source: "s.json")) { e in
            XCTAssertTrue("\(e)".contains("\"id\""), "\(e)")
        }
    }

    func testEveryDrawnClassHasALayer() {
        for c in [VenueModelClass.room, .walkway, .restroom, .elevator, .stairs, .nonPublic, .openToBelow, .otherRoom,
                  .levelOutline, .fixture, .opening, .amenity, .water] {
            let t = LayerTable.template(for: c)
            XCTAssertNotNil(t, "\(c)")
            XCTAssertLessThan(LayerTable.drawIndex(of: t!), LayerTable.drawingOrder.count)
        }
        XCTAssertLessThan(LayerTable.drawIndex(of: "floor_outlines_[FLOOR]"), LayerTable.drawIndex(of: "floor_rooms_[FLOOR]"))
        XCTAssertEqual(LayerTable.layerID("floor_rooms_[FLOOR]", floor: "floor_b1"), "floor_rooms_floor_b1")
    }
}

import VenueModel
typealias VenueModelClass = FeatureClass
