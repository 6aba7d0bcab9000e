import Config
import Foundation
import XCTest

final class TilePathTemplateTests: XCTestCase {
    /// The slippy-map tile of a point, from the OSM wiki formula (not TileGeometry's code).
    private func tile(lon: Double, lat: Double, z: Int) -> (x: Int, y: Int) {
        let n = pow(2.0, Double(z))
        let r = lat * .pi / 180
        return (Int(floor((lon + 180) / 360 * n)), Int(floor((1 - log(tan(r) + 1 / cos(r)) / .pi) / 2 * n)))
    }

    /// The quadkey by descending the quadrants of the unit square, from the
    /// point itself (Bing Maps Tile System), not from x and y.
    private func quadkey(lon: Double, lat: Double, z: Int) -> String {
        let r = lat * .pi / 180
        var fx = (lon + 180) / 360, fy = (1 - log(tan(r) + 1 / cos(r)) / .pi) / 2
        var s = ""
        for _ in 0..<z {
            fx *= 2; fy *= 2
            var d = 0
            if fx >= 1 { d += 1; fx -= 1 }
            if fy >= 1 { d += 2; fy -= 1 }
            s += String(d)
        }
        return s
    }

    private let point = (lon: 10.00233, lat: 53.54068)

    func testPresetsAtZ17AndZ23() throws {
        for z in [17, 23] {
            let (x, y) = tile(lon: point.lon, lat: point.lat, z: z)
            let tmsY = Int(pow(2.0, Double(z))) - 1 - y
            let qk = quadkey(lon: point.lon, lat: point.lat, z: z)
            XCTAssertEqual(qk.count, z)
            let cases: [(preset: String, floor: String, ordinal: Int?, format: String, scale: Int, expected: String)] = [
                ("xyz", "floor_0", 0, "png", 1, "harbour-arcade/floor_0/png/\(z)/\(x)/\(y).png"),
                ("xyz", "floor_0", 0, "png", 2, "harbour-arcade/floor_0/png@2x/\(z)/\(x)/\(y).png"),
                ("xyz", "all", nil, "mvt", 1, "harbour-arcade/all/mvt/\(z)/\(x)/\(y).pbf"),
                ("tms", "floor_m1", -1, "png", 1, "harbour-arcade/floor_m1/png/\(z)/\(x)/\(tmsY).png"),
                ("tms", "floor_1", 1, "mvt", 1, "harbour-arcade/floor_1/mvt/\(z)/\(x)/\(tmsY).pbf"),
                ("quadkey", "floor_0", 0, "png", 1, "harbour-arcade/floor_0/png/\(qk).png"),
                ("quadkey", "floor_0", 0, "png", 2, "harbour-arcade/floor_0/png@2x/\(qk).png"),
                ("app-bundle", "floor_m1", -1, "png", 2, "harbour-arcade/-1/png@2x/\(z)/\(x)_\(y).png"),
                ("app-bundle", "all", nil, "mvt", 1, "harbour-arcade/all/mvt/\(z)/\(x)_\(y).pbf"),
            ]
            for c in cases {
                let t = try TilePathTemplate.named(c.preset)
                let v = TilePathValues(venue: "harbour-arcade", floor: c.floor, ordinal: c.ordinal, format: c.format, scale: c.scale, z: z, x: x, y: y)
                XCTAssertEqual(t.path(v), c.expected, "\(c.preset) z\(z)")
                // And back: the path gives the tile and the names again.
                let m = try XCTUnwrap(t.match(c.expected), "\(c.preset): \(c.expected)")
                XCTAssertEqual([m.z, m.x, m.y], [z, x, y], c.expected)
                if t.contains(.floor) { XCTAssertEqual(m.values[.floor], c.floor) }
                if t.contains(.ordinal) { XCTAssertEqual(m.values[.ordinal], c.ordinal.map(String.init) ?? "all") }
                XCTAssertEqual(m.values[.scale], c.scale == 1 ? "" : "@\(c.scale)x")
            }
        }
    }

    func testTMSAndURLTemplates() throws {
        XCTAssertTrue(try TilePathTemplate.named("tms").isTMS)
        XCTAssertFalse(try TilePathTemplate.named("xyz").isTMS)
        let t = try TilePathTemplate.named("tms")
        XCTAssertEqual(t.urlTemplate(venue: "v", floor: "floor_0", ordinal: 0, format: "png", scale: 2), "v/floor_0/png@2x/{z}/{x}/{y}.png")
        XCTAssertEqual(try TilePathTemplate.named("quadkey").urlTemplate(venue: "v", floor: "all", ordinal: nil, format: "mvt", scale: 1),
                       "v/all/mvt/{quadkey}.pbf")
    }

    func testTheManifestsTemplatesReadBack() throws {
        let t = try TilePathTemplate("harbour-arcade/{floor}/png@2x/{z}/{x}/{y}.png", scope: .oneTileset)
        let m = try XCTUnwrap(t.match("harbour-arcade/floor_m1/png@2x/23/4427330/2711490.png"))
        XCTAssertEqual([m.z, m.x, m.y], [23, 4_427_330, 2_711_490])
        XCTAssertEqual(m.values[.floor], "floor_m1")
        XCTAssertNil(t.match("harbour-arcade/floor_m1/png/23/4427330/2711490.png"), "another tileset's folder")
        XCTAssertNil(t.match("harbour-arcade/floor_m1/png@2x/23/4427330/2711490.pbf"))
        XCTAssertNil(t.match("harbour-arcade/floor_m1/png@2x/23/8854784/2711490.png"), "x beyond the 2^23 columns")
        XCTAssertNil(t.match("harbour-arcade/floor_m1/png@2x/tilejson.json"))
        XCTAssertNil(t.match("harbour-arcade/floor_m1/png@2x/2/4/0.png"), "x beyond the zoom's 4 columns")
    }

    func testBadTemplatesAreTypedErrors() {
        let bad: [(String, String)] = [
            ("{venue}/{floor}/{format}{scale}/{z}/{x}/{row}.{ext}", "unknown token {row}"),
            ("{venue}/{floor}/{format}{scale}/{z}/{x}.{ext}", "one path per tile"),
            ("{venue}/{format}{scale}/{z}/{x}/{y}.{ext}", "one path per floor"),
            ("{floor}/{format}{scale}/{z}/{x}/{y}.{ext}", "one path per venue"),
            ("{venue}/{floor}/{scale}/{z}/{x}/{y}", "raster from vector"),
            ("{venue}/{floor}/{format}/{z}/{x}/{y}.{ext}", "256 px from 512 px"),
            ("{venue}/{floor}/{format}{scale}/{z}{x}/{y}.{ext}", "separated by literal text"),
            ("{venue}/{floor}/{format}{scale}/{z}/{x}/{y.{ext}", "without its '}'"),
            ("{venue}/{floor}/{format}{scale}}/{z}/{x}/{y}.{ext}", "without its '{'"),
            ("/{venue}/{floor}/{format}{scale}/{z}/{x}/{y}.{ext}", "starts with '/'"),
            ("{venue}/../{floor}/{format}{scale}/{z}/{x}/{y}.{ext}", "'..'"),
            ("{venue}//{floor}/{format}{scale}/{z}/{x}/{y}.{ext}", "empty"),
            ("tiles", "neither a preset"),
        ]
        for (template, problem) in bad {
            XCTAssertThrowsError(try TilePathTemplate.named(template), template) { e in
                guard let e = e as? TemplateError else { return XCTFail("\(template): \(e) is not a TemplateError") }
                XCTAssertEqual(e.template, template)
                XCTAssertTrue(e.problem.contains(problem), "\(template): \(e.problem)")
                XCTAssertTrue("\(e)".contains(template))
            }
        }
    }

    func testEveryPresetIsValidAndDistinct() throws {
        var seen = Set<String>()
        for (name, _) in TilePathTemplate.presets {
            let t = try TilePathTemplate.named(name)
            for (floor, ordinal) in [("floor_0", 0), ("floor_1", 1)] as [(String, Int)] {
                for (format, scale) in [("png", 1), ("png", 2), ("mvt", 1)] {
                    for (x, y) in [(1, 2), (2, 1), (12, 3), (1, 23)] {
                        let p = t.path(TilePathValues(venue: "v", floor: floor, ordinal: ordinal, format: format, scale: scale, z: 5, x: x, y: y))
                        XCTAssertTrue(seen.insert(name + ":" + p).inserted, "\(name) gives \(p) twice")
                    }
                }
            }
        }
    }

    func testTilesetTemplatesAndPyramidFolders() throws {
        let xyz = try TilePathTemplate.named("xyz")
        // Today's manifest template, from the preset.
        XCTAssertEqual(xyz.tilesetTemplate(venue: "harbour-arcade", format: "png", scale: 2), "harbour-arcade/{floor}/png@2x/{z}/{x}/{y}.png")
        XCTAssertEqual(xyz.pyramidFolder(venue: "v", floor: "floor_0", ordinal: 0, format: "png", scale: 2), "v/floor_0/png@2x")
        let app = try TilePathTemplate.named("app-bundle")
        let t = app.tilesetTemplate(venue: "v", format: "mvt", scale: 1)
        XCTAssertEqual(t, "v/{ordinal}/mvt/{z}/{x}_{y}.pbf")
        XCTAssertEqual(app.pyramidFolder(venue: "v", floor: "floor_m1", ordinal: -1, format: "mvt", scale: 1), "v/-1/mvt")
        let back = try XCTUnwrap(try TilePathTemplate(t, scope: .oneTileset).match("v/-1/mvt/23/4427330_2711490.pbf"))
        XCTAssertEqual([back.z, back.x, back.y], [23, 4_427_330, 2_711_490])
        XCTAssertEqual(back.values[.ordinal], "-1")
        let qk = try TilePathTemplate.named("quadkey")
        XCTAssertEqual(qk.pyramidFolder(venue: "v", floor: "all", ordinal: nil, format: "mvt", scale: 1), "v/all/mvt")
        let q = try XCTUnwrap(try TilePathTemplate(qk.tilesetTemplate(venue: "v", format: "png", scale: 1), scope: .oneTileset).match("v/floor_0/png/1202.png"))
        // Digits 1, 2, 0, 2: x bits 1000, y bits 0101.
        XCTAssertEqual([q.z, q.x, q.y], [4, 8, 5])
    }
}
