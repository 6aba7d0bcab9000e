import Foundation
@testable import Pipeline
import XCTest

/// The incremental state a build leaves (`.venuetiles/index`, the manifest,
/// the files of carried pyramids) damaged the ways a disk, a kill or a person
/// damages it, and the build that follows, in-process. Whatever is wrong, the
/// next build must end equal to a clean build of the same inputs and pass
/// `verify`; a damaged index is never trusted over the files.
final class IncrementalStateTests: XCTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade")
    var work: URL!
    var venue: URL { work.appendingPathComponent("venue") }
    var out: URL { work.appendingPathComponent("out") }
    var index: URL { out.appendingPathComponent(BuildIndex.fileName) }

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("state-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: IncrementalStateTests.fixture, to: venue)
        let config = #"{"output": "out", "zoom": {"min": 17, "max": 19}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
        try Data(config.utf8).write(to: work.appendingPathComponent("pipeline.json"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    @discardableResult
    func build(output: String? = nil) throws -> BuildSummary {
        let c = try PipelineConfig.load(path: work.appendingPathComponent("pipeline.json").path)
        return try Builder(config: c, options: BuildOptions(jobs: 2, output: output), log: { _ in }).run()
    }

    /// The output verifies and its manifest equals a clean build's of the inputs as they are now.
    func assertEqualsACleanBuild(file: StaticString = #filePath, line: UInt = #line) throws {
        let report = try Verify.run(output: out.path)
        XCTAssertTrue(report.isClean, "missing \(report.missing.prefix(3)), altered \(report.altered.prefix(3)), unexpected \(report.unexpected.prefix(3))", file: file, line: line)
        let clean = work.appendingPathComponent("clean-\(UUID().uuidString)")
        try build(output: clean.path)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), try Data(contentsOf: clean.appendingPathComponent("manifest.json")),
                       "equal to a clean build", file: file, line: line)
        try FileManager.default.removeItem(at: clean)
    }

    /// Renames the first named room: a few tiles change.
    func renameRoom(_ name: String) throws {
        let url = venue.appendingPathComponent("unit.geojson")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var feats = doc["features"] as! [[String: Any]]
        let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["name"] != nil && ($0["properties"] as? [String: Any])?["category"] as? String == "room" }!
        var p = feats[i]["properties"] as! [String: Any]
        p["name"] = ["en": name]
        feats[i]["properties"] = p
        doc["features"] = feats
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
    }

    /// The index read back (its tile entries in mapped columns) gives every
    /// entry of the manifest it was written for, field by field, and the
    /// bytes a carried pyramid's entries are copied from.
    func testTheIndexReadBackHoldsTheManifestsEntries() throws {
        try build()
        let manifest = try XCTUnwrap(Manifest.load(from: out.path))
        let state = try XCTUnwrap(BuildIndex.read(TileStore(root: out.path))?.state)
        XCTAssertNotNil(state.indexed, "read from the index, not the manifest")
        XCTAssertEqual(state.tiles, manifest.tiles)
        XCTAssertGreaterThan(state.tiles.count, 50)
        for (i, e) in manifest.tiles.enumerated() {
            XCTAssertEqual(state.key(i), e.key)
            XCTAssertEqual(state.sha256(i), e.sha256)
            XCTAssertEqual(state.size(i), e.bytes)
            XCTAssertEqual(state.withPath(i) { String(decoding: $0, as: UTF8.self) }, e.path)
        }
        XCTAssertEqual(state.files, manifest.files)
        let p = try XCTUnwrap(state.pyramids.first { $0.tiles.count > 1 })
        let copied = try XCTUnwrap(state.tileEntryBytes(p.tiles))
        XCTAssertEqual(copied.count, state.indexed!.offsets[p.tiles.upperBound] - state.indexed!.offsets[p.tiles.lowerBound])
        XCTAssertTrue(copied.count > p.tiles.count * 60, "path, size, SHA-256 and key of each entry")
    }

    func testATruncatedIndexIsNotTrusted() throws {
        let first = try build()
        try renameRoom("Half An Index")
        let bytes = try Data(contentsOf: index)
        try bytes.prefix(bytes.count / 2).write(to: index)
        let second = try build()
        XCTAssertGreaterThan(second.rendered, 0)
        XCTAssertLessThan(second.rendered, first.rendered, "the manifest still serves: only changed tiles render")
        try assertEqualsACleanBuild()
        XCTAssertEqual(try build().rendered, 0, "the index written by the last build is whole again")
    }

    /// An index whose header and trailer are whole but whose first entry's
    /// path length is damaged (near Int.max) is refused, not trusted or trapped on.
    func testAnIndexWithADamagedLengthIsNotTrusted() throws {
        try build()
        var bytes = try Data(contentsOf: index)
        // magic and fingerprint (40), the version (length + bytes), four counts, the tile count: then the first path's length.
        let versionLength = Int(bytes[40])
        let at = 40 + 8 + versionLength + 4 * 8 + 8
        for k in 0..<8 { bytes[at + k] = k == 7 ? 0x7F : 0xF0 }
        try bytes.write(to: index)
        XCTAssertNil(BuildIndex.read(TileStore(root: out.path)))
        XCTAssertEqual(try build().rendered, 0, "the manifest serves instead")
        try assertEqualsACleanBuild()
    }

    /// A tile path in the index that climbs out of the folder stops the build
    /// before anything is written or deleted, naming the index and the path.
    func testAnIndexPathOutsideTheFolderStopsTheBuild() throws {
        try build()
        var bytes = try Data(contentsOf: index)
        let versionLength = Int(bytes[40])
        let path = 40 + 8 + versionLength + 4 * 8 + 8 + 8   // the first tile path's bytes, after its length
        bytes.replaceSubrange(path..<(path + 3), with: Data("../".utf8))
        try bytes.write(to: index)
        try renameRoom("Outside")
        let manifest = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        XCTAssertThrowsError(try build()) { e in
            XCTAssertTrue("\(e)".contains("climbs out") && "\(e)".contains(BuildIndex.fileName) && "\(e)".contains("\"../"), "\(e)")
        }
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), manifest, "the output is as it was")
    }

    func testAnIndexOfGarbageIsNotTrusted() throws {
        try build()
        var bytes = try Data(contentsOf: index)
        for k in stride(from: 0, to: bytes.count, by: 7) { bytes[k] ^= 0x5A }
        try bytes.write(to: index)
        XCTAssertEqual(try build().rendered, 0, "inputs unchanged: the manifest says every tile is current")
        try assertEqualsACleanBuild()
    }

    /// A build killed after its manifest and before its index leaves the last
    /// build's index beside the new manifest. With the inputs reverted to what
    /// that index recorded, its fingerprint matches: it must still not be taken
    /// for a no-op, because it describes another manifest.
    func testAnIndexLeftFromTheBuildBeforeIsNotTakenForANoOp() throws {
        try build()
        let oldIndex = try Data(contentsOf: index)
        let original = try Data(contentsOf: venue.appendingPathComponent("unit.geojson"))
        try renameRoom("Killed Before The Index")
        XCTAssertGreaterThan(try build().rendered, 0)
        try oldIndex.write(to: index)
        try original.write(to: venue.appendingPathComponent("unit.geojson"))
        XCTAssertGreaterThan(try build().rendered, 0, "the reverted room is rendered again")
        try assertEqualsACleanBuild()
    }

    /// Tiles of a pyramid the next build would carry whole, deleted or
    /// overwritten behind its back: rendered again, exactly those.
    func testDamagedTilesOfACarriedPyramidAreRenderedAgain() throws {
        try build()
        let m = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let pngs = m.tiles.filter { $0.path.hasSuffix(".png") }.map(\.path)
        try FileManager.default.removeItem(at: out.appendingPathComponent(pngs[0]))
        usleep(20_000)   // a later mtime than the manifest's
        try Data("not a png".utf8).write(to: out.appendingPathComponent(pngs[pngs.count / 2]))
        XCTAssertEqual(try build().rendered, 2)
        try assertEqualsACleanBuild()
        XCTAssertEqual(try build().rendered, 0)
    }
}
