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

    func testPreviewPageInChromium() throws {
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": 21}, "sources": [{"id": "arcade", "format": "imdf", "path": "\#(CLI.fixture.path)"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let b = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(b.status, 0, b.stderr)

        let result = dir.appendingPathComponent("result.json"), shots = dir.appendingPathComponent("shots")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", CLI.packageRoot.appendingPathComponent("scripts/browser_test.py").path,
                       dir.appendingPathComponent("out").path, "arcade", result.path, "--screenshots", shots.path]
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
        let floors = r["floors"] as! [String: [String: Any]]
        XCTAssertEqual(Set(floors.keys), ["floor_m1", "floor_0", "floor_1"])
        for (id, f) in floors.sorted(by: { $0.key < $1.key }) {
            let total = f["total_pixels"] as! Double
            // The venue is drawn in both views.
            XCTAssertGreaterThan(f["vector_pixels"] as! Double, total * 0.02, id)
            XCTAssertGreaterThan(f["raster_pixels"] as! Double, total * 0.02, id)
            XCTAssertGreaterThanOrEqual(f["iou"] as! Double, 0.95, "\(id): vector and raster footprints differ")
            print("BrowserTests: \(id) IoU \(f["iou"]!) vector \(f["vector_pixels"]!) raster \(f["raster_pixels"]!) px")
        }
        // Rooms are filled by category in both views (the vector style matches on the tiles' fill_category):
        // the ground floor's food and shops cover about as many pixels in each.
        let ground = try XCTUnwrap(floors["floor_0"])
        for c in ["food", "shops", "health"] {
            let v = ground["vector_\(c)_pixels"] as? Double ?? 0, r = ground["raster_\(c)_pixels"] as? Double ?? 0
            print("BrowserTests: floor_0 \(c) fill vector \(v) raster \(r) px")
            XCTAssertGreaterThan(r, 500, "floor_0: no \(c) fill in the raster view")
            XCTAssertEqual(v / max(r, 1), 1, accuracy: 0.2, "floor_0: \(c) fill differs between the vector and raster views")
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
}
