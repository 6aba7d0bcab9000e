import Foundation
import Rendering
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
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.fillColor, Color(hex: "#F6EBDA"))
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.categoryFill("foodservice"), Color(hex: "#F9D2C0"))
        XCTAssertEqual(s.resolve("venue")?.hidden, true)
    }

    func testExactLayerWinsOverWildcard() throws {
        let doc = """
        {"id": "t", "version": "1.1", "styles": [
          {"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#111111"},
          {"layer-id": "floor_rooms_floor_m1", "fill-color": "#222222"},
          {"layer-id": "floor_rooms_[FLOOR]", "bogus": 1},
          {"layer-id": "no_such_layer", "hidden": true}
        ]}
        """
        let s = try Style.parse(Data(doc.utf8), source: "t.json")
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_m1")?.fillColor, Color(hex: "#222222"))
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

    func testBuiltInStyleIsTheJSONFileInTheRepo() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/Styling/Resources/default-style.json")
        XCTAssertEqual(Style.defaultJSON, try String(contentsOf: file, encoding: .utf8))
        XCTAssertEqual(Style.builtIn.resolve("floor_icons_[FLOOR]", floor: "floor_0")?.iconName, "{category}")
    }

    func testHiddenVersionAndSmallNumbers() throws {
        let doc = """
        {"id": "t", "version": "1.0", "styles": [
          {"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#111111", "hidden": true},
          {"layer-id": "floor_labels_[FLOOR]", "font-size": 1, "font-stroke-width": 0, "max-text-width": 1}
        ]}
        """
        let s = try Style.parse(Data(doc.utf8), source: "t.json")
        XCTAssertEqual(s.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.drawsNothing, true)
        XCTAssertEqual(s.resolve("floor_labels_[FLOOR]", floor: "floor_0")?.fontSize, 1, "JSON 1 is a number, not true")
        XCTAssertEqual(s.resolve("floor_labels_[FLOOR]", floor: "floor_0")?.fontStrokeWidth, 0)
        XCTAssertThrowsError(try Style.parse(Data(#"{"id": "t", "version": "2.0", "styles": []}"#.utf8), source: "v.json")) { e in
            XCTAssertTrue("\(e)".contains("version"), "\(e)")
        }
        XCTAssertThrowsError(try Style.parse(Data(#"{"id": "t", "styles": [{"layer-id": "venue", "hidden": 1}]}"#.utf8), source: "h.json")) { e in
            XCTAssertTrue("\(e)".contains("hidden"), "\(e)")
        }
    }

    func testSpriteIndexAndCategoryLookup() throws {
        let one = Sprite.builtIn(pixelRatio: 1), two = Sprite.builtIn(pixelRatio: 2)
        XCTAssertEqual(one.images.keys.sorted(), two.images.keys.sorted())
        let r1 = try XCTUnwrap(one.image(forCategory: "restroom.female"))
        XCTAssertEqual(r1.name, "restroom.female")
        XCTAssertEqual(one.image(forCategory: "information.mufid.departures")?.name, "information.mufid")
        XCTAssertEqual(one.image(forCategory: "elevator.freight")?.name, "elevator")
        XCTAssertNil(one.image(forCategory: "helipad"))
        XCTAssertEqual(one.iconName("{category}", category: "atm")?.name, "atm")
        XCTAssertEqual(one.iconName("poi", category: "anything")?.name, "poi")
        XCTAssertNil(one.iconName("no-such-icon", category: "atm"))
        let a = one.images["atm"]!, b = two.images["atm"]!
        XCTAssertEqual(a.logicalWidth, b.logicalWidth)
        XCTAssertEqual(b.width, 2 * a.width)
        XCTAssertThrowsError(try Sprite.parse(index: Data(#"{"x": {"x": 0, "y": 0, "width": -1, "height": 4}}"#.utf8),
                                              png: one.png, pixelRatio: 1, source: "s")) { e in
            XCTAssertTrue("\(e)".contains("s.json") && "\(e)".contains("width"), "\(e)")
        }
        XCTAssertThrowsError(try Sprite.parse(index: Data("{}".utf8), png: Data("GIF89a".utf8), pixelRatio: 1, source: "s")) { e in
            XCTAssertTrue("\(e)".contains("not a PNG"), "\(e)")
        }
    }

    /// Found by FuzzSprite (Tests/FuzzCorpus/FuzzSprite/huge-image.sprite): an image of
    /// width Int.max trapped converting to Int32 when cut out of the sheet.
    func testSpriteImagesOutsideTheSheetOrPastAnyBoundAreErrors() throws {
        let png = Sprite.builtIn(pixelRatio: 1).png
        for (index, property) in [(#"{"a": {"x": 0, "y": 0, "width": 9223372036854775807, "height": 1}}"#, "width"),
                                  (#"{"a": {"x": 1e300, "y": 0, "width": 1, "height": 1}}"#, "x"),
                                  (#"{"a": {"x": 0, "y": 0, "width": 4, "height": 4, "pixelRatio": 1e20}}"#, "pixelRatio")] {
            XCTAssertThrowsError(try Sprite.parse(index: Data(index.utf8), png: png, pixelRatio: 1, source: "s")) { e in
                XCTAssertTrue("\(e)".contains("s.json") && "\(e)".contains(property) && "\(e)".contains("up to 1,000,000"), "\(e)")
            }
        }
        XCTAssertThrowsError(try Sprite.parse(index: Data(#"{"a": {"x": 0, "y": 0, "width": 100000, "height": 4}}"#.utf8), png: png, pixelRatio: 1, source: "s")) { e in
            XCTAssertTrue("\(e)".contains("reaches outside the"), "\(e)")
        }
        XCTAssertThrowsError(try ImageSurface(width: Int.max, height: 1))
        XCTAssertThrowsError(try ImageSurface(width: 1, height: -5))
    }

    func testEveryDrawnClassHasALayer() {
        for c in [VenueModelClass.room, .walkway, .restroom, .elevator, .stairs, .nonPublic, .openToBelow, .otherRoom,
                  .levelOutline, .fixture, .opening, .amenity, .water, .wall] {
            let t = LayerTable.template(for: c)
            XCTAssertNotNil(t, "\(c)")
            XCTAssertLessThan(LayerTable.drawIndex(of: t!), LayerTable.drawingOrder.count)
        }
        XCTAssertLessThan(LayerTable.drawIndex(of: "floor_outlines_[FLOOR]"), LayerTable.drawIndex(of: "floor_rooms_[FLOOR]"))
        XCTAssertEqual(LayerTable.layerID("floor_rooms_[FLOOR]", floor: "floor_m1"), "floor_rooms_floor_m1")
    }
}

import VenueModel
typealias VenueModelClass = FeatureClass
