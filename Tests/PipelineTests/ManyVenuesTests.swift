import Foundation
@testable import Pipeline
import TestSupport
import XCTest

/// Builds of many venues hold one venue's working set at a time: a venue is
/// read, prepared and planned, then dropped (its metadata, tiles and keys
/// kept), and read again to render its tiles. Counted, not timed: the most
/// prepared venues alive at once (`Builder.liveVenues`).
final class ManyVenuesTests: XCTestCase {
    static let imdf = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade")
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("venues-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try MVFFixture.writeV3(to: work.appendingPathComponent("hall-mvf"))
        // Copies of one venue under their own ids and folders (one of them edited below).
        for i in 1...5 { try FileManager.default.copyItem(at: ManyVenuesTests.imdf, to: work.appendingPathComponent("v\(i)")) }
        let sources = (1...5).map { #"{"id": "v\#($0)", "format": "imdf", "path": "v\#($0)"}"# } + [#"{"id": "hall", "format": "mvf", "path": "hall-mvf"}"#]
        let config = #"{"output": "out", "zoom": {"min": 17, "max": 19}, "sources": [\#(sources.joined(separator: ", "))], "tilesets": [{"format": "png"}, {"format": "mvt"}], "mesh": true}"#
        try Data(config.utf8).write(to: work.appendingPathComponent("pipeline.json"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func build(_ output: String = "out", jobs: Int = 2, shard: ShardSpec? = nil, dryRun: Bool = false,
               config: String = "pipeline.json") throws -> (summary: BuildSummary, peak: Int, preparations: Int) {
        let c = try PipelineConfig.load(path: work.appendingPathComponent(config).path)
        var o = BuildOptions(jobs: jobs, output: work.appendingPathComponent(output).path, dryRun: dryRun)
        o.shard = shard
        let b = Builder(config: c, options: o, log: { _ in })
        let s = try b.run()
        return (s, b.liveVenues.peak, b.liveVenues.preparations)
    }

    func testOneVenueIsPreparedAtATime() throws {
        let first = try build()
        XCTAssertGreaterThan(first.summary.rendered, 0)
        XCTAssertEqual(first.peak, 1, "six venues planned and rendered one at a time")
        XCTAssertEqual(try build(jobs: 1).peak, 0, "a no-op reads no venue")
        XCTAssertEqual(try build("dry", dryRun: true).peak, 1)
        XCTAssertEqual(try build("shard", shard: ShardSpec(index: 1, count: 2)).peak, 1)
    }

    /// The last venue planned renders from its planning (`KeptVenue`) when it
    /// is the first to render: a one-venue build prepares its venue once. Six
    /// venues render in order, so the kept one is dropped when the first
    /// starts (never two alive) and read again in its turn: twelve. A shard
    /// renders it from its planning too, the kept plans cut to the shard's tiles.
    func testTheLastVenuePlannedIsNotReadAgainToRender() throws {
        let six = try build()
        XCTAssertEqual(six.preparations, 12)
        XCTAssertEqual(six.peak, 1)
        let one = #"{"output": "one", "zoom": {"min": 17, "max": 19}, "sources": [{"id": "v1", "format": "imdf", "path": "v1"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
        try Data(one.utf8).write(to: work.appendingPathComponent("one.json"))
        let single = try build("one", jobs: 1, config: "one.json")
        XCTAssertGreaterThan(single.summary.rendered, 0)
        XCTAssertEqual(single.preparations, 1, "planned and rendered from one reading")
        // Each shard of the one venue reads it once and renders its part; together the same tiles.
        var sharded = 0
        for i in 0..<2 {
            let s = try build("one-shard\(i)", jobs: 2, shard: ShardSpec(index: i, count: 2), config: "one.json")
            XCTAssertGreaterThan(s.summary.rendered, 0)
            XCTAssertEqual(s.preparations, 1)
            sharded += s.summary.rendered
        }
        XCTAssertEqual(sharded, single.summary.rendered)
    }

    /// One venue edited: only its changed tiles render, the others are carried,
    /// and the output equals a clean build of the edited inputs (1 and 2 workers).
    func testAnEditedVenueEqualsACleanBuild() throws {
        let first = try build()
        let url = work.appendingPathComponent("v3/unit.geojson")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var feats = doc["features"] as! [[String: Any]]
        let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["name"] != nil && ($0["properties"] as? [String: Any])?["category"] as? String == "room" }!
        var p = feats[i]["properties"] as! [String: Any]
        p["name"] = ["en": "Renamed While Others Wait"]
        feats[i]["properties"] = p
        doc["features"] = feats
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
        let edited = try build(jobs: 1)
        XCTAssertGreaterThan(edited.summary.rendered, 0)
        XCTAssertLessThan(edited.summary.rendered, first.summary.rendered / 6, "only tiles of the edited venue render")
        XCTAssertEqual(edited.peak, 1)
        let clean = try build("clean", jobs: 2)
        XCTAssertEqual(ShardFixture.differences(work.appendingPathComponent("out"), work.appendingPathComponent("clean")), [])
        XCTAssertEqual(clean.summary.tilesWritten, edited.summary.tilesWritten)
    }
}
