import Archives
import Foundation

/// The build's archives go into the output folder through its store: each is
/// made under a temporary name and renamed into place unless its bytes did not
/// change, the old one set aside in the trash, so that a build that fails
/// before its manifest puts the old archives back with every other file.
struct StorePlacement: ArchiveExport.Placement {
    let store: TileStore
    /// Where the archive's bytes are now: its staged file until the switch, when one was made.
    func path(_ relative: String) -> String {
        let staged = store.path(TileStore.temporaryPath(relative))
        return FileManager.default.fileExists(atPath: staged) ? staged : store.path(relative)
    }
    func put(_ relative: String, update: Bool, _ make: (String) throws -> Void) throws -> Bool {
        // Staged like tiles: the new archive replaces the old one at the switch.
        try store.writeByName(relative, update: update, stage: true, make)
    }
}

extension Builder {
    /// The archives the tilesets ask for (pipeline.json `archive`): per format,
    /// the tileset folders (`png`, `png@2x`, `mvt`) packed in it.
    var archiveRequests: [(format: ArchiveExport.Format, tilesets: Set<String>)] {
        ArchiveExport.Format.allCases.compactMap { f in
            let names = Set(config.tilesets.filter { $0.archive == f }.map(\.directoryName))
            return names.isEmpty ? nil : (f, names)
        }
    }

    /// Every path the archives of these pyramids may take, known before anything
    /// is written: the intent lists them and `findStale` keeps them. A pyramid
    /// without tiles gets no archive; its path is listed all the same.
    func archivePaths(_ pyramids: [Pyramid], _ venues: [PreparedVenue]) -> Set<String> {
        var out = Set<String>()
        for p in pyramids {
            let ts = config.tilesets[p.tileset]
            guard let format = ts.archive else { continue }
            let v = venues[p.venue]
            // As `ArchiveExport.pyramids` reads it back from a tile path: the floor id, else the ordinal.
            let template = try! TilePathTemplate(ts.pathTemplate)
            let floor = template.contains(.floor) ? p.name : (floorOf(p, v).map { String($0.floor.ordinal) } ?? "all")
            out.insert(ArchiveExport.archivePath(venue: v.sourceID, floor: floor, tileset: ts.directoryName, format: format))
        }
        return out
    }

    /// Packs the archives from the manifest about to be written (its tiles and
    /// TileJSON documents are in place and are checked against it as they are
    /// read), lists them among the manifest's files and returns how many changed.
    /// PMTiles and zip files are made whole (the same tiles give the same bytes);
    /// an MBTiles file is brought up to date, only the rows of changed tiles changing.
    func writeArchives(_ manifest: inout Manifest, store: TileStore, _ run: inout BuildRun) throws -> Int {
        let requests = archiveRequests
        guard !requests.isEmpty else { return 0 }
        var changed = 0, entries = [Manifest.TileEntry]()
        let placement = StorePlacement(store: store)
        for r in requests {
            try cancellation.check()
            // Every request reads the same manifest: a zip package holds no other archive.
            let written = try ArchiveExport.run(output: store.root, manifest: manifest,
                                                request: .init(format: r.format, destination: store.root, tilesets: r.tilesets),
                                                placement: placement, stagedFirst: true)
            for w in written {
                guard let sha = Digest32(hex: w.sha256) else { preconditionFailure("an archive's SHA-256 is 64 hex digits") }
                entries.append(Manifest.TileEntry(path: w.path, sha256: sha, bytes: w.bytes))
                if w.changed { changed += 1 }
                if r.format == .mbtiles && w.changed {
                    log("archive: \(w.path): \(w.rowsInserted) tiles added, \(w.rowsReplaced) changed, \(w.rowsDeleted) removed")
                }
            }
        }
        manifest.files += entries
        run.lap("archives")
        return changed
    }
}
