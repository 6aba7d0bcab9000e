import Foundation
import TestSupport
import XCTest

/// Archives built to hurt: each is refused whole with one error naming the
/// archive (and the entry), exit status 1, and the previous output untouched.
/// Nothing is ever extracted, so nothing can land outside the output folder;
/// the tests also check that no file appeared next to the output.
final class HostileArchiveTests: XCTestCase {
    var dir: URL!
    var zip: URL!
    var config: URL!
    var before: [String: String] = [:]
    var venueFiles: [(String, Data)] = []

    override func setUpWithError() throws {
        dir = try CLI.tempDir("hostile")
        zip = dir.appendingPathComponent("venue.zip")
        venueFiles = try FileManager.default.contentsOfDirectory(atPath: CLI.fixture.path).sorted().map {
            ($0, try Data(contentsOf: CLI.fixture.appendingPathComponent($0)))
        }
        try ZipFixture.write(zip.path, venueFiles.map { .file($0.0, $0.1) })
        config = try writeConfig(limits: #", "archive_limits": {"max_uncompressed_bytes": 4000000, "max_entries": 40}"#)
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        before = CLI.snapshot(dir)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func writeConfig(limits: String) throws -> URL {
        let url = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": 18}, "sources": [{"id": "h", "format": "imdf", "path": "venue.zip"}]\#(limits)}"#
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func rewrite(_ extra: [ZipFixture.Entry]) throws {
        try ZipFixture.write(zip.path, venueFiles.map { .file($0.0, $0.1) } + extra)
    }

    func assertRefused(naming needles: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let now = CLI.snapshot(dir)
        for command in [["build"], ["validate"]] {
            let r = try CLI.run(command + ["--config", config.path])
            XCTAssertEqual(r.status, 1, "\(command[0]): exit status; stderr: \(r.stderr)", file: file, line: line)
            let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("error:") }
            XCTAssertEqual(errors.count, 1, r.stderr, file: file, line: line)
            for n in needles + ["venue.zip"] {
                XCTAssertTrue(errors.first?.contains(n) ?? false, "\(n) not in \(r.stderr)", file: file, line: line)
            }
        }
        var after = CLI.snapshot(dir)
        after["venue.zip"] = now["venue.zip"]
        var expected = before
        expected["venue.zip"] = now["venue.zip"]
        XCTAssertEqual(after, expected, "the output (or anything beside it) changed", file: file, line: line)
    }

    func testEntryClimbingOutOfTheFolder() throws {
        try rewrite([.file("../../escaped.geojson", Data("{}".utf8))])
        try assertRefused(naming: ["../../escaped.geojson", "climbs out"])
    }

    func testAbsoluteEntryName() throws {
        try rewrite([.file("/tmp/absolute.geojson", Data("{}".utf8))])
        try assertRefused(naming: ["absolute"])
    }

    func testSymlinkEntry() throws {
        try rewrite([.symlink("unit-link.geojson", target: "/etc/passwd")])
        try assertRefused(naming: ["unit-link.geojson", "symbolic link"])
    }

    func testEncryptedEntry() throws {
        guard try ZipFixture.write(zip.path, venueFiles.map { $0.0 == "unit.geojson" ? .encrypted($0.0, $0.1, password: "pw") : .file($0.0, $0.1) }) else {
            throw XCTSkip("this libzip cannot write AES-encrypted entries")
        }
        try assertRefused(naming: ["unit.geojson", "encrypted"])
    }

    func testDeclaredSizeBeyondTheLimit() throws {
        // 5 MB of zeros compress to a few kB: a small bomb against a 4 MB limit.
        try rewrite([.file("padding.bin", Data(count: 5_000_000))])
        try assertRefused(naming: ["zip bomb limit"])
    }

    func testActualSizeBeyondTheLimitWhenTheArchiveLies() throws {
        // unit.geojson padded with 5 MB of spaces (still valid JSON), and every entry
        // claiming to be 10 bytes: only reading can tell.
        try ZipFixture.write(zip.path, venueFiles.map {
            .file($0.0, $0.0 == "unit.geojson" ? $0.1 + Data(repeating: 0x20, count: 5_000_000) : $0.1)
        })
        try ZipFixture.forgeUncompressedSizes(zip.path, to: 10)
        try assertRefused(naming: ["cannot read entry"])
    }

    func testTooManyEntries() throws {
        try rewrite((0..<50).map { .file("extra/\($0).txt", Data("x".utf8)) })
        try assertRefused(naming: ["entries", "limit of 40"])
    }

    func testCorruptEntry() throws {
        // Store the JSON first, so that the corruption hits venue data.
        try ZipFixture.write(zip.path, venueFiles.sorted { ($0.0 == "venue.geojson" ? 0 : 1) < ($1.0 == "venue.geojson" ? 0 : 1) }.map { .file($0.0, $0.1) })
        try ZipFixture.corrupt(zip.path)
        try assertRefused(naming: ["venue.geojson"])
    }

    func testNotAZipAtAll() throws {
        try Data("PK? no, a text file named .zip".utf8).write(to: zip)
        try assertRefused(naming: ["not a readable zip"])
    }
}
