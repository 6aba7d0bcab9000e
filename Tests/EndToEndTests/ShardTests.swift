import Foundation
import TestSupport
import XCTest

/// `venuetiles build --shard i/N` in separate processes and `venuetiles merge`:
/// the merged folder equals a single build, byte for byte.
final class ShardTests: XCTestCase {
    var dir: URL!
    var config: URL!

    override func setUpWithError() throws {
        dir = try CLI.tempDir("shards")
        config = try ShardFixture.writeMixedConfig(dir)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func singleBuild() throws -> URL {
        let out = dir.appendingPathComponent("single")
        let r = try CLI.run(["build", "--config", config.path, "--output", out.path, "-q", "--jobs", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return out
    }

    /// Runs the N shards at once, as N processes, each into its own folder.
    func buildShards(_ n: Int, into base: String, env: [String: String] = [:]) throws -> [String] {
        let folders = (0..<n).map { dir.appendingPathComponent("\(base)/\($0)").path }
        let procs = try (0..<n).map { i in
            try CLI.start(["build", "--config", config.path, "--output", folders[i], "--shard", "\(i)/\(n)", "-q", "--jobs", "1"], env: env)
        }
        for (i, p) in procs.enumerated() {
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "shard \(i)/\(n)")
        }
        return folders
    }

    func merge(_ folders: [String], into name: String) throws -> CLI.Result {
        try CLI.run(["merge", "--output", dir.appendingPathComponent(name).path] + folders)
    }

    /// N = 1, 3 and 7 shards of IMDF, MVF and GeoJSON venues (PNG with
    /// metatiles, vector tiles, meshes, web clients' files): every file of the
    /// merged folder, and its index, equal the single build's.
    func testOneThreeAndSevenShardsMergeToTheSingleBuild() throws {
        let single = try singleBuild()
        for n in [1, 3, 7] {
            let folders = try buildShards(n, into: "shards\(n)")
            let r = try merge(folders.shuffled(), into: "merged\(n)")
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("merged \(n) shards"), r.stdout)
            XCTAssertEqual(ShardFixture.differences(single, dir.appendingPathComponent("merged\(n)")), [], "\(n) shards")
            let v = try CLI.run(["verify", "--output", dir.appendingPathComponent("merged\(n)").path])
            XCTAssertEqual(v.status, 0, v.stdout)
        }
        // A build over the merged folder has nothing to do.
        let again = try CLI.run(["build", "--config", config.path, "--output", dir.appendingPathComponent("merged3").path])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(again.rendered, 0, again.stdout)
    }

    /// A shard killed while writing (after its tiles, before its manifest) is
    /// refused by the merge; run again, it finishes, and the merge equals the single build.
    func testAKilledShardRunAgainGivesTheSameOutput() throws {
        let single = try singleBuild()
        let folders = try buildShards(3, into: "shards")
        try FileManager.default.removeItem(atPath: folders[1])
        let gate = dir.appendingPathComponent("gate").path
        let p = try CLI.start(["build", "--config", config.path, "--output", folders[1], "--shard", "1/3", "-q"],
                              env: ["VENUETILES_TEST_PAUSE": "committing:\(gate)"])
        try CLI.waitForFile(gate + ".reached")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let refused = try merge(folders, into: "merged")
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains(folders[1]), refused.stderr)

        let r = try CLI.run(["build", "--config", config.path, "--output", folders[1], "--shard", "1/3", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try merge(folders, into: "merged")
        XCTAssertEqual(m.status, 0, m.stderr)
        XCTAssertEqual(ShardFixture.differences(single, dir.appendingPathComponent("merged")), [])
    }

    /// An edited venue: each shard rebuilt over its folder renders only its
    /// changed tiles; the merge into the last merged folder equals a single
    /// build of the edited inputs, and copies only what changed.
    func testIncrementalShardsAndMerge() throws {
        let folders = try buildShards(3, into: "shards")
        XCTAssertEqual(try merge(folders, into: "merged").status, 0)
        // Rename one room of the GeoJSON venue (a copy: the fixture stays as it is).
        let osm = dir.appendingPathComponent("mall.geojson")
        let fixture = CLI.packageRoot.appendingPathComponent("Tests/VenueFormatsTests/Fixtures/osm-indoor.geojson")
        try FileManager.default.copyItem(at: fixture, to: osm)
        let text = try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: fixture.path, with: osm.path)
        try text.write(to: config, atomically: true, encoding: .utf8)
        let moved = try CLI.run(["build", "--config", config.path, "--output", folders[0], "--shard", "0/3", "-q"])
        XCTAssertEqual(moved.rendered, 0, "a moved file with the same bytes renders nothing: \(moved.stdout)")
        try CLI.editFeatures(osm) { feats in
            for i in feats.indices where (feats[i]["properties"] as? [String: Any])?["name"] as? String == "Books" {
                var p = feats[i]["properties"] as! [String: Any]; p["name"] = "Bookshop"; feats[i]["properties"] = p
            }
        }
        var rendered = 0
        for i in 0..<3 {
            let r = try CLI.run(["build", "--config", config.path, "--output", folders[i], "--shard", "\(i)/3"])
            XCTAssertEqual(r.status, 0, r.stderr)
            rendered += r.rendered
        }
        let single = dir.appendingPathComponent("single")
        let full = try CLI.run(["build", "--config", config.path, "--output", single.path, "-q"])
        XCTAssertEqual(full.status, 0, full.stderr)
        XCTAssertGreaterThan(rendered, 0)
        XCTAssertLessThan(rendered, full.rendered / 2, "the shards rendered \(rendered) of \(full.rendered) tiles after a one-name edit")
        let m = try merge(folders, into: "merged")
        XCTAssertEqual(m.status, 0, m.stderr)
        XCTAssertEqual(ShardFixture.differences(single, dir.appendingPathComponent("merged")), [])
        // Only the changed files are copied again.
        guard let range = m.stdout.range(of: #"(\d+) files copied"#, options: .regularExpression) else { return XCTFail(m.stdout) }
        XCTAssertLessThanOrEqual(Int(m.stdout[range].split(separator: " ")[0])!, rendered + 20, m.stdout)
    }

    /// A shard file that does not match its shard's manifest stops the merge
    /// after other files were already copied (on every writing thread): the
    /// output is put back as it was, every file and the index.
    func testADamagedShardFileStopsTheMergeAndPutsTheOutputBack() throws {
        let folders = try buildShards(3, into: "shards")
        let merged = dir.appendingPathComponent("merged")
        XCTAssertEqual(try merge(folders, into: "merged").status, 0)
        // Rename a room of the GeoJSON venue (a copy: the fixture stays) and build every shard again.
        let osm = dir.appendingPathComponent("mall.geojson")
        let fixture = CLI.packageRoot.appendingPathComponent("Tests/VenueFormatsTests/Fixtures/osm-indoor.geojson")
        try FileManager.default.copyItem(at: fixture, to: osm)
        try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: fixture.path, with: osm.path).write(to: config, atomically: true, encoding: .utf8)
        try CLI.editFeatures(osm) { feats in
            for i in feats.indices where (feats[i]["properties"] as? [String: Any])?["name"] as? String == "Books" {
                var p = feats[i]["properties"] as! [String: Any]; p["name"] = "Bookshop"; feats[i]["properties"] = p
            }
        }
        for i in 0..<3 {
            let r = try CLI.run(["build", "--config", config.path, "--output", folders[i], "--shard", "\(i)/3", "-q", "--jobs", "1"])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        func tiles(_ folder: String) throws -> [(path: String, sha: String)] {
            let m = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as! [String: Any]
            return (m["tiles"] as! [[String: Any]]).map { ($0["path"] as! String, $0["sha256"] as! String) }
        }
        let old = Dictionary(try tiles(merged.path).map { ($0.path, $0.sha) }, uniquingKeysWith: { a, _ in a })
        // The tiles the merge will copy, in its order (shard by shard: the shards hold contiguous runs).
        let changed = try folders.enumerated().flatMap { s, f in try tiles(f).filter { old[$0.path] != $0.sha }.map { (shard: s, path: $0.path) } }
        guard changed.count >= 2, let victim = changed.last else { return XCTFail("the edit changed \(changed.count) tiles") }
        let before = dir.appendingPathComponent("before")
        try FileManager.default.copyItem(at: merged, to: before)
        try Data("not a tile".utf8).write(to: URL(fileURLWithPath: folders[victim.shard] + "/" + victim.path))
        let r = try merge(folders, into: "merged")
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains(victim.path) && r.stderr.contains("does not match its manifest.json"), r.stderr)
        XCTAssertEqual(ShardFixture.differences(before, merged), [], "\(changed.count - 1) tiles were copied before the damaged one")
        XCTAssertFalse(FileManager.default.fileExists(atPath: merged.appendingPathComponent(".venuetiles/intent").path))
    }

    /// The merge names what is wrong: a missing shard, a shard given twice,
    /// shards of another N or of other inputs, a folder that is not a shard's;
    /// `--shard auto/N` with no array index set. Nothing is written.
    func testRefusals() throws {
        let three = try buildShards(3, into: "three")
        let two = try buildShards(2, into: "two")
        func refused(_ folders: [String], _ expected: String, line: UInt = #line) throws {
            let r = try merge(folders, into: "refused")
            XCTAssertEqual(r.status, 1, r.stderr, line: line)
            XCTAssertTrue(r.stderr.contains(expected), r.stderr, line: line)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("refused").path), line: line)
        }
        try refused([three[0], three[2]], "shard 1/3 missing")
        try refused([three[0], three[1], three[1], three[2]], "shard 1/3 is given twice")
        try refused([three[0], three[1], two[1]], "every shard of a build has the same N")
        let single = try singleBuild()
        try refused([single.path], "not of a shard")
        // Shards of an edited config: other inputs.
        let other = dir.appendingPathComponent("other.json")
        try String(contentsOf: config, encoding: .utf8).replacingOccurrences(of: "\"min\": 17", with: "\"min\": 18").write(to: other, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", other.path, "--output", dir.appendingPathComponent("other1").path, "--shard", "1/3", "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        try refused([three[0], dir.appendingPathComponent("other1").path, three[2]], "built from other inputs")

        let auto = try CLI.run(["build", "--config", config.path, "--shard", "auto/3"])
        let inherited = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"].contains { ProcessInfo.processInfo.environment[$0] != nil }
        if !inherited {
            XCTAssertEqual(auto.status, 1)
            XCTAssertTrue(auto.stderr.contains("none of SLURM_ARRAY_TASK_ID"), auto.stderr)
        }
        let indexed = try CLI.run(["build", "--config", config.path, "--shard", "auto/3", "--output", dir.appendingPathComponent("k8s").path, "-q"],
                                  env: ["JOB_COMPLETION_INDEX": "2"])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        let m = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("k8s/manifest.json"))) as! [String: Any]
        XCTAssertEqual((m["shard"] as? [String: Any])?["index"] as? Int, 2)
    }

    /// Shard balance on a generated config of 20 venues of mixed sizes
    /// (scripts/make_synthetic.py small and medium, z17–21): the largest shard
    /// has at most 1.2× the mean planned tiles. Each shard's build reports
    /// every shard's planned tiles; its own count is checked against the tiles
    /// its dry run would render.
    func testBalanceOnTwentyGeneratedVenues() throws {
        var sources = [String]()
        for size in ["small", "medium"] {
            let out = dir.appendingPathComponent("synthetic-\(size)")
            let g = try ExternalTools.run("python3", [CLI.packageRoot.appendingPathComponent("scripts/make_synthetic.py").path, size, out.path])
            XCTAssertEqual(g.status, 0, g.stderr)
        }
        let mix = Array(repeating: "small", count: 14) + Array(repeating: "medium", count: 6)
        for (i, size) in mix.enumerated() {
            sources.append(#"{"id": "v\#(i)-\#(size)", "format": "imdf", "path": "\#(dir.appendingPathComponent("synthetic-\(size)").path)"}"#)
        }
        let twenty = dir.appendingPathComponent("twenty.json")
        try #"{"output": "out20", "zoom": {"min": 17, "max": 21}, "sources": [\#(sources.joined(separator: ", "))], "tilesets": [{"format": "png"}, {"format": "mvt"}]}"#
            .write(to: twenty, atomically: true, encoding: .utf8)
        for (n, i) in [(4, 1), (7, 6)] {
            let r = try CLI.run(["build", "--config", twenty.path, "--shard", "\(i)/\(n)", "--dry-run", "--jobs", "2"])
            XCTAssertEqual(r.status, 0, r.stderr)
            guard let w = r.stdout.range(of: #"would render (\d+)"#, options: .regularExpression),
                  let l = r.stderr.range(of: #"planned tiles per shard:( \d+)+"#, options: .regularExpression) else { return XCTFail(r.stdout + r.stderr) }
            let loads = r.stderr[l].split(separator: ":")[1].split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(loads.count, n)
            XCTAssertEqual(loads[i], Int(r.stdout[w].split(separator: " ")[2]), "the shard builds the tiles it reports")
            let mean = Double(loads.reduce(0, +)) / Double(n)
            print("shard balance, 20 generated venues, \(n) shards: \(loads), largest \(String(format: "%.3f", Double(loads.max()!) / mean))× the mean")
            XCTAssertLessThanOrEqual(Double(loads.max()!), 1.2 * mean, "\(loads)")
        }
    }
}
