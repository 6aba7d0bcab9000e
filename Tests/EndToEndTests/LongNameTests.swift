import Foundation
import XCTest

/// A unit named with megabytes of text (issue 23, item 5: 96 MiB aborted the
/// build inside Cairo, 32 MiB took 15 s and 884 MB): names are cut before they
/// reach a label, with a warning naming the feature, in bounded time and memory.
final class LongNameTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("longname")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func testAMultiMebibyteNameIsCutWithAWarningInBoundedTimeAndMemory() throws {
        var ids = [String]()
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { feats in
            let named = feats.indices.filter { (feats[$0]["properties"] as? [String: Any])?["name"] != nil }
            // 24 MiB of words (the wrapping path), and one word of 4 MiB of
            // combining accents on a single letter (one character, millions of scalars).
            let words = String(repeating: "Grand Hall of Lost Luggage ", count: 24 << 20 / 27)
            let accents = "e" + String(repeating: "\u{0301}", count: 2 << 20)
            for (k, text) in [words, accents].enumerated() {
                var p = feats[named[k]]["properties"] as! [String: Any]
                p["name"] = ["en": text]
                feats[named[k]]["properties"] = p
                ids.append(feats[named[k]]["id"] as! String)
            }
        }
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)],
                                         extra: #", "zoom": {"min": 17, "max": 20}, "tilesets": [{"format": "png"}, {"format": "mvt"}]"#)
        let v = try CLI.run(["validate", "--config", config.path])
        XCTAssertEqual(v.status, 0, v.stderr)
        for id in ids { XCTAssertTrue(v.stderr.contains(id) && v.stderr.contains("cut to its first 200 characters"), v.stderr) }

        let b = try CLI.runMeasured(["build", "--config", config.path, "-q"])
        XCTAssertEqual(b.result.status, 0, b.result.stderr)
        for id in ids { XCTAssertTrue(b.result.stderr.contains(id) && b.result.stderr.contains("cut to"), b.result.stderr) }
        // Generous bounds: before the cut, 32 MiB took 15 s and 884 MB, and 96 MiB aborted.
        XCTAssertLessThan(b.seconds, 120)
        XCTAssertLessThan(b.peakRSSMiB, 1024, "peak RSS of the build")
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
        // No file of the output holds the uncut name.
        let files = try FileManager.default.subpathsOfDirectory(atPath: out.path)
        let largest = files.compactMap { try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent($0).path)[.size] as? Int }.max() ?? 0
        XCTAssertLessThan(largest, 1 << 20, "no output file carries megabytes of name")
    }
}
