import Foundation
import XCTest

/// SIGINT and SIGTERM at every stage: the build stops within about a second,
/// exits 130 or 143, releases the lock and leaves the previous output as it was.
final class SignalTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("signals")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 21}"#)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func edit(_ name: String) throws {
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { feats in
            let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["category"] as? String == "room" }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": name]
            feats[i]["properties"] = p
        }
    }

    /// Sends `sig` once `ready` exists; returns the seconds from the signal to the exit.
    func interrupt(_ p: Process, with sig: Int32, when ready: String) throws -> Double {
        try CLI.waitForFile(ready)
        let t0 = Date()
        kill(p.processIdentifier, sig)
        p.waitUntilExit()
        return Date().timeIntervalSince(t0)
    }

    func assertPreviousOutputIntact(_ before: [String: String], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(CLI.snapshot(out), before, "the previous output, exactly", file: file, line: line)
        let v = try CLI.run(["verify", "--output", out.path])
        XCTAssertEqual(v.status, 0, v.stdout, file: file, line: line)
    }

    func testASignalAtEachStageStopsTheBuildAndKeepsThePreviousOutput() throws {
        let before = CLI.snapshot(out)
        var n = 0
        for point in ["locked", "loading", "writing", "committing"] {
            for sig in [SIGINT, SIGTERM] {
                n += 1
                try edit("Signal \(n)")
                let gate = dir.appendingPathComponent("gate\(n)").path
                let p = try CLI.start(["build", "--config", config.path, "-q"], env: ["VENUETILES_TEST_PAUSE": "\(point):\(gate)"])
                let seconds = try interrupt(p, with: sig, when: gate + ".reached")
                XCTAssertEqual(p.terminationStatus, 128 + sig, "\(point) \(sig)")
                XCTAssertLessThan(seconds, 3, "\(point) \(sig): stopped in \(seconds) s")
                try assertPreviousOutputIntact(before)
            }
        }
        // The lock was released: the next build runs and finishes the job.
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan(r.rendered, 0)
    }

    func testASignalWhileRenderingWindsTheWorkersDown() throws {
        let before = CLI.snapshot(out)
        try edit("Rendering")
        // A style change re-renders every tile: long enough to be stopped half way.
        let style = dir.appendingPathComponent("style.json")
        try Data(##"{"id": "s", "name": "s", "version": "1.1", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#ff8800"}]}"##.utf8).write(to: style)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "style": "style.json", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 21}"#)
        for jobs in ["1", "2"] {
            // Held after its first batch is written, the workers on the next ones:
            // waiting for the intent file instead lost the race to a build that
            // finished within the 100 ms the wait polls.
            let gate = dir.appendingPathComponent("render-gate-\(jobs)").path
            let p = try CLI.start(["build", "--config", config.path, "-q", "--jobs", jobs], env: ["VENUETILES_TEST_PAUSE": "rendering:\(gate)"])
            let seconds = try interrupt(p, with: SIGINT, when: gate + ".reached")
            XCTAssertEqual(p.terminationStatus, 130, "jobs \(jobs)")
            XCTAssertLessThan(seconds, 3, "jobs \(jobs): stopped in \(seconds) s")
            try assertPreviousOutputIntact(before)
        }
    }
}
