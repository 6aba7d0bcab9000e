import Foundation

/// PMTiles v3 tile ids: tiles are numbered zoom by zoom (all of z0, then z1, …),
/// and within a zoom along a Hilbert curve, so that tiles near each other on the
/// map are near each other in the archive (protomaps/PMTiles spec/v3/spec.md).
public enum PMTilesTileID {
    public static func of(z: Int, x: Int, y: Int) -> UInt64 {
        precondition(z >= 0 && z <= 31, "zoom \(z) out of 0…31")
        // Tiles of every zoom below: (4^z - 1) / 3.
        let base = ((UInt64(1) << (2 * UInt64(z))) - 1) / 3
        return base + hilbertIndex(order: z, x: UInt64(x), y: UInt64(y))
    }

    /// Position of (x, y) on the Hilbert curve filling a 2^order square.
    static func hilbertIndex(order: Int, x: UInt64, y: UInt64) -> UInt64 {
        let n = UInt64(1) << UInt64(order)
        var x = x, y = y, d: UInt64 = 0
        var s = n >> 1
        while s > 0 {
            let rx: UInt64 = (x & s) > 0 ? 1 : 0
            let ry: UInt64 = (y & s) > 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Rotate the quadrant so the sub-curve starts where the last one ended.
            if ry == 0 {
                if rx == 1 { x = n - 1 - x; y = n - 1 - y }
                swap(&x, &y)
            }
            s >>= 1
        }
        return d
    }
}

/// One directory entry: a run of `runLength` tiles from `tileID` with the same
/// bytes, or (runLength 0) a leaf directory.
struct PMTilesEntry: Equatable {
    var tileID: UInt64
    var offset: UInt64
    var length: UInt32
    var runLength: UInt32
}

/// Writes PMTiles v3 archives.
///
/// The layout is decided from the manifest's sizes and hashes before a byte is
/// read: tiles in tile-id order (clustered), each distinct SHA-256 stored once
/// at its first place; a repeat right after the same bytes extends the run of
/// the entry before, any other repeat points back at the first copy. Then the
/// header, the root directory, the metadata, the leaf directories and the tile
/// data are written in one pass, each distinct tile read once.
public enum PMTilesWriter {
    public struct Summary: Equatable, Sendable {
        public var addressedTiles: Int
        public var tileEntries: Int
        public var tileContents: Int
        public var leafDirectories: Int
        public var rootDirectoryBytes: Int
        public var fileBytes: Int
    }

    /// The header and root directory must fit the first 16 KiB a client fetches.
    public static let rootLimit = 16_384
    static let headerSize = 127

    public static func write(to path: String, tiles: [ArchiveTile], metadata: ArchiveMetadata,
                             read: (ArchiveTile) throws -> Data) throws -> Summary {
        func fail(_ p: String) -> ArchiveError { ArchiveError(file: path, format: "pmtiles", problem: p) }
        guard !tiles.isEmpty else { throw fail("no tiles: a PMTiles directory must not be empty") }
        let layout = try plan(tiles, fail)
        let dirs = try directories(layout.entries, file: path)
        var meta = metadata.tileJSONObject()
        meta["type"] = "overlay"
        let metaJSON = try JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys, .withoutEscapingSlashes])
        let metaBytes = try GzipMember.compress(Array(metaJSON), file: path)

        var h = PMTilesHeader()
        h.rootOffset = UInt64(headerSize)
        h.rootLength = UInt64(dirs.root.count)
        h.metadataOffset = h.rootOffset + h.rootLength
        h.metadataLength = UInt64(metaBytes.count)
        h.leavesOffset = h.metadataOffset + h.metadataLength
        h.leavesLength = UInt64(dirs.leaves.count)
        h.dataOffset = h.leavesOffset + h.leavesLength
        h.dataLength = layout.dataLength
        h.addressedTiles = UInt64(tiles.count)
        h.tileEntries = UInt64(layout.entries.count)
        h.tileContents = UInt64(layout.unique.count)
        h.tileCompression = metadata.gzipTiles ? 2 : 1
        h.tileType = metadata.format == .pbf ? 1 : 2
        h.minZoom = UInt8(layout.sorted.first!.tile.z)
        h.maxZoom = UInt8(layout.sorted.last!.tile.z)
        h.bounds = metadata.bounds
        h.center = metadata.center

        let out = try OutputFile(path: path, format: "pmtiles")
        try out.write(h.encoded())
        try out.write(dirs.root)
        try out.write(metaBytes)
        try out.write(dirs.leaves)
        for t in layout.unique {
            let data = try read(t)
            guard data.count == t.bytes else { throw fail("tile \(t.path) has \(data.count) bytes, expected \(t.bytes)") }
            try out.write(data)
        }
        let size = try out.close()
        return Summary(addressedTiles: tiles.count, tileEntries: layout.entries.count, tileContents: layout.unique.count,
                       leafDirectories: dirs.leafCount, rootDirectoryBytes: dirs.root.count, fileBytes: size)
    }

    struct Layout {
        var sorted: [(id: UInt64, tile: ArchiveTile)]
        var entries: [PMTilesEntry]
        /// Tiles whose bytes are stored, in data order.
        var unique: [ArchiveTile]
        var dataLength: UInt64
    }

    static func plan(_ tiles: [ArchiveTile], _ fail: (String) -> ArchiveError) throws -> Layout {
        var sorted = tiles.map { (id: PMTilesTileID.of(z: $0.z, x: $0.x, y: $0.y), tile: $0) }
        sorted.sort { $0.id < $1.id }
        var entries = [PMTilesEntry]()
        var unique = [ArchiveTile]()
        var stored = [String: (offset: UInt64, length: UInt32)]()
        var dataLength: UInt64 = 0
        for (i, (id, t)) in sorted.enumerated() {
            if i > 0 && sorted[i - 1].id == id {
                throw fail("two tiles at \(t.z)/\(t.x)/\(t.y): \(sorted[i - 1].tile.path) and \(t.path)")
            }
            guard t.bytes > 0, t.bytes <= Int(UInt32.max) else { throw fail("tile \(t.path) has \(t.bytes) bytes: PMTiles needs 1 to 2^32-1") }
            let place: (offset: UInt64, length: UInt32)
            if let p = stored[t.sha256] {
                place = p
            } else {
                place = (dataLength, UInt32(t.bytes))
                stored[t.sha256] = place
                unique.append(t)
                dataLength += UInt64(t.bytes)
            }
            if var last = entries.last, last.offset == place.offset, last.tileID + UInt64(last.runLength) == id {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTilesEntry(tileID: id, offset: place.offset, length: place.length, runLength: 1))
            }
        }
        return Layout(sorted: sorted, entries: entries, unique: unique, dataLength: dataLength)
    }

    struct Directories { var root: [UInt8]; var leaves: [UInt8]; var leafCount: Int }

    /// The root directory alone when it fits the first 16 KiB with the header;
    /// else leaves of `leafSize` entries, grown by a fifth until the root of
    /// pointers to them fits. The first leaf size gives a root of about 2,000
    /// pointers at most (a few bytes each, compressed), so it usually fits at once.
    static func directories(_ entries: [PMTilesEntry], file: String) throws -> Directories {
        let whole = try GzipMember.compress(serialize(entries), file: file)
        if headerSize + whole.count <= rootLimit { return Directories(root: whole, leaves: [], leafCount: 0) }
        var leafSize = max(4096, entries.count / 2000)
        while true {
            var leaves = [UInt8]()
            var pointers = [PMTilesEntry]()
            var start = 0
            while start < entries.count {
                let chunk = Array(entries[start..<min(start + leafSize, entries.count)])
                let bytes = try GzipMember.compress(serialize(chunk), file: file)
                pointers.append(PMTilesEntry(tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(bytes.count), runLength: 0))
                leaves += bytes
                start += leafSize
            }
            let root = try GzipMember.compress(serialize(pointers), file: file)
            if headerSize + root.count <= rootLimit { return Directories(root: root, leaves: leaves, leafCount: pointers.count) }
            leafSize += leafSize / 5
        }
    }

    /// Entry count, then column by column (tile id deltas, run lengths, lengths,
    /// offsets), as varints; an offset is 0 when the entry follows the one
    /// before in the data, else offset + 1.
    static func serialize(_ entries: [PMTilesEntry]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(entries.count * 6 + 8)
        varint(UInt64(entries.count), &out)
        var last: UInt64 = 0
        for e in entries { varint(e.tileID - last, &out); last = e.tileID }
        for e in entries { varint(UInt64(e.runLength), &out) }
        for e in entries { varint(UInt64(e.length), &out) }
        for (i, e) in entries.enumerated() {
            if i > 0 && e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) { varint(0, &out) }
            else { varint(e.offset + 1, &out) }
        }
        return out
    }

    static func varint(_ v: UInt64, _ out: inout [UInt8]) {
        var v = v
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        out.append(UInt8(v))
    }
}

/// The fixed 127-byte header, little-endian.
struct PMTilesHeader {
    var rootOffset: UInt64 = 0, rootLength: UInt64 = 0
    var metadataOffset: UInt64 = 0, metadataLength: UInt64 = 0
    var leavesOffset: UInt64 = 0, leavesLength: UInt64 = 0
    var dataOffset: UInt64 = 0, dataLength: UInt64 = 0
    var addressedTiles: UInt64 = 0, tileEntries: UInt64 = 0, tileContents: UInt64 = 0
    var tileCompression: UInt8 = 1
    var tileType: UInt8 = 0
    var minZoom: UInt8 = 0, maxZoom: UInt8 = 0
    var bounds: [Double] = [0, 0, 0, 0]
    var center: [Double] = [0, 0, 0]

    func encoded() -> [UInt8] {
        var b = Array("PMTiles".utf8)
        b.append(3)
        for v in [rootOffset, rootLength, metadataOffset, metadataLength, leavesOffset, leavesLength,
                  dataOffset, dataLength, addressedTiles, tileEntries, tileContents] {
            for k in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(k)))) }
        }
        // Clustered (data in tile-id order), gzip directories and metadata.
        b += [1, 2, tileCompression, tileType, minZoom, maxZoom]
        func e7(_ d: Double) { let v = UInt32(bitPattern: Int32((d * 10_000_000).rounded())); for k in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) } }
        for d in bounds { e7(d) }
        b.append(UInt8(max(0, min(30, Int(center[2].rounded(.down))))))
        e7(center[0]); e7(center[1])
        precondition(b.count == PMTilesWriter.headerSize, "header is \(b.count) bytes")
        return b
    }
}

/// A file written through a 1 MiB buffer; closed (and flushed) by `close`,
/// released in deinit if never closed.
final class OutputFile {
    let path: String
    let format: String
    private let fd: Int32
    private var buffer = [UInt8]()
    private var written = 0
    private var closed = false

    init(path: String, format: String) throws {
        self.path = path; self.format = format
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ArchiveError(file: path, format: format, problem: "cannot create: \(String(cString: strerror(errno)))") }
        buffer.reserveCapacity(1 << 20)
    }

    deinit { if !closed { _ = Foundation.close(fd) } }

    func write<C: Collection>(_ bytes: C) throws where C.Element == UInt8 {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        var done = 0
        while done < buffer.count {
            let n = buffer.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + done, $0.count - done) }
            guard n > 0 else { throw ArchiveError(file: path, format: format, problem: "write failed: \(String(cString: strerror(errno)))") }
            done += n
        }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, closes, and returns the file's size.
    func close() throws -> Int {
        try flush()
        closed = true
        guard Foundation.close(fd) == 0 else { throw ArchiveError(file: path, format: format, problem: "close failed: \(String(cString: strerror(errno)))") }
        return written
    }
}
