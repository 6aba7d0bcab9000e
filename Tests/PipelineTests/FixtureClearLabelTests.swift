import Drawing
import Foundation
import Pipeline
import Rendering
import Styling
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// Issue 17 item 10: a unit's own name is not drawn over a fixture inside the
/// unit when the unit has room for it elsewhere ("Main Mall" over the kiosk),
/// and is kept over the fixture when it has none (a name is never lost to a
/// fixture). The venues are IMDF folders written here from that description,
/// read and prepared as a build does.
final class FixtureClearLabelTests: XCTestCase {
    var dir: URL!
    let style = LabelStyle.resolve(Style.builtIn)!
    /// Where the venue is: the sample's harbour.
    let origin = WebMercator.project(LonLat(lon: 10.0015, lat: 53.5405))

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixtureclear-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// A rectangle in pixels of `zoom` east and north of `origin`, as GeoJSON polygon coordinates.
    func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, zoom: Int) -> String {
        let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)].map { lonLat($0.0, $0.1, zoom: zoom) }
        return "[[" + corners.map { "[\($0.lon), \($0.lat)]" }.joined(separator: ", ") + "]]"
    }

    func lonLat(_ x: Double, _ y: Double, zoom: Int) -> LonLat {
        let mpp = DrawMetrics.metresPerPixel(zoom: zoom)
        return WebMercator.unproject(MercatorPoint(x: origin.x + x * mpp, y: origin.y + y * mpp))
    }

    func collection(_ name: String, _ features: [String]) throws {
        try #"{"type": "FeatureCollection", "name": "\#(name)", "features": [\#(features.joined(separator: ",\n"))]}"#
            .write(to: dir.appendingPathComponent("\(name).geojson"), atomically: true, encoding: .utf8)
    }

    /// One level, one named room of `size` pixels at `zoom` with its display
    /// point at its centre, and a square kiosk fixture of `kiosk` pixels
    /// under that centre; prepared with the default style.
    func venue(room name: String, size: (w: Double, h: Double), kiosk: Double, zoom: Int) throws -> PreparedFloor {
        let (w, h) = size
        let centre = lonLat(w / 2, h / 2, zoom: zoom)
        try #"{"version": "1.0.0", "language": "en"}"#.write(to: dir.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
        try collection("venue", [#"""
            {"id": "v1", "type": "Feature", "feature_type": "venue", "geometry": {"type": "Polygon", "coordinates": \#(rect(-20, -20, w + 20, h + 20, zoom: zoom))},
             "properties": {"category": "shoppingcenter", "name": {"en": "Test Arcade"}}}
            """#])
        try collection("level", [#"""
            {"id": "l0", "type": "Feature", "feature_type": "level", "geometry": {"type": "Polygon", "coordinates": \#(rect(0, 0, w, h, zoom: zoom))},
             "properties": {"category": "unspecified", "outdoor": false, "ordinal": 0, "name": {"en": "Ground"}, "short_name": {"en": "0"}}}
            """#])
        try collection("unit", [#"""
            {"id": "u1", "type": "Feature", "feature_type": "unit", "geometry": {"type": "Polygon", "coordinates": \#(rect(0, 0, w, h, zoom: zoom))},
             "properties": {"category": "room", "level_id": "l0", "name": {"en": "\#(name)"},
                            "display_point": {"type": "Point", "coordinates": [\#(centre.lon), \#(centre.lat)]}}}
            """#])
        let k = kiosk / 2
        try collection("fixture", [#"""
            {"id": "f1", "type": "Feature", "feature_type": "fixture",
             "geometry": {"type": "Polygon", "coordinates": \#(rect(w / 2 - k, h / 2 - k, w / 2 + k, h / 2 + k, zoom: zoom))},
             "properties": {"category": "desk", "level_id": "l0"}}
            """#])
        var reader = IMDFReader()
        let v = Prepare.run(sourceID: "t", venue: try reader.read(path: dir.path), style: Style.builtIn)
        return try XCTUnwrap(v.floors.first)
    }

    func placedLabels(_ floor: PreparedFloor, zoom: Int) -> [DrawItem] {
        Plan.raster(floor: floor, zoom: zoom).labels.filter { $0.label != nil }
    }

    /// The clearance box placement keeps free around a placed label.
    func clearance(_ l: LabelDraw, zoom: Int) -> MercatorRect {
        let mpp = DrawMetrics.metresPerPixel(zoom: zoom), pad = l.style.haloWidth + LabelPlacement.marginPx
        return MercatorRect(minX: l.anchor.x - (l.layout.width / 2 + pad) * mpp, minY: l.anchor.y - (l.layout.height / 2 + pad) * mpp,
                            maxX: l.anchor.x + (l.layout.width / 2 + pad) * mpp, maxY: l.anchor.y + (l.layout.height / 2 + pad) * mpp)
    }

    /// A hall 300 × 200 px at z19 with a 12 px kiosk under its centre: at
    /// every zoom where the name fits, it is placed clear of the kiosk, inside
    /// the hall, near the centre; at its display point it would cover the kiosk.
    func testLargeUnitsNameMovesOffTheKioskUnderItsCentre() throws {
        let floor = try venue(room: "Grand Hall", size: (300, 200), kiosk: 12, zoom: 19)
        let kiosk = try XCTUnwrap(floor.obstacles.first)
        XCTAssertEqual(floor.obstacles.count, 1)
        let hall = try XCTUnwrap(floor.labels.first)
        for z in 18...22 {
            let labels = placedLabels(floor, zoom: z)
            XCTAssertEqual(labels.count, 1, "z\(z): the hall's name is placed")
            let l = try XCTUnwrap(labels.first?.label)
            XCTAssertTrue(kiosk.meets(clearance(LabelDraw(anchor: hall.anchor, layout: l.layout, style: l.style), zoom: z)),
                          "z\(z): at its display point the name would cover the kiosk")
            let box = clearance(l, zoom: z)
            XCTAssertFalse(kiosk.meets(box), "z\(z): the name covers the kiosk")
            XCTAssertFalse(kiosk.meets(try XCTUnwrap(labels.first).geometry.bounds), "z\(z): ink over the kiosk")
            XCTAssertTrue(LabelPlacement.fits(box, in: hall.rings), "z\(z): the name leaves the hall")
            // Near: moved at most by the box's height plus the kiosk's (a wide name moves up or down).
            let mpp = DrawMetrics.metresPerPixel(zoom: z)
            let moved = hypot(l.anchor.x - hall.anchor.x, l.anchor.y - hall.anchor.y)
            XCTAssertLessThanOrEqual(moved, box.maxY - box.minY + (kiosk.bounds.maxY - kiosk.bounds.minY) + 2 * mpp, "z\(z): moved \(moved / mpp) px")
            XCTAssertEqual(Plan.raster(floor: floor, zoom: z).labels.compactMap(\.label), [l], "z\(z): the same spot every time")
        }
    }

    /// A room hardly larger than its name's box at z20, a 16 px fixture in its
    /// middle: no spot in the room clears it, and the name stays where it was.
    func testNameWithNoClearSpotStaysOverTheFixture() throws {
        let z = 20
        let layout = try TextMeasurer().layout("Kiosk Court", style: style)
        let pad = style.haloWidth + LabelPlacement.marginPx
        let size = (w: layout.width + 2 * pad + 6, h: layout.height + 2 * pad + 6)
        let floor = try venue(room: "Kiosk Court", size: size, kiosk: 16, zoom: z)
        let kiosk = try XCTUnwrap(floor.obstacles.first)
        let labels = placedLabels(floor, zoom: z)
        XCTAssertEqual(labels.count, 1, "the name is kept")
        let l = try XCTUnwrap(labels.first?.label)
        XCTAssertEqual(l.anchor, floor.labels[0].anchor, "at its display point")
        XCTAssertTrue(kiosk.meets(clearance(l, zoom: z)), "over the fixture: there is no other spot")
    }
}
