import Clients
import Crypto
import Dispatch
import Foundation
import Meshes
import Styling
import TileGeometry

/// The Commit stage's transaction over the output folder. Begun before the
/// first tile is written: it notes what the build may write or delete (the
/// intent file, so that a killed build is finished by the next one) and gives
/// the store a trash, so that every file replaced or removed until the
/// manifest switches can be put back. Unless `committed` is set (the manifest
/// is in place), `rollBack` restores exactly the previous output.
final class Commit {
    let store: TileStore
    /// Stale files: deleted once the manifest is in place, since until then
    /// they are the previous output, which readers may still be using.
    let toDelete: [String]
    /// Nothing to render, clean up or delete: no intent, nothing to undo.
    let nothingToDo: Bool
    private let crashed: [String]
    var writer: TileWriter?
    private(set) var committed = false

    init(_ plan: BuildPlan, store: TileStore, log: (String) -> Void) throws {
        self.store = store
        crashed = plan.crashed
        store.trash = Trash(root: store.root)
        if !crashed.isEmpty {
            log("notice: the previous build into \(store.root) did not finish; cleaning up after it")
            for p in crashed { store.removeTemporary(p) }
        }
        toDelete = plan.stale.filter { store.fileStatus($0) != nil }.sorted()
        // Archives are remade from the tiles by every build that gets here (each
        // left alone when its bytes come out the same): undone like the rest.
        nothingToDo = plan.toRender.isEmpty && crashed.isEmpty && toDelete.isEmpty && plan.archivePaths.isEmpty
        if !nothingToDo { try Commit.writeIntent(plan, crashed: crashed, toDelete: toDelete, store: store) }
    }

    /// One path a line: the tiles to render, the other files, what an
    /// unfinished build left and the stale files. Written in pieces: for a
    /// large venue the tiles' paths alone are tens of megabytes.
    private static func writeIntent(_ plan: BuildPlan, crashed: [String], toDelete: [String], store: TileStore) throws {
        try TileStore(root: store.root).writeStream(TileStore.intentName) { emit in
            var piece = Data(), first = true
            func line(_ path: String) throws {
                if !first { piece.append(UInt8(ascii: "\n")) }
                first = false
                piece.append(contentsOf: path.utf8)
                if piece.count >= 1 << 16 { try emit(piece); piece.removeAll(keepingCapacity: true) }
            }
            try plan.columns.sweep(plan.toRender.count) { k in try line(plan.paths[plan.toRender[k]]) }
            for p in plan.otherFiles.sorted() + crashed + toDelete { try line(p) }
            if !piece.isEmpty { try emit(piece) }
        }
        plan.columns.drop()
    }

    /// Right before the manifest: the replaced files renamed over their old
    /// ones and the tiles that became blank removed, in one short burst. Until
    /// here every name held the bytes the last manifest lists.
    func switchFiles() throws {
        try writer?.switchStaged()
        try store.switchStagedFiles()
    }

    /// The manifest is in place: this build's output is the folder's now.
    func markCommitted() { committed = true }

    /// After a handled error before the manifest switched: every file back as it was.
    func rollBack() {
        guard !committed && !nothingToDo else { return }
        writer?.revert()
        store.revertFiles()
        if crashed.isEmpty { store.remove(TileStore.intentName) }
    }

    /// Once committed: the stale files go, then the intent.
    func finish() {
        for path in toDelete { store.remove(path) }
        if !nothingToDo { store.remove(TileStore.intentName) }
    }
}

/// A venue's glTF files and its manifest entry.
struct VenueMeshes {
    var files: [SpilledFile]
    var entry: Manifest.MeshEntry?
}

/// Per pyramid: files, bytes, blank tiles, and files per zoom.
struct PyramidCounts {
    var tiles: [Int], bytes: [Int], blanks: [Int], perZoom: [[Int]]
}

extension Builder {
    /// Counts what each pyramid holds now: its rendered and reused entries, or
    /// the last build's for a carried one.
    func count(_ plan: BuildPlan, _ outcomes: MappedColumn<TileWriter.Outcome>) -> PyramidCounts {
        let n = plan.pyramids.count
        var c = PyramidCounts(tiles: [Int](repeating: 0, count: n), bytes: [Int](repeating: 0, count: n), blanks: [Int](repeating: 0, count: n),
                              perZoom: [[Int]](repeating: [Int](repeating: 0, count: plan.zooms.count), count: n))
        plan.columns.sweep(plan.jobs.count) { i in
            let j = plan.jobs[i], pi = Int(j.pyramid)
            let o = outcomes[i]
            if o.isTile { c.tiles[pi] += 1; c.bytes[pi] += Int(o.bytes); c.perZoom[pi][Int(j.plan)] += 1 } else { c.blanks[pi] += 1 }
        }
        let previous = plan.reusable
        for (pi, r) in plan.carried {
            c.tiles[pi] = r.tiles.count
            c.bytes[pi] = r.tiles.reduce(0) { $0 + previous!.size($1) }
            c.blanks[pi] = r.blanks.count
            c.perZoom[pi] = plan.carriedTilesPerZoom[pi]!
        }
        plan.columns.drop()
        return c
    }

    /// TileJSON next to every pyramid that has tiles; returns their entries,
    /// by venue and tileset, and how many files changed.
    func writeTileJSON(_ plan: BuildPlan, _ venues: [PreparedVenue], _ counts: PyramidCounts, legend: [FloorsIndex.LegendEntry], spill: FileSpill,
                       store: TileStore, files: inout [Manifest.TileEntry]) throws -> (paths: [Int: [String]], changed: Int) {
        var paths = [Int: [String]](), changed = 0
        for (pi, p) in plan.pyramids.enumerated() where writesTileJSON(plan, counts, pi) {
            let data = try p.tileJSONFile.map { try spill.get($0) } ?? tileJSON(p, venues[p.venue], legend: legend).encoded()
            let rel = "\(p.directory)/tilejson.json"
            if try store.writeIfChanged(rel, data, stage: true) { changed += 1 }
            files.append(Manifest.TileEntry(path: rel, sha256: Digest32.sha256(data), bytes: data.count))
            paths[p.venue * 1000 + p.tileset, default: []].append(rel)
        }
        if config.baseURL == nil { log("notice: no base_url in \(config.file): TileJSON tile URLs are relative to each tilejson.json") }
        return (paths, changed)
    }

    /// Small files made whole before the commit (web clients' files): written
    /// when their bytes changed and listed in the manifest; returns how many changed.
    func writeFiles(_ made: [SpilledFile], from spill: FileSpill, store: TileStore, files: inout [Manifest.TileEntry]) throws -> Int {
        var changed = 0
        for f in made {
            let (rel, data) = (f.path, try spill.get(f.ref))
            if try store.writeIfChanged(rel, data, stage: true) { changed += 1 }
            files.append(Manifest.TileEntry(path: rel, sha256: Digest32.sha256(data), bytes: data.count))
        }
        return changed
    }

    /// glTF meshes of one venue: one per floor, and the floors stacked in one;
    /// made while the venue is prepared, written with the other files (`writeMeshes`).
    func meshFiles(_ v: PreparedVenue, style: Style, spill: FileSpill, _ run: inout BuildRun) throws -> VenueMeshes? {
        guard let mesh = config.mesh else { return nil }
        var out = VenueMeshes(files: [], entry: nil)
        let origin = v.venue.displayPoint ?? v.bounds.center
        let frame = LocalFrame(origin: origin)
        let extras: [String: Any] = ["origin": ["lon": origin.lon, "lat": origin.lat, "height": 0.0],
                                     "frame": "ENU metres around origin: +X east, +Y up, +Z south",
                                     "venue": v.sourceID]
        var floorFiles = [String: String]()
        var stacked = [MeshNode]()
        for f in v.primaryFloors {
            var problems = [String]()
            let node = MeshBuild.floorNode(f, venue: v.venue, frame: frame, style: style, options: mesh, problems: &problems)
            for p in problems { log("warning: \(v.sourceID) mesh: \(p)") }
            run.summary.warnings += problems.count
            let rel = "\(v.sourceID)/\(f.id)/mesh.glb"
            let glb = try GLBWriter.encode(nodes: [node], generator: "\(Generator.name) \(Generator.version)",
                                           extras: extras.merging(["floor": f.id, "ordinal": f.floor.fraction == 0 ? f.floor.ordinal as Any : f.floor.position]) { a, _ in a })
            out.files.append(SpilledFile(path: rel, ref: try spill.put(glb)))
            floorFiles[f.id] = rel
            var lifted = node
            lifted.translation = (0, f.floor.position * mesh.floorHeight, 0)
            stacked.append(lifted)
        }
        let rel = "\(v.sourceID)/venue.glb"
        let glb = try GLBWriter.encode(nodes: stacked, generator: "\(Generator.name) \(Generator.version)",
                                       extras: extras.merging(["floor_height": mesh.floorHeight]) { a, _ in a })
        out.files.append(SpilledFile(path: rel, ref: try spill.put(glb)))
        out.entry = Manifest.MeshEntry(origin: [origin.lon, origin.lat, 0], floor_height: mesh.floorHeight, venue: rel, floors: floorFiles)
        return out
    }

    /// Writes the meshes made with each venue; returns their manifest entries by venue.
    func writeMeshes(_ meshes: [VenueMeshes], from spill: FileSpill, store: TileStore, files: inout [Manifest.TileEntry]) throws -> (entries: [Int: Manifest.MeshEntry], changed: Int) {
        var entries = [Int: Manifest.MeshEntry](), changed = 0
        for (vi, m) in meshes.enumerated() {
            changed += try writeFiles(m.files, from: spill, store: store, files: &files)
            entries[vi] = m.entry
        }
        return (entries, changed)
    }

    /// The manifest's lists, in pyramid order: a carried pyramid's entries come
    /// from the last build, in the order that build wrote them, which is the
    /// order a clean build writes. The others' are made from each job's path,
    /// key and outcome when they are read (`Manifest.TileEntries`): here only
    /// where each entry comes from is listed. Also where each pyramid's
    /// entries are, for the index.
    func manifestLists(_ plan: BuildPlan, _ counts: PyramidCounts, outcomes: MappedColumn<TileWriter.Outcome>)
        -> (tiles: Manifest.TileEntries, blanks: [Manifest.BlankEntry], records: [BuildIndex.PyramidRecord]) {
        var records = [BuildIndex.PyramidRecord]()
        var t = 0, b = 0
        for (pi, p) in plan.pyramids.enumerated() {
            records.append(.init(directory: p.directory, digest: p.digest, tiles: t..<(t + counts.tiles[pi]), blanks: b..<(b + counts.blanks[pi])))
            t += counts.tiles[pi]; b += counts.blanks[pi]
        }
        // Per entry: its job (≥ 0), or -1 - the last build's entry (carried).
        let source = plan.columns.track(MappedColumn<Int>(repeating: 0, count: t))
        var blankList = [Manifest.BlankEntry]()
        var k = 0
        for pi in plan.pyramids.indices {
            if let r = plan.carried[pi] {
                for e in r.tiles { source[k] = -1 - e; k += 1 }
                blankList += plan.reusable!.blank[r.blanks]
                continue
            }
            plan.columns.advance(by: plan.jobStart[pi + 1] - plan.jobStart[pi])
            for i in plan.jobStart[pi]..<plan.jobStart[pi + 1] {
                let o = outcomes[i]
                if o.isTile {
                    source[k] = i; k += 1
                } else {
                    precondition(o.bytes == TileWriter.Outcome.blank.bytes, "every planned tile was written or found blank")
                    blankList.append(Manifest.BlankEntry(path: plan.paths[i], key: plan.keys[i]))
                }
            }
        }
        precondition(k == t, "every counted tile is listed")
        plan.columns.drop()
        let (paths, keys, prevList, columns) = (plan.paths, plan.keys, plan.prevList, plan.columns)
        let tiles = Manifest.TileEntries(count: t, entry: { n in
            let i = source[n]
            guard i >= 0 else { return prevList[-1 - i] }
            let o = outcomes[i]
            return Manifest.TileEntry(path: paths[i], sha256: o.sha256, bytes: Int(o.bytes), key: keys[i])
        }, letGo: { columns.drop() })
        return (tiles, blankList, records)
    }
}
