import Foundation
import TestSupport
import XCTest

/// The preview page in a real browser: builds the sample, then
/// scripts/browser_test.py serves the output on 127.0.0.1, opens the page in
/// headless Chromium (Selenium), waits for MapLibre's `idle` and measures it.
final class BrowserTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("browser") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    /// Builds the fixture with `floors` and runs scripts/browser_test.py on it (`extra`: its options).
    func runBrowser(floors: String = #""ordinal""#, extra: [String] = []) throws -> [String: Any] {
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "floors": \#(floors), "zoom": {"min": 17, "max": 21}, "sources": [{"id": "arcade", "format": "imdf", "path": "\#(CLI.fixture.path)"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let b = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(b.status, 0, b.stderr)

        let result = dir.appendingPathComponent("result.json"), shots = dir.appendingPathComponent("shots")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", CLI.packageRoot.appendingPathComponent("scripts/browser_test.py").path,
                       dir.appendingPathComponent("out").path, "arcade", result.path, "--screenshots", shots.path] + extra
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        if p.terminationStatus == 77 {
            // scripts/setup installs chromium, chromedriver and selenium: in CI their absence is a failure.
            try ExternalTools.skipUnless(false, needs: "chromium, chromedriver and selenium (run scripts/setup): \(stderr)")
        }
        XCTAssertEqual(p.terminationStatus, 0, stderr)
        let r = try JSONSerialization.jsonObject(with: Data(contentsOf: result)) as! [String: Any]
        XCTAssertEqual(r["errors"] as? [String], [], "console errors")
        XCTAssertEqual(r["page_errors"] as? [String], [], "MapLibre errors")
        XCTAssertEqual(r["modes"] as? [String], ["vector", "raster"])
        return r
    }

    /// Vector and raster views of each floor agree.
    func checkFloors(_ r: [String: Any], _ ids: Set<String>) {
        let floors = r["floors"] as! [String: [String: Any]]
        XCTAssertEqual(Set(floors.keys), ids)
        for (id, f) in floors.sorted(by: { $0.key < $1.key }) {
            let total = f["total_pixels"] as! Double
            // The venue is drawn in both views.
            XCTAssertGreaterThan(f["vector_pixels"] as! Double, total * 0.02, id)
            XCTAssertGreaterThan(f["raster_pixels"] as! Double, total * 0.02, id)
            XCTAssertGreaterThanOrEqual(f["iou"] as! Double, 0.95, "\(id): vector and raster footprints differ")
            print("BrowserTests: \(id) IoU \(f["iou"]!) vector \(f["vector_pixels"]!) raster \(f["raster_pixels"]!) px")
        }
    }

    func testPreviewPageInChromium() throws {
        let r = try runBrowser()
        checkFloors(r, ["floor_m1", "floor_0", "floor_1"])
        // Rooms are filled by category in both views (the vector style matches on the tiles' fill_category):
        // the ground floor's food and shops cover about as many pixels in each.
        let ground = try XCTUnwrap((r["floors"] as? [String: [String: Any]])?["floor_0"])
        for c in ["food", "shops", "health"] {
            let v = ground["vector_\(c)_pixels"] as? Double ?? 0, raster = ground["raster_\(c)_pixels"] as? Double ?? 0
            print("BrowserTests: floor_0 \(c) fill vector \(v) raster \(raster) px")
            XCTAssertGreaterThan(raster, 500, "floor_0: no \(c) fill in the raster view")
            XCTAssertEqual(v / max(raster, 1), 1, accuracy: 0.2, "floor_0: \(c) fill differs between the vector and raster views")
        }
        XCTAssertGreaterThan(r["floor_change"] as? Double ?? 0, 0.02, "switching floors did not change the picture")
        let toggle = r["layer_toggle"] as! [String: Any]
        XCTAssertGreaterThan(toggle["rooms_before"] as! Int, 500)
        XCTAssertEqual(toggle["rooms_after"] as? Int, 0, "unticking Rooms left room fill")
        XCTAssertEqual(toggle["checked_after"] as? Bool, false)
        let clicked = r["clicked"] as? [String: Any]
        XCTAssertNotNil(clicked?["id"], "clicking a room shows its properties: \(r["panel"] ?? "")")
        XCTAssertEqual(clicked?["level"] as? String, "0")
        XCTAssertFalse((r["screenshots"] as? [String] ?? []).isEmpty)
    }

    /// `"floors": "building"`: the page lists each building's floors; picking
    /// East Pavilion's floor shows its pyramids (vector filtered to the
    /// building, raster its own), and clicking a unit draws the style's
    /// selected-unit fill on it (feature state), cleared by the next click.
    func testBuildingFloorsAndSelectedUnitInChromium() throws {
        let r = try runBrowser(floors: #""building""#, extra: ["--select"])
        checkFloors(r, ["floor_b1_m1", "floor_b1_0", "floor_b1_1", "floor_b2_0"])
        let s = try XCTUnwrap(r["selection"] as? [String: Any])
        XCTAssertEqual(s["floor"] as? String, "floor_b2_0", "the last building's floor, picked by its button")
        XCTAssertEqual(s["shown"] as? String, "floor_b2_0")
        XCTAssertEqual(s["before"] as? Int, 0, "nothing selected before a click")
        XCTAssertGreaterThan(s["unit_points"] as? Int ?? 0, 0, "no unit to click on the building floor")
        XCTAssertGreaterThan(s["first_pixels"] as? Int ?? 0, 100, "the selected fill does not show")
        XCTAssertEqual(s["first_at_click"] as? Bool, true, "the clicked unit is not the selected one")
        XCTAssertNotNil((s["first_state"] as? [String: Any])?["id"], "the selection is a feature state by the tile's feature id")
        XCTAssertEqual((s["first_properties"] as? [String: Any])?["building_id"] as? String, "95c5902b-ed2d-5822-9db5-352a74da484e",
                       "a unit of East Pavilion")
        XCTAssertGreaterThan(s["second_pixels"] as? Int ?? 0, 100)
        XCTAssertEqual(s["second_at_click"] as? Bool, true)
        XCTAssertEqual(s["first_cleared"] as? Bool, true, "the previous selection stays drawn")
        XCTAssertEqual(s["raster_layer_visible"] as? Bool, true)
        XCTAssertGreaterThan(s["raster_pixels"] as? Int ?? 0, 1000, "the building floor's raster tiles")
        print("BrowserTests: selection \(s)")
    }
}
