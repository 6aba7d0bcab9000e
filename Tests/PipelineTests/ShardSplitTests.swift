import Foundation
@testable import Pipeline
import TestSupport
import TileGeometry
import XCTest

/// `--shard i/N`: how planned tiles are cut into units and dealt to shards,
/// and sharded builds merged in-process (the CLI's are in EndToEndTests/ShardTests).
final class ShardSplitTests: XCTestCase {
    // MARK: - the --shard value

    func testShardSpecFromTheCommandLineAndTheEnvironment() throws {
        XCTAssertEqual(try ShardSpec.parse("2/4", environment: [:]), ShardSpec(index: 2, count: 4))
        XCTAssertEqual(try ShardSpec.parse("auto/4", environment: ["JOB_COMPLETION_INDEX": "3"]), ShardSpec(index: 3, count: 4))
        XCTAssertEqual(try ShardSpec.parse("auto/4", environment: ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]), ShardSpec(index: 0, count: 4))
        XCTAssertEqual(try ShardSpec.parse("auto/4", environment: ["SLURM_ARRAY_TASK_ID": "1"]), ShardSpec(index: 1, count: 4))
        // Slurm arrays numbered from 1 (--array=1-4).
        XCTAssertEqual(try ShardSpec.parse("auto/4", environment: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "1"]), ShardSpec(index: 3, count: 4))
        func problem(_ s: String, _ env: [String: String] = [:]) -> String {
            do { _ = try ShardSpec.parse(s, environment: env); return "" } catch { return "\(error)" }
        }
        XCTAssertTrue(problem("auto/4").contains("SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX"), problem("auto/4"))
        XCTAssertTrue(problem("auto/4", ["JOB_COMPLETION_INDEX": "4"]).contains("outside 0…3"))
        XCTAssertTrue(problem("auto/4", ["JOB_COMPLETION_INDEX": "x"]).contains("not a whole number"))
        XCTAssertTrue(problem("4/4").contains("from 0 to 3"))
        XCTAssertTrue(problem("1/0").contains("N ≥ 1"))
        XCTAssertTrue(problem("1").contains("i/N"))
    }

    // MARK: - the split, on synthetic plans

    /// The tiles of a rectangle of `w` × `h` tiles at `z0`, at every zoom from z0 to z1.
    func pyramid(x: Int, y: Int, w: Int, h: Int, z0: Int, z1: Int) -> [[TileID]] {
        (z0...z1).map { z in
            let k = 1 << (z - z0)
            var out = [TileID]()
            for tx in (x * k)..<((x + w) * k) { for ty in (y * k)..<((y + h) * k) { out.append(TileID(z: z, x: tx, y: ty)) } }
            return out
        }
    }

    /// Units of synthetic venues (as `Builder.shardUnits` makes them: per
    /// venue and zoom, blocks of the shift `blockShift` picks).
    func units(_ venues: [[[TileID]]], shards: Int, span: Int = 1) -> [Int] {
        let total = venues.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
        let target = ShardSplit.target(totalTiles: total, shards: shards)
        var counts = [Int]()
        for v in venues {
            for tiles in v where !tiles.isEmpty {
                let s = ShardSplit.blockShift(tiles, zoom: tiles[0].z, cellSpan: span, target: target)
                var per = [Int64: Int]()
                for t in tiles { per[ShardSplit.block(t, cellSpan: span, shift: s), default: 0] += 1 }
                counts += per.keys.sorted().map { per[$0]! }
            }
        }
        return counts
    }

    /// 20 venues from a kiosk to an airport (planned tiles 1:400): for 2…8
    /// shards, the largest shard has at most 1.2× the mean planned tiles.
    func testTwentyVenuesOfMixedSizesAreBalanced() {
        let sizes = [1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 6, 6, 8, 9, 10, 12, 14, 16, 20]
        let venues = sizes.enumerated().map { i, s in pyramid(x: 1000 * i, y: 500, w: s, h: max(1, s / 2 + i % 3), z0: 17, z1: 21) }
        for n in 2...8 {
            let counts = units(venues, shards: n)
            let loads = ShardSplit.loads(counts, ShardSplit.assign(counts, shards: n), shards: n)
            let mean = Double(counts.reduce(0, +)) / Double(n)
            let ratio = Double(loads.max()!) / mean
            print("shard balance, 20 synthetic venues, \(n) shards: largest \(loads.max()!) of mean \(Int(mean)) planned tiles = \(String(format: "%.3f", ratio))×")
            XCTAssertLessThanOrEqual(ratio, 1.2, "\(n) shards: \(loads)")
            XCTAssertEqual(loads.reduce(0, +), counts.reduce(0, +))
        }
    }

    /// Every unit goes to one shard, in contiguous runs, the same way every time;
    /// one shard takes everything, and N larger than the units leaves shards empty.
    func testAssignmentIsContiguousAndDeterministic() {
        let counts = [50, 3, 700, 1, 1, 90, 400, 12, 12, 12, 300, 8]
        for n in 1...15 {
            let a = ShardSplit.assign(counts, shards: n)
            XCTAssertEqual(a, ShardSplit.assign(counts, shards: n))
            XCTAssertEqual(a, a.sorted(), "runs are contiguous")
            XCTAssertTrue(a.allSatisfy { $0 >= 0 && $0 < n })
        }
        XCTAssertEqual(Set(ShardSplit.assign(counts, shards: 1)), [0])
        XCTAssertEqual(ShardSplit.assign([0, 0], shards: 3), [0, 0])
    }

    /// An edit that adds a few tiles to one venue moves few units between
    /// shards (each moved unit is rendered again in its new shard).
    func testASmallEditMovesFewUnits() {
        let venues = (0..<20).map { i in pyramid(x: 1000 * i, y: 0, w: 3 + i % 5, h: 2 + i % 3, z0: 17, z1: 21) }
        let before = units(venues, shards: 4)
        var edited = venues
        edited[7][4].append(contentsOf: (0..<3).map { TileID(z: 21, x: 7000 * 16 + 200 + $0, y: 5) })
        let after = units(edited, shards: 4)
        XCTAssertEqual(before.count + 1, after.count, "one new unit beside the block it grew out of")
        let a = ShardSplit.assign(before, shards: 4), b = ShardSplit.assign(after, shards: 4)
        // Units before the new one keep their index; those after it shift by one.
        let newUnit = before.indices.first { before[$0] != after[$0] } ?? before.count
        var moved = 0
        for u in before.indices { if a[u] != b[u < newUnit ? u : u + 1] { moved += 1 } }
        XCTAssertLessThanOrEqual(moved, 3, "\(moved) of \(before.count) units moved")
    }

    /// A block is never smaller than a metatile: the metatile's tiles are drawn together in one shard.
    func testBlocksKeepMetatilesWhole() {
        let tiles = pyramid(x: 0, y: 0, w: 40, h: 40, z0: 19, z1: 19)[0]
        let s = ShardSplit.blockShift(tiles, zoom: 19, cellSpan: 8, target: 1)
        XCTAssertEqual(s, 0)
        var metatileOf = [Int64: Int64]()
        for t in tiles {
            let b = ShardSplit.block(t, cellSpan: 8, shift: s), m = Int64(t.x / 8) << 32 | Int64(t.y / 8)
            if let seen = metatileOf[m] { XCTAssertEqual(seen, b) } else { metatileOf[m] = b }
        }
        XCTAssertGreaterThan(ShardSplit.blockShift(tiles, zoom: 19, cellSpan: 1, target: 100), 0)
    }

    // MARK: - sharded builds, in-process

    /// Three shards of a config of IMDF, MVF and GeoJSON venues (raster,
    /// vector, meshes, web clients' files), merged: every file and the index
    /// equal a single build's; a shard rebuilt with no change renders nothing,
    /// and the merge again copies nothing.
    func testThreeShardsMergeToTheSingleBuild() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let config = try PipelineConfig.load(path: ShardFixture.writeMixedConfig(dir, zooms: 17...19).path)
        let single = dir.appendingPathComponent("single").path
        _ = try Builder(config: config, options: BuildOptions(jobs: 2, output: single), log: { _ in }).run()
        var shardDirs = [String]()
        var planned = [Int]()
        for i in 0..<3 {
            var o = BuildOptions(jobs: 2, output: dir.appendingPathComponent("shard\(i)").path)
            o.shard = ShardSpec(index: i, count: 3)
            let s = try Builder(config: config, options: o, log: { _ in }).run()
            planned.append(s.rendered)
            shardDirs.append(o.output!)
        }
        XCTAssertTrue(planned.allSatisfy { $0 > 0 }, "every shard has tiles: \(planned)")
        let merged = dir.appendingPathComponent("merged")
        let m = try ShardMerge.run(output: merged.path, shards: Array(shardDirs.reversed()), log: { _ in })
        XCTAssertEqual(ShardFixture.differences(URL(fileURLWithPath: single), merged), [])
        XCTAssertGreaterThan(m.copied, 0)

        var again = BuildOptions(jobs: 2, output: shardDirs[1]); again.shard = ShardSpec(index: 1, count: 3)
        let rebuilt = try Builder(config: config, options: again, log: { _ in }).run()
        XCTAssertEqual(rebuilt.rendered, 0)
        let m2 = try ShardMerge.run(output: merged.path, shards: shardDirs, log: { _ in })
        XCTAssertEqual(m2.copied, 0)
        XCTAssertEqual(m2.unchanged, m.copied)
        // A single build over the merged output finds nothing to do.
        let noop = try Builder(config: config, options: BuildOptions(jobs: 2, output: merged.path), log: { _ in }).run()
        XCTAssertEqual(noop.rendered, 0)
        XCTAssertEqual(ShardFixture.differences(URL(fileURLWithPath: single), merged), [])
    }
}
