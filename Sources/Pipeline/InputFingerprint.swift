import Crypto
import Foundation
import Styling
import VenueFormats

/// A SHA-256 over everything a build reads: the generator version, the
/// config, the style, the sprite and every file of every source. Two uses:
///
/// - before parsing (`onDisk`): when it equals the one the last complete build
///   recorded, and the output is intact, nothing can have changed (no-op);
/// - after parsing (`parsed`): what the build records, made from the digests of
///   the bytes the readers actually parsed (`Recorder`), so that a file edited
///   between the first read and the parse, then reverted, can never make a
///   later build take stale tiles for current ones.
///
/// Both hash a source the same way: per file, in sorted name order, the
/// file's SHA-256 (a zip: per entry), so the two agree whenever the bytes do.
enum InputFingerprint {
    /// Digests of the files a source's reader read, by name within its bundle.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var digests = [String: [String: Digest32]]()

        func record(source: String, name: String, _ data: Data) {
            let d = Digest32.sha256(data)
            lock.lock(); digests[source, default: [:]][name] = d; lock.unlock()
        }

        func digest(source: String, name: String) -> Digest32? {
            lock.lock(); defer { lock.unlock() }
            return digests[source]?[name]
        }
    }

    /// A bundle whose reads are recorded: the reader parses exactly the bytes recorded.
    struct RecordingBundle: VenueBundle {
        let inner: VenueBundle
        let source: String
        let recorder: Recorder
        var location: String { inner.location }
        func fileNames() throws -> [String] { try inner.fileNames() }
        func read(_ name: String) throws -> Data {
            let d = try inner.read(name)
            recorder.record(source: source, name: name, d)
            return d
        }
    }

    /// The bundle a source is read from, and the names of its files that count.
    static func bundle(_ s: PipelineConfig.Source) throws -> (bundle: VenueBundle, names: [String]) {
        if s.format == .geojson && (s.path.hasSuffix(".geojson") || s.path.hasSuffix(".json")) {
            guard FileManager.default.fileExists(atPath: s.path) else { throw VenueFormatError(file: s.path, problem: "no such file or folder") }
            let url = URL(fileURLWithPath: s.path)
            return (DirectoryBundle(root: url.deletingLastPathComponent().path), [url.lastPathComponent])
        }
        let b = try openBundle(at: s.path, limits: s.limits)
        return (b, try b.fileNames())
    }

    /// The fingerprint of the inputs as they are on disk now.
    static func onDisk(_ config: PipelineConfig) throws -> [UInt8] {
        try make(config, configBytes: read(config.file), styleBytes: config.style.map(read)) { s in
            let (b, names) = try bundle(s)
            return try names.map { ($0, Digest32.sha256(try b.read($0))) }
        }
    }

    /// The fingerprint of what this build parsed: the recorded digests of each
    /// source's files (files its reader skipped are read from its bundle now).
    static func parsed(_ config: PipelineConfig, configBytes: Data, styleBytes: Data?,
                       sources: [(bundle: VenueBundle, names: [String])], recorder: Recorder) throws -> [UInt8] {
        var k = 0
        return try make(config, configBytes: configBytes, styleBytes: styleBytes) { s in
            defer { k += 1 }
            return try sources[k].names.map { n in
                (n, try recorder.digest(source: s.id, name: n) ?? Digest32.sha256(try sources[k].bundle.read(n)))
            }
        }
    }

    private static func make(_ config: PipelineConfig, configBytes: Data, styleBytes: Data?,
                             files: (PipelineConfig.Source) throws -> [(String, Digest32)]) throws -> [UInt8] {
        var h = SHA256()
        func add(_ label: String, _ data: Data) {
            h.update(data: Array(label.utf8) + [0])
            var n = UInt64(data.count).littleEndian
            withUnsafeBytes(of: &n) { h.update(bufferPointer: $0) }
            h.update(data: data)
        }
        add("generator", Data(Generator.version.utf8))
        add("config", configBytes)
        if let s = styleBytes { add("style", s) }
        if let base = config.sprite {
            for suffix in ["", "@2x"] {
                for ext in [".json", ".png"] where suffix.isEmpty || FileManager.default.fileExists(atPath: base + suffix + ext) {
                    add("sprite\(suffix)\(ext)", try read(base + suffix + ext))
                }
            }
        }
        // The built-in style and sprite are compiled in; a rebuilt binary with new ones must not look unchanged.
        add("built-in style", Data(Style.defaultJSON.utf8))
        add("built-in sprite", Sprite.builtIn(pixelRatio: 1).png + Sprite.builtIn(pixelRatio: 2).png)
        for s in config.sources {
            for (name, d) in try files(s) {
                let w = d.words
                let be = [w.0.bigEndian, w.1.bigEndian, w.2.bigEndian, w.3.bigEndian]
                add("source \(s.id) \(name)", be.withUnsafeBytes { Data($0) })
            }
        }
        return Array(h.finalize())
    }

    static func read(_ path: String) throws -> Data {
        guard let d = FileManager.default.contents(atPath: path) else {
            throw StoreError(operation: "read", path: path, reason: "cannot read input file")
        }
        return d
    }
}
