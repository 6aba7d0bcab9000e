import Archives
import Crypto
import Foundation
import Pipeline

/// The headers an object is served with.
public struct ObjectHeaders: Sendable, Equatable {
    public var contentType: String
    public var contentEncoding: String?
    public var cacheControl: String
    public init(contentType: String, contentEncoding: String? = nil, cacheControl: String) {
        self.contentType = contentType; self.contentEncoding = contentEncoding; self.cacheControl = cacheControl
    }
}

/// Cache-Control values: tiles never change under a URL between publishes of
/// the same content, so they can be kept long; the manifest and TileJSON say
/// which tiles exist and must be seen soon after a publish.
public struct CachePolicy: Sendable, Equatable {
    public var tiles: String
    public var index: String
    public static let defaultTiles = "public, max-age=86400, stale-while-revalidate=604800"
    public static let defaultIndex = "public, max-age=60"
    public init(tiles: String = CachePolicy.defaultTiles, index: String = CachePolicy.defaultIndex) {
        self.tiles = tiles; self.index = index
    }
}

/// One file of the output to publish: its path relative to the output folder
/// (the object key below the destination's prefix), hash, size and headers.
public struct LocalObject: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A tile or mesh: uploaded first.
        case tile
        /// TileJSON, archives and other files the manifest lists: after the tiles.
        case index
        /// manifest.json: last of all.
        case manifest
    }
    public var path: String
    public var sha256: String
    public var bytes: Int
    public var kind: Kind
    public var headers: ObjectHeaders
}

/// The output folder as the manifest describes it.
public struct LocalOutput: Sendable {
    public var folder: String
    /// Every object, manifest.json last.
    public var objects: [LocalObject]
    public var manifestData: Data

    /// Reads `folder/manifest.json` and lists what it names, with headers. Paths
    /// that are absolute, climb out with "..", or name internal files
    /// (`.venuetiles*`) are refused.
    public static func load(folder: String, cache: CachePolicy) throws -> LocalOutput {
        let manifestPath = folder + "/" + Manifest.fileName
        guard let data = FileManager.default.contents(atPath: manifestPath) else {
            throw PublishError.noManifest(path: manifestPath, reason: FileManager.default.fileExists(atPath: manifestPath) ? "cannot be read" : "not found")
        }
        let manifest: Manifest
        do { manifest = try JSONDecoder().decode(Manifest.self, from: data) } catch {
            throw PublishError.noManifest(path: manifestPath, reason: "not a VenueTiles manifest: \(error)")
        }
        let gzipped = gzippedVectorPrefixes(manifest)
        var objects = [LocalObject]()
        objects.reserveCapacity(manifest.tiles.count + manifest.files.count + 1)
        var seen = Set<String>()
        func add(_ entry: Manifest.TileEntry, isTile: Bool) throws {
            try checkSafe(entry.path)
            guard seen.insert(entry.path).inserted else { throw PublishError.unsafePath(path: entry.path, reason: "listed twice") }
            let ext = (entry.path as NSString).pathExtension.lowercased()
            // Vector tiles are the manifest's tiles; a .pbf among its other files is
            // a MapLibre glyph range (protobuf, never gzipped by the build).
            let isVector = isTile && (ext == "pbf" || ext == "mvt")
            let encoding = isVector && gzipped.contains(where: { entry.path.hasPrefix($0) }) ? "gzip" : nil
            let tileLike = isTile || ext == "glb"
            let type = !isTile && ext == "pbf" ? "application/x-protobuf" : contentType(forExtension: ext)
            let headers = ObjectHeaders(contentType: type, contentEncoding: encoding,
                                        cacheControl: tileLike ? cache.tiles : cache.index)
            objects.append(LocalObject(path: entry.path, sha256: entry.sha256.hex, bytes: entry.bytes,
                                       kind: tileLike ? .tile : .index, headers: headers))
        }
        for entry in manifest.tiles { try add(entry, isTile: true) }
        for entry in manifest.files { try add(entry, isTile: false) }
        objects.append(LocalObject(path: Manifest.fileName, sha256: SHA256.hash(data: data).hexString, bytes: data.count, kind: .manifest,
                                   headers: ObjectHeaders(contentType: "application/json", cacheControl: cache.index)))
        return LocalOutput(folder: folder, objects: objects, manifestData: data)
    }

    /// Content-Type by file extension, as tile clients expect them.
    public static func contentType(forExtension ext: String) -> String {
        switch ext.lowercased() {
        case "png": return "image/png"
        case "pbf", "mvt": return "application/vnd.mapbox-vector-tile"
        case "json": return "application/json"
        case "pmtiles": return "application/vnd.pmtiles"
        case "glb": return "model/gltf-binary"
        case "zip": return "application/zip"
        default: return "application/octet-stream"   // MBTiles and anything else
        }
    }

    /// The folders (path prefixes) of the vector tilesets whose tiles are gzipped:
    /// a tileset's path template up to its first token ("{venue}/mvt/{floor}/…" of
    /// venue v gives "v/mvt/").
    static func gzippedVectorPrefixes(_ m: Manifest) -> [String] {
        var out = [String]()
        for venue in m.venues {
            for ts in venue.tilesets where ts.format == "mvt" && ts.content_encoding == "gzip" {
                let t = ts.path_template.replacingOccurrences(of: "{venue}", with: venue.id)
                let prefix = t.range(of: "{").map { String(t[..<$0.lowerBound]) } ?? t
                out.append(prefix)
            }
        }
        return out
    }

    static func checkSafe(_ path: String) throws {
        if path.isEmpty || path.hasPrefix("/") { throw PublishError.unsafePath(path: path, reason: "not a relative path") }
        for part in path.split(separator: "/", omittingEmptySubsequences: false) {
            if part.isEmpty || part == "." || part == ".." { throw PublishError.unsafePath(path: path, reason: "empty, \".\" or \"..\" part") }
            if part.hasPrefix(".venuetiles") { throw PublishError.unsafePath(path: path, reason: "an internal file of the build") }
        }
        if path == Manifest.fileName || path == PublishState.fileName {
            throw PublishError.unsafePath(path: path, reason: "a name publish writes itself")
        }
    }

    /// Every file is there with its manifest size (one stat each: a publish
    /// after a small edit reads only the files it sends, and those are hashed
    /// in full by `readVerified`).
    public func checkSizes() throws {
        for o in objects where o.kind != .manifest {
            let path = folder + "/" + o.path
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw PublishError.outputMismatch(path: path, problem: errno == ENOENT ? "missing" : posixReason())
            }
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw PublishError.outputMismatch(path: path, problem: "not a regular file") }
            guard Int(st.st_size) == o.bytes else {
                throw PublishError.outputMismatch(path: path, problem: "\(st.st_size) bytes, the manifest says \(o.bytes)")
            }
        }
    }

    /// The bytes of `object`, checked against its manifest SHA-256.
    public func readVerified(_ object: LocalObject) throws -> Data {
        if object.kind == .manifest { return manifestData }
        let path = folder + "/" + object.path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PublishError.outputMismatch(path: path, problem: "cannot be read")
        }
        let sha = SHA256.hash(data: data).hexString
        guard sha == object.sha256 else {
            throw PublishError.outputMismatch(path: path, problem: "SHA-256 \(sha), the manifest says \(object.sha256)")
        }
        if object.headers.contentEncoding == "gzip", !(data.count >= 2 && data[data.startIndex] == 0x1F && data[data.startIndex + 1] == 0x8B) {
            throw PublishError.outputMismatch(path: path, problem: "its tileset says gzip, but the file is not gzip data")
        }
        return data
    }
}
