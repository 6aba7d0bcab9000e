import Foundation
@testable import Pipeline
import Rendering
import TestSupport
import XCTest

/// Golden outputs: small builds, run in-process, whose manifest, decoded
/// vector tiles and PNG tiles are pinned under `Tests/PipelineTests/Golden/`.
/// A deliberate change re-records them:
///
///     VENUETILES_RECORD_GOLDEN=1 swift test --filter GoldenTests
///
/// and the diff of the golden files is then part of the change, for review.
/// Text is compared exactly (a failure prints the first differing lines); PNG
/// pixels within a small tolerance (antialiasing may move by a level).
final class GoldenTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade")
    var recording: Bool { ProcessInfo.processInfo.environment["VENUETILES_RECORD_GOLDEN"] == "1" }
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    /// Builds `config` (JSON, with "output": "out") in-process; returns the output folder.
    func build(_ config: String, jobs: Int = 2) throws -> URL {
        let file = work.appendingPathComponent("pipeline.json")
        try Data(config.utf8).write(to: file)
        let c = try PipelineConfig.load(path: file.path)
        _ = try Builder(config: c, options: BuildOptions(jobs: jobs), log: { _ in }).run()
        return work.appendingPathComponent("out")
    }

    // MARK: - the cases

    /// The sample venue's three floors at z18: manifest, every vector tile of floor 0, its PNG tiles.
    func testSampleFloor() throws {
        let out = try build(#"{"output": "out", "zoom": {"min": 18, "max": 18}, "sources": [{"id": "h", "format": "imdf", "path": "\#(GoldenTests.fixture.path)"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#)
        try assertGolden("sample/manifest.json", text: String(decoding: try Data(contentsOf: out.appendingPathComponent("manifest.json")), as: UTF8.self))
        try assertTiles(out, "h/floor_0/mvt/18", golden: "sample/floor_0-mvt-18")
        try assertTiles(out, "h/floor_0/png/18", golden: "sample/floor_0-png-18")
    }

    /// An L-shaped room (concave) with a long name, cut by tile edges at z20;
    /// 1 and 3 workers give the same bytes.
    func testConcaveRoomAndLabelAcrossTileEdges() throws {
        let venue = work.appendingPathComponent("room.geojson")
        // About 70 m across at 45° N: several z20 tiles (about 27 m each).
        let (x, y, d) = (5.7240, 45.1838, 0.0009)
        let ring = [[x, y], [x + d, y], [x + d, y + d / 3], [x + d / 3, y + d / 3], [x + d / 3, y + d * 0.7], [x, y + d * 0.7], [x, y]]
        let doc: [String: Any] = ["type": "FeatureCollection", "features": [
            ["type": "Feature", "id": "hall", "properties": ["level": "0", "indoor": "area", "name": "Hall"],
             "geometry": ["type": "Polygon", "coordinates": [[[x - d * 0.1, y - d * 0.1], [x + d * 1.1, y - d * 0.1], [x + d * 1.1, y + d * 0.8], [x - d * 0.1, y + d * 0.8], [x - d * 0.1, y - d * 0.1]]]]],
            ["type": "Feature", "id": "room", "properties": ["level": "0", "indoor": "room", "shop": "books", "name": "The Long Corner Bookshop and Reading Room"],
             "geometry": ["type": "Polygon", "coordinates": [ring]]],
        ]]
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: venue)
        let config = #"{"output": "out", "zoom": {"min": 19, "max": 20}, "sources": [{"id": "r", "format": "geojson", "path": "room.geojson"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
        let out = try build(config, jobs: 3)
        for z in ["19", "20"] {
            try assertTiles(out, "r/floor_0/mvt/\(z)", golden: "concave/mvt-\(z)")
            try assertTiles(out, "r/floor_0/png/\(z)", golden: "concave/png-\(z)")
        }
        let manifest = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        try FileManager.default.removeItem(at: out)
        XCTAssertEqual(try Data(contentsOf: try build(config, jobs: 1).appendingPathComponent("manifest.json")), manifest, "1 and 3 workers")
    }

    /// An MVF v3 bundle: its manifest.
    func testMVFBundle() throws {
        let bundle = work.appendingPathComponent("mvf")
        try MVFFixture.writeV3(to: bundle)
        let out = try build(#"{"output": "out", "zoom": {"min": 18, "max": 19}, "sources": [{"id": "m", "format": "mvf", "path": "mvf"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#)
        try assertGolden("mvf/manifest.json", text: String(decoding: try Data(contentsOf: out.appendingPathComponent("manifest.json")), as: UTF8.self))
    }

    /// Several venues of every format in one build, with meshes and web
    /// clients' files (each venue read, planned and rendered on its own): the
    /// manifest (every file's SHA-256) pinned, and 1 and 2 workers give the same files.
    func testSeveralVenues() throws {
        try MVFFixture.writeV3(to: work.appendingPathComponent("hall-mvf"))
        let imdf = GoldenTests.fixture.path
        let osm = GoldenTests.fixture.deletingLastPathComponent().appendingPathComponent("osm-indoor.geojson").path
        let config = """
        {"output": "out", "zoom": {"min": 18, "max": 19},
         "sources": [{"id": "a", "format": "imdf", "path": "\(imdf)"}, {"id": "hall", "format": "mvf", "path": "hall-mvf"},
                     {"id": "mall", "format": "geojson", "path": "\(osm)"}, {"id": "b", "format": "imdf", "path": "\(imdf)"}],
         "tilesets": [{"format": "png"}, {"format": "mvt"}], "mesh": true}
        """
        let two = work.appendingPathComponent("two-workers")
        try FileManager.default.moveItem(at: try build(config, jobs: 2), to: two)
        try assertGolden("venues/manifest.json", text: String(decoding: try Data(contentsOf: two.appendingPathComponent("manifest.json")), as: UTF8.self))
        XCTAssertEqual(ShardFixture.differences(two, try build(config, jobs: 1)), [], "1 and 2 workers")
    }

    // MARK: - comparing and recording

    /// Every tile under `folder`: a vector tile decoded to JSON text, a PNG by pixels.
    func assertTiles(_ out: URL, _ folder: String, golden: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = out.appendingPathComponent(folder)
        let tiles = try FileManager.default.subpathsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".pbf") || $0.hasSuffix(".png") }.sorted()
        XCTAssertFalse(tiles.isEmpty, "no tiles under \(folder)", file: file, line: line)
        if tiles.first?.hasSuffix(".pbf") == true {
            let text = try tiles.map { "## \($0)\n" + GoldenTests.describe(try DecodedTile(Array(Data(contentsOf: dir.appendingPathComponent($0))))) }.joined(separator: "\n")
            try assertGolden(golden + ".txt", text: text, file: file, line: line)
        } else {
            try assertGolden(golden + "/index.txt", text: tiles.joined(separator: "\n") + "\n", file: file, line: line)
            for t in tiles { try assertGoldenPNG(golden + "/" + t.replacingOccurrences(of: "/", with: "_"), png: try Data(contentsOf: dir.appendingPathComponent(t)), file: file, line: line) }
        }
    }

    /// A decoded vector tile as stable text: layers by name, features in order.
    static func describe(_ t: DecodedTile) -> String {
        var lines = [String]()
        for l in t.layers.sorted(by: { $0.name < $1.name }) {
            lines.append("layer \(l.name) v\(l.version) extent \(l.extent ?? 4096): \(l.features.count) features")
            for f in l.features {
                let props = f.properties.keys.sorted().map { "\($0)=\(f.properties[$0]!)" }.joined(separator: " ")
                let geometry = f.parts.map { $0.map { "\($0.x),\($0.y)" }.joined(separator: " ") }.joined(separator: " | ")
                lines.append("  id \(f.id.map(String.init) ?? "-") type \(f.type) \(props)\n    \(geometry)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func assertGolden(_ name: String, text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = GoldenTests.root.appendingPathComponent(name)
        if recording {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
            return
        }
        guard let expected = try? String(contentsOf: url, encoding: .utf8) else {
            return XCTFail("no golden file \(name): record it with VENUETILES_RECORD_GOLDEN=1", file: file, line: line)
        }
        guard expected != text else { return }
        let a = expected.split(separator: "\n", omittingEmptySubsequences: false), b = text.split(separator: "\n", omittingEmptySubsequences: false)
        let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(a.count, b.count)
        let context = (max(0, first - 2)..<min(max(a.count, b.count), first + 4)).map { i in
            "  line \(i + 1):\n    golden: \(i < a.count ? String(a[i]) : "(none)")\n    now:    \(i < b.count ? String(b[i]) : "(none)")"
        }
        XCTFail("\(name) differs from its golden file (\(a.count) lines then, \(b.count) now), first at line \(first + 1):\n" + context.joined(separator: "\n")
                + "\nIf the change is deliberate, re-record with VENUETILES_RECORD_GOLDEN=1.", file: file, line: line)
    }

    /// Pixels within 8 levels per channel, on all but 0.2 % of the pixels.
    func assertGoldenPNG(_ name: String, png: Data, file: StaticString = #filePath, line: UInt = #line) throws {
        let url = GoldenTests.root.appendingPathComponent(name)
        if recording {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try png.write(to: url)
            return
        }
        guard let expected = try? Data(contentsOf: url) else {
            return XCTFail("no golden file \(name): record it with VENUETILES_RECORD_GOLDEN=1", file: file, line: line)
        }
        if expected == png { return }
        let a = try ImageSurface.decodePNG(expected), b = try ImageSurface.decodePNG(png)
        guard a.width == b.width, a.height == b.height else {
            return XCTFail("\(name): \(b.width)×\(b.height), golden \(a.width)×\(a.height)", file: file, line: line)
        }
        var off = 0, worst: UInt32 = 0
        a.withPixels { pa in
            b.withPixels { pb in
                for y in 0..<a.height {
                    for x in 0..<a.width {
                        let p = pa[y * a.stride / 4 + x], q = pb[y * b.stride / 4 + x]
                        var d: UInt32 = 0
                        for s in stride(from: 0, through: 24, by: 8) {
                            let u = (p >> s) & 0xff, v = (q >> s) & 0xff
                            d = max(d, u > v ? u - v : v - u)
                        }
                        worst = max(worst, d)
                        if d > 8 { off += 1 }
                    }
                }
            }
        }
        if off * 500 > a.width * a.height {
            let saved = FileManager.default.temporaryDirectory.appendingPathComponent("golden-now-" + name.replacingOccurrences(of: "/", with: "_"))
            try? png.write(to: saved)
            XCTFail("\(name): \(off) of \(a.width * a.height) pixels differ by more than 8 (worst \(worst)); this build's tile is at \(saved.path)", file: file, line: line)
        }
    }
}
