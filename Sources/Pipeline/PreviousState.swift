import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension BuildIndex {
    /// What the diff needs of the previous build: its entries (from the
    /// index, in `IndexedTiles`' mapped columns; from manifest.json, an array),
    /// its other files and blank tiles, and its pyramids.
    struct PreviousState {
        var version: String
        /// Each entry made when read when they come from the index: the
        /// stages read fields by index (`key`, `sha256`, `size`, `withPath`).
        var tiles: Manifest.TileEntries
        var files: [Manifest.TileEntry]
        var blank: [Manifest.BlankEntry]
        /// Empty when read from manifest.json.
        var pyramids: [PyramidRecord] = []
        /// The manifest the index was written for (size and modification time).
        var manifestIdentity: (size: Int, mtime: timespec)?
        /// The index file read (its path, size and modification time): a
        /// carried pyramid's entries are copied from that file (by
        /// `indexed.offsets`) rather than serialized again.
        var indexFile: (path: String, size: Int, mtime: timespec)?
        /// The tile entries' fields when read from the index.
        private(set) var indexed: IndexedTiles?

        init(_ m: Manifest) {
            version = m.generator.version; tiles = m.tiles; files = m.files; blank = m.blank_tiles
        }
        init(version: String, tiles: [Manifest.TileEntry], files: [Manifest.TileEntry], blank: [Manifest.BlankEntry], pyramids: [PyramidRecord]) {
            self.version = version; self.tiles = Manifest.TileEntries(tiles); self.files = files; self.blank = blank; self.pyramids = pyramids
        }
        init(version: String, indexed: IndexedTiles, files: [Manifest.TileEntry], blank: [Manifest.BlankEntry], pyramids: [PyramidRecord]) {
            self.version = version; self.files = files; self.blank = blank; self.pyramids = pyramids
            self.indexed = indexed
            tiles = Manifest.TileEntries(count: indexed.count, entry: { indexed.entry($0) }, letGo: { indexed.columns.drop() })
        }

        func key(_ i: Int) -> Digest16? { indexed.map { $0.keyed[i] ? $0.keys[i] : nil } ?? tiles[i].key }
        func sha256(_ i: Int) -> Digest32 { indexed?.sha256[i] ?? tiles[i].sha256 }
        func size(_ i: Int) -> Int { indexed?.sizes[i] ?? tiles[i].bytes }

        /// Entry `i`'s path as UTF-8 bytes (no `String` made for an indexed entry).
        func withPath<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
            if let indexed { return try indexed.paths.withUTF8(i, body) }
            var p = tiles[i].path
            return try p.withUTF8(body)
        }

        /// The bytes of `tiles[range]` in the index file read, when that file is
        /// still the one read.
        func tileEntryBytes(_ range: Range<Int>) -> Data? {
            guard let f = indexFile, let offsets = indexed?.offsets, range.upperBound <= tiles.count,
                  let h = FileHandle(forReadingAtPath: f.path) else { return nil }
            defer { try? h.close() }
            var st = stat()
            guard fstat(h.fileDescriptor, &st) == 0, Int(st.st_size) == f.size,
                  st.st_mtim.tv_sec == f.mtime.tv_sec, st.st_mtim.tv_nsec == f.mtime.tv_nsec else { return nil }
            let lo = offsets[range.lowerBound], hi = offsets[range.upperBound]
            guard (try? h.seek(toOffset: UInt64(lo))) != nil, let d = try? h.read(upToCount: hi - lo), d.count == hi - lo else { return nil }
            return d
        }
    }
}
