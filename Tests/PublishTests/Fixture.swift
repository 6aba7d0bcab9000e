import Crypto
import Foundation
@testable import Publish

/// A small output folder written the way a build writes one: tiles, a TileJSON
/// and a manifest.json naming them with their SHA-256 (and the build's internal
/// files, which must never be published).
struct OutputFixture {
    let folder: URL
    /// path → bytes of every tile and file the manifest lists.
    var files: [String: Data]
    var gzipVector: Bool

    static func gzipped(_ payload: String) -> Data {
        // A stored (uncompressed) deflate block inside a gzip member: real gzip
        // framing, enough for the header check and for clients.
        var d = Data([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0xFF])
        let bytes = Array(payload.utf8)
        d.append(0x01)
        d.append(contentsOf: [UInt8(bytes.count & 0xFF), UInt8(bytes.count >> 8), UInt8(~bytes.count & 0xFF), UInt8((~bytes.count >> 8) & 0xFF)])
        d.append(contentsOf: bytes)
        var crc = UInt32(0xFFFF_FFFF)
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        crc = ~crc
        for v in [crc, UInt32(bytes.count)] { d.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]) }
        return d
    }

    init(name: String, gzipVector: Bool = true, tiles: Int = 12) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("publish-\(name)-\(UUID().uuidString)")
        self.gzipVector = gzipVector
        files = [:]
        for i in 0..<tiles {
            files["v1/floor_0/png/1x/19/\(1000 + i)/2000.png"] = Data("png tile \(i)".utf8)
            files["v1/floor_0/mvt/19/\(1000 + i)/2000.pbf"] = gzipVector ? Self.gzipped("mvt tile \(i)") : Data("\u{1A}mvt tile \(i)".utf8)
        }
        files["v1/floor_0/png/1x/tiles.json"] = Data(#"{"tilejson":"3.0.0","tiles":["19/{x}/{y}.png"]}"#.utf8)
        try write()
    }

    var tilePaths: [String] { files.keys.filter { !$0.hasSuffix(".json") }.sorted() }

    /// Writes every file and a manifest.json; files no longer listed are removed.
    func write() throws {
        let fm = FileManager.default
        if fm.fileExists(atPath: folder.path) {
            for case let rel as String in fm.enumerator(atPath: folder.path)! where !rel.hasPrefix(".venuetiles") {
                var isDir: ObjCBool = false
                if fm.fileExists(atPath: folder.appendingPathComponent(rel).path, isDirectory: &isDir), !isDir.boolValue, files[rel] == nil {
                    try fm.removeItem(at: folder.appendingPathComponent(rel))
                }
            }
        }
        for (path, data) in files {
            let url = folder.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        // The build's own files: lock, intent, index, trash.
        try Data().write(to: folder.appendingPathComponent(".venuetiles.lock"))
        try Data("x".utf8).write(to: folder.appendingPathComponent(".venuetiles.index"))
        try fm.createDirectory(at: folder.appendingPathComponent(".venuetiles.trash"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: folder.appendingPathComponent(".venuetiles.trash/1"))
        func entry(_ path: String) -> [String: Any] {
            ["path": path, "bytes": files[path]!.count, "sha256": SHA256.hash(data: files[path]!).map { String(format: "%02x", $0) }.joined()]
        }
        let tileset: [String: Any] = [
            "format": "mvt", "extent": 4096, "buffer": 64, "content_encoding": gzipVector ? "gzip" : "identity",
            "minzoom": 19, "maxzoom": 19, "path_template": "v1/{floor}/mvt/{z}/{x}/{y}.pbf", "tile_count": tilePaths.count / 2,
            "total_bytes": 0, "tiles_per_floor": [String: [String: Int]](), "blank_tiles_skipped": 0, "tilejson": [String](),
        ]
        let png: [String: Any] = [
            "format": "png", "scale": 1, "tile_size": 256, "minzoom": 19, "maxzoom": 19, "path_template": "v1/{floor}/png/1x/{z}/{x}/{y}.png",
            "tile_count": tilePaths.count / 2, "total_bytes": 0, "tiles_per_floor": [String: [String: Int]](), "blank_tiles_skipped": 0,
            "tilejson": ["v1/floor_0/png/1x/tiles.json"],
        ]
        let venue: [String: Any] = ["id": "v1", "source_id": "v1", "center": [0, 0], "bounds": [0, 0, 1, 1], "floors": [[String: Any]](),
                                    "tilesets": [png, tileset], "warnings": 0]
        let manifest: [String: Any] = [
            "generator": ["name": "venuetiles", "version": "test"], "venues": [venue],
            "tiles": tilePaths.map(entry), "files": files.keys.filter { $0.hasSuffix(".json") }.sorted().map(entry), "blank_tiles": [[String: Any]](),
        ]
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: folder.appendingPathComponent("manifest.json"))
    }
}

/// A destination that fails (as a dropped connection would) after `allowedWrites` writes.
final class FailingDestination: PublishDestination, @unchecked Sendable {
    let inner: PublishDestination
    let lock = NSLock()
    var allowedWrites: Int
    private(set) var writes = [String]()
    var description: String { inner.description }

    init(_ inner: PublishDestination, allowedWrites: Int) { self.inner = inner; self.allowedWrites = allowedWrites }

    func read(_ key: String) async throws -> Data? { try await inner.read(key) }
    func write(_ key: String, data: Data, headers: ObjectHeaders) async throws {
        let ok = lock.withLock {
            guard allowedWrites > 0 else { return false }
            allowedWrites -= 1; writes.append(key)
            return true
        }
        guard ok else { throw PublishError.transport(method: "PUT", key: key, reason: "injected failure", attempts: 1) }
        try await inner.write(key, data: data, headers: headers)
    }
    func delete(_ key: String) async throws { try await inner.delete(key) }
    func invalidationPath(_ key: String) -> String { inner.invalidationPath(key) }
    func close() async throws {}
}

/// Every file under `dir` (internal ones included) with its bytes.
func tree(_ dir: URL) -> [String: Data] {
    var out = [String: Data]()
    guard let e = FileManager.default.enumerator(atPath: dir.path) else { return out }
    for case let rel as String in e {
        var isDir: ObjCBool = false
        let p = dir.appendingPathComponent(rel).path
        if FileManager.default.fileExists(atPath: p, isDirectory: &isDir), !isDir.boolValue { out[rel] = FileManager.default.contents(atPath: p) }
    }
    return out
}
