import Foundation
import Pipeline
import XCTest

/// The short soak of CI (`scripts/soak` is the long one: 200 venues, 20
/// rounds): a few venues, rounds of edits of every kind (geometry, a name, the
/// style, a venue added, a venue removed), each followed by an in-process
/// build that must equal a clean build of the same input, leave an output
/// `Verify` finds clean (no stale file), and keep this process's open file
/// descriptors flat. RSS per round is printed.
final class SoakTests: XCTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VenueFormatsTests/Fixtures/harbour-arcade")
    static let defaultStyle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Styling/Resources/default-style.json")
    var work: URL!
    var sources = [String]()
    var next = 0

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    // MARK: input

    /// Applies `f` to every position of GeoJSON coordinates.
    static func move(_ g: Any, _ f: ([Double]) -> [Double]) -> Any {
        if let p = g as? [Double] { return f(p) }
        if let a = g as? [Any] { return a.map { move($0, f) } }
        return g
    }

    func editFeatures(_ url: URL, _ body: (inout [[String: Any]]) -> Void) throws {
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var feats = doc["features"] as! [[String: Any]]
        body(&feats)
        doc["features"] = feats
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
    }

    /// A copy of the fixture 0.01° east per venue: venues of their own.
    func addVenue() throws {
        let id = String(format: "v%02d", next)
        let dst = work.appendingPathComponent("venues/\(id)")
        try FileManager.default.createDirectory(at: dst.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.fixture, to: dst)
        let dlon = 0.01 * Double(next)
        for name in try FileManager.default.contentsOfDirectory(atPath: dst.path) where name.hasSuffix(".geojson") {
            try editFeatures(dst.appendingPathComponent(name)) { feats in
                for i in feats.indices {
                    guard var g = feats[i]["geometry"] as? [String: Any], let c = g["coordinates"] else { continue }
                    g["coordinates"] = Self.move(c) { [$0[0] + dlon, $0[1]] }
                    feats[i]["geometry"] = g
                    if var p = feats[i]["properties"] as? [String: Any], var dp = p["display_point"] as? [String: Any], let c = dp["coordinates"] {
                        dp["coordinates"] = Self.move(c) { [$0[0] + dlon, $0[1]] }
                        p["display_point"] = dp
                        feats[i]["properties"] = p
                    }
                }
            }
        }
        sources.append(id)
        next += 1
    }

    func writeStyle(_ colour: String) throws {
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.defaultStyle)) as! [String: Any]
        doc["styles"] = (doc["styles"] as! [[String: Any]]).map { e in
            var e = e
            if e["layer-id"] as? String == "floor_rooms_[FLOOR]" { e["fill-color"] = colour }
            return e
        }
        try JSONSerialization.data(withJSONObject: doc).write(to: work.appendingPathComponent("style.json"))
    }

    func config(output: String) throws -> PipelineConfig {
        let list = sources.map { #"{"id": "\#($0)", "format": "imdf", "path": "venues/\#($0)"}"# }.joined(separator: ", ")
        let text = #"{"output": "\#(output)", "zoom": {"min": 17, "max": 17}, "style": "style.json", "tilesets": [{"format": "png"}, {"format": "mvt"}], "sources": [\#(list)]}"#
        let file = work.appendingPathComponent("pipeline.json")
        try Data(text.utf8).write(to: file)
        return try PipelineConfig.load(path: file.path)
    }

    // MARK: measuring

    static func openFileDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    static func residentMiB() -> Int {
        guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return (Int(line.split(separator: " ")[1]) ?? 0) / 1024
    }

    // MARK: the soak

    func testRoundsOfEditsEachBuildEqualsACleanBuildWithoutStaleFilesOrDescriptorGrowth() throws {
        for _ in 0..<2 { try addVenue() }
        try writeStyle("#D8D0C0")
        let edits: [(String, () throws -> Void)] = [
            ("initial build", {}),
            ("geometry", { try self.editFeatures(self.work.appendingPathComponent("venues/v01/unit.geojson")) { feats in
                let i = feats.firstIndex { $0["geometry"] is [String: Any] }!
                var g = feats[i]["geometry"] as! [String: Any]
                g["coordinates"] = Self.move(g["coordinates"]!) { [$0[0] + 2e-6, $0[1] - 1e-6] }
                feats[i]["geometry"] = g
            } }),
            ("name", { try self.editFeatures(self.work.appendingPathComponent("venues/v00/unit.geojson")) { feats in
                let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["name"] is [String: Any] }!
                var p = feats[i]["properties"] as! [String: Any]
                p["name"] = ["en": "Soak Shop"]
                feats[i]["properties"] = p
            } }),
            ("style", { try self.writeStyle("#3366CC") }),
            ("venue added", { try self.addVenue() }),
            ("venue removed", { self.sources.removeFirst() }),
            ("no change", {}),
        ]
        var fds = [Int]()
        for (round, (what, edit)) in edits.enumerated() {
            try edit()
            _ = try Builder(config: try config(output: "out"), options: BuildOptions(jobs: 2), log: { _ in }).run()
            let report = try Verify.run(output: work.appendingPathComponent("out").path)
            XCTAssertTrue(report.isClean, "round \(round) (\(what)): missing \(report.missing), altered \(report.altered), stale \(report.unexpected)")
            let clean = work.appendingPathComponent("clean")
            try? FileManager.default.removeItem(at: clean)
            _ = try Builder(config: try config(output: "clean"), options: BuildOptions(jobs: 2), log: { _ in }).run()
            XCTAssertEqual(try Data(contentsOf: work.appendingPathComponent("out/manifest.json")),
                           try Data(contentsOf: clean.appendingPathComponent("manifest.json")), "round \(round) (\(what))")
            fds.append(Self.openFileDescriptors())
            print("soak round \(round) (\(what)): \(sources.count) venues, RSS \(Self.residentMiB()) MiB, \(fds.last!) open descriptors")
        }
        // The first round opens what stays open (caches, fontconfig): count from the second.
        XCTAssertLessThanOrEqual(fds.last!, fds[1], "open file descriptors grew: \(fds)")
    }
}
