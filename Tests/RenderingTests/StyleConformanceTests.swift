import Drawing
import Foundation
import Rendering
import Styling
import XCTest

/// Issue 17.9: the style spec's version, 1.1-only properties, the wayfinding
/// section, and font faces by name.
final class StyleConformanceTests: XCTestCase {
    func parse(_ doc: String) throws -> Style { try Style.parse(Data(doc.utf8), source: "s.json") }

    func testVersionAsStringOrNumber() throws {
        XCTAssertEqual(try parse(#"{"id": "t", "version": 1.1, "styles": []}"#).version, "1.1")
        XCTAssertEqual(try parse(#"{"id": "t", "version": 1.0, "styles": []}"#).version, "1.0")
        XCTAssertEqual(try parse(#"{"id": "t", "version": "1.1", "styles": []}"#).version, "1.1")
        XCTAssertEqual(try parse(#"{"id": "t", "styles": []}"#).version, "1.0")
        for bad in ["1.2", "\"1\"", "true", "\"1.10\""] {
            XCTAssertThrowsError(try parse(#"{"id": "t", "version": \#(bad), "styles": []}"#), bad) { XCTAssertTrue("\($0)".contains("\"version\""), "\($0)") }
        }
    }

    func testA11PropertyInA10DocumentWarns() throws {
        let entry = ##"{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#111111", "outline-color": "#222222"}"##
        let old = try parse(#"{"id": "t", "version": "1.0", "styles": [\#(entry)]}"#)
        XCTAssertEqual(old.warnings.count, 1, "\(old.warnings)")
        XCTAssertTrue(old.warnings[0].contains("outline-color") && old.warnings[0].contains("1.1"), old.warnings[0])
        XCTAssertEqual(old.resolve("floor_rooms_[FLOOR]", floor: "floor_0")?.outlineColor, Color(hex: "#222222"), "still used")
        XCTAssertEqual(try parse(#"{"id": "t", "version": 1.1, "styles": [\#(entry)]}"#).warnings, [])
    }

    func testWayfindingIsValidated() throws {
        let good = try parse(##"{"id": "t", "version": "1.1", "styles": [], "wayfinding": {"path-stroke-min-width": 2, "path-stroke-max-width": 40, "path-stroke-color": "#4688F1", "path-stroke-alpha": 0.8, "path-arrow-size": 1.5, "highlighted-path-arrow-fill-color": "#4688F1"}}"##)
        XCTAssertEqual(good.warnings, [])
        XCTAssertEqual(good.wayfinding?.numbers["path-stroke-max-width"], 40)
        XCTAssertEqual(good.wayfinding?.colors["path-stroke-color"], Color(hex: "#4688F1"))
        // Wrong types are errors naming the key.
        for (key, value) in [("path-stroke-color", "3"), ("path-stroke-alpha", "1.5"), ("path-arrow-size", "\"big\""), ("path-stroke-min-width", "-1")] {
            XCTAssertThrowsError(try parse(#"{"id": "t", "version": "1.1", "styles": [], "wayfinding": {"\#(key)": \#(value)}}"#), key) {
                XCTAssertTrue("\($0)".contains("wayfinding") && "\($0)".contains(key), "\($0)")
            }
        }
        XCTAssertThrowsError(try parse(#"{"id": "t", "styles": [], "wayfinding": []}"#))
        // Unknown keys, deprecated keys (1.1) and 1.1 keys in a 1.0 document are warnings: `validate --strict` fails on them.
        let unknown = try parse(##"{"id": "t", "version": "1.1", "styles": [], "wayfinding": {"path-colour": "#FFFFFF"}}"##)
        XCTAssertEqual(unknown.warnings.count, 1)
        XCTAssertTrue(unknown.warnings[0].contains("path-colour"))
        let deprecated = try parse(#"{"id": "t", "version": "1.1", "styles": [], "wayfinding": {"path-stroke-width": 4}}"#)
        XCTAssertEqual(deprecated.warnings.count, 1)
        XCTAssertTrue(deprecated.warnings[0].contains("deprecated") && deprecated.warnings[0].contains("path-stroke-min-width"), deprecated.warnings[0])
        XCTAssertEqual(try parse(#"{"id": "t", "version": "1.0", "styles": [], "wayfinding": {"path-stroke-width": 4}}"#).warnings, [],
                       "path-stroke-width is the 1.0 way")
        let newer = try parse(#"{"id": "t", "version": "1.0", "styles": [], "wayfinding": {"path-arrow-size": 2}}"#)
        XCTAssertEqual(newer.warnings.count, 1)
        XCTAssertTrue(newer.warnings[0].contains("1.1"))
    }

    func testSpecLayerIDsAreKnown() throws {
        let s = try parse(#"{"id": "t", "version": "1.1", "styles": [{"layer-id": "outdoors", "hidden": false}, {"layer-id": "floor_b1_2", "hidden": false}, {"layer-id": "floor_elevators_floor_b1_2", "hidden": true}, {"layer-id": "building_labels_building_1", "font-size": 12}, {"layer-id": "roofs", "hidden": true}]}"#)
        XCTAssertEqual(s.warnings.count, 1, "\(s.warnings)")
        XCTAssertTrue(s.warnings[0].contains("roofs"))
        XCTAssertEqual(LayerTable.exactID("floor_elevators_floor_b1_2")?.value, "floor_b1_2")
        XCTAssertEqual(LayerTable.exactID("building_outlines_building_3")?.template, "building_outlines_[BUILDING]")
        XCTAssertEqual(LayerTable.exactID("floor_0")?.template, "[FLOOR]")
        XCTAssertNil(LayerTable.exactID("floor_rooms_[FLOOR]"))
        XCTAssertNil(LayerTable.exactID("outdoors"))
    }

    func testFontFacesByName() throws {
        XCTAssertEqual(FontFaceName("DejaVu Sans Bold"), { var f = FontFaceName("DejaVu Sans"); f.bold = true; return f }())
        let bo = FontFaceName("DejaVu Sans Bold Oblique")
        XCTAssertEqual(bo.family, "DejaVu Sans")
        XCTAssertTrue(bo.bold && bo.oblique && !bo.italic)
        XCTAssertEqual(FontFaceName("DejaVu Sans Condensed").family, "DejaVu Sans Condensed")
        XCTAssertEqual(FontFaceName("Bold").family, "Bold", "a one-word family stays whole")
        // The bold face is drawn: its text is wider than the regular face's.
        let m = try TextMeasurer()
        let regular = m.layout("Departures Hall", style: LabelStyle(fontName: "DejaVu Sans", fontSize: 14))
        let bold = m.layout("Departures Hall", style: LabelStyle(fontName: "DejaVu Sans Bold", fontSize: 14))
        XCTAssertGreaterThan(bold.width, regular.width + 0.5)
    }
}
