import Foundation
import Pipeline
import XCTest

final class PipelineConfigTests: XCTestCase {
    func parse(_ s: String) throws -> PipelineConfig {
        try PipelineConfig.parse(Data(s.utf8), file: "/work/x/pipeline.json")
    }

    func testDefaultsAndRelativePaths() throws {
        let c = try parse(#"{"sources": [{"id": "mall", "format": "imdf", "path": "data/mall.zip"}]}"#)
        XCTAssertEqual(c.output, "/work/x/output")
        XCTAssertEqual(c.sources[0].path, "/work/x/data/mall.zip")
        XCTAssertEqual(c.minZoom, 17); XCTAssertEqual(c.maxZoom, 23)
        XCTAssertEqual(c.tilesets.map(\.directoryName), ["png"])
        XCTAssertNil(c.style)
    }

    func testScalesExpandToTilesets() throws {
        let c = try parse(#"{"sources": [{"id": "m", "format": "imdf", "path": "/abs"}], "tilesets": [{"format": "png", "scale": [1, 2]}]}"#)
        XCTAssertEqual(c.tilesets.map(\.directoryName), ["png", "png@2x"])
        XCTAssertEqual(c.tilesets.map(\.tileSize), [256, 512])
        XCTAssertEqual(c.sources[0].path, "/abs")
    }

    func assertError(_ s: String, key: String?, _ fragment: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(s), line: line) { e in
            guard let ce = e as? ConfigError else { return XCTFail("\(e)", line: line) }
            XCTAssertEqual(ce.key, key, line: line)
            XCTAssertTrue(ce.description.contains(fragment), ce.description, line: line)
            XCTAssertTrue(ce.description.hasPrefix("/work/x/pipeline.json"), line: line)
        }
    }

    func testErrorsNameTheKey() {
        let src = #""sources": [{"id": "m", "format": "imdf", "path": "p"}]"#
        assertError("{\(src), \"colour\": 1}", key: "colour", "unknown key")
        assertError("{\(src), \"zoom\": {\"min\": 18, \"max\": 17}}", key: "zoom", "min")
        assertError("{\(src), \"zoom\": {\"min\": 17, \"mx\": 17}}", key: "zoom.mx", "unknown key")
        assertError(#"{"sources": []}"#, key: "sources", "non-empty")
        assertError(#"{"sources": [{"id": "a b", "format": "imdf", "path": "p"}]}"#, key: "sources[0].id", "URL-safe")
        assertError(#"{"sources": [{"id": "a", "format": "shp", "path": "p"}]}"#, key: "sources[0].format", "imdf")
        assertError(#"{"sources": [{"id": "a", "format": "imdf", "path": "p"}, {"id": "a", "format": "imdf", "path": "q"}]}"#, key: "sources[1].id", "duplicate")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"scale\": 8}]}", key: "tilesets[0].scale", "not in")
        assertError("[1, 2]", key: nil, "JSON object")
    }

    func testQuantizeIsAPngOptionOfEveryScale() throws {
        let src = #""sources": [{"id": "m", "format": "imdf", "path": "p"}]"#
        let on = try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"scale\": [1, 2], \"quantize\": true}, {\"format\": \"mvt\"}]}")
        XCTAssertEqual(on.tilesets.map(\.quantize), [true, true, false])
        let off = try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": false}]}")
        XCTAssertEqual(off.tilesets.map(\.quantize), [false])
        XCTAssertEqual(try parse("{\(src)}").tilesets.map(\.quantize), [PipelineConfig.Tileset(format: .png).quantize])
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": 1}]}", key: "tilesets[0].quantize", "true or false")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": \"yes\"}]}", key: "tilesets[0].quantize", "true or false")
        assertError("{\(src), \"tilesets\": [{\"format\": \"mvt\", \"quantize\": true}]}", key: "tilesets[0].quantize", "unknown key")
    }

    func testQualityAndCompressionArePngOptionsOfEveryScale() throws {
        let src = #""sources": [{"id": "m", "format": "imdf", "path": "p"}]"#
        let small = try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"scale\": [1, 2], \"quantize\": true, \"quality\": 90, \"compression\": \"small\"}, {\"format\": \"mvt\"}]}")
        XCTAssertEqual(small.tilesets.map(\.quality), [90, 90, 100])
        XCTAssertEqual(small.tilesets.map(\.compression), [.small, .small, .fast])
        let lossless = try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"compression\": \"small\"}]}")
        XCTAssertEqual(lossless.tilesets.map(\.compression), [.small])
        XCTAssertEqual(lossless.tilesets.map(\.quantize), [false])
        let defaults = try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": true}]}")
        XCTAssertEqual(defaults.tilesets.map(\.quality), [100])
        XCTAssertEqual(defaults.tilesets.map(\.compression), [.fast])
        XCTAssertEqual(try parse("{\(src), \"tilesets\": [{\"format\": \"png\", \"compression\": \"fast\"}]}").tilesets.map(\.compression), [.fast])

        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quality\": 90}]}", key: "tilesets[0].quality", "\"quantize\": true")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": false, \"quality\": 90}]}", key: "tilesets[0].quality", "\"quantize\": true")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": true, \"quality\": 0}]}", key: "tilesets[0].quality", "1…100")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": true, \"quality\": 101}]}", key: "tilesets[0].quality", "found 101")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"quantize\": true, \"quality\": 90.5}]}", key: "tilesets[0].quality", "integer")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"compression\": \"best\"}]}", key: "tilesets[0].compression", "\"fast\" or \"small\", found best")
        assertError("{\(src), \"tilesets\": [{\"format\": \"png\", \"compression\": 9}]}", key: "tilesets[0].compression", "\"fast\" or \"small\"")
        assertError("{\(src), \"tilesets\": [{\"format\": \"mvt\", \"compression\": \"small\"}]}", key: "tilesets[0].compression", "unknown key")
        assertError("{\(src), \"tilesets\": [{\"format\": \"mvt\", \"quality\": 90}]}", key: "tilesets[0].quality", "unknown key")
    }

    /// Issue 17 item 10: `attribution` per source; OSM-tagged GeoJSON defaults to the OpenStreetMap credit.
    func testAttributionPerSource() throws {
        let c = try parse(#"{"sources": [{"id": "a", "format": "imdf", "path": "p", "attribution": "© Mall Ltd"}, {"id": "b", "format": "imdf", "path": "p"}, {"id": "c", "format": "geojson", "path": "c.geojson"}, {"id": "d", "format": "geojson", "path": "d.geojson", "category_property": "kind"}, {"id": "e", "format": "geojson", "path": "e.geojson", "attribution": "© City"}]}"#)
        XCTAssertEqual(c.sources.map(\.effectiveAttribution), ["© Mall Ltd", nil, "© OpenStreetMap contributors", nil, "© City"])
        assertError(#"{"sources": [{"id": "a", "format": "imdf", "path": "p", "attribution": 3}]}"#, key: "sources[0].attribution", "string")
    }
}

/// `layout`, `path` and `archive` of a tileset (issue 18).
final class PipelineConfigOutputTests: XCTestCase {
    private let src = #""sources": [{"id": "m", "format": "imdf", "path": "p"}]"#

    func parse(_ tilesets: String) throws -> PipelineConfig {
        try PipelineConfig.parse(Data("{\(src), \"tilesets\": \(tilesets)}".utf8), file: "/work/x/pipeline.json")
    }

    func testLayoutsPathsAndArchives() throws {
        let c = try parse(#"[{"format": "png", "scale": [1, 2], "layout": "quadkey", "archive": "pmtiles"}, {"format": "mvt", "path": "{venue}/{ordinal}/{format}{scale}/{z}/{x}/{tms_y}.{ext}", "archive": "mbtiles"}]"#)
        XCTAssertEqual(c.tilesets.map(\.pathTemplate), ["{venue}/{floor}/{format}{scale}/{quadkey}.{ext}", "{venue}/{floor}/{format}{scale}/{quadkey}.{ext}",
                                                        "{venue}/{ordinal}/{format}{scale}/{z}/{x}/{tms_y}.{ext}"])
        XCTAssertEqual(c.tilesets.map(\.archive), [.pmtiles, .pmtiles, .mbtiles])
        XCTAssertEqual(c.tilesets[1].tilePath(venue: "m", floor: "floor_0", ordinal: 0, z: 2, x: 1, y: 2), "m/floor_0/png@2x/21.png")
        XCTAssertEqual(c.tilesets[2].tilePath(venue: "m", floor: "floor_m1", ordinal: -1, z: 2, x: 1, y: 0), "m/-1/mvt/2/1/3.pbf")
        // The default is today's tree.
        let d = try parse(#"[{"format": "mvt"}]"#)
        XCTAssertEqual(d.tilesets[0].tilePath(venue: "m", floor: "all", ordinal: nil, z: 17, x: 1, y: 2), "m/all/mvt/17/1/2.pbf")
        XCTAssertNil(d.tilesets[0].archive)
    }

    func assertError(_ tilesets: String, key: String, _ fragment: String, line: UInt = #line) {
        XCTAssertThrowsError(try parse(tilesets), line: line) { e in
            guard let ce = e as? ConfigError else { return XCTFail("\(e)", line: line) }
            XCTAssertEqual(ce.key, key, line: line)
            XCTAssertTrue(ce.description.contains(fragment), ce.description, line: line)
        }
    }

    func testBadLayoutsAreErrorsNamingTheKey() {
        assertError(#"[{"format": "png", "layout": "bing"}]"#, key: "tilesets[0].layout", "unknown layout \"bing\"")
        assertError(#"[{"format": "png", "path": "{venue}/{floor}/{format}{scale}/{z}/{x}/{row}.png"}]"#, key: "tilesets[0].path", "unknown token {row}")
        assertError(#"[{"format": "mvt", "path": "{venue}/{floor}/{format}{scale}/{z}/{x}.pbf"}]"#, key: "tilesets[0].path", "one path per tile")
        assertError(#"[{"format": "png", "layout": "xyz", "path": "{venue}/{floor}/{format}{scale}/{quadkey}.{ext}"}]"#, key: "tilesets[0].path", "not both")
        assertError(#"[{"format": "png", "archive": "tar"}]"#, key: "tilesets[0].archive", "\"pmtiles\", \"mbtiles\" or \"zip\"")
        assertError(#"[{"format": "mvt"}, {"format": "png", "path": "{venue}/{floor}/t{scale}/{z}/{x}/{y}.png"}]"#,
                    key: "tilesets[1].path", "raster from vector")
    }

    func testTwoTilesetsOnTheSamePathsAreRefused() {
        assertError(#"[{"format": "png", "path": "{venue}/{floor}/{format}{scale}/{z}/{x}/{y}.tpbf"}, {"format": "mvt", "path": "{venue}/{floor}/png{scale}/{z}/{x}/{y}.t{ext}"}]"#,
                    key: "tilesets", "would go to the same paths")
    }
}
