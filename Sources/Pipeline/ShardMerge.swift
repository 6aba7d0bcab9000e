import Crypto
import Foundation
import Threads
import TileGeometry

/// Shard folders that cannot be merged, and why (each names the folder or shard).
public struct MergeError: Error, CustomStringConvertible {
    public var problem: String
    public var description: String { problem }
}

public struct MergeSummary: Sendable {
    public var shards = 0
    public var tiles = 0
    public var bytes = 0
    /// Files placed (hard-linked from a shard folder, or copied) because they were missing or different in the output.
    public var copied = 0
    public var unchanged = 0
    public var deleted = 0
    public var output = ""
}

/// `venuetiles merge`: joins the folders of `build --shard i/N` into the
/// output a single build of the same inputs makes, byte for byte: the tiles
/// of every shard, the files shard 0 wrote (TileJSON, meshes, web clients'
/// files), and the manifest and index rebuilt in the single build's order.
public enum ShardMerge {
    struct Shard {
        var folder: String
        var manifest: Manifest
        var record: ShardRecord
    }

    /// Reads and checks the shard folders; returns them in shard order.
    static func readShards(_ folders: [String]) throws -> [Shard] {
        guard !folders.isEmpty else { throw MergeError(problem: "no shard folders given") }
        // Decoding a manifest is most of reading a shard: the shards' on every core.
        let manifests = Workers.map(folders.count, workers: ProcessInfo.processInfo.activeProcessorCount, placeholder: nil as Manifest?) { _, i in
            Manifest.load(from: folders[i])
        }
        var shards = [Shard]()
        for (f, m) in zip(folders, manifests) {
            let store = TileStore(root: f)
            if store.fileStatus(TileStore.intentName) != nil {
                throw MergeError(problem: "shard folder \(f): its last build did not finish; run that shard's build again")
            }
            guard let m else {
                throw MergeError(problem: "shard folder \(f): no manifest.json venuetiles can read; build it first with `venuetiles build --shard i/N --output \(f)`")
            }
            guard let r = m.shard else {
                throw MergeError(problem: "shard folder \(f): its manifest.json is of a whole build, not of a shard (built without --shard)")
            }
            guard m.generator.version == Generator.version else {
                throw MergeError(problem: "shard folder \(f): written by \(m.generator.name) \(m.generator.version), this is \(Generator.version); build every shard with the same version as the merge")
            }
            let file = store.path(Manifest.fileName)
            for e in m.tiles { try OutputFolder.checkRelative(e.path, file: file) }
            for e in m.files { try OutputFolder.checkRelative(e.path, file: file) }
            for e in m.blank_tiles { try OutputFolder.checkRelative(e.path, file: file) }
            shards.append(Shard(folder: f, manifest: m, record: r))
        }
        let first = shards[0]
        for s in shards.dropFirst() {
            if s.record.count != first.record.count {
                throw MergeError(problem: "shard folder \(s.folder) is shard \(s.record.index)/\(s.record.count) but \(first.folder) is shard \(first.record.index)/\(first.record.count): every shard of a build has the same N")
            }
            if s.record.key != first.record.key || s.record.pyramids != first.record.pyramids {
                throw MergeError(problem: "shard folder \(s.folder) was built from other inputs than \(first.folder) (config, style, venue data or generator differ): build every shard from the same inputs")
            }
        }
        let n = first.record.count
        var byIndex = [Int: Shard]()
        for s in shards {
            guard s.record.index >= 0 && s.record.index < n else {
                throw MergeError(problem: "shard folder \(s.folder): shard index \(s.record.index) is outside 0…\(n - 1)")
            }
            if let other = byIndex[s.record.index] {
                throw MergeError(problem: "shard \(s.record.index)/\(n) is given twice: \(other.folder) and \(s.folder)")
            }
            byIndex[s.record.index] = s
        }
        let missing = (0..<n).filter { byIndex[$0] == nil }
        if !missing.isEmpty {
            throw MergeError(problem: "shard" + (missing.count > 1 ? "s " : " ") + missing.map { "\($0)/\(n)" }.joined(separator: ", ")
                             + " missing: give the folders of all \(n) shards")
        }
        return (0..<n).map { byIndex[$0]! }
    }

    /// The merged state: the single build's manifest, the index's pyramid
    /// records, and for each tile the shard folder it is read from.
    struct Merged {
        var manifest: Manifest
        var records: [BuildIndex.PyramidRecord]
        var tileShard: [Int32]
        var warnings: Int
    }

    /// A tile path's pyramid directory and tile: `<directory>/<z>/<x>/<y>.<ext>`.
    static func split(_ path: String) -> (directory: Substring, tile: TileID)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, let z = Int(parts[parts.count - 3]), let x = Int(parts[parts.count - 2]),
              let dot = parts[parts.count - 1].firstIndex(of: "."), let y = Int(parts[parts.count - 1][..<dot]),
              z >= 0, z <= 30, x >= 0, y >= 0 else { return nil }
        let end = parts[parts.count - 4].endIndex
        return (path[path.startIndex..<end], TileID(z: z, x: x, y: y))
    }

    static func merge(_ shards: [Shard]) throws -> Merged {
        let pyramids = shards[0].record.pyramids
        var pyramidOf = [Substring: Int]()
        for (pi, p) in pyramids.enumerated() { pyramidOf[Substring(p.directory)] = pi }
        // Per pyramid: (tile, shard, entry), for tiles and for blank tiles.
        var tiles = [[(TileID, Int32, Int32)]](repeating: [], count: pyramids.count)
        var blanks = tiles
        func place(_ path: String, _ s: Int, _ i: Int, into lists: inout [[(TileID, Int32, Int32)]]) throws {
            guard let sp = split(path), let pi = pyramidOf[sp.directory] else {
                throw MergeError(problem: "shard folder \(shards[s].folder): manifest.json lists \(path), which is not a tile of this build's pyramids")
            }
            lists[pi].append((sp.tile, Int32(s), Int32(i)))
        }
        for (s, shard) in shards.enumerated() {
            for (i, e) in shard.manifest.tiles.enumerated() { try place(e.path, s, i, into: &tiles) }
            for (i, e) in shard.manifest.blank_tiles.enumerated() { try place(e.path, s, i, into: &blanks) }
        }
        var out = Merged(manifest: shards[0].manifest, records: [], tileShard: [], warnings: shards[0].record.warnings)
        out.manifest.shard = nil
        out.manifest.tiles = []
        out.manifest.blank_tiles = []
        var counts = [(tiles: Int, bytes: Int, blanks: Int, perZoom: [Int: Int])]()
        for pi in pyramids.indices {
            // The single build's order: zoom, then tile (x, then y).
            tiles[pi].sort { $0.0 < $1.0 }
            blanks[pi].sort { $0.0 < $1.0 }
            for list in [tiles[pi], blanks[pi]] {
                for k in list.indices.dropFirst() where list[k].0 == list[k - 1].0 {
                    throw MergeError(problem: "tile \(pyramids[pi].directory)/\(list[k].0) is in two shards: \(shards[Int(list[k - 1].1)].folder) and \(shards[Int(list[k].1)].folder); the shards are not of one build")
                }
            }
            let t0 = out.manifest.tiles.count, b0 = out.manifest.blank_tiles.count
            var c = (tiles: 0, bytes: 0, blanks: blanks[pi].count, perZoom: [Int: Int]())
            for (t, s, i) in tiles[pi] {
                let e = shards[Int(s)].manifest.tiles[Int(i)]
                out.manifest.tiles.append(e)
                out.tileShard.append(s)
                c.tiles += 1; c.bytes += e.bytes; c.perZoom[t.z, default: 0] += 1
            }
            for (_, s, i) in blanks[pi] { out.manifest.blank_tiles.append(shards[Int(s)].manifest.blank_tiles[Int(i)]) }
            out.records.append(.init(directory: pyramids[pi].directory, digest: pyramids[pi].digest,
                                     tiles: t0..<out.manifest.tiles.count, blanks: b0..<out.manifest.blank_tiles.count))
            counts.append(c)
        }
        // TileJSON: shard 0 wrote one for every pyramid with planned tiles; the
        // single build writes one for every pyramid with tiles.
        let empty = Set(pyramids.indices.filter { counts[$0].tiles == 0 }.map { pyramids[$0].directory + "/tilejson.json" })
        out.manifest.files.removeAll { empty.contains($0.path) }
        for (vi, v) in out.manifest.venues.enumerated() {
            for (ti, ts) in v.tilesets.enumerated() {
                // path_template: <source>/{floor}/<tileset folder>/{z}/{x}/{y}.<ext>
                guard let floorPart = ts.path_template.range(of: "/{floor}/"), let zPart = ts.path_template.range(of: "/{z}/") else {
                    throw MergeError(problem: "shard folder \(shards[0].folder): venue \(v.source_id) has a tileset path template \(ts.path_template) without {floor} and {z}")
                }
                let head = String(ts.path_template[..<floorPart.lowerBound]) + "/", tail = "/" + ts.path_template[floorPart.upperBound..<zPart.lowerBound]
                var e = ts
                e.tile_count = 0; e.total_bytes = 0; e.blank_tiles_skipped = 0; e.tiles_per_floor = [:]; e.tilejson = []
                for (pi, p) in pyramids.enumerated() where p.directory.hasPrefix(head) && p.directory.hasSuffix(tail)
                    && p.directory.utf8.count > head.utf8.count + tail.utf8.count {
                    let name = String(p.directory.dropFirst(head.count).dropLast(tail.count))
                    guard !name.contains("/") else { continue }
                    let c = counts[pi]
                    e.tile_count += c.tiles; e.total_bytes += c.bytes; e.blank_tiles_skipped += c.blanks
                    for (z, n) in c.perZoom { e.tiles_per_floor[name, default: [:]]["\(z)"] = n }
                    if c.tiles > 0 { e.tilejson.append(p.directory + "/tilejson.json") }
                }
                out.manifest.venues[vi].tilesets[ti] = e
            }
        }
        if shards.contains(where: { $0.record.invalid_polygons_dropped > 0 }) { out.warnings += 1 }
        return out
    }
}
