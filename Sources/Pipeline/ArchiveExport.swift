import Archives
import Crypto
import Foundation

/// Packs a finished output folder into archives: one PMTiles or MBTiles file per
/// pyramid (a floor's tileset, or the venue-wide vector tiles), or one zip
/// package per venue. Reads only what the manifest lists, and refuses to start
/// when any of those files no longer has its recorded size and SHA-256.
public enum ArchiveExport {
    public typealias Format = ArchiveFormat

    public struct Request: Sendable {
        public var format: Format
        /// The folder the archives go to.
        public var destination: String
        /// Tileset folder names (`png`, `png@2x`, `mvt`); empty: all.
        public var tilesets: Set<String> = []
        /// Venue (source) ids; empty: all.
        public var venues: Set<String> = []
        /// Only tiles of these zooms (PMTiles and MBTiles; GDAL's MBTiles driver stops at z22); nil: all.
        public var zooms: ClosedRange<Int>? = nil
        public init(format: Format, destination: String, tilesets: Set<String> = [], venues: Set<String> = [], zooms: ClosedRange<Int>? = nil) {
            self.format = format; self.destination = destination; self.tilesets = tilesets; self.venues = venues; self.zooms = zooms
        }
    }

    /// One archive written.
    public struct Written: Sendable, Equatable {
        /// Relative to the destination folder.
        public var path: String
        public var sha256: String
        public var bytes: Int
        /// Tiles addressed and distinct tile contents stored.
        public var tiles: Int
        public var contents: Int
        /// Bytes of the tiles in the tree (each tile counted once per place).
        public var treeBytes: Int
        /// MBTiles updated in place: map rows added, changed, removed.
        public var rowsInserted = 0, rowsReplaced = 0, rowsDeleted = 0
        /// The file in place changed (an archive equal to the old one leaves it alone).
        public var changed = true
    }

    /// Where archives go: `venuetiles archive`'s destination folder, or the
    /// output folder itself when the build packs them (through its store, so
    /// that a failed build puts the old archives back).
    public protocol Placement {
        /// The absolute path of `relative`, to read an archive once placed.
        func path(_ relative: String) -> String
        /// Makes the archive at `relative`: `make` writes the whole file at the
        /// path it is given, which holds the archive in place already when
        /// `update` (MBTiles are brought up to date, not rewritten). Returns
        /// whether the file in place changed.
        func put(_ relative: String, update: Bool, _ make: (String) throws -> Void) throws -> Bool
    }

    /// A folder of archives outside any output (`venuetiles archive --to`): a
    /// new PMTiles or zip file is written beside the old one and renamed over
    /// it unless equal (a reader sees the old file or the new one); an MBTiles
    /// file is updated in place, in one SQLite transaction.
    public struct Folder: Placement {
        public var root: String
        public init(root: String) { self.root = root }
        public func path(_ relative: String) -> String { root + "/" + relative }
        public func put(_ relative: String, update: Bool, _ make: (String) throws -> Void) throws -> Bool {
            let dest = path(relative)
            try FileManager.default.createDirectory(atPath: (dest as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            if update { try make(dest); return true }
            let tmp = dest + ".tmp"
            do {
                try make(tmp)
                return try ArchiveExport.rename(tmp, dest)
            } catch { try? FileManager.default.removeItem(atPath: tmp); throw error }
        }
    }

    /// Where the archive of one pyramid goes, relative to the destination:
    /// `<venue>/<floor>/<tileset>.<format>` (the floor as the tileset's path
    /// template names it: its id, or its ordinal); a venue's zip package: `<venue>.zip`.
    public static func archivePath(venue: String, floor: String, tileset: String, format: Format) -> String {
        format == .zip ? venue + ".zip" : "\(venue)/\(floor)/\(tileset).\(format.fileExtension)"
    }

    /// A pyramid's tiles with what its archive says about them.
    struct Pyramid {
        var venue: String
        var floor: String
        var tilesetDirectory: String
        var tileJSON: Manifest.TileEntry
        var gzipTiles: Bool
        var tiles: [ArchiveTile]
    }

    public static func run(output: String, request: Request) throws -> [Written] {
        guard FileManager.default.fileExists(atPath: output + "/" + Manifest.fileName) else {
            throw StoreError(operation: "archive", path: output, reason: "no \(Manifest.fileName): not a venuetiles output folder, or never built")
        }
        // A build writing into the folder meanwhile would change files under us.
        let folder = OutputFolder(root: output)
        try folder.lock()
        defer { folder.unlock() }
        guard let manifest = Manifest.load(from: output) else {
            throw StoreError(operation: "archive", path: output + "/" + Manifest.fileName, reason: "cannot be read as a manifest")
        }
        return try run(output: output, manifest: manifest, request: request)
    }

    /// The archives of `manifest` (the build calls this with the manifest it just wrote).
    public static func run(output: String, manifest: Manifest, request: Request, placement: Placement? = nil, stagedFirst: Bool = false) throws -> [Written] {
        let place = placement ?? Folder(root: request.destination)
        let venues = manifest.venues.filter { request.venues.isEmpty || request.venues.contains($0.id) || request.venues.contains($0.source_id) }
        if !request.venues.isEmpty, let missing = request.venues.sorted().first(where: { v in !venues.contains { $0.source_id == v || $0.id == v } }) {
            throw StoreError(operation: "archive", path: output, reason: "no venue \"\(missing)\" in the manifest (has: \(manifest.venues.map(\.source_id).joined(separator: ", ")))")
        }
        let known = Set(venues.flatMap { $0.tilesets.map(directoryName) })
        if let bad = request.tilesets.sorted().first(where: { !known.contains($0) }) {
            throw StoreError(operation: "archive", path: output, reason: "no tileset \"\(bad)\" in the manifest (has: \(known.sorted().joined(separator: ", ")))")
        }
        if request.format == .zip && request.zooms != nil {
            throw StoreError(operation: "archive", path: output, reason: "a zip package holds whole tilesets: no zoom range")
        }
        // Plan every archive first (no file read), check every file that goes
        // in, then write: an output that no longer matches its manifest leaves
        // every archive as it was.
        var jobs = [Job]()
        for v in venues {
            if request.format == .zip { jobs.append(.zip(try planZip(v, manifest: manifest, tilesets: request.tilesets))); continue }
            jobs += try pyramids(v, manifest: manifest, tilesets: request.tilesets, output: output, zooms: request.zooms).map(Job.tiles)
        }
        var files = TileFiles(root: output)
        files.stagedFirst = stagedFirst
        var checked = Set<String>()
        for job in jobs {
            for (path, sha, bytes) in job.inputs where checked.insert(path).inserted {
                _ = try files.read(path: path, sha256: sha, bytes: bytes)
            }
        }
        return try jobs.map { job in
            switch job {
            case .tiles(let p): return try writeTileArchive(p, files: files, request: request, place: place)
            case .zip(let z): return try writeZip(z, files: files, place: place)
            }
        }
    }

    enum Job {
        case tiles(Pyramid)
        case zip(ZipJob)

        /// The files of the output folder the archive holds: path, SHA-256, size.
        var inputs: [(String, String, Int)] {
            switch self {
            case .tiles(let p):
                return p.tiles.map { ($0.path, $0.sha256, $0.bytes) } + [(p.tileJSON.path, p.tileJSON.sha256.hex, p.tileJSON.bytes)]
            case .zip(let z):
                return z.entries.compactMap { if case .file(let p, let sha, let n) = $0.content { return (p, sha, n) } else { return nil } }
            }
        }
    }

    struct ZipJob {
        var venue: String
        var entries: [ZipPackageWriter.Entry]
        var tiles: Int
        var treeBytes: Int
    }

    static func directoryName(_ t: Manifest.TilesetEntry) -> String {
        (t.scale ?? 1) > 1 ? "\(t.format)@\(t.scale!)x" : t.format
    }

    /// A venue's pyramids: its tiles sorted to the pyramids by each tileset's
    /// path template, each with the TileJSON document of its folder.
    static func pyramids(_ v: Manifest.VenueEntry, manifest: Manifest, tilesets: Set<String>, output: String,
                         zooms: ClosedRange<Int>? = nil) throws -> [Pyramid] {
        var out = [Pyramid]()
        let filesByPath = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        for ts in v.tilesets where tilesets.isEmpty || tilesets.contains(directoryName(ts)) {
            let template: TilePathTemplate
            do { template = try TilePathTemplate(ts.path_template, scope: .oneTileset) } catch {
                throw StoreError(operation: "archive", path: output + "/" + Manifest.fileName, reason: "tileset \(directoryName(ts)) of \(v.source_id): \(error)")
            }
            var byFloor = [String: [ArchiveTile]]()
            // The template's text before its first token (`v/` for xyz, `tiles/v/` for
            // a layout under a folder of its own): only paths there can match it.
            let literal = ts.path_template.prefix { $0 != "{" }
            for t in manifest.tiles where t.path.hasPrefix(literal) {
                guard let m = template.match(t.path), zooms?.contains(m.z) ?? true else { continue }
                let floor = m.values[.floor] ?? m.values[.ordinal] ?? ""
                byFloor[floor, default: []].append(ArchiveTile(z: m.z, x: m.x, y: m.y, sha256: t.sha256.hex, bytes: t.bytes, path: t.path))
            }
            for (floor, tiles) in byFloor.sorted(by: { $0.key < $1.key }) {
                // The pyramid's TileJSON sits in the folder holding all its tiles.
                guard let tj = ts.tilejson.compactMap({ filesByPath[$0] }).first(where: { doc in
                    let folder = (doc.path as NSString).deletingLastPathComponent + "/"
                    return tiles.allSatisfy { $0.path.hasPrefix(folder) }
                }) else {
                    throw StoreError(operation: "archive", path: output + "/" + Manifest.fileName,
                                     reason: "no TileJSON listed for the \(directoryName(ts)) tiles of \(v.source_id)/\(floor)")
                }
                out.append(Pyramid(venue: v.source_id, floor: floor, tilesetDirectory: directoryName(ts), tileJSON: tj,
                                   gzipTiles: ts.content_encoding == "gzip", tiles: tiles))
            }
        }
        return out
    }

    static func writeTileArchive(_ p: Pyramid, files: TileFiles, request: Request, place: Placement) throws -> Written {
        let rel = archivePath(venue: p.venue, floor: p.floor, tileset: p.tilesetDirectory, format: request.format)
        let tj = try files.read(path: p.tileJSON.path, sha256: p.tileJSON.sha256.hex, bytes: p.tileJSON.bytes)
        var meta = try ArchiveMetadata(tileJSON: tj, file: files.root + "/" + p.tileJSON.path, gzipTiles: p.gzipTiles)
        if let z = request.zooms {
            meta.minzoom = max(meta.minzoom, z.lowerBound)
            meta.maxzoom = min(meta.maxzoom, z.upperBound)
            meta.center[2] = min(max(meta.center[2], Double(meta.minzoom)), Double(meta.maxzoom))
        }
        var w = Written(path: rel, sha256: "", bytes: 0, tiles: p.tiles.count, contents: 0, treeBytes: p.tiles.reduce(0) { $0 + $1.bytes })
        switch request.format {
        case .pmtiles:
            var contents = 0
            let changed = try place.put(rel, update: false) { path in
                contents = try PMTilesWriter.write(to: path, tiles: p.tiles, metadata: meta, read: files.read).tileContents
            }
            w.contents = contents; w.changed = changed
        case .mbtiles:
            // Brought up to date in one transaction: only the rows of changed tiles change.
            var s = MBTilesWriter.Summary()
            let changed = try place.put(rel, update: true) { path in
                s = try MBTilesWriter.sync(at: path, tiles: p.tiles, metadata: meta, read: files.read)
            }
            w.contents = s.images; w.changed = changed
            w.rowsInserted = s.inserted; w.rowsReplaced = s.replaced; w.rowsDeleted = s.deleted
        case .zip:
            preconditionFailure("zip packages are per venue")
        }
        return try finish(w, place.path(rel))
    }

    /// A venue's zip package: its tiles of the chosen tilesets, their TileJSON
    /// documents and the venue's other files, and a manifest of its own.
    static func planZip(_ v: Manifest.VenueEntry, manifest: Manifest, tilesets: Set<String>) throws -> ZipJob {
        let prefix = v.source_id + "/"
        var venue = v
        venue.tilesets = v.tilesets.filter { tilesets.isEmpty || tilesets.contains(directoryName($0)) }
        let templates = try venue.tilesets.map { try TilePathTemplate($0.path_template, scope: .oneTileset) }
        let excludedDocs = Set(v.tilesets.filter { !venue.tilesets.contains($0) }.flatMap(\.tilejson))
        // The TileJSON documents of a layout whose tiles are not under the venue's folder.
        let ownDocs = Set(venue.tilesets.flatMap(\.tilejson))
        // Each tile with its tileset: PNG and gzipped vector tiles are compressed
        // already and are stored; plain vector tiles deflate well.
        var tiles = [Manifest.TileEntry](), entries = [ZipPackageWriter.Entry]()
        let literals = venue.tilesets.map { $0.path_template.prefix { $0 != "{" } }
        for t in manifest.tiles where literals.contains(where: { t.path.hasPrefix($0) }) {
            guard let k = templates.firstIndex(where: { $0.match(t.path) != nil }) else { continue }
            let ts = venue.tilesets[k]
            tiles.append(t)
            entries.append(.init(name: t.path, content: .file(path: t.path, sha256: t.sha256.hex, bytes: t.bytes),
                                 deflate: ts.format == "mvt" && ts.content_encoding != "gzip"))
        }
        // Not the archives a build made beside the tree (the build packs from a
        // manifest without them: both give the same package).
        let docs = manifest.files.filter { f in
            (f.path.hasPrefix(prefix) || ownDocs.contains(f.path)) && !excludedDocs.contains(f.path)
                && !Format.allCases.contains { f.path.hasSuffix("." + $0.fileExtension) }
        }
        // The package's own manifest: this venue's part of the output's, so that
        // the unpacked package is an output folder `venuetiles verify` accepts.
        let own = Manifest(generator: manifest.generator, venues: [venue], tiles: tiles, files: docs,
                           blank_tiles: manifest.blank_tiles.filter { b in literals.contains { b.path.hasPrefix($0) } })
        var manifestData = Data()
        try own.write { manifestData.append($0) }
        entries.append(ZipPackageWriter.Entry(name: Manifest.fileName, content: .data(manifestData), deflate: true))
        for d in docs { entries.append(.init(name: d.path, content: .file(path: d.path, sha256: d.sha256.hex, bytes: d.bytes), deflate: true)) }
        return ZipJob(venue: v.source_id, entries: entries, tiles: tiles.count, treeBytes: tiles.reduce(0) { $0 + $1.bytes })
    }

    static func writeZip(_ z: ZipJob, files: TileFiles, place: Placement) throws -> Written {
        let rel = archivePath(venue: z.venue, floor: "", tileset: "", format: .zip)
        var w = Written(path: rel, sha256: "", bytes: 0, tiles: z.tiles, contents: z.tiles, treeBytes: z.treeBytes)
        w.changed = try place.put(rel, update: false) { path in _ = try ZipPackageWriter.write(to: path, entries: z.entries, files: files) }
        return try finish(w, place.path(rel))
    }

    /// Puts a finished archive in place, unless the one there has the same bytes:
    /// then the old file stays (same inode and modification time), so that an
    /// unchanged archive is not rewritten, re-synced or re-uploaded. Returns whether it replaced it.
    static func rename(_ from: String, _ to: String) throws -> Bool {
        if let old = FileManager.default.contents(atPath: to), let new = FileManager.default.contents(atPath: from), old == new {
            try FileManager.default.removeItem(atPath: from)
            return false
        }
        guard Foundation.rename(from, to) == 0 else {
            throw StoreError(operation: "rename", path: to, reason: String(cString: strerror(errno)))
        }
        return true
    }

    private static func finish(_ w: Written, _ path: String) throws -> Written {
        guard let d = FileManager.default.contents(atPath: path) else {
            throw StoreError(operation: "archive", path: path, reason: "cannot read the archive just written")
        }
        var w = w
        w.bytes = d.count
        w.sha256 = SHA256.hash(data: d).hexString
        return w
    }
}
