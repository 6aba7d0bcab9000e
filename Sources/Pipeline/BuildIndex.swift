import Crypto
import Foundation
import Styling
#if canImport(Glibc)
import Glibc
#endif

/// The no-op fast path: a fingerprint of every input byte, and a compact
/// index of the files the last complete build wrote (`.venuetiles.index`,
/// written after the manifest). When the fingerprint is unchanged and every
/// file is still there with its size and not modified since, nothing can have
/// changed: the build stops before parsing anything.
enum BuildIndex {
    static let fileName = ".venuetiles.index"
    static let magic: [UInt8] = Array("VTIX0001".utf8)

    struct Counts: Equatable { var tiles = 0, bytes = 0, blank = 0, warnings = 0 }

    /// SHA-256 over the generator version, the config, the style and every source file.
    static func fingerprint(_ config: PipelineConfig) throws -> [UInt8] {
        var h = SHA256()
        func add(_ label: String, _ data: Data) {
            h.update(data: Array(label.utf8) + [0])
            var n = UInt64(data.count).littleEndian
            withUnsafeBytes(of: &n) { h.update(bufferPointer: $0) }
            h.update(data: data)
        }
        add("generator", Data(Generator.version.utf8))
        func file(_ path: String) throws -> Data {
            guard let d = FileManager.default.contents(atPath: path) else {
                throw StoreError(operation: "read", path: path, reason: "cannot read input file")
            }
            return d
        }
        add("config", try file(config.file))
        if let s = config.style { add("style", try file(s)) }
        if let base = config.sprite {
            for suffix in ["", "@2x"] {
                for ext in [".json", ".png"] where suffix.isEmpty || FileManager.default.fileExists(atPath: base + suffix + ext) {
                    add("sprite\(suffix)\(ext)", try file(base + suffix + ext))
                }
            }
        }
        // The built-in style and sprite are compiled in; a rebuilt binary with new ones must not look unchanged.
        add("built-in style", Data(Style.defaultJSON.utf8))
        add("built-in sprite", Sprite.builtIn(pixelRatio: 1).png + Sprite.builtIn(pixelRatio: 2).png)
        for s in config.sources {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: s.path, isDirectory: &isDir) else {
                throw StoreError(operation: "read", path: s.path, reason: "no such file or folder")
            }
            if isDir.boolValue {
                let names = (FileManager.default.enumerator(atPath: s.path)?.allObjects as? [String] ?? []).sorted()
                for n in names {
                    var sub: ObjCBool = false
                    FileManager.default.fileExists(atPath: s.path + "/" + n, isDirectory: &sub)
                    if !sub.boolValue { add("source \(s.id) \(n)", try file(s.path + "/" + n)) }
                }
            } else {
                add("source \(s.id)", try file(s.path))
            }
        }
        return Array(h.finalize())
    }

    static func write(_ store: TileStore, fingerprint: [UInt8], counts: Counts, files: [Manifest.TileEntry]...) throws {
        try store.writeStream(fileName) { emit in
            var b = magic + fingerprint
            b.reserveCapacity(1 << 20)
            func u64(_ v: Int) { var le = UInt64(v).littleEndian; withUnsafeBytes(of: &le) { b.append(contentsOf: $0) } }
            u64(counts.tiles); u64(counts.bytes); u64(counts.blank); u64(counts.warnings); u64(files.reduce(0) { $0 + $1.count })
            for list in files {
                for f in list {
                    let p = Array(f.path.utf8)
                    u64(p.count); b += p; u64(f.bytes)
                    if b.count >= 1 << 20 { try emit(Data(b)); b.removeAll(keepingCapacity: true) }
                }
            }
            try emit(Data(b))
        }
    }

    /// The fingerprint the index was written for, reading only its header.
    static func recordedFingerprint(_ store: TileStore) -> [UInt8]? {
        guard let h = FileHandle(forReadingAtPath: store.path(fileName)) else { return nil }
        defer { try? h.close() }
        guard let d = try? h.read(upToCount: 40), d.count == 40, Array(d.prefix(8)) == magic else { return nil }
        return Array(d.suffix(32))
    }

    /// The last build's counts when the fast path holds, else nil.
    static func unchanged(_ store: TileStore, fingerprint: [UInt8]) -> Counts? {
        guard FileManager.default.fileExists(atPath: store.path(TileStore.intentName)) == false,
              let indexStat = store.fileStatus(fileName), let manifestStat = store.fileStatus(Manifest.fileName),
              !(manifestStat.mtime > indexStat.mtime),
              let data = store.read(fileName) else { return nil }
        let b = [UInt8](data)
        var o = 0
        func u64() -> Int? {
            guard o + 8 <= b.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(b[o + k]) << (8 * UInt64(k)) }
            o += 8
            return Int(v)
        }
        guard b.count >= 40, Array(b[0..<8]) == magic, Array(b[8..<40]) == fingerprint else { return nil }
        o = 40
        guard let tiles = u64(), let bytes = u64(), let blank = u64(), let warnings = u64(), let n = u64() else { return nil }
        for _ in 0..<n {
            guard let len = u64(), o + len <= b.count else { return nil }
            let path = String(decoding: b[o..<(o + len)], as: UTF8.self)
            o += len
            guard let size = u64(), let st = store.fileStatus(path), st.size == size, !(st.mtime > indexStat.mtime) else { return nil }
        }
        return Counts(tiles: tiles, bytes: bytes, blank: blank, warnings: warnings)
    }
}
