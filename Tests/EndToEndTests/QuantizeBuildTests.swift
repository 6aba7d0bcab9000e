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

    /// The bytes of every png tile (not the clients' sprite) under `out`, by path.
    func pngFiles(_ out: String) throws -> [String: Data] {
        let root = dir.appendingPathComponent(out)
        var files = [String: Data]()
        for case let rel as String in FileManager.default.enumerator(atPath: root.path)!
        where rel.hasSuffix(".png") && (rel.contains("/png/") || rel.contains("/png@2x/")) {
            files[rel] = try Data(contentsOf: root.appendingPathComponent(rel))
        }
        return files
    }

    /// `"quality": 90, "compression": "small"`: the png tiles (and only they)
    /// are rendered again, in fewer bytes, every one an indexed PNG; the same
    /// bytes from one worker as from two.
    func testQualityAndSmallCompressionRerenderThePngTilesInFewerBytesOnAnyJobs() throws {
        try writeConfig(quantize: "true")
        _ = try build()
        let before = try keys(), quantized = try pngFiles("out")
        try writeConfig(quantize: #"true, "quality": 90, "compression": "small""#)
        XCTAssertEqual(try build().rendered, quantized.count, "every png tile, and no vector tile")
        let after = try keys()
        for (path, key) in after { XCTAssertEqual(key != before[path], path.hasSuffix(".png"), path) }
        let small = try pngFiles("out")
        XCTAssertEqual(Set(small.keys), Set(quantized.keys))
        XCTAssertLessThan(small.values.map(\.count).reduce(0, +), quantized.values.map(\.count).reduce(0, +))
        for (path, d) in small { XCTAssertEqual(d[25], 3, "\(path): colour type \(d[25]), expected indexed") }

        let one = try CLI.run(["build", "--config", config.path, "-q", "--jobs", "1", "--output", dir.appendingPathComponent("one").path])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertEqual(try pngFiles("one"), small, "--jobs 1 and --jobs 2 write the same bytes")
    }

    func testACompressionOtherThanFastOrSmallIsRefusedNamingTheKey() throws {
        try writeConfig(quantize: #"true, "compression": "zopfli""#)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("tilesets[0].compression"), r.stderr)
        XCTAssertTrue(r.stderr.contains(#""fast" or "small", found zopfli"#), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out").path), "nothing written")
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
