import Foundation

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
        public var short_name: String?
        public var levels: [LevelEntry]
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
        public var tilesets: [TilesetEntry]
        public var warnings: Int
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

        /// No tile (a placeholder in per-job lists): compacted away in place before
        /// the manifest is made, so that a large venue's list is never held twice.
        public static let none = TileEntry(path: "", sha256: Digest32(bytes: []), bytes: 0)
        public var isNone: Bool { path.isEmpty }
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
    public var tiles: [TileEntry]
    /// Other files the build wrote (TileJSON), with their hashes.
    public var files: [TileEntry]
    public var blank_tiles: [BlankEntry]

    public init(generator: Generator, venues: [VenueEntry], tiles: [TileEntry], files: [TileEntry], blank_tiles: [BlankEntry]) {
        self.generator = generator; self.venues = venues; self.tiles = tiles; self.files = files; self.blank_tiles = blank_tiles
    }

    public static let fileName = "manifest.json"

    public func encoded() throws -> Data { try StableJSON.encode(self) }

    /// Writes the manifest in one streaming pass: the tile lists (millions of
    /// entries on a large venue) go out one line at a time instead of through
    /// JSONEncoder's in-memory tree. Keys are sorted as in `encoded()`; the
    /// result decodes to the same manifest.
    public func write(_ emit: (Data) throws -> Void) throws {
        var buf = [UInt8]()
        buf.reserveCapacity(1 << 20)
        func flush(force: Bool = false) throws {
            if force || buf.count >= 1 << 20 { try emit(Data(buf)); buf.removeAll(keepingCapacity: true) }
        }
        func put(_ s: String) { buf.append(contentsOf: s.utf8) }
        func str(_ s: String) {
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
        put(",\n\"tiles\" : [")
        // The hot loop (one line per tile) appends bytes directly: no String per number or digest.
        let bytesKey = Array("{\"bytes\":".utf8), keyKey = Array(",\"key\":\"".utf8)
        let pathAfterKey = Array("\",\"path\":".utf8), pathKey = Array(",\"path\":".utf8), shaKey = Array(",\"sha256\":\"".utf8)
        var digits = [UInt8]()
        for (i, t) in tiles.enumerated() {
            if i == 0 { buf.append(0x0A) } else { buf.append(0x2C); buf.append(0x0A) }
            buf.append(contentsOf: bytesKey)
            var n = t.bytes
            digits.removeAll(keepingCapacity: true)
            repeat { digits.append(UInt8(48 + n % 10)); n /= 10 } while n > 0
            buf.append(contentsOf: digits.reversed())
            if let k = t.key {
                buf.append(contentsOf: keyKey)
                HexCoding.appendHex(k.high, to: &buf); HexCoding.appendHex(k.low, to: &buf)
                buf.append(contentsOf: pathAfterKey)
            } else {
                buf.append(contentsOf: pathKey)
            }
            str(t.path)
            buf.append(contentsOf: shaKey)
            let w = t.sha256.words
            HexCoding.appendHex(w.0, to: &buf); HexCoding.appendHex(w.1, to: &buf)
            HexCoding.appendHex(w.2, to: &buf); HexCoding.appendHex(w.3, to: &buf)
            buf.append(0x22); buf.append(0x7D)
            try flush()
        }
        put("\n],\n\"venues\" : "); try small(venues)
        put("\n}\n")
        try flush(force: true)
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
