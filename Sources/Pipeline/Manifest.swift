import Foundation

/// output/manifest.json: what a build produced. Written last, atomically, with
/// sorted keys and no timestamps, so the same build gives the same bytes.
public struct Manifest: Codable, Equatable, Sendable {
    public struct Generator: Codable, Equatable, Sendable {
        public var name: String
        public var version: String
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
        public var sha256: String
        public var bytes: Int
        /// The tile's input key (tiles only): a new build re-renders the tile only when it changes.
        public var key: String?

        public init(path: String, sha256: String, bytes: Int, key: String? = nil) {
            self.path = path; self.sha256 = sha256; self.bytes = bytes; self.key = key
        }
    }

    /// A tile that was planned but drew nothing, remembered so that an
    /// unchanged blank tile is not drawn again.
    public struct BlankEntry: Codable, Equatable, Sendable {
        public var path: String
        public var key: String
    }

    public var generator: Generator
    public var venues: [VenueEntry]
    public var tiles: [TileEntry]
    /// Other files the build wrote (TileJSON), with their hashes.
    public var files: [TileEntry]
    public var blank_tiles: [BlankEntry]

    public static let fileName = "manifest.json"

    public func encoded() throws -> Data { try StableJSON.encode(self) }

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
