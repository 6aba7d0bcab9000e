import Crypto
import Foundation
import Threads

extension ShardMerge {
    /// Merges the shard folders into `output`. Like a build, it is a
    /// transaction over the output folder (owner marker, lock, intent, trash):
    /// files whose bytes are already there are left alone, the others are
    /// hard-linked from the shard folders, or copied where no link can be made
    /// (each checked against its shard's manifest), the manifest is the
    /// commit point, files the last output had and this one has not go after
    /// it. On an error before the manifest, the output is put back as it was.
    public static func run(output: String, shards folders: [String], allowExisting: Bool = false, log: (String) -> Void) throws -> MergeSummary {
        let shards = try readShards(folders)
        let merged = try merge(shards)
        let folder = try OutputFolder.openForMerge(output, shards: folders, allowExisting: allowExisting, notice: log)
        defer { folder.release() }
        Trash.emptyEarlier(root: output)
        let store = TileStore(root: output)
        let previous = try PreviousBuild.readState(store)
        let unfinished = store.fileStatus(TileStore.intentName) != nil
        if unfinished { log("notice: the last build or merge into \(output) did not finish; every file is compared") }
        let manifestTime = unfinished ? nil : store.fileStatus(Manifest.fileName)?.mtime
        var last = [String: Manifest.TileEntry]()
        for e in (previous?.tiles ?? []) + (previous?.files ?? []) { last[e.path] = e }

        // Every file of the output, and the shard folder it comes from.
        var sources = merged.manifest.tiles.indices.map { (entry: merged.manifest.tiles[$0], shard: Int(merged.tileShard[$0])) }
        sources += merged.manifest.files.map { (entry: $0, shard: 0) }
        let produced = Set(sources.map(\.entry.path))
        let stale = Set(last.keys).subtracting(produced).sorted()
        try TileStore(root: output).writeFile(TileStore.intentName, Data((sources.map(\.entry.path) + stale).joined(separator: "\n").utf8))
        store.trash = Trash(root: output)
        var summary = MergeSummary(shards: shards.count, output: output)
        let shardManifestTimes = shards.map { TileStore(root: $0.folder).fileStatus(Manifest.fileName)?.mtime }
        // Placing files is kernel work: contiguous runs of the files
        // on every core, each with a store of its own (its open folders, its undo log).
        let writers = (0..<max(1, min(ProcessInfo.processInfo.activeProcessorCount, sources.count / 64))).map { _ in
            TileStore(root: output, trash: store.trash)
        }
        do {
            let perRun = (sources.count + writers.count - 1) / writers.count
            let tallies = Workers.map(writers.count, workers: writers.count, placeholder: (copied: 0, unchanged: 0, error: nil as Error?)) { _, r in
                var t = (copied: 0, unchanged: 0, error: nil as Error?)
                let readers = shards.map { TileStore(root: $0.folder) }
                do {
                    for (e, s) in sources[(r * perRun)..<min((r + 1) * perRun, sources.count)] {
                        if try place(e, from: shards[s], readers[s], shardManifestTime: shardManifestTimes[s], to: writers[r], last: last[e.path],
                                     manifestTime: manifestTime) { t.copied += 1 } else { t.unchanged += 1 }
                    }
                } catch {
                    t.error = error
                }
                return t
            }
            if let e = tallies.lazy.compactMap({ $0.error }).first { throw e }
            summary.copied = tallies.reduce(0) { $0 + $1.copied }
            summary.unchanged = tallies.reduce(0) { $0 + $1.unchanged }
            try writeManifestAndIndex(merged, shards: shards, store: store)
        } catch {
            for w in writers.reversed() { w.revertFiles() }
            store.revertFiles()
            store.remove(TileStore.intentName, setAside: false)
            throw error
        }
        for p in stale { store.remove(p) }
        store.remove(TileStore.intentName, setAside: false)
        summary.deleted = stale.count
        summary.tiles = merged.manifest.tiles.count
        summary.bytes = merged.manifest.tiles.reduce(0) { $0 + $1.bytes }
        return summary
    }

    /// One file of the output: left alone when the last output has it with
    /// these bytes, intact; else linked (or copied) from its shard's folder,
    /// checked against the shard's manifest the way a build checks its own
    /// files (`PreviousBuild.intact`: its size, and its bytes when it changed
    /// after that manifest). Returns whether it was placed.
    static func place(_ e: Manifest.TileEntry, from shard: Shard, _ reader: TileStore, shardManifestTime: timespec?, to store: TileStore,
                      last: Manifest.TileEntry?, manifestTime: timespec?) throws -> Bool {
        var touched = false
        if let l = last, l.sha256 == e.sha256, l.bytes == e.bytes, PreviousBuild.intact(l, store.fileStatus(e.path), store, manifestTime, touched: &touched) {
            return false
        }
        let unchangedSinceManifest = { (st: (size: Int, mtime: timespec)) in shardManifestTime.map { !(st.mtime > $0) } ?? false }
        guard let st = reader.statusInOrder(e.path), st.size == e.bytes,
              unchangedSinceManifest(st) || reader.readInOrder(e.path).map({ Digest32.sha256($0) == e.sha256 }) == true else {
            throw MergeError(problem: "shard folder \(shard.folder): \(e.path) is missing or does not match its manifest.json; build that shard again")
        }
        try store.linkRecorded(e.path, from: reader)
        return true
    }

    /// The manifest (left alone when its bytes are already there), then the
    /// index a single build writes beside it: a build of the same inputs
    /// over the merged output finds nothing to do.
    static func writeManifestAndIndex(_ merged: Merged, shards: [Shard], store: TileStore) throws {
        let m = merged.manifest
        let segments = merged.records.map { Manifest.TileSegment(tiles: $0.tiles, text: nil) }
        var text = [Range<Int>]()
        try store.writeStreamIfChanged(Manifest.fileName) { emit in text = try m.write(workers: 1, segments: segments, emit) }
        guard let fp = HexCoding.bytes(shards[0].record.key), fp.count == 32, let st = store.fileStatus(Manifest.fileName) else {
            throw MergeError(problem: "shard folder \(shards[0].folder): its manifest's shard key is not a SHA-256")
        }
        let counts = BuildIndex.Counts(tiles: m.tiles.count, bytes: m.tiles.reduce(0) { $0 + $1.bytes }, blank: m.blank_tiles.count,
                                       warnings: merged.warnings)
        try BuildIndex.write(store, fingerprint: fp, counts: counts, manifest: m, pyramids: merged.records,
                             manifestStatus: { (st.size, st.mtime, text) })
    }
}
