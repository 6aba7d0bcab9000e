import Foundation
import TestSupport
import XCTest

/// Vector tile output of the built CLI: layout, layers, properties, TileJSON,
/// gzip, determinism, and the independent MVT 2.1 checker in ../shared/tools.
final class VectorTilesTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("mvt") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func build(_ source: URL, tilesets: String, extra: String = "", jobs: Int = 2, out: String = "out", maxZoom: Int = 23, format: String = "imdf") throws -> URL {
        let config = dir.appendingPathComponent("pipeline-\(out).json")
        try #"{"output": "\#(out)", "base_url": "https://tiles.example.com/v1/", "zoom": {"min": 17, "max": \#(maxZoom)}, "sources": [{"id": "h", "format": "\#(format)", "path": "\#(source.path)"}], "tilesets": \#(tilesets)\#(extra)}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "--jobs", "\(jobs)"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return dir.appendingPathComponent(out)
    }

    func tiles(_ root: URL, under sub: String) -> [String] {
        (FileManager.default.enumerator(atPath: root.appendingPathComponent(sub).path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".pbf") }.sorted()
    }

    func testLayersPropertiesAndPyramids() throws {
        let out = try build(CLI.fixture, tilesets: #"[{"format": "mvt"}]"#)
        for pyramid in ["h/floor_m1/mvt", "h/floor_0/mvt", "h/floor_1/mvt", "h/all/mvt"] {
            XCTAssertFalse(tiles(out, under: pyramid).isEmpty, pyramid)
        }
        // A z20 tile in the middle of the ground floor: its layers are named by the style spec's layer ids.
        var names = Set<String>()
        var sawRoom = false, sawLabel = false
        for rel in tiles(out, under: "h/floor_0/mvt/20") {
            let t = try DecodedTile(Array(Data(contentsOf: out.appendingPathComponent("h/floor_0/mvt/20/" + rel))))
            for l in t.layers {
                names.insert(l.name)
                XCTAssertEqual(l.version, 2); XCTAssertEqual(l.extent, 4096)
                for f in l.features {
                    XCTAssertNotNil(f.id)
                    XCTAssertNotNil(f.properties["id"]); XCTAssertNotNil(f.properties["category"])
                    if l.name == "floor_rooms_floor_0", f.properties["category"] == "room" {
                        sawRoom = true
                        XCTAssertEqual(f.properties["ordinal"], "0")
                        XCTAssertNotNil(f.properties["level_id"]); XCTAssertNotNil(f.properties["building_id"])
                    }
                    if l.name == "floor_labels_floor_0", f.properties["name"] == "Lighthouse Optics" {
                        sawLabel = true
                        XCTAssertEqual(f.type, 1)
                        XCTAssertEqual(f.properties["name:de"], "Leuchtturm Optik")
                    }
                }
            }
        }
        XCTAssertTrue(sawRoom); XCTAssertTrue(sawLabel)
        for expected in ["venue", "floor_outlines_floor_0", "floor_walkways_floor_0", "floor_rooms_floor_0", "floor_restrooms_floor_0",
                         "floor_elevators_floor_0", "floor_stairwells_floor_0", "floor_fixtures_floor_0", "floor_water_floor_0",
                         "floor_openings_floor_0", "floor_amenities_floor_0", "floor_labels_floor_0", "floor_non_public_units_floor_0"] {
            XCTAssertTrue(names.contains(expected), "missing layer \(expected) in \(names.sorted())")
        }
        XCTAssertTrue(names.contains { $0.hasPrefix("building_outlines_") })

        // The venue-wide pyramid: generic layer names.
        for rel in tiles(out, under: "h/all/mvt/19") {
            let t = try DecodedTile(Array(Data(contentsOf: out.appendingPathComponent("h/all/mvt/19/" + rel))))
            for l in t.layers { XCTAssertFalse(l.name.contains("floor_0") || l.name.contains("floor_m1"), l.name) }
        }

        // TileJSON 3.0.0 beside every pyramid, with absolute URLs.
        let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/floor_0/mvt/tilejson.json"))) as! [String: Any]
        XCTAssertEqual(tj["tilejson"] as? String, "3.0.0")
        XCTAssertEqual(tj["tiles"] as? [String], ["https://tiles.example.com/v1/h/floor_0/mvt/{z}/{x}/{y}.pbf"])
        XCTAssertEqual(tj["minzoom"] as? Int, 17); XCTAssertEqual(tj["maxzoom"] as? Int, 23)
        XCTAssertEqual((tj["bounds"] as? [Double])?.count, 4); XCTAssertEqual((tj["center"] as? [Double])?.count, 3)
        let layers = (tj["vector_layers"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        XCTAssertTrue(layers.contains("floor_rooms_floor_0"))
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/all/mvt/tilejson.json"))) as! [String: Any]
        let allFields = (all["vector_layers"] as? [[String: Any]])?.first { $0["id"] as? String == "floor_rooms" }?["fields"] as? [String: String]
        XCTAssertEqual(allFields?["ordinal"], "Number")
        XCTAssertEqual(allFields?["level_id"], "String")
    }

    func testRoomsVectorOrdinalsCoverEveryFloorInVenueWidePyramid() throws {
        let out = try build(CLI.fixture, tilesets: #"[{"format": "mvt"}]"#)
        var ordinals = Set<String>()
        for rel in tiles(out, under: "h/all/mvt/18") {
            for l in try DecodedTile(Array(Data(contentsOf: out.appendingPathComponent("h/all/mvt/18/" + rel)))).layers where l.name.hasPrefix("floor_") {
                l.features.forEach { if let o = $0.properties["ordinal"] { ordinals.insert(o) } }
            }
        }
        XCTAssertEqual(ordinals, ["-1", "0", "1"])
    }

    func testGzipAndManifest() throws {
        let out = try build(CLI.fixture, tilesets: #"[{"format": "mvt", "compress": "gzip", "buffer": 64}]"#)
        let first = try XCTUnwrap(tiles(out, under: "h/floor_1/mvt").first)
        let data = try Data(contentsOf: out.appendingPathComponent("h/floor_1/mvt/" + first))
        XCTAssertEqual(Array(data.prefix(2)), [0x1F, 0x8B])
        let m = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        let ts = ((m["venues"] as! [[String: Any]])[0]["tilesets"] as! [[String: Any]])[0]
        XCTAssertEqual(ts["content_encoding"] as? String, "gzip")
        XCTAssertEqual(ts["buffer"] as? Int, 64)
        XCTAssertEqual(ts["extent"] as? Int, 4096)
        XCTAssertNotNil((ts["tiles_per_floor"] as? [String: Any])?["all"])
    }

    func testSameBytesWithOneOrManyWorkers() throws {
        let a = try build(CLI.fixture, tilesets: #"[{"format": "png"}, {"format": "mvt"}]"#, jobs: 1, out: "one")
        let b = try build(CLI.fixture, tilesets: #"[{"format": "png"}, {"format": "mvt"}]"#, jobs: 3, out: "three")
        XCTAssertEqual(try Data(contentsOf: a.appendingPathComponent("manifest.json")), try Data(contentsOf: b.appendingPathComponent("manifest.json")))
    }

    /// ../shared/tools/check_mvt.py over the fixtures (IMDF, MVF v3), the real airport and Caserne: 0 failed.
    func testIndependentCheckerPasses() throws {
        let shared = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared")

        let mvf = dir.appendingPathComponent("mvf3")
        try MVFFixture.writeV3(to: mvf)
        var sources = [(CLI.fixture, "imdf", 23), (mvf, "mvf", 23)]
        // The airport's z22–23 (about 60,000 tiles) pass too; the suite checks up to z21 to stay quick.
        let yyj = shared.appendingPathComponent("venues/yyj-victoria-airport-imdf/VictoriaAirport_IMDF")
        if FileManager.default.fileExists(atPath: yyj.path) { sources.append((yyj, "imdf", 21)) }
        let caserne = shared.appendingPathComponent("venues/caserne-de-bonne-geojson/caserne.geojson")
        if FileManager.default.fileExists(atPath: caserne.path) { sources.append((caserne, "geojson", 23)) }
        for (i, (s, format, maxZoom)) in sources.enumerated() {
            let out = try build(s, tilesets: #"[{"format": "mvt"}]"#, out: "check\(i)", maxZoom: maxZoom, format: format)
            let check = try ExternalTools.checkMVT(out)
            XCTAssertEqual(check.status, 0, "\(s.lastPathComponent): \(check.text.suffix(2000))")
            XCTAssertTrue(check.text.contains(" 0 failed"), check.text.suffix(500).description)
        }
    }
}
