import Foundation
import Threads

/// output/manifest.json: what a build produced. Written last, atomically, with
/// sorted keys and no timestamps, so the same build gives the same bytes.
public struct Manifest: Codable, Equatable, Sendable {
    public struct Generator: Codable, Equatable, Sendable {
        public var name: String
        public var version: String
        public init(name: String, version: String) { self.name = name; self.version = version }
    }

    public struct LevelEntry: Codable, Equatable, Sendable {
        public var id: String
        public var name: String?
        public var short_name: String?
        public var building_ids: [String]
        public var outdoor: Bool
    }

    public struct FloorEntry: Codable, Equatable, Sendable {
        public var id: String
        public var ordinal: Int
        /// The floor's place when it lies between whole floors (0.5 for a
        /// mezzanine above ordinal 0); absent for whole floors.
        public var position: Double? = nil
        public var short_name: String?
        public var levels: [LevelEntry]
        /// A building floor's building: its spec id (`building_1`) and source id; absent on ordinal floors.
        public var building: String? = nil
        public var building_id: String? = nil
    }

    /// A raster pyramid that is not a floor: `outdoors`, `building_outlines_<building>`, `floor_shadows_<floor>`.
    public struct LayerEntry: Codable, Equatable, Sendable {
        public var id: String
        /// outdoors, building_outlines or floor_shadows.
        public var kind: String
        public var building: String? = nil
        public var floor: String? = nil
    }

    public struct TilesetEntry: Codable, Equatable, Sendable {
        public var format: String
        /// Raster tilesets: scale and tile size in pixels.
        public var scale: Int?
        public var tile_size: Int?
        /// Vector tilesets: MVT extent and buffer in tile units, and the Content-Encoding hosting must send.
        public var extent: Int?
        public var buffer: Int?
        public var content_encoding: String?
        public var minzoom: Int
        public var maxzoom: Int
        public var path_template: String
        public var tile_count: Int
        public var total_bytes: Int
        /// Tiles per floor id (or `all`, the venue-wide vector pyramid) and zoom ("17": n).
        public var tiles_per_floor: [String: [String: Int]]
        /// Covered tiles that came out empty and were not written.
        public var blank_tiles_skipped: Int
        /// TileJSON documents of this tileset, one per pyramid folder.
        public var tilejson: [String]
    }

    public struct VenueEntry: Codable, Equatable, Sendable {
        public var id: String
        public var source_id: String
        public var name: String?
        public var center: [Double]
        /// [west, south, east, north]
        public var bounds: [Double]
        public var floors: [FloorEntry]
        /// Raster pyramids besides the floors; absent when none is built.
        public var layers: [LayerEntry]? = nil
        public var tilesets: [TilesetEntry]
        public var warnings: Int
        /// Credit owed to the data's authors (the source's `attribution`).
        public var attribution: String? = nil
        /// glTF meshes: the origin of their East-North-Up frame and the files.
        public var mesh: MeshEntry?
    }

    public struct MeshEntry: Codable, Equatable, Sendable {
        /// [lon, lat, ellipsoid height]: glTF +X east, +Y up, +Z south, metres from here.
        public var origin: [Double]
        public var floor_height: Double
        public var venue: String
        public var floors: [String: String]
    }

    public struct TileEntry: Codable, Equatable, Sendable {
        public var path: String
        public var sha256: Digest32
        public var bytes: Int
        /// The tile's input key (tiles only): a new build re-renders the tile only when it changes.
        public var key: Digest16?

        public init(path: String, sha256: Digest32, bytes: Int, key: Digest16? = nil) {
            self.path = path; self.sha256 = sha256; self.bytes = bytes; self.key = key
        }
    }

    /// A tile that was planned but drew nothing, remembered so that an
    /// unchanged blank tile is not drawn again.
    public struct BlankEntry: Codable, Equatable, Sendable {
        public var path: String
        public var key: Digest16
        public init(path: String, key: Digest16) { self.path = path; self.key = key }
    }

    public var generator: Generator
    public var venues: [VenueEntry]
    public var tiles: TileEntries
    /// Other files the build wrote (TileJSON), with their hashes.
    public var files: [TileEntry]
    public var blank_tiles: [BlankEntry]
    /// A shard's partial manifest (`build --shard`): which shard it is. Absent
    /// from a whole build's manifest and from a merged one.
    public var shard: ShardRecord?

    public init(generator: Generator, venues: [VenueEntry], tiles: TileEntries, files: [TileEntry], blank_tiles: [BlankEntry],
                shard: ShardRecord? = nil) {
        self.generator = generator; self.venues = venues; self.tiles = tiles; self.files = files; self.blank_tiles = blank_tiles
        self.shard = shard
    }

    public init(generator: Generator, venues: [VenueEntry], tiles: [TileEntry], files: [TileEntry], blank_tiles: [BlankEntry],
                shard: ShardRecord? = nil) {
        self.init(generator: generator, venues: venues, tiles: TileEntries(tiles), files: files, blank_tiles: blank_tiles, shard: shard)
    }

    public static let fileName = "manifest.json"

    public func encoded() throws -> Data { try StableJSON.encode(self) }

    /// A run of `tiles` written together: a pyramid's. `text`, when given, is
    /// exactly what `tileLines` makes of them (copied from the last manifest).
    public struct TileSegment {
        public var tiles: Range<Int>
        public var text: UnsafeRawBufferPointer?
        public init(tiles: Range<Int>, text: UnsafeRawBufferPointer?) { self.tiles = tiles; self.text = text }
    }

    /// Writes the manifest in one streaming pass: the tile lists (millions of
    /// entries on a large venue) go out in chunks of lines instead of through
    /// JSONEncoder's in-memory tree. Keys are sorted as in `encoded()`; the
    /// result decodes to the same manifest. Returns where each segment's lines
    /// are in the file (the byte after the separator before its first line to
    /// the end of its last).
    @discardableResult
    ///
    /// `written` is given each piece of a segment's `text` once it is out, so
    /// that the caller can let go of the pages it read from its mapping.
    public func write(workers: Int = 1, segments: [TileSegment]? = nil, written: (UnsafeRawBufferPointer) -> Void = { _ in },
                      pieceBytes: Int = 8 << 20, _ emit: (Data) throws -> Void) throws -> [Range<Int>] {
        precondition(pieceBytes > 0, "pieceBytes \(pieceBytes) <= 0")
        var buf = [UInt8]()
        buf.reserveCapacity(1 << 20)
        var offset = 0
        func emitCounted(_ d: Data) throws { try emit(d); offset += d.count }
        func flush(force: Bool = false) throws {
            if force || buf.count >= 1 << 20 { try emitCounted(Data(buf)); buf.removeAll(keepingCapacity: true) }
        }
        func put(_ s: String) { buf.append(contentsOf: s.utf8) }
        func str(_ s: String) { Manifest.jsonString(s, into: &buf) }
        func small<T: Encodable>(_ v: T) throws {
            var d = try StableJSON.encode(v)
            d.removeLast()   // its trailing newline
            buf.append(contentsOf: d)
        }
        put("{\n\"blank_tiles\" : [")
        for (i, b) in blank_tiles.enumerated() {
            put(i == 0 ? "\n" : ",\n"); put("{\"key\":"); str(b.key.hex); put(",\"path\":"); str(b.path); put("}")
            try flush()
        }
        put("\n],\n\"files\" : "); try small(files)
        put(",\n\"generator\" : "); try small(generator)
        if let shard { put(",\n\"shard\" : "); try small(shard) }
        put(",\n\"tiles\" : [")
        try flush(force: true)
        // The tile lines, segment by segment: text already formatted (copied from
        // the last manifest) goes out as it is; other lines, millions on a large
        // venue, are formatted in chunks on all workers, a few chunks at a time so
        // that memory stays flat, and written in order.
        let segments = segments ?? [TileSegment(tiles: tiles.indices, text: nil)]
        var ranges = [Range<Int>]()
        var wroteLine = false
        for seg in segments {
            guard !seg.tiles.isEmpty else { ranges.append(offset..<offset); continue }
            try emitCounted(Data(wroteLine ? [0x2C, 0x0A] : [0x0A]))
            wroteLine = true
            let start = offset
            if let text = seg.text {
                // Straight from the caller's mapping (no copy), a piece at a time:
                // a large venue's carried lines are hundreds of megabytes, and
                // mapped pages once read count in the process's resident memory
                // until `written` lets them go.
                var k = 0
                while k < text.count {
                    let piece = UnsafeRawBufferPointer(rebasing: text[k..<min(k + pieceBytes, text.count)])
                    try emitCounted(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: piece.baseAddress!), count: piece.count, deallocator: .none))
                    written(piece)
                    k += piece.count
                }
            } else {
                let chunk = 16_384
                let chunks = (seg.tiles.count + chunk - 1) / chunk
                var next = 0
                while next < chunks {
                    let round = min(workers * 2, chunks - next)
                    let first = next
                    let texts = Workers.map(round, workers: workers, placeholder: [UInt8]()) { _, i in
                        let lo = seg.tiles.lowerBound + (first + i) * chunk
                        return Manifest.tileLines(tiles[lo..<min(lo + chunk, seg.tiles.upperBound)])
                    }
                    tiles.letGo()
                    for (i, t) in texts.enumerated() {
                        if first + i > 0 { try emitCounted(Data([0x2C, 0x0A])) }
                        try emitCounted(Data(t))
                    }
                    next += round
                }
            }
            ranges.append(start..<offset)
        }
        put("\n],\n\"venues\" : "); try small(venues)
        put("\n}\n")
        try flush(force: true)
        return ranges
    }

    /// The JSON lines of tile entries joined by ",\n": written straight into one
    /// buffer sized for the worst case, with no String per number or digest
    /// and no capacity check per byte.
    static func tileLines<C: Collection<TileEntry>>(_ tiles: C) -> [UInt8] {
        // Fixed text, 20 digits of size, 32 + 64 hex digits, a path escaped at most 6× over.
        var capacity = 0
        for t in tiles { capacity += 160 + 6 * t.path.utf8.count }
        let digits = HexCoding.digits
        return [UInt8](unsafeUninitializedCapacity: capacity) { buf, count in
            var o = 0
            @inline(__always) func put(_ b: UInt8) { buf[o] = b; o += 1 }
            @inline(__always) func put(_ s: StaticString) {
                s.withUTF8Buffer { for b in $0 { buf[o] = b; o += 1 } }
            }
            @inline(__always) func hex(_ w: UInt64) {
                for k in stride(from: 60, through: 0, by: -4) { buf[o] = digits[Int((w >> UInt64(k)) & 15)]; o += 1 }
            }
            var isFirst = true
            for t in tiles {
                if isFirst { isFirst = false } else { put(0x2C); put(0x0A) }
                put("{\"bytes\":")
                var n = t.bytes, width = 1
                while n >= 10 { n /= 10; width += 1 }
                n = t.bytes
                for k in stride(from: width - 1, through: 0, by: -1) { buf[o + k] = UInt8(48 + n % 10); n /= 10 }
                o += width
                if let k = t.key {
                    put(",\"key\":\""); hex(k.high); hex(k.low); put("\",\"path\":")
                } else {
                    put(",\"path\":")
                }
                put(0x22)
                for u in t.path.utf8 {
                    switch u {
                    case 0x22: put(0x5C); put(0x22)
                    case 0x5C: put(0x5C); put(0x5C)
                    case 0..<0x20:
                        put(0x5C); put(UInt8(ascii: "u")); put(0x30); put(0x30)
                        put(digits[Int(u >> 4)]); put(digits[Int(u & 15)])
                    default: put(u)
                    }
                }
                put(0x22)
                put(",\"sha256\":\"")
                let w = t.sha256.words
                hex(w.0); hex(w.1); hex(w.2); hex(w.3)
                put(0x22); put(0x7D)
            }
            count = o
        }
    }

    /// A JSON string literal of `s`.
    static func jsonString(_ s: String, into buf: inout [UInt8]) {
        buf.append(0x22)
        for u in s.utf8 {
            switch u {
            case 0x22: buf += [0x5C, 0x22]
            case 0x5C: buf += [0x5C, 0x5C]
            case 0..<0x20: buf += Array(String(format: "\\u%04x", u).utf8)
            default: buf.append(u)
            }
        }
        buf.append(0x22)
    }

    /// The manifest in `outputDir`, or nil when there is none or it cannot be read.
    public static func load(from outputDir: String) -> Manifest? {
        guard let d = FileManager.default.contents(atPath: outputDir + "/" + fileName) else { return nil }
        return try? JSONDecoder().decode(Manifest.self, from: d)
    }
}

/// JSON the build writes: sorted keys, no timestamps, one trailing newline, so
/// that the same content always gives the same bytes.
enum StableJSON {
    static func encode<T: Encodable>(_ value: T) throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var d = try e.encode(value)
        d.append(0x0A)
        return d
    }
}
