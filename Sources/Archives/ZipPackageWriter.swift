import CZip
import Foundation

/// Writes a zip package: entries in name order, each with the same fixed time
/// (1980-01-01 00:00, the DOS epoch) and Unix mode 0644, so that the same
/// entries give the same bytes. Tiles are stored (PNG and gzipped vector tiles
/// are compressed already); other entries are deflated at level 9.
public enum ZipPackageWriter {
    public struct Entry: Sendable {
        public enum Content: Sendable {
            /// A file of the output folder, with the size and SHA-256 the manifest records.
            case file(path: String, sha256: String, bytes: Int)
            case data(Data)
        }
        public var name: String
        public var content: Content
        public var deflate: Bool
        public init(name: String, content: Content, deflate: Bool) { self.name = name; self.content = content; self.deflate = deflate }
    }

    public struct Summary: Equatable, Sendable {
        public var entries: Int
        public var stored: Int
        public var deflated: Int
        public var fileBytes: Int
    }

    /// Writes `entries` to `path` (replacing it). Files are checked against
    /// their recorded hashes first, then libzip reads them again while it writes.
    public static func write(to path: String, entries: [Entry], files: TileFiles) throws -> Summary {
        let sorted = entries.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
        for (a, b) in zip(sorted, sorted.dropFirst()) where a.name == b.name {
            throw ArchiveError(file: path, format: "zip", problem: "two entries named \(a.name)")
        }
        var sources = [String: String]()
        for e in sorted {
            guard !e.name.isEmpty, !e.name.hasPrefix("/"), !e.name.split(separator: "/").contains("..") else {
                throw ArchiveError(file: path, format: "zip", problem: "entry name \"\(e.name)\" is not a relative path")
            }
            if case .file(let p, let sha, let n) = e.content { sources[p] = try files.verifiedPath(path: p, sha256: sha, bytes: n) }
        }
        let zip = try ZipPackageFile(path: path)
        for e in sorted {
            switch e.content {
            case .file(let p, _, _): try zip.addFile(e.name, source: sources[p]!, deflate: e.deflate)
            case .data(let d): try zip.addData(e.name, d, deflate: e.deflate)
            }
        }
        try zip.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let deflated = sorted.filter(\.deflate).count
        return Summary(entries: sorted.count, stored: sorted.count - deflated, deflated: deflated, fileBytes: size)
    }
}

/// A zip archive being written through libzip: discarded in deinit unless closed.
final class ZipPackageFile {
    let path: String
    private var handle: OpaquePointer?

    init(path: String) throws {
        self.path = path
        var code: Int32 = 0
        guard let h = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            var e = zip_error_t()
            zip_error_init_with_code(&e, code)
            defer { zip_error_fini(&e) }
            throw ArchiveError(file: path, format: "zip", problem: "cannot create: \(String(cString: zip_error_strerror(&e)))")
        }
        handle = h
    }

    deinit { if let handle { zip_discard(handle) } }

    private func error(_ what: String) -> ArchiveError {
        ArchiveError(file: path, format: "zip", problem: "\(what): \(handle.map { String(cString: zip_strerror($0)) } ?? "closed")")
    }

    func addFile(_ name: String, source: String, deflate: Bool) throws {
        guard let src = zip_source_file(handle, source, 0, -1) else { throw error("read \(source)") }
        try add(name, src, deflate: deflate)
    }

    func addData(_ name: String, _ data: Data, deflate: Bool) throws {
        // libzip reads the bytes at close time: hand it a malloc'd copy it frees itself.
        guard let copy = malloc(max(data.count, 1)) else { throw error("allocate \(data.count) bytes for \(name)") }
        data.withUnsafeBytes { if let b = $0.baseAddress { memcpy(copy, b, data.count) } }
        guard let src = zip_source_buffer(handle, copy, UInt64(data.count), 1) else {
            free(copy)
            throw error("buffer \(name)")
        }
        try add(name, src, deflate: deflate)
    }

    private func add(_ name: String, _ src: OpaquePointer, deflate: Bool) throws {
        let index = zip_file_add(handle, name, src, zip_flags_t(ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            zip_source_free(src)
            throw error("add \(name)")
        }
        let i = UInt64(index)
        // Fixed time and mode: a file source would otherwise carry the file's own.
        guard zip_file_set_mtime(handle, i, 315_532_800, 0) == 0,
              zip_file_set_external_attributes(handle, i, 0, UInt8(ZIP_OPSYS_UNIX), UInt32(0o100644) << 16) == 0,
              zip_set_file_compression(handle, i, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, deflate ? 9 : 0) == 0 else {
            throw error("set attributes of \(name)")
        }
    }

    func close() throws {
        guard let h = handle else { return }
        if zip_close(h) != 0 {
            let e = error("write")
            zip_discard(h)
            handle = nil
            throw e
        }
        handle = nil
    }
}
