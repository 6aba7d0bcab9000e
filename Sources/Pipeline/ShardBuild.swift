import Crypto
import Foundation
import TileGeometry

/// What a shard folder's manifest says about the shard, for `venuetiles merge`:
/// which shard of which build it is, and what the merge needs to rebuild the
/// single build's manifest and index from the partial ones.
public struct ShardRecord: Codable, Equatable, Sendable {
    public struct PyramidRef: Codable, Equatable, Sendable {
        public var directory: String
        /// `InputKeys.pyramid`: recorded in the merged index as a single build does.
        public var digest: Digest16
    }

    public var index: Int
    public var count: Int
    /// The fingerprint of every input byte (`InputFingerprint`): shards of
    /// other inputs, another config or another generator have another key.
    public var key: String
    /// Every pyramid of the build, in output order (tiles or not in this shard).
    public var pyramids: [PyramidRef]
    /// Warnings of the build before rendering, and polygons the shard's vector
    /// tiles left out (the single build counts one warning when there are any).
    public var warnings: Int
    public var invalid_polygons_dropped: Int
}

extension Builder {
    /// The shard's own fingerprint for its folder's index: the inputs' and
    /// the shard's, so that a folder built as another shard is not a no-op.
    func indexFingerprint(_ fp: [UInt8]?) -> [UInt8]? {
        guard let fp, let shard = options.shard else { return fp }
        return Array(SHA256.hash(data: fp + Array("shard \(shard.index)/\(shard.count)".utf8)))
    }

    /// The shard that writes the files that are not tiles (TileJSON, meshes,
    /// web clients' files): shard 0, or the build when it is not sharded.
    var writesVenueFiles: Bool { (options.shard?.index ?? 0) == 0 }

    /// A shard holds part of each pyramid, so it cannot make a pyramid's
    /// archive, and the merge does not make them (yet): refused by name, not
    /// left out of a merge that would then differ from a single build.
    func refuseShardedArchives() throws {
        guard let s = options.shard, let i = config.tilesets.firstIndex(where: { $0.archive != nil }) else { return }
        throw ConfigError(file: config.file, key: "tilesets[\(i)].archive",
                          problem: "--shard \(s.index)/\(s.count): shards do not make archives; build the shards without \"archive\", merge them, then run `venuetiles archive --output <merged folder> --format \(config.tilesets[i].archive!.rawValue)`")
    }

    /// Whether a pyramid's TileJSON is written: when it has tiles; in shard 0
    /// of a sharded build, when it has planned tiles in any shard (the merge
    /// drops those whose tiles all came out blank).
    func writesTileJSON(_ plan: BuildPlan, _ counts: PyramidCounts, _ pi: Int) -> Bool {
        guard let planned = plan.plannedBeforeShard else { return counts.tiles[pi] > 0 }
        return writesVenueFiles && planned[pi] > 0
    }

    /// The group of each pyramid: itself (raster), or the first vector pyramid
    /// of its venue and tileset.
    func shardGroups(_ pyramids: [Pyramid]) -> [Int] {
        var first = [Int: Int]()
        return pyramids.indices.map { pi in
            let p = pyramids[pi]
            guard case .vector = p.content else { return pi }
            let k = p.venue * 1000 + p.tileset
            if let f = first[k] { return f }
            first[k] = pi
            return pi
        }
    }

    /// The units of the planned pyramids (see `ShardSplit`), in their fixed
    /// order: planned tiles per unit, and each planned tile's unit
    /// (`unitOf[pyramid][plan][tile]`).
    func shardUnits(_ pyramids: [Pyramid], shards: Int) -> (counts: [Int], unitOf: [[[Int32]]]) {
        let groups = shardGroups(pyramids)
        let total = pyramids.reduce(0) { $0 + $1.plans.reduce(0) { $0 + $1.tiles.count } }
        let target = ShardSplit.target(totalTiles: total, shards: shards)
        var unitOf = pyramids.map { p in p.plans.map { [Int32](repeating: -1, count: $0.tiles.count) } }
        var counts = [Int]()
        let zoomCount = pyramids.map(\.plans.count).max() ?? 0
        for g in Set(groups).sorted() {
            let members = pyramids.indices.filter { groups[$0] == g }
            for zi in 0..<zoomCount {
                let tiles = members.flatMap { zi < pyramids[$0].plans.count ? Array(pyramids[$0].plans[zi].tiles) : [] }
                guard let z = tiles.first?.z else { continue }
                let span = config.tilesets[pyramids[g].tileset].metatileSpan(zoom: z)
                let shift = ShardSplit.blockShift(tiles, zoom: z, cellSpan: span, target: target)
                var perBlock = [Int64: Int]()
                for t in tiles { perBlock[ShardSplit.block(t, cellSpan: span, shift: shift), default: 0] += 1 }
                var unit = [Int64: Int32]()
                for b in perBlock.keys.sorted() {
                    unit[b] = Int32(counts.count)
                    counts.append(perBlock[b]!)
                }
                for pi in members where zi < pyramids[pi].plans.count {
                    for (ti, t) in pyramids[pi].plans[zi].tiles.enumerated() {
                        unitOf[pi][zi][ti] = unit[ShardSplit.block(t, cellSpan: span, shift: shift)]!
                    }
                }
            }
        }
        return (counts, unitOf)
    }

    /// Keeps this shard's tiles in the plans; returns every pyramid's planned
    /// tiles before (in all shards).
    func restrictToShard(_ pyramids: inout [Pyramid], _ shard: ShardSpec, spill: FileSpill) throws -> [Int] {
        let planned = pyramids.map { $0.plans.reduce(0) { $0 + $1.tiles.count } }
        let (counts, unitOf) = shardUnits(pyramids, shards: shard.count)
        let assignment = ShardSplit.assign(counts, shards: shard.count)
        let loads = ShardSplit.loads(counts, assignment, shards: shard.count)
        for pi in pyramids.indices {
            let keys = try pyramids[pi].tileKeys.map { try Digest16.list(spill.get($0)) }
            var kept = [Digest16](), first = 0
            for zi in pyramids[pi].plans.indices {
                let plan = pyramids[pi].plans[zi]
                let keep = plan.tiles.indices.filter { assignment[Int(unitOf[pi][zi][$0])] == shard.index }
                // Item lists are dropped once a venue is keyed; rendering plans it again (`venueAgain`).
                pyramids[pi].plans[zi] = FloorZoomPlan(zoom: plan.zoom, tiles: plan.tiles.selecting(keep), items: plan.items.isEmpty ? TileItemLists() : plan.items.selecting(keep))
                if let keys { kept += keep.map { keys[first + $0] } }
                first += plan.tiles.count
            }
            if keys != nil { pyramids[pi].tileKeys = try spill.put(kept.withUnsafeBytes { Data($0) }) }
        }
        let mean = Double(counts.reduce(0, +)) / Double(shard.count)
        log("shard \(shard): \(loads[shard.index]) of \(counts.reduce(0, +)) planned tiles in \(assignment.filter { $0 == shard.index }.count) of \(counts.count) units; "
            + "largest shard \(String(format: "%.3f", Double(loads.max() ?? 0) / max(mean, 1)))× the mean; planned tiles per shard: "
            + loads.map(String.init).joined(separator: " "))
        return planned
    }

    /// The record written into a shard's manifest.
    func shardRecord(_ plan: BuildPlan, fingerprint: [UInt8]?, warnings: Int, invalidDropped: Int) throws -> ShardRecord? {
        guard let shard = options.shard else { return nil }
        guard let fp = fingerprint else {
            throw ConfigError(file: config.file, key: nil, problem: "an input changed while the shard was reading it; build the shard again")
        }
        return ShardRecord(index: shard.index, count: shard.count, key: Digest32(bytes: fp).hex,
                           pyramids: plan.pyramids.map { .init(directory: $0.directory, digest: $0.digest) },
                           warnings: warnings - (invalidDropped > 0 ? 1 : 0), invalid_polygons_dropped: invalidDropped)
    }
}
