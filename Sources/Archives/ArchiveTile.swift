import Crypto
import Foundation

/// A problem writing or reading an archive: the file, the archive format and what went wrong.
public struct ArchiveError: Error, CustomStringConvertible, Equatable {
    public var file: String
    /// `pmtiles`, `mbtiles`, `zip`, or `tiles` for the tiles going in.
    public var format: String
    public var problem: String
    public init(file: String, format: String, problem: String) { self.file = file; self.format = format; self.problem = problem }
    public var description: String { "\(file): \(format): \(problem)" }
}

/// One tile going into an archive: where it is in the pyramid, what the
/// manifest says about its bytes, and where to read them.
public struct ArchiveTile: Sendable, Equatable {
    public var z: Int
    public var x: Int
    /// XYZ row (from the north); MBTiles flips it.
    public var y: Int
    /// Lower-case hex SHA-256 of the bytes: identical tiles are stored once, keyed by it.
    public var sha256: String
    public var bytes: Int
    /// The file holding the bytes, relative to the folder a `TileFiles` reads.
    public var path: String

    public init(z: Int, x: Int, y: Int, sha256: String, bytes: Int, path: String) {
        self.z = z; self.x = x; self.y = y; self.sha256 = sha256; self.bytes = bytes; self.path = path
    }
}

/// Reads tiles and other files from an output folder, refusing any whose size or
/// SHA-256 is not the one recorded: an archive must hold what the manifest says.
public struct TileFiles: Sendable {
    public var root: String
    public init(root: String) { self.root = root }

    /// During a build, before its switch: a re-rendered file's new bytes wait
    /// beside the old one as `.NAME.tmp` (the build's staged writes), and those
    /// are the bytes the new manifest lists. Read first when set; a staged file
    /// that does not match is passed over for the file in place.
    public var stagedFirst = false

    public func read(path: String, sha256: String, bytes: Int) throws -> Data {
        if stagedFirst, let d = staged(path), d.count == bytes, SHA256.hash(data: d).hexString == sha256 { return d }
        let full = root + "/" + path
        guard let data = FileManager.default.contents(atPath: full) else {
            throw ArchiveError(file: full, format: "tiles", problem: "missing or unreadable (the manifest lists it)")
        }
        guard data.count == bytes else {
            throw ArchiveError(file: full, format: "tiles", problem: "\(data.count) bytes, the manifest records \(bytes): changed since the build")
        }
        let hex = SHA256.hash(data: data).hexString
        guard hex == sha256 else {
            throw ArchiveError(file: full, format: "tiles", problem: "SHA-256 \(hex), the manifest records \(sha256): changed since the build")
        }
        return data
    }

    public func read(_ tile: ArchiveTile) throws -> Data { try read(path: tile.path, sha256: tile.sha256, bytes: tile.bytes) }

    /// The full path of the file holding these bytes (staged or in place), checked like `read`.
    public func verifiedPath(path: String, sha256: String, bytes: Int) throws -> String {
        if stagedFirst, let d = staged(path), d.count == bytes, SHA256.hash(data: d).hexString == sha256 { return stagedPath(path) }
        _ = try read(path: path, sha256: sha256, bytes: bytes)
        return root + "/" + path
    }

    /// TileStore's temporary name (`TileStore.temporaryPath`; this module cannot see Pipeline).
    private func stagedPath(_ path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let dir = slash.map { String(path[..<$0]) + "/" } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        return root + "/" + dir + "." + name + ".tmp"
    }

    private func staged(_ path: String) -> Data? { FileManager.default.contents(atPath: stagedPath(path)) }
}

/// Lower-case hex of bytes and digests: the one spelling for the SHA-256 and HMAC values the manifest,
/// the archives and the publish layer (SigV4) write.
extension Sequence where Element == UInt8 {
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for b in self { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

extension Digest {
    package var hexString: String { Array(self).hexString }
}

extension HashedAuthenticationCode {
    package var hexString: String { Array(self).hexString }
}

/// What an archive says about its tiles, taken from the tileset's TileJSON
/// document (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0).
public struct ArchiveMetadata: Sendable {
    public enum TileFormat: String, Sendable { case png, pbf }

    public var name: String
    public var description: String?
    public var version: String
    public var format: TileFormat
    /// The tiles' own Content-Encoding: gzip for gzipped vector tiles.
    public var gzipTiles: Bool
    public var minzoom: Int
    public var maxzoom: Int
    /// [west, south, east, north]
    public var bounds: [Double]
    /// [lon, lat, zoom]
    public var center: [Double]
    /// TileJSON `vector_layers`, as JSON text (vector tilesets only).
    public var vectorLayersJSON: String?
    /// The whole TileJSON document, as JSON text.
    public var tileJSON: String

    /// Reads a TileJSON document; `file` names it in errors.
    public init(tileJSON data: Data, file: String, gzipTiles: Bool) throws {
        func fail(_ p: String) -> ArchiveError { ArchiveError(file: file, format: "tilejson", problem: p) }
        guard let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw fail("not a JSON object") }
        guard let name = o["name"] as? String else { throw fail("no \"name\"") }
        guard let minz = (o["minzoom"] as? NSNumber)?.intValue, let maxz = (o["maxzoom"] as? NSNumber)?.intValue,
              (0...30).contains(minz), (minz...30).contains(maxz) else { throw fail("\"minzoom\"/\"maxzoom\" missing or out of 0…30") }
        guard let b = (o["bounds"] as? [NSNumber])?.map(\.doubleValue), b.count == 4 else { throw fail("\"bounds\" is not [west, south, east, north]") }
        guard let c = (o["center"] as? [NSNumber])?.map(\.doubleValue), c.count == 3 else { throw fail("\"center\" is not [lon, lat, zoom]") }
        let f = (o["format"] as? String) ?? ""
        guard let format = TileFormat(rawValue: f == "mvt" ? "pbf" : f) else { throw fail("\"format\" \"\(f)\" is neither png nor pbf") }
        self.name = name
        self.description = o["description"] as? String
        self.version = (o["version"] as? String) ?? "1.0.0"
        self.format = format
        self.gzipTiles = gzipTiles
        minzoom = minz; maxzoom = maxz; bounds = b; center = c
        if let layers = o["vector_layers"] {
            let d = try JSONSerialization.data(withJSONObject: layers, options: [.sortedKeys, .withoutEscapingSlashes])
            vectorLayersJSON = String(decoding: d, as: UTF8.self)
        } else if format == .pbf {
            throw fail("a vector tileset without \"vector_layers\"")
        }
        tileJSON = String(decoding: data, as: UTF8.self)
    }

    /// The TileJSON document as an object, without `tiles` (URLs of the tree, not of the archive).
    func tileJSONObject() -> [String: Any] {
        var o = (try? JSONSerialization.jsonObject(with: Data(tileJSON.utf8)) as? [String: Any]) ?? [:]
        o["tiles"] = nil
        return o
    }
}
