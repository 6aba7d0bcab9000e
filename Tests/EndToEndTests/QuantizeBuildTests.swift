import Foundation
import XCTest

/// `"quantize"` on a png tileset, through the built CLI: part of every png
/// tile's input key (turning it on or off re-renders the png tiles and only
/// them), and checked like every other key.
final class QuantizeBuildTests: XCTestCase {
    var dir: URL!
    var config: URL { dir.appendingPathComponent("pipeline.json") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("quantize")
        try FileManager.default.copyItem(at: CLI.fixture, to: dir.appendingPathComponent("venue"))
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func writeConfig(quantize: String) throws {
        try #"{"output": "out", "zoom": {"min": 17, "max": 19}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "tilesets": [{"format": "png", "scale": [1, 2], "quantize": \#(quantize)}, {"format": "mvt"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
    }

    struct Entry: Decodable { var path: String; var key: String? }
    struct M: Decodable { var tiles: [Entry] }

    func keys() throws -> [String: String] {
        let m = try JSONDecoder().decode(M.self, from: Data(contentsOf: dir.appendingPathComponent("out/manifest.json")))
        return Dictionary(uniqueKeysWithValues: m.tiles.map { ($0.path, $0.key ?? "") })
    }

    func build() throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q", "--jobs", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r
    }

    func testTurningQuantizeOnOrOffRerendersThePngTilesOnly() throws {
        try writeConfig(quantize: "false")
        _ = try build()
        let off = try keys()
        let png = off.keys.filter { $0.hasSuffix(".png") }
        XCTAssertGreaterThan(png.count, 10)
        XCTAssertGreaterThan(off.count, png.count, "the mvt tiles are there too")

        try writeConfig(quantize: "true")
        XCTAssertEqual(try build().rendered, png.count, "every png tile, at 1x and @2x, and no vector tile")
        let on = try keys()
        XCTAssertEqual(Set(on.keys), Set(off.keys))
        for (path, key) in on { XCTAssertEqual(key != off[path], path.hasSuffix(".png"), path) }
        XCTAssertEqual(try build().rendered, 0, "the same option again: nothing to render")

        try writeConfig(quantize: "false")
        XCTAssertEqual(try build().rendered, png.count)
        XCTAssertEqual(try keys(), off, "off again: the keys of before")
    }

    func testAQuantizeThatIsNotABooleanIsRefusedNamingTheKey() throws {
        try writeConfig(quantize: #""yes""#)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("tilesets[0].quantize"), r.stderr)
        XCTAssertTrue(r.stderr.contains("true or false"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written")
    }
}
