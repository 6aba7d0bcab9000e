import Foundation
import XCTest

/// Each kind of bad input is refused: a one-line error naming the file (and the
/// feature), a non-zero exit, and the previous output left exactly as it was.
final class BadInputTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var before: [String: String] = [:]

    override func setUpWithError() throws {
        dir = try CLI.tempDir("bad")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)])
        try #"{"output": "out", "zoom": {"min": 17, "max": 18}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        before = CLI.snapshot(dir.appendingPathComponent("out"))
        XCTAssertFalse(before.isEmpty)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func edit(_ file: String, _ f: (String) -> String) throws {
        let url = venue.appendingPathComponent(file)
        let text = try String(contentsOf: url, encoding: .utf8)
        let new = f(text)
        XCTAssertNotEqual(new, text)
        try new.write(to: url, atomically: true, encoding: .utf8)
    }

    func assertRefused(naming needles: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 1, "exit status; stderr: \(r.stderr)", file: file, line: line)
        let errorLines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
        XCTAssertEqual(errorLines.count, 1, r.stderr, file: file, line: line)
        for n in needles { XCTAssertTrue(errorLines.first?.contains(n) ?? false, "\(n) not in \(r.stderr)", file: file, line: line) }
        XCTAssertEqual(CLI.snapshot(dir.appendingPathComponent("out")), before, "output changed", file: file, line: line)
    }

    func testMissingSource() throws {
        try FileManager.default.removeItem(at: venue)
        try assertRefused(naming: ["venue", "no such file"])
    }

    func testMissingRequiredFile() throws {
        try FileManager.default.removeItem(at: venue.appendingPathComponent("venue.geojson"))
        try assertRefused(naming: ["venue.geojson", "missing"])
    }

    func testMalformedJSON() throws {
        try edit("unit.geojson") { String($0.dropLast(40)) }
        try assertRefused(naming: ["unit.geojson", "malformed JSON"])
    }

    func testCoordinateOutOfRange() throws {
        // The first opening's first longitude becomes 190.
        try edit("opening.geojson") { t in
            let r = t.range(of: "10.00")!
            return t.replacingCharacters(in: r, with: "190.00")
        }
        let text = try String(contentsOf: venue.appendingPathComponent("opening.geojson"), encoding: .utf8)
        let firstID = try XCTUnwrap(((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["features"] as? [[String: Any]])?.first?["id"] as? String)
        try assertRefused(naming: ["opening.geojson", firstID, "outside WGS84"])
    }

    func testNonFiniteCoordinate() throws {
        try edit("fixture.geojson") { t in
            let r = t.range(of: "53.54")!
            return t.replacingCharacters(in: r, with: "1e400")
        }
        try assertRefused(naming: ["fixture.geojson"])
    }

    func testUnreadableZip() throws {
        let zip = dir.appendingPathComponent("venue.zip")
        try Data([0x50, 0x4B, 0x03, 0x04, 0, 1, 2, 3]).write(to: zip)
        try #"{"output": "out", "zoom": {"min": 17, "max": 18}, "sources": [{"id": "h", "format": "imdf", "path": "venue.zip"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        try assertRefused(naming: ["venue.zip", "zip"])
    }

    func testBadConfig() throws {
        try #"{"output": "out", "zom": {"min": 17}, "sources": []}"#.write(to: config, atomically: true, encoding: .utf8)
        try assertRefused(naming: ["pipeline.json", "zom", "unknown key"])
        try #"{"output": "out", "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "zoom": {"min": 20, "max": 18}}"#.write(to: config, atomically: true, encoding: .utf8)
        try assertRefused(naming: ["pipeline.json", "zoom"])
        try "{ not json".write(to: config, atomically: true, encoding: .utf8)
        try assertRefused(naming: ["pipeline.json", "malformed JSON"])
    }

    func testValidateReportsWithoutWriting() throws {
        let before = CLI.snapshot(dir)
        let ok = try CLI.run(["validate", "--config", config.path])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        XCTAssertTrue(ok.stdout.contains("h: 3 floors (floor_m1, floor_0, floor_1)"), ok.stdout)
        XCTAssertTrue(ok.stderr.contains("names no level"), ok.stderr)
        XCTAssertEqual(try CLI.run(["validate", "--config", config.path, "--strict"]).status, 1)
        try edit("unit.geojson") { String($0.dropLast(40)) }
        let bad = try CLI.run(["validate", "--config", config.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("unit.geojson") && bad.stderr.contains("malformed JSON"), bad.stderr)
        XCTAssertEqual(Set(CLI.snapshot(dir).keys), Set(before.keys))
    }

    func testDanglingLevelIsAWarningNotAnError() throws {
        // The fixture already holds a unit on a level that does not exist: the build goes on and counts it.
        // (--force: an unchanged rebuild stops before reading, so it would not print the warnings again.)
        let r = try CLI.run(["build", "--config", config.path, "--force"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("names no level"), r.stderr)
        XCTAssertTrue(r.stdout.contains("2 warnings"), r.stdout)
    }
}
