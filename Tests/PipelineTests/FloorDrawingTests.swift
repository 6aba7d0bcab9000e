import Drawing
import Foundation
import Pipeline
import Rendering
import Styling
import TestSupport
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// Issue 17 item 10, drawing: exterior doors inside the wall, a floor slab
/// for venues with no level polygon, distinct fills for food and shops.
final class FloorDrawingTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("floordrawing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func rect(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> String {
        "[[[\(x0), \(y0)], [\(x1), \(y0)], [\(x1), \(y1)], [\(x0), \(y1)], [\(x0), \(y0)]]]"
    }

    /// An OSM indoor GeoJSON venue, prepared with the default style.
    func venue(_ features: [(props: String, type: String, coords: String)]) throws -> PreparedVenue {
        let body = features.enumerated().map { i, f in
            #"{"type": "Feature", "id": "way/\#(i + 1)", "properties": {\#(f.props)}, "geometry": {"type": "\#(f.type)", "coordinates": \#(f.coords)}}"#
        }.joined(separator: ",\n")
        let url = dir.appendingPathComponent("venue.geojson")
        try (#"{"type": "FeatureCollection", "features": ["# + body + "]}").write(to: url, atomically: true, encoding: .utf8)
        var r = IndoorGeoJSONReader()
        return Prepare.run(sourceID: "v", venue: try r.read(path: url.path, venueID: "v"), style: Style.builtIn)
    }

    /// The straight RGBA of the pixel of the rendered floor at `p` (lon, lat), plus (dx, dy) pixels.
    func pixel(_ floor: PreparedFloor, zoom z: Int, at p: LonLat, dx: Int = 0, dy: Int = 0) throws -> [Int] {
        let m = WebMercator.project(p)
        let mpp = DrawMetrics.metresPerPixel(zoom: z)
        let span = WebMercator.tileSpan(zoom: z)
        let gx = Int(((m.x + WebMercator.originShift) / mpp).rounded(.down)) + dx
        let gy = Int(((WebMercator.originShift - m.y) / mpp).rounded(.down)) + dy
        let pxPerTile = Int((span / mpp).rounded())
        let t = TileID(z: z, x: gx / pxPerTile, y: gy / pxPerTile)
        let (items, plans) = Plan.raster(floor: floor, zooms: [z])
        guard let i = plans[0].tiles.firstIndex(of: t) else { return [0, 0, 0, 0] }
        let r = try TileRenderer(scale: 1)
        try r.draw(tile: t, items: items, indices: plans[0].items[i])
        let v = r.pixels.pixel(x: gx % pxPerTile, y: gy % pxPerTile)
        let a = Int(v >> 24)
        guard a > 0 else { return [0, 0, 0, 0] }
        func un(_ c: UInt32) -> Int { Int((Double(c & 0xFF) * 255 / Double(a)).rounded()) }
        return [un(v >> 16), un(v >> 8), un(v), a]
    }

    /// A door on the level's outer wall (south edge): the door shows inside
    /// the wall, and nothing of it lies outside the floor.
    func testExteriorDoorIsDrawnInsideTheWall() throws {
        let v = try venue([
            (#""indoor": "level", "level": "0""#, "Polygon", rect(5.0, 45.0, 5.0004, 45.0003)),
            (#""indoor": "room", "level": "0", "name": "Hall""#, "Polygon", rect(5.0, 45.0, 5.0004, 45.0003)),
            (#""door": "yes", "level": "0""#, "LineString", "[[5.00015, 45.0], [5.00025, 45.0]]"),
        ])
        let floor = v.floors[0]
        XCTAssertNotNil(floor.items.first { $0.clip != nil }, "the door is clipped to the floor")
        let door = LonLat(lon: 5.0002, lat: 45.0)
        for (z, inside) in [(21, -1), (22, -2)] {
            let white = [255, 255, 255, 255]
            XCTAssertEqual(try pixel(floor, zoom: z, at: door, dy: inside), white, "z\(z): the door inside the wall")
            for dy in 2...4 {
                XCTAssertEqual(try pixel(floor, zoom: z, at: door, dy: dy)[3], 0, "z\(z): door ink \(dy) px outside the floor")
            }
        }
    }

    /// No level polygon: a slab from the units' union (grown over the wall
    /// gap between two rooms) is drawn under them in the floor outline paint;
    /// a floor with a level polygon gets none.
    func testFloorWithoutLevelPolygonGetsASlabFromItsUnits() throws {
        let gap = 0.000005   // about 0.56 m of map (Mercator) metres
        let v = try venue([
            (#""indoor": "room", "level": "0", "name": "West""#, "Polygon", rect(5.0, 45.0, 5.0002, 45.0002)),
            (#""indoor": "room", "level": "0", "name": "East""#, "Polygon", rect(5.0002 + gap, 45.0, 5.0004, 45.0002)),
        ])
        let floor = v.floors[0]
        let slab = try XCTUnwrap(floor.items.first { $0.grow > 0 }, "a slab item")
        let outlines = Style.builtIn.resolve("floor_outlines_[FLOOR]")!
        XCTAssertEqual(slab.paint.fill, outlines.fillColor)
        let f = outlines.fillColor!
        let inGap = LonLat(lon: 5.0002 + gap / 2, lat: 45.0001)
        XCTAssertEqual(try pixel(floor, zoom: 22, at: inGap), [Int(f.r), Int(f.g), Int(f.b), 255], "the slab fills the wall gap")
        XCTAssertEqual(try pixel(floor, zoom: 22, at: LonLat(lon: 5.0001, lat: 45.0002 + 0.00003))[3], 0, "nothing 3 m outside")
        // The slab's outline is the outer wall: outline colour just outside a room's edge.
        let o = outlines.outlineColor!
        let grown = Int((0.5 / DrawMetrics.metresPerPixel(zoom: 22)).rounded())
        let column = try ((grown - 2)...(grown + 2)).map { try pixel(floor, zoom: 22, at: LonLat(lon: 5.0001, lat: 45.0), dy: $0) }
        XCTAssertTrue(column.contains { $0[3] > 0 && abs($0[0] - Int(o.r)) + abs($0[1] - Int(o.g)) + abs($0[2] - Int(o.b)) <= 6 },
                      "the slab's outline around the units, 0.5 m out: \(column)")
        let withLevel = try venue([
            (#""indoor": "level", "level": "0""#, "Polygon", rect(5.0, 45.0, 5.0004, 45.0002)),
            (#""indoor": "room", "level": "0", "name": "West""#, "Polygon", rect(5.0, 45.0, 5.0002, 45.0002)),
        ])
        XCTAssertNil(withLevel.floors[0].items.first { $0.grow > 0 })
    }

    /// The default style fills food and shops differently, by unit category
    /// or, for a plain room, by its occupant's category.
    func testFoodAndRetailHaveDistinctDefaultFills() throws {
        let rooms = try XCTUnwrap(Style.builtIn.resolve("floor_rooms_[FLOOR]"))
        let food = try XCTUnwrap(rooms.categoryFill("foodservice")), shop = try XCTUnwrap(rooms.categoryFill("room", occupant: "shopping"))
        XCTAssertNotEqual(food, shop)
        XCTAssertNotEqual(food, rooms.fillColor)
        XCTAssertEqual(rooms.categoryFill("shop.clothes"), shop, "OSM shop=* is a shop")
        XCTAssertNil(rooms.categoryFill("room"))
        var r = IMDFReader()
        let v = Prepare.run(sourceID: "h", venue: try r.read(path: PlanTests.fixture), style: Style.builtIn)
        let fills = Set(v.floors.flatMap { $0.items.compactMap(\.paint.fill) })
        XCTAssertTrue(fills.contains(food), "the sample's food court")
        XCTAssertTrue(fills.contains(shop), "the sample's shops")
        // A style without the property keeps one fill for every room.
        let plain = try Style.parse(Data(##"{"id": "p", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#FF0000"}]}"##.utf8), source: "p.json")
        XCTAssertNil(plain.resolve("floor_rooms_[FLOOR]")!.categoryFill("foodservice"))
        XCTAssertThrowsError(try Style.parse(Data(#"{"id": "p", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "category-fill-colors": {"retail": "red"}}]}"#.utf8),
                                             source: "p.json"))
    }
}
