import Foundation
import XCTest

/// Nothing runs for as long as one lets it: a stray coordinate is skipped with
/// a warning, and a plan past `max_tiles` is refused before anything is written.
final class LimitsTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("limits")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    /// Changes one position of the first polygon feature of `file`; returns its id.
    func strayVertex(_ file: String, _ change: (inout [Double]) -> Void) throws -> String {
        var id = ""
        try CLI.editFeatures(venue.appendingPathComponent(file)) { feats in
            let i = feats.firstIndex { ($0["geometry"] as? [String: Any])?["type"] as? String == "Polygon" }!
            var g = feats[i]["geometry"] as! [String: Any]
            var rings = g["coordinates"] as! [[[Double]]]
            change(&rings[0][1])
            g["coordinates"] = rings
            feats[i]["geometry"] = g
            id = feats[i]["id"] as! String
        }
        return id
    }

    func testAStrayCoordinateIsReportedAndSkippedTheSameWayEveryTime() throws {
        let swapped = try strayVertex("unit.geojson") { p in p.swapAt(0, 1) }
        let tiny = try strayVertex("fixture.geojson") { p in p[1] = Double.leastNonzeroMagnitude }   // 5e-324, as the attack wrote it
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}]"#)
        let v = try CLI.run(["validate", "--config", config.path])
        XCTAssertEqual(v.status, 0, v.stderr)
        for id in [swapped, tiny] {
            XCTAssertTrue(v.stderr.contains(id) && v.stderr.contains("from the rest of the venue"), "\(id): \(v.stderr)")
        }
        XCTAssertEqual(try CLI.run(["validate", "--config", config.path, "--strict"]).status, 1)
        let t0 = Date()
        let b = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(b.status, 0, b.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(t0), 120, "the plan does not span the globe")
        XCTAssertTrue(b.stderr.contains(swapped) && b.stderr.contains("skipped"), b.stderr)
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
        // The same repair every time: a second build into another folder gives the same manifest.
        let again = dir.appendingPathComponent("again")
        XCTAssertEqual(try CLI.run(["build", "--config", config.path, "-q", "--output", again.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), try Data(contentsOf: again.appendingPathComponent("manifest.json")))
    }

    func testAPlanPastMaxTilesIsRefusedBeforeAnythingIsWritten() throws {
        // Zoom 30 on a small venue: billions of tiles.
        let deep = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "zoom": {"min": 17, "max": 30}"#)
        let t0 = Date()
        for args in [["build", "--config", deep.path, "--dry-run"], ["build", "--config", deep.path]] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 1, r.stderr)
            XCTAssertTrue(r.stderr.contains("more than max_tiles (20000000)") && r.stderr.contains("h/floor_0/png: about"), r.stderr)
        }
        XCTAssertLessThan(Date().timeIntervalSince(t0), 60)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        // The limit is the config's to set.
        let small = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "zoom": {"min": 17, "max": 19}, "max_tiles": 10"#)
        XCTAssertTrue(try CLI.run(["build", "--config", small.path]).stderr.contains("more than max_tiles (10)"))
        let enough = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "zoom": {"min": 17, "max": 19}, "max_tiles": 100000"#)
        XCTAssertEqual(try CLI.run(["build", "--config", enough.path, "-q"]).status, 0)
        let bad = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "max_tiles": 0"#)
        XCTAssertTrue(try CLI.run(["build", "--config", bad.path]).stderr.contains("\"max_tiles\": expected a positive number"))
    }
}
