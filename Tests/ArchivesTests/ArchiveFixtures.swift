@testable import Archives
import Crypto
import Foundation
import TestSupport
import XCTest

/// Tiles made in memory for the archive tests, with the hashes a manifest would record.
struct MemoryTiles {
    var tiles: [ArchiveTile] = []
    var data: [String: Data] = [:]

    mutating func add(z: Int, x: Int, y: Int, _ bytes: Data, ext: String = "png") {
        let path = "t/\(z)/\(x)/\(y).\(ext)"
        data[path] = bytes
        tiles.append(ArchiveTile(z: z, x: x, y: y, sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(),
                                 bytes: bytes.count, path: path))
    }

    func read(_ t: ArchiveTile) throws -> Data {
        guard let d = data[t.path] else { throw ArchiveError(file: t.path, format: "tiles", problem: "not in memory") }
        return d
    }

    /// "z/x/y" → SHA-256 hex, as the reader helpers print it.
    var expected: [String: String] {
        Dictionary(uniqueKeysWithValues: tiles.map { ("\($0.z)/\($0.x)/\($0.y)", $0.sha256) })
    }
}

enum Fixtures {
    static var helpers: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Helpers") }

    static func tempDir(_ name: String) throws -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("venuetiles-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    static func metadata(format: String = "png", minzoom: Int = 17, maxzoom: Int = 23, gzip: Bool = false) throws -> ArchiveMetadata {
        var doc: [String: Any] = [
            "tilejson": "3.0.0", "name": "Harbour Arcade — G", "description": "test tiles", "version": "1.0.0", "scheme": "xyz",
            "tiles": ["https://tiles.example.com/v/floor_0/\(format)/{z}/{x}/{y}.\(format == "pbf" ? "pbf" : "png")"],
            "minzoom": minzoom, "maxzoom": maxzoom, "format": format,
            "bounds": [10.0015, 53.5405, 10.00323841, 53.540859324], "center": [10.002331413, 53.540679662, 18],
        ]
        if format == "pbf" {
            doc["vector_layers"] = [["id": "floor_rooms_floor_0", "fields": ["name": "String"], "minzoom": minzoom, "maxzoom": maxzoom]]
        }
        let d = try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys])
        return try ArchiveMetadata(tileJSON: d, file: "tilejson.json", gzipTiles: gzip)
    }

    /// A small pyramid over the sample's place: repeated tiles in a row (runs),
    /// repeats far apart (shared offsets), and distinct tiles.
    static func pyramid() -> MemoryTiles {
        var m = MemoryTiles()
        let blank = Data("blank tile".utf8), water = Data("water tile, drawn once".utf8)
        for z in 17...19 {
            let n = 1 << (z - 17)
            for dx in 0..<(2 * n) {
                for dy in 0..<(2 * n) {
                    let x = 69177 * n + dx, y = 42367 * n + dy
                    let k = dx * 7 + dy * 3 + z
                    let bytes: Data = k % 5 == 0 ? blank : k % 7 == 0 ? water : Data("tile \(z)/\(x)/\(y) ".utf8 + Array(repeating: UInt8(k % 251), count: k % 97))
                    m.add(z: z, x: x, y: y, bytes)
                }
            }
        }
        return m
    }

    /// The JSON the PMTiles helper prints for an archive.
    static func dumpPMTiles(_ path: String) throws -> [String: Any] {
        try ExternalTools.requirePython(module: "pmtiles")
        let r = try ExternalTools.run("python3", [helpers.appendingPathComponent("pmtiles_dump.py").path, path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], r.stderr)
    }
}
