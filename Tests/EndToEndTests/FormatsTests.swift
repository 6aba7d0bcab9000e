import Foundation
import TestSupport
import XCTest

/// Every input format through the built CLI: MVF v2/v3 and OSM GeoJSON next
/// to IMDF in one pipeline, and `validate` on venue data with one problem of
/// each kind the issue lists.
final class FormatsTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("formats") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func files(_ root: URL, under sub: String, ext: String) -> [String] {
        (FileManager.default.enumerator(atPath: root.appendingPathComponent(sub).path)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(ext) }.sorted()
    }

    func testMixedFormatsEachGetTheirOwnTree() throws {
        let v3 = dir.appendingPathComponent("mvf3"), v2 = dir.appendingPathComponent("mvf2-old")
        try MVFFixture.writeV3(to: v3)
        try MVFFixture.writeV2(to: v2, oldNames: true)
        let osm = CLI.packageRoot.appendingPathComponent("Tests/VenueFormatsTests/Fixtures/osm-indoor.geojson")
        let config = dir.appendingPathComponent("pipeline.json")
        try """
        {"output": "out", "zoom": {"min": 18, "max": 20},
         "sources": [{"id": "arcade", "format": "imdf", "path": "\(CLI.fixture.path)"},
                     {"id": "hall", "format": "mvf", "path": "mvf3"},
                     {"id": "hall-v2", "format": "mvf", "path": "mvf2-old"},
                     {"id": "mall", "format": "geojson", "path": "\(osm.path)"}],
         "tilesets": [{"format": "png"}, {"format": "mvt"}]}
        """.write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = dir.appendingPathComponent("out")
        for (id, floors) in [("arcade", ["floor_m1", "floor_0", "floor_1"]), ("hall", ["floor_0", "floor_1"]),
                             ("hall-v2", ["floor_0", "floor_1"]), ("mall", ["floor_m1", "floor_0", "floor_1"])] {
            for f in floors {
                XCTAssertFalse(files(out, under: "\(id)/\(f)/png", ext: ".png").isEmpty, "\(id)/\(f)/png")
                XCTAssertFalse(files(out, under: "\(id)/\(f)/mvt", ext: ".pbf").isEmpty, "\(id)/\(f)/mvt")
            }
        }
        // The MVF room keeps the bundle's own colour (default-style.json #CC3322 at 50 %),
        // its walls and doors land on their layers, and the hidden kiosk is not drawn.
        var layers = Set<String>()
        var bakery: [String: String]?
        for rel in files(out, under: "hall/floor_0/mvt/20", ext: ".pbf") {
            let t = try DecodedTile(Array(Data(contentsOf: out.appendingPathComponent("hall/floor_0/mvt/20/" + rel))))
            for l in t.layers {
                layers.insert(l.name)
                for f in l.features where f.properties["id"] == "g_bakery" { bakery = f.properties }
                XCTAssertFalse(l.features.contains { $0.properties["id"] == "g_kiosk" }, "hidden geometry was encoded")
            }
        }
        for expected in ["floor_rooms_floor_0", "floor_walkways_floor_0", "floor_walls_floor_0", "floor_openings_floor_0",
                         "floor_stairwells_floor_0", "floor_amenities_floor_0", "floor_outlines_floor_0"] {
            XCTAssertTrue(layers.contains(expected), "\(expected) not in \(layers.sorted())")
        }
        XCTAssertEqual(bakery?["name"], "Harbour Bakery")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any]
        XCTAssertNotNil(manifest)
        XCTAssertEqual(try CLI.run(["verify", "--config", config.path]).status, 0)
    }

    func testMVFColourOverridesReachThePixels() throws {
        let v3 = dir.appendingPathComponent("mvf3")
        try MVFFixture.writeV3(to: v3)
        let config = try CLI.writeConfig(dir, sources: [("hall", "mvf", v3.path)])
        XCTAssertEqual(try CLI.run(["build", "--config", config.path]).status, 0)
        // Recolour the room in the bundle: exactly the tiles that draw it change.
        let before = CLI.snapshot(dir.appendingPathComponent("out"))
        let style = v3.appendingPathComponent("default-style.json")
        try String(contentsOf: style, encoding: .utf8).replacingOccurrences(of: "#CC3322", with: "#2233CC").write(to: style, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = CLI.snapshot(dir.appendingPathComponent("out"))
        let changed = after.filter { $0.key.hasSuffix(".png") && before[$0.key] != $0.value }.map(\.key)
        XCTAssertFalse(changed.isEmpty)
        XCTAssertTrue(changed.allSatisfy { $0.hasPrefix("hall/floor_0/") }, "\(changed)")
    }

    /// One OSM GeoJSON file holding one problem of every per-feature kind.
    static let messy = """
    {"type": "FeatureCollection", "features": [
     {"type": "Feature", "id": "way/1", "properties": {"indoor": "room", "level": "0"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0001], [5.0003, 45.0001], [5.0003, 45.0003], [5.0001, 45.0003], [5.0001, 45.0001]]]}},
     {"type": "Feature", "id": "way/2", "properties": {"indoor": "room", "level": "0"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0004, 45.0001], [5.0004, 45.0003], [5.0006, 45.0003], [5.0006, 45.0001], [5.0004, 45.0001]]]}},
     {"type": "Feature", "id": "way/3", "properties": {"indoor": "room", "level": "0"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0007, 45.0001], [5.0009, 45.0001], [5.0009, 45.0003], [5.0007, 45.0003]]]}},
     {"type": "Feature", "id": "way/4", "properties": {"indoor": "room", "level": "0"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0004], [5.0002, 45.0004], [5.0001, 45.0004]]]}},
     {"type": "Feature", "id": "way/5", "properties": {"indoor": "room", "level": "1"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0001], [5.0003, 45.0003], [5.0003, 45.0001], [5.0001, 45.0003], [5.0001, 45.0001]]]}},
     {"type": "Feature", "id": "way/6", "properties": {"indoor": "room", "level": "1"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0004, 45.0001], [5.0006, 45.0001], [5.0006, 45.0003], [5.0004, 45.0003], [5.0004, 45.0001]],
                                                       [[5.0010, 45.0010], [5.0010, 45.0011], [5.0011, 45.0011], [5.0011, 45.0010], [5.0010, 45.0010]]]}},
     {"type": "Feature", "id": "way/1", "properties": {"indoor": "corridor", "level": "0"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0005], [5.0009, 45.0005], [5.0009, 45.0006], [5.0001, 45.0006], [5.0001, 45.0005]]]}},
     {"type": "Feature", "id": "way/8", "properties": {"indoor": "room", "level": "1"},
      "geometry": {"type": "Polygon", "coordinates": [[[6.0001, 45.0001], [6.0003, 45.0001], [6.0003, 45.0003], [6.0001, 45.0003], [6.0001, 45.0001]]]}},
     {"type": "Feature", "id": "way/9", "properties": {"indoor": "room"},
      "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0007], [5.0003, 45.0007], [5.0003, 45.0009], [5.0001, 45.0009], [5.0001, 45.0007]]]}}
    ]}
    """

    func testValidateListsEveryFeatureProblemAndTheBuildRepairsThemTheSameWayEveryTime() throws {
        let venue = dir.appendingPathComponent("messy.geojson")
        try Self.messy.write(to: venue, atomically: true, encoding: .utf8)
        let r = try CLI.run(["validate", "--format", "json", venue.path])
        XCTAssertEqual(r.status, 0, "warnings only: \(r.stderr)")
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(doc["valid"] as? Bool, true)
        let source = try XCTUnwrap((doc["sources"] as? [[String: Any]])?.first)
        let problems = (source["problems"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "warning" }
        func problem(_ id: String, _ text: String, file: StaticString = #filePath, line: UInt = #line) {
            let hit = problems.first { $0["feature"] as? String == id && ($0["message"] as? String ?? "").contains(text) }
            XCTAssertNotNil(hit, "no warning for \(id) containing \"\(text)\" in \(problems)", file: file, line: line)
            XCTAssertTrue((hit?["file"] as? String ?? "").hasSuffix("messy.geojson"), file: file, line: line)
        }
        // Routine repairs: one counted notice each for the file, not a warning per feature.
        let notices = (source["problems"] as? [[String: Any]] ?? []).filter { $0["severity"] as? String == "notice" }.compactMap { $0["message"] as? String }
        XCTAssertTrue(notices.contains("rings wound the wrong way reversed (RFC 7946 §3.1.6): 2"), "\(notices)")   // way/2, and way/6's second ring
        XCTAssertTrue(notices.contains("polygon rings outside the others kept as polygons of their own: 1"), "\(notices)") // way/6: a wing, not a hole
        problem("way/3", "not closed")                         // unclosed ring: repaired
        problem("way/4", "fewer than three")                   // ring of too few positions: skipped
        problem("way/5", "self-intersection at (5.0002, 45.0002)")
        problem("way/1", "duplicate id")                       // the corridor reusing way/1
        problem("way/8", "far outside the venue")
        problem("way/9", "no \"level\" property")
        XCTAssertEqual(source["warnings"] as? Int, problems.count)
        XCTAssertEqual(try CLI.run(["validate", "--strict", venue.path]).status, 1)
        let strictJSON = try CLI.run(["validate", "--strict", "--format", "json", venue.path])
        XCTAssertEqual(strictJSON.status, 1)
        XCTAssertTrue(strictJSON.stdout.contains("\"valid\" : false"), strictJSON.stdout)

        // The build repairs/skips the same features, counts them, and two builds agree byte for byte.
        let config = try CLI.writeConfig(dir, sources: [("messy", "geojson", venue.path)])
        var outputs = [[String: String]]()
        for i in 0..<2 {
            let b = try CLI.run(["build", "--config", config.path, "--force", "--output", dir.appendingPathComponent("out\(i)").path])
            XCTAssertEqual(b.status, 0, b.stderr)
            XCTAssertTrue(b.stdout.contains("\(problems.count) warnings"), b.stdout)
            // Content only (not mtimes); not the lock (it records the process that held it) nor
            // the build index (it records the manifest's modification time).
            outputs.append(CLI.snapshot(dir.appendingPathComponent("out\(i)"))
                .mapValues { String($0.prefix(64)) })
        }
        XCTAssertEqual(outputs[0], outputs[1])
    }

    func testErrorsAreAllListedAndTheVenueRefused() throws {
        let venue = dir.appendingPathComponent("broken.geojson")
        // A good build first: the refused one must leave it byte for byte.
        try Self.messy.write(to: venue, atomically: true, encoding: .utf8)
        let config = try CLI.writeConfig(dir, sources: [("broken", "geojson", venue.path)])
        XCTAssertEqual(try CLI.run(["build", "--config", config.path]).status, 0)
        let previous = CLI.snapshot(dir.appendingPathComponent("out"))
        try """
        {"type": "FeatureCollection", "features": [
         {"type": "Feature", "id": "way/1", "properties": {"indoor": "room", "level": "0"},
          "geometry": {"type": "Polygon", "coordinates": [[[5.0001, 45.0001], [5.0002, 95.0001], [5.0003, 45.0003], [5.0001, 45.0001]]]}},
         {"type": "Feature", "id": "way/2", "properties": {"indoor": "room", "level": "0"},
          "geometry": {"type": "Circle", "coordinates": [5.0, 45.0]}},
         {"type": "Feature", "id": "way/3", "properties": {"indoor": "room", "level": "0"},
          "geometry": {"type": "Polygon", "coordinates": [[[5.0004, 45.0001], [5.0006, 45.0001], [5.0006, 45.0003], [5.0004, 45.0001]]]}},
         "not a feature"
        ]}
        """.write(to: venue, atomically: true, encoding: .utf8)
        let r = try CLI.run(["validate", venue.path])
        XCTAssertEqual(r.status, 1)
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error") }
        XCTAssertEqual(errors.count, 3, r.stderr)
        XCTAssertTrue(errors.contains { $0.contains("way/1") && $0.contains("outside WGS84") }, r.stderr)
        XCTAssertTrue(errors.contains { $0.contains("way/2") && $0.contains("Circle") }, r.stderr)
        XCTAssertTrue(errors.contains { $0.contains("#3") && $0.contains("not an object") }, r.stderr)

        let b = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(b.status, 1)
        XCTAssertEqual(b.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }.count, 3, b.stderr)
        XCTAssertEqual(CLI.snapshot(dir.appendingPathComponent("out")), previous)

        // A coordinate JSON cannot even hold (1e999 overflows a double) makes the file unreadable.
        try Self.messy.replacingOccurrences(of: "6.0001", with: "1e999").write(to: venue, atomically: true, encoding: .utf8)
        let nf = try CLI.run(["validate", venue.path])
        XCTAssertEqual(nf.status, 1)
        XCTAssertTrue(nf.stderr.contains("broken.geojson: malformed JSON") && nf.stderr.contains("1e999"), nf.stderr)

        // Wrong top-level types are one error about the file.
        try #"{"type": "FeatureCollection", "features": {"no": "array"}}"#.write(to: venue, atomically: true, encoding: .utf8)
        let t = try CLI.run(["validate", "--format", "json", venue.path])
        XCTAssertEqual(t.status, 1)
        XCTAssertTrue(t.stdout.contains("\"features\\\" is missing or not an array"), t.stdout)
    }

    func testIMDFDuplicateIdsDanglingBuildingsAndEmptyFloors() throws {
        let venue = dir.appendingPathComponent("imdf")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { $0.append($0[0]) }
        try CLI.editFeatures(venue.appendingPathComponent("level.geojson")) { feats in
            var l = feats[0]
            l["id"] = "level-empty"
            var p = l["properties"] as! [String: Any]
            p["ordinal"] = 7
            p["building_ids"] = ["no-such-building"]
            l["properties"] = p
            l["geometry"] = NSNull()
            feats.append(l)
        }
        let r = try CLI.run(["validate", venue.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("unit.geojson") && r.stderr.contains("duplicate id"), r.stderr)
        XCTAssertTrue(r.stderr.contains("feature level-empty: building_ids names no-such-building"), r.stderr)
        XCTAssertTrue(r.stderr.contains("empty floor: level level-empty"), r.stderr)
    }
}
