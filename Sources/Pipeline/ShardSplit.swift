import Foundation
import TileGeometry

/// Which part of the work a `venuetiles build --shard i/N` does.
public struct ShardSpec: Equatable, Sendable, CustomStringConvertible {
    public var index: Int
    public var count: Int
    public var description: String { "\(index)/\(count)" }

    public init(index: Int, count: Int) { self.index = index; self.count = count }

    /// The variables batch engines set to a task's index in an array job, in
    /// the order they are looked at. Slurm's ID is taken relative to
    /// `SLURM_ARRAY_TASK_MIN`, so `--array=1-N` works as well as `--array=0-(N-1)`.
    public static let indexVariables = ["SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"]

    /// Parses `i/N` or `auto/N` (i from the environment: `indexVariables`).
    public static func parse(_ text: String, environment: [String: String]) throws -> ShardSpec {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Int(parts[1]), n >= 1 else {
            throw ShardSpecError(problem: "--shard \(text): expected i/N or auto/N with N ≥ 1 (for example 0/4)")
        }
        let i: Int
        if parts[0] == "auto" {
            guard let name = indexVariables.first(where: { environment[$0].map { !$0.isEmpty } ?? false }) else {
                throw ShardSpecError(problem: "--shard auto/\(n): none of \(indexVariables.joined(separator: ", ")) is set; "
                                     + "run it as a task of an array job (Slurm --array, a Kubernetes Indexed Job, an AWS Batch array job) or give the index, as in --shard 0/\(n)")
            }
            let value = environment[name]!
            guard var v = Int(value) else { throw ShardSpecError(problem: "--shard auto/\(n): \(name)=\(value) is not a whole number") }
            if name == "SLURM_ARRAY_TASK_ID", let m = environment["SLURM_ARRAY_TASK_MIN"].flatMap({ Int($0) }) { v -= m }
            i = v
            guard i >= 0 && i < n else {
                throw ShardSpecError(problem: "--shard auto/\(n): \(name)=\(value) gives shard \(i), outside 0…\(n - 1); the array must have exactly \(n) tasks")
            }
        } else {
            guard let v = Int(parts[0]), v >= 0, v < n else {
                throw ShardSpecError(problem: "--shard \(text): the index must be a whole number from 0 to \(n - 1), or auto")
            }
            i = v
        }
        return ShardSpec(index: i, count: n)
    }
}

/// A `--shard` value that cannot be used.
public struct ShardSpecError: Error, CustomStringConvertible {
    public var problem: String
    public var description: String { problem }
}

/// How the planned tiles are cut into units and the units dealt to shards.
///
/// A unit is a block of tiles of one group at one zoom: the tiles under one
/// tile of a pivot zoom (a sub-pyramid cut at that zoom). A group is a raster
/// pyramid (a floor of a tileset), or every vector pyramid of one venue and
/// tileset (its floors and the venue-wide one are rendered together, see
/// `Builder.vectorTileGroups`). A block is at least one metatile, so a
/// metatile is never drawn in two shards. Each zoom of a group gets the
/// coarsest blocks that keep every unit at most `target` tiles, so that no
/// unit is large against a shard's share.
///
/// Units are dealt in a fixed order (group, zoom, block) as contiguous runs
/// of about equal planned tiles: a shard's load is at most its share plus one
/// unit, and an edit that changes one venue's counts moves only the units
/// near the boundaries after it, so an edited shard rebuild renders little
/// besides its changed tiles.
public enum ShardSplit {
    /// The largest unit wanted: a power of two (so that small edits rarely
    /// change the blocks) at most an eighth of a shard's share.
    public static func target(totalTiles: Int, shards: Int) -> Int {
        let share = max(1, totalTiles / max(1, 8 * shards))
        var t = 1
        while t * 2 <= share { t *= 2 }
        return t
    }

    /// A tile's block at `shift`: its cell (metatile, or the tile itself) shifted right.
    @inline(__always)
    static func block(_ t: TileID, cellSpan: Int, shift: Int) -> Int64 {
        let cx = Int64(t.x / cellSpan) >> Int64(shift), cy = Int64(t.y / cellSpan) >> Int64(shift)
        return cx << 32 | cy
    }

    /// The shift of the blocks for one group at one zoom: the largest (coarsest
    /// blocks) whose largest block has at most `target` tiles; 0 (one cell a
    /// block) when none does.
    public static func blockShift(_ tiles: [TileID], zoom: Int, cellSpan: Int, target: Int) -> Int {
        guard tiles.count > target else { return zoom }
        // Blocks of a shift s hold at most 4^s cells; fewer than count/target blocks cannot do.
        var s = zoom
        let need = (tiles.count + target - 1) / target
        var blocks = 1
        while s > 0 && blocks < need { s -= 1; blocks *= 4 }
        while s > 0 {
            var perBlock = [Int64: Int]()
            var largest = 0
            for t in tiles {
                let b = block(t, cellSpan: cellSpan, shift: s)
                let c = (perBlock[b] ?? 0) + 1
                perBlock[b] = c
                largest = max(largest, c)
            }
            if largest <= target { return s }
            s -= 1
        }
        return 0
    }

    /// Deals units (planned tile counts, in their fixed order) to `shards`
    /// shards as contiguous runs: a unit goes to the shard whose share of the
    /// total holds the unit's middle tile.
    public static func assign(_ counts: [Int], shards: Int) -> [Int] {
        let total = counts.reduce(0, +)
        guard total > 0, shards > 1 else { return counts.map { _ in 0 } }
        var before = 0
        return counts.map { c in
            // The middle of the unit, doubled to stay in whole numbers.
            let middle = 2 * before + c
            before += c
            return min(shards - 1, middle * shards / (2 * total))
        }
    }

    /// Planned tiles per shard of an assignment.
    public static func loads(_ counts: [Int], _ assignment: [Int], shards: Int) -> [Int] {
        var out = [Int](repeating: 0, count: shards)
        for (c, s) in zip(counts, assignment) { out[s] += c }
        return out
    }
}
