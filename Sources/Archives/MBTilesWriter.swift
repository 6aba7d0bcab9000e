import Foundation

/// Writes and updates MBTiles 1.3 archives (mapbox/mbtiles-spec 1.3) through
/// the system SQLite.
///
/// Layout: identical tiles are stored once. `images` holds each distinct tile
/// once, keyed by its SHA-256 (hex); `map` gives every (zoom, column, TMS row)
/// its image; the `tiles` view the spec requires joins the two, so readers
/// (mbutil, GDAL, tile servers) see plain `tiles` rows.
public enum MBTilesWriter {
    public struct Summary: Equatable, Sendable {
        /// Map rows added, changed and removed, and those left as they were.
        public var inserted = 0, replaced = 0, deleted = 0, unchanged = 0
        /// Distinct images in the archive afterwards.
        public var images = 0
        /// Rows SQLite reports changed (map, images and metadata together).
        public var rowChanges = 0
        public init() {}
    }

    /// A tile by its place in the archive: zoom, column, TMS row.
    public struct Place: Hashable, Sendable {
        public var z: Int, x: Int, tmsRow: Int
        public init(z: Int, x: Int, tmsRow: Int) { self.z = z; self.x = x; self.tmsRow = tmsRow }
        public init(z: Int, x: Int, xyzY: Int) { self.init(z: z, x: x, tmsRow: (1 << z) - 1 - xyzY) }
    }

    static let schema = """
    PRAGMA application_id = 1296105816;
    CREATE TABLE metadata (name TEXT NOT NULL, value TEXT NOT NULL);
    CREATE UNIQUE INDEX metadata_name ON metadata (name);
    CREATE TABLE images (tile_id TEXT NOT NULL, tile_data BLOB NOT NULL);
    CREATE UNIQUE INDEX images_id ON images (tile_id);
    CREATE TABLE map (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_id TEXT NOT NULL);
    CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
    CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row,
        images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;
    """

    /// Writes a new archive at `path` (which must not exist): rows in tile order,
    /// so the same tiles give the same bytes.
    public static func write(to path: String, tiles: [ArchiveTile], metadata: ArchiveMetadata,
                             read: (ArchiveTile) throws -> Data) throws -> Summary {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ArchiveError(file: path, format: "mbtiles", problem: "already exists; update it with MBTilesWriter.sync")
        }
        let db = try SQLiteDatabase(path: path, create: true)
        // A new file written once: no journal to keep; a failed write leaves a
        // file the caller deletes.
        try db.exec("PRAGMA page_size = 4096; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;")
        try db.exec(schema)
        try db.exec("BEGIN")
        let sorted = try checkedOrder(tiles, path)
        var summary = try apply(db, upserts: sorted, deletions: [], existingImages: [], orphanCandidates: [], read: read)
        summary.inserted = sorted.count
        try writeMetadata(db, metadata)
        try db.exec("COMMIT")
        summary.images = try count(db, "SELECT count(*) FROM images")
        summary.rowChanges = db.totalChanges
        try db.close()
        return summary
    }

    /// Brings the archive at `path` to exactly `tiles`, in place and in one
    /// transaction: only rows of tiles that are new, whose SHA-256 differs or
    /// that are gone change; images no row uses any more are removed; metadata
    /// rows are rewritten only when their value changed. A reader never sees a
    /// half state, and an interrupted update leaves the archive as it was.
    public static func sync(at path: String, tiles: [ArchiveTile], metadata: ArchiveMetadata,
                            read: (ArchiveTile) throws -> Data) throws -> Summary {
        guard FileManager.default.fileExists(atPath: path) else { return try write(to: path, tiles: tiles, metadata: metadata, read: read) }
        let db = try SQLiteDatabase(path: path, create: false)
        try requireLayout(db)
        var old = [Place: String]()
        try db.prepare("SELECT zoom_level, tile_column, tile_row, tile_id FROM map").query { r in
            old[Place(z: r.int(0), x: r.int(1), tmsRow: r.int(2))] = r.text(3) ?? ""
        }
        var images = Set<String>()
        try db.prepare("SELECT tile_id FROM images").query { images.insert($0.text(0) ?? "") }
        let sorted = try checkedOrder(tiles, path)
        var upserts = [ArchiveTile](), unchanged = 0, inserted = 0
        var keep = Set<Place>()
        for t in sorted {
            let p = Place(z: t.z, x: t.x, xyzY: t.y)
            keep.insert(p)
            switch old[p] {
            case t.sha256?: unchanged += 1
            case nil: inserted += 1; upserts.append(t)
            default: upserts.append(t)
            }
        }
        let deletions = old.keys.filter { !keep.contains($0) }.sorted { ($0.z, $0.x, $0.tmsRow) < ($1.z, $1.x, $1.tmsRow) }
        let candidates = Set(deletions.map { old[$0]! } + upserts.compactMap { old[Place(z: $0.z, x: $0.x, xyzY: $0.y)] })
        try db.exec("BEGIN IMMEDIATE")
        var summary = try apply(db, upserts: upserts, deletions: deletions, existingImages: images, orphanCandidates: candidates, read: read)
        try writeMetadata(db, metadata)
        try db.exec("COMMIT")
        summary.inserted = inserted
        summary.replaced = upserts.count - inserted
        summary.deleted = deletions.count
        summary.unchanged = unchanged
        summary.images = try count(db, "SELECT count(*) FROM images")
        summary.rowChanges = db.totalChanges
        try db.close()
        return summary
    }

    /// Changes the given rows only (the build knows which tiles it re-rendered
    /// and deleted): `upserts` are written over whatever the archive holds at
    /// their place, `deletions` removed; images no row uses any more go too.
    public static func update(at path: String, upserts: [ArchiveTile], deletions: [Place], metadata: ArchiveMetadata,
                              read: (ArchiveTile) throws -> Data) throws -> Summary {
        let db = try SQLiteDatabase(path: path, create: false)
        try requireLayout(db)
        var images = Set<String>()
        try db.prepare("SELECT tile_id FROM images").query { images.insert($0.text(0) ?? "") }
        var candidates = Set<String>()
        let find = try db.prepare("SELECT tile_id FROM map WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
        for p in deletions + upserts.map({ Place(z: $0.z, x: $0.x, xyzY: $0.y) }) {
            try find.query([.int(p.z), .int(p.x), .int(p.tmsRow)]) { candidates.insert($0.text(0) ?? "") }
        }
        try db.exec("BEGIN IMMEDIATE")
        var summary = try apply(db, upserts: try checkedOrder(upserts, path), deletions: deletions, existingImages: images,
                                orphanCandidates: candidates, read: read)
        try writeMetadata(db, metadata)
        try db.exec("COMMIT")
        summary.replaced = upserts.count
        summary.deleted = deletions.count
        summary.images = try count(db, "SELECT count(*) FROM images")
        summary.rowChanges = db.totalChanges
        try db.close()
        return summary
    }

    private static func apply(_ db: SQLiteDatabase, upserts: [ArchiveTile], deletions: [Place], existingImages: Set<String>,
                              orphanCandidates: Set<String>, read: (ArchiveTile) throws -> Data) throws -> Summary {
        let del = try db.prepare("DELETE FROM map WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?")
        for p in deletions { try del.run([.int(p.z), .int(p.x), .int(p.tmsRow)]) }
        let putMap = try db.prepare("INSERT OR REPLACE INTO map (zoom_level, tile_column, tile_row, tile_id) VALUES (?, ?, ?, ?)")
        let putImage = try db.prepare("INSERT INTO images (tile_id, tile_data) VALUES (?, ?)")
        var images = existingImages
        for t in upserts {
            if images.insert(t.sha256).inserted {
                let data = try read(t)
                guard data.count == t.bytes else {
                    throw ArchiveError(file: db.path, format: "mbtiles", problem: "tile \(t.path) has \(data.count) bytes, expected \(t.bytes)")
                }
                try putImage.run([.text(t.sha256), .blob(data)])
            }
            try putMap.run([.int(t.z), .int(t.x), .int((1 << t.z) - 1 - t.y), .text(t.sha256)])
        }
        let stillUsed = try db.prepare("SELECT 1 FROM map WHERE tile_id = ? LIMIT 1")
        let dropImage = try db.prepare("DELETE FROM images WHERE tile_id = ?")
        for id in orphanCandidates.sorted() {
            var used = false
            try stillUsed.query([.text(id)]) { _ in used = true }
            if !used { try dropImage.run([.text(id)]) }
        }
        return Summary()
    }

    /// Tiles in (z, x, TMS row) order; two tiles at one place are an error.
    private static func checkedOrder(_ tiles: [ArchiveTile], _ path: String) throws -> [ArchiveTile] {
        let sorted = tiles.sorted { ($0.z, $0.x, -$0.y) < ($1.z, $1.x, -$1.y) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.z == b.z && a.x == b.x && a.y == b.y {
            throw ArchiveError(file: path, format: "mbtiles", problem: "two tiles at \(a.z)/\(a.x)/\(a.y): \(a.path) and \(b.path)")
        }
        return sorted
    }

    private static func requireLayout(_ db: SQLiteDatabase) throws {
        var names = Set<String>()
        try db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')").query { r in names.insert(r.text(0) ?? "") }
        guard names.isSuperset(of: ["metadata", "map", "images", "tiles"]) else {
            throw ArchiveError(file: db.path, format: "mbtiles",
                               problem: "not an archive this tool wrote (no map + images tables behind a tiles view); it is left alone")
        }
    }

    /// The metadata rows of MBTiles 1.3: name, format, bounds, center, zooms,
    /// type, version, description, and `json` with `vector_layers` for vector tiles.
    static func metadataRows(_ m: ArchiveMetadata) -> [(String, String)] {
        func num(_ d: Double) -> String { d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d) }
        var rows: [(String, String)] = [
            ("name", m.name), ("format", m.format.rawValue),
            ("bounds", m.bounds.map(num).joined(separator: ",")),
            ("center", m.center.map(num).joined(separator: ",")),
            ("minzoom", String(m.minzoom)), ("maxzoom", String(m.maxzoom)),
            ("type", "overlay"), ("version", m.version),
        ]
        if let d = m.description { rows.append(("description", d)) }
        if let layers = m.vectorLayersJSON { rows.append(("json", "{\"vector_layers\":\(layers)}")) }
        return rows.sorted { $0.0 < $1.0 }
    }

    private static func writeMetadata(_ db: SQLiteDatabase, _ m: ArchiveMetadata) throws {
        let rows = metadataRows(m)
        var current = [String: String]()
        try db.prepare("SELECT name, value FROM metadata").query { r in current[r.text(0) ?? ""] = r.text(1) ?? "" }
        let put = try db.prepare("INSERT OR REPLACE INTO metadata (name, value) VALUES (?, ?)")
        for (k, v) in rows where current[k] != v { try put.run([.text(k), .text(v)]) }
        let drop = try db.prepare("DELETE FROM metadata WHERE name = ?")
        let wanted = Set(rows.map(\.0))
        for k in current.keys.sorted() where !wanted.contains(k) { try drop.run([.text(k)]) }
    }

    private static func count(_ db: SQLiteDatabase, _ sql: String) throws -> Int {
        var n = 0
        try db.prepare(sql).query { n = $0.int(0) }
        return n
    }
}
