import Foundation
import TestSupport
import XCTest

/// Styles, labels, icons and sprites through the built CLI.
final class StyleBuildTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("style") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func config(style: String?, sprite: String? = nil, output: String = "out") throws -> URL {
        var extra = ""
        if let style { extra += #", "style": "\#(style)""# }
        if let sprite { extra += #", "sprite": "\#(sprite)""# }
        let url = dir.appendingPathComponent("pipeline-\(output).json")
        try #"{"output": "\#(output)", "zoom": {"min": 19, "max": 21}, "sources": [{"id": "h", "format": "imdf", "path": "\#(CLI.fixture.path)"}], "tilesets": [{"format": "png", "scale": [1, 2]}]\#(extra)}"#
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func writeStyle(_ name: String, _ edit: (String) -> String) throws -> String {
        let builtIn = try String(contentsOf: CLI.packageRoot.appendingPathComponent("Sources/Styling/Resources/default-style.json"), encoding: .utf8)
        let edited = edit(builtIn)
        try edited.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        return name
    }

    func pngs(_ out: String) -> [String: String] {
        CLI.snapshot(dir.appendingPathComponent(out)).filter { $0.key.hasSuffix(".png") }.mapValues { String($0.prefix(64)) }
    }

    /// A new label colour re-renders the tiles whose bytes it changes and next to
    /// no others: the incremental result equals a clean build with the new
    /// style, and the number rendered is within 5 % of the number that differ.
    func testChangingTheLabelColourRerendersExactlyTheTilesWithLabels() throws {
        let base = try writeStyle("a.json") { $0 }
        let changed = try writeStyle("b.json") { $0.replacingOccurrences(of: ##""font-color": "#3B3A36""##, with: ##""font-color": "#AA0000""##) }
        let c = try config(style: base)
        XCTAssertEqual(try CLI.run(["build", "--config", c.path]).status, 0)
        let before = pngs("out")
        try (try String(contentsOf: c, encoding: .utf8)).replacingOccurrences(of: base, with: changed).write(to: c, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", c.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = pngs("out")
        let clean = try config(style: changed, output: "clean")
        XCTAssertEqual(try CLI.run(["build", "--config", clean.path]).status, 0)
        XCTAssertEqual(after, pngs("clean"), "incremental output differs from a clean build")
        let differing = after.filter { before[$0.key] != $0.value }.count
        XCTAssertGreaterThan(differing, 10)
        XCTAssertLessThan(differing, after.count / 2, "a label colour should not touch tiles without labels")
        // A label's box can reach a tile its glyphs leave untouched: such a tile is
        // rendered again (its key names the label) but not rewritten.
        XCTAssertGreaterThanOrEqual(r.rendered, differing)
        XCTAssertLessThanOrEqual(r.rendered - differing, max(2, differing / 20), "rendered \(r.rendered), changed \(differing)")
    }

    func testCustomSpriteAndMissingSprite() throws {
        // A copy of the built-in ratio-1 sprite under another name; no @2x files (512 px tiles scale it up).
        for ext in ["json", "png"] {
            try FileManager.default.copyItem(at: CLI.packageRoot.appendingPathComponent("Sources/Styling/Resources/sprite.\(ext)"),
                                             to: dir.appendingPathComponent("mine.\(ext)"))
        }
        let style = try writeStyle("icons.json") {
            $0.replacingOccurrences(of: #""icon-name": "{category}""#, with: #""icon-name": "poi""#)
              .replacingOccurrences(of: #""fill-pattern": "hatch-light""#, with: #""fill-pattern": "no-such-pattern""#)
        }
        let r = try CLI.run(["build", "--config", try config(style: style, sprite: "mine").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("fill-pattern \"no-such-pattern\" is not in"), r.stderr)
        let missing = try CLI.run(["build", "--config", try config(style: nil, sprite: "absent", output: "o2").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("absent.json") && missing.stderr.contains("cannot read sprite"), missing.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("o2").path))
    }
}
