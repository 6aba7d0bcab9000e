import Drawing
import Foundation
import Styling
import TileGeometry
import XCTest

/// The drawing model without Cairo: how far ink reaches (the planner pads
/// coverage with it) and how a style's label entries become a `LabelStyle`.
final class DrawingTests: XCTestCase {
    func testLineWidthIsOpeningWidthButAtLeastOnePixel() {
        // 0.4 m is under a pixel at z18 (about 0.6 m/px) and about 5 px at z22.
        XCTAssertEqual(DrawMetrics.lineWidthPx(zoom: 18), DrawMetrics.minLineWidthPx)
        XCTAssertEqual(DrawMetrics.lineWidthPx(zoom: 22), 0.4 / DrawMetrics.metresPerPixel(zoom: 22), accuracy: 1e-12)
        XCTAssertGreaterThan(DrawMetrics.lineWidthPx(zoom: 22), 4)
    }

    func testPadsPerGeometryKindAndGrownItems() {
        let z = 20, mpp = DrawMetrics.metresPerPixel(zoom: z)
        let square: ProjectedGeometry = .polygons([[[MercatorPoint(x: 0, y: 0), MercatorPoint(x: 10, y: 0), MercatorPoint(x: 10, y: 10),
                                                     MercatorPoint(x: 0, y: 0)]]])
        XCTAssertEqual(DrawMetrics.pad(for: square, zoom: z), 0.5 * mpp, accuracy: 1e-12)
        XCTAssertEqual(DrawMetrics.pad(for: .lines([]), zoom: z), DrawMetrics.lineWidthPx(zoom: z) / 2 * mpp, accuracy: 1e-12)
        XCTAssertEqual(DrawMetrics.pad(for: .points([]), zoom: z), 3.5 * mpp, accuracy: 1e-12)
        var slab = DrawItem(geometry: square, paint: Paint(fill: Color(r: 1, g: 2, b: 3)))
        XCTAssertEqual(DrawMetrics.pad(for: slab, zoom: z), DrawMetrics.pad(for: square, zoom: z))
        slab.grow = 0.3
        // A grown slab's outline lies wholly outside the growth.
        XCTAssertEqual(DrawMetrics.pad(for: slab, zoom: z), 0.3 + DrawMetrics.outlineWidthPx * mpp, accuracy: 1e-12)
    }

    func testLabelStyleFromTheStyleDocument() throws {
        let doc = """
        {"id": "t", "version": "1.1", "styles": [
          {"layer-id": "floor_labels_[FLOOR]", "font-name": "DejaVu Sans Bold", "font-size": 13, "font-color": "#102030",
           "max-text-width": 80},
          {"layer-id": "floor_labels_floor_1", "font-stroke-color": "#FFFFFF", "font-stroke-width": 3},
          {"layer-id": "floor_labels_floor_2", "hidden": true},
          {"layer-id": "building_labels_[BUILDING]", "font-size": 15, "font-stroke-color": "#EEEEEE"}
        ]}
        """
        let style = try Style.parse(Data(doc.utf8), source: "t.json")
        let plain = try XCTUnwrap(LabelStyle.resolve(style, floor: "floor_0"))
        XCTAssertEqual(plain, LabelStyle(fontName: "DejaVu Sans Bold", fontSize: 13, color: Color(r: 0x10, g: 0x20, b: 0x30),
                                         haloColor: nil, haloWidth: 0, maxWidth: 80), "no stroke colour: no halo")
        let haloed = try XCTUnwrap(LabelStyle.resolve(style, floor: "floor_1"))
        XCTAssertEqual(haloed.haloColor, Color(r: 255, g: 255, b: 255))
        XCTAssertEqual(haloed.haloWidth, 3)
        XCTAssertNil(LabelStyle.resolve(style, floor: "floor_2"), "a hidden labels layer has no style")
        let building = try XCTUnwrap(LabelStyle.resolve(style, template: "building_labels_[BUILDING]", building: "building_1"))
        XCTAssertEqual(building.fontSize, 15)
        XCTAssertEqual(building.haloWidth, 1, "a stroke colour without a width: 1 px")
        XCTAssertEqual(building.fontName, LabelStyle().fontName)
    }

    func testTextLayoutSize() {
        let l = TextLayout(lines: ["Main", "Terminal"], lineWidths: [30, 52.5], ascent: 11, lineHeight: 14)
        XCTAssertEqual(l.width, 52.5)
        XCTAssertEqual(l.height, 28)
        XCTAssertEqual(TextLayout(lines: [], lineWidths: [], ascent: 11, lineHeight: 14).width, 0)
    }
}
