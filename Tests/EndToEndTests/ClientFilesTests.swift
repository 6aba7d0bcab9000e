import Foundation
import TestSupport
import XCTest

/// The files for web clients that a build writes (issue 19): the text `level`
/// property and unique feature ids in the vector tiles, MapLibre styles,
/// sprite, glyphs, floors.json and the preview page, in the manifest.
final class ClientFilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("clients") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func build(_ source: URL, format: String, tilesets: String, zoom: (Int, Int) = (17, 20), extra: String = "") throws -> URL {
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": \#(zoom.0), "max": \#(zoom.1)}, "sources": [{"id": "v", "format": "\#(format)", "path": "\#(source.path)"}], "tilesets": \#(tilesets)\#(extra)}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "--jobs", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return dir.appendingPathComponent("out")
    }

    func tiles(_ root: URL, _ sub: String) throws -> [DecodedTile] {
        let base = root.appendingPathComponent(sub)
        let rels = (FileManager.default.enumerator(atPath: base.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".pbf") }.sorted()
        return try rels.map { try DecodedTile(Array(Data(contentsOf: base.appendingPathComponent($0)))) }
    }

    func testLevelTextAndUniqueIDsForFeaturesOnSeveralFloors() throws {
        let osm = CLI.packageRoot.appendingPathComponent("Tests/VenueFormatsTests/Fixtures/osm-indoor.geojson")
        let out = try build(osm, format: "geojson", tilesets: #"[{"format": "mvt"}]"#, zoom: (18, 20))
        var levels = [String: Set<String>]()
        var sawFeatures = 0
        for t in try tiles(out, "v/all/mvt") {
            for l in t.layers {
                let ids = l.features.compactMap(\.id)
                XCTAssertEqual(ids.count, l.features.count, "\(l.name): a feature without id")
                XCTAssertEqual(Set(ids).count, ids.count, "\(l.name): duplicate feature ids \(ids.sorted())")
                for f in l.features {
                    sawFeatures += 1
                    let level = try XCTUnwrap(f.properties["level"], "\(l.name) \(f.properties)")
                    if let id = f.properties["id"] { levels[id, default: []].insert(level) }
                }
            }
        }
        XCTAssertGreaterThan(sawFeatures, 0)
        XCTAssertEqual(levels["way/2"], ["0"])
        XCTAssertEqual(levels["way/3"], ["0;1"])          // level=0;1
        XCTAssertEqual(levels["way/4"], ["-1"])
        XCTAssertEqual(levels["way/5"], ["-1;0;1"])       // level=-1-1, a range
        // The per-floor pyramids carry the same text.
        let upstairs = try tiles(out, "v/floor_1/mvt").flatMap { $0.layers.flatMap(\.features) }
        XCTAssertTrue(upstairs.contains { $0.properties["id"] == "way/3" && $0.properties["level"] == "0;1" })
        // TileJSON lists the field.
        let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("v/all/mvt/tilejson.json"))) as! [String: Any]
        let walk = (tj["vector_layers"] as? [[String: Any]])?.first { $0["id"] as? String == "floor_walkways" }
        XCTAssertEqual((walk?["fields"] as? [String: String])?["level"], "String")
        XCTAssertEqual(walk?["description"] as? String, "Walkways, every floor: filter on level (\"0\", \"0;1\"), ordinal or level_id")
    }

    func testBuildWritesStyleGlyphsSpriteFloorsAndPreview() throws {
        let out = try build(CLI.fixture, format: "imdf", tilesets: #"[{"format": "png", "scale": [1, 2]}, {"format": "mvt"}]"#)
        let v = out.appendingPathComponent("v")
        for f in ["style.json", "floors.json", "index.html", "sprite.json", "sprite.png", "sprite@2x.json", "sprite@2x.png",
                  "glyphs/DejaVu Sans/0-255.pbf", "maplibre-gl/maplibre-gl.js", "maplibre-gl/maplibre-gl.css",
                  "maplibre-gl/LICENSE.txt", "maplibre-gl/VERSION.md",
                  "floor_m1/style.json", "floor_0/style.json", "floor_1/style.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: v.appendingPathComponent(f).path), f)
        }
        let style = try JSONSerialization.jsonObject(with: Data(contentsOf: v.appendingPathComponent("style.json"))) as! [String: Any]
        XCTAssertEqual(style["version"] as? Int, 8)
        XCTAssertEqual(((style["sources"] as? [String: [String: Any]])?["venue"]?["tiles"] as? [String]), ["all/mvt/{z}/{x}/{y}.pbf"])
        let floors = try JSONSerialization.jsonObject(with: Data(contentsOf: v.appendingPathComponent("floors.json"))) as! [String: Any]
        XCTAssertEqual(floors["default_floor"] as? String, "floor_0")
        XCTAssertEqual((floors["floors"] as? [[String: Any]])?.map { $0["id"] as! String }, ["floor_1", "floor_0", "floor_m1"])
        // The copied sprite is the built-in one.
        let sprite = try JSONSerialization.jsonObject(with: Data(contentsOf: v.appendingPathComponent("sprite.json"))) as! [String: [String: Int]]
        XCTAssertEqual(sprite["atm"]?["pixelRatio"], 1)

        // Every file is in the manifest with its hash, so verify checks them.
        let manifest = try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8)
        for f in ["v/style.json", "v/floors.json", "v/index.html", "v/glyphs/DejaVu Sans/0-255.pbf", "v/maplibre-gl/maplibre-gl.js"] {
            XCTAssertTrue(manifest.contains("\"\(f)\""), f)
        }
        let config = dir.appendingPathComponent("pipeline.json").path
        XCTAssertEqual(try CLI.run(["verify", "--config", config]).status, 0)

        // A second build changes nothing and keeps them (the last build's files are not deleted as stale).
        let before = try FileManager.default.attributesOfItem(atPath: v.appendingPathComponent("style.json").path)[.modificationDate] as? Date
        let again = try CLI.run(["build", "--config", config, "--force"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: v.appendingPathComponent("glyphs/DejaVu Sans/0-255.pbf").path))
        let after = try FileManager.default.attributesOfItem(atPath: v.appendingPathComponent("style.json").path)[.modificationDate] as? Date
        XCTAssertEqual(before, after)
        XCTAssertEqual(try CLI.run(["verify", "--config", config]).status, 0)
    }

    func testSameClientFilesWithOneOrManyWorkers() throws {
        let a = try build(CLI.fixture, format: "imdf", tilesets: #"[{"format": "mvt"}]"#, zoom: (17, 18))
        let one = try Data(contentsOf: a.appendingPathComponent("v/glyphs/DejaVu Sans/0-255.pbf"))
        let style = try Data(contentsOf: a.appendingPathComponent("v/style.json"))
        let config = dir.appendingPathComponent("pipeline.json").path
        XCTAssertEqual(try CLI.run(["build", "--config", config, "--output", dir.appendingPathComponent("out1").path, "--jobs", "1"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("out1/v/glyphs/DejaVu Sans/0-255.pbf")), one)
        XCTAssertEqual(try Data(contentsOf: dir.appendingPathComponent("out1/v/style.json")), style)
    }
}
