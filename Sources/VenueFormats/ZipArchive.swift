import CZip
import Foundation

/// A libzip failure, carrying the operation and the archive path.
public struct ZipError: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var message: String
    public var description: String { "\(path): \(operation) failed: \(message)" }
}

/// A read-only zip archive. The only type that calls libzip for reading.
///
/// Not thread-safe: libzip handles stay on the thread that uses them.
public final class ZipArchive {
    public let path: String
    private let handle: OpaquePointer

    public init(path: String) throws {
        self.path = path
        var code: Int32 = 0
        guard let h = zip_open(path, ZIP_RDONLY, &code) else {
            throw ZipError(operation: "open", path: path, message: ZipArchive.message(forCode: code))
        }
        handle = h
    }

    deinit { zip_discard(handle) }

    /// What the central directory says about one entry.
    public struct Entry: Sendable {
        public var name: String
        /// Declared uncompressed size (may lie in a hostile archive).
        public var size: UInt64
        public var encrypted: Bool
        /// A Unix symbolic link (its "content" is the link target).
        public var isSymlink: Bool
        public var isDirectory: Bool { name.hasSuffix("/") }
    }

    /// Every entry, in archive order.
    public func entries() throws -> [Entry] {
        let n = zip_get_num_entries(handle, 0)
        guard n >= 0 else { throw error("list entries") }
        var out = [Entry]()
        out.reserveCapacity(Int(n))
        for i in 0..<UInt64(n) {
            var st = zip_stat_t()
            zip_stat_init(&st)
            guard zip_stat_index(handle, i, zip_flags_t(ZIP_FL_ENC_GUESS), &st) == 0, let cname = st.name else { throw error("stat entry \(i)") }
            var opsys: UInt8 = 0
            var attributes: UInt32 = 0
            guard zip_file_get_external_attributes(handle, i, 0, &opsys, &attributes) == 0 else { throw error("read attributes of entry \(i)") }
            let mode = attributes >> 16
            let symlink = Int32(opsys) == ZIP_OPSYS_UNIX && (mode & 0o170000) == 0o120000
            let encrypted = st.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != UInt16(ZIP_EM_NONE)
            out.append(Entry(name: String(cString: cname), size: st.valid & UInt64(ZIP_STAT_SIZE) != 0 ? st.size : 0,
                             encrypted: encrypted, isSymlink: symlink))
        }
        return out
    }

    /// The uncompressed bytes of an entry; reading stops with an error once
    /// more than `limit` bytes come out (a zip bomb whose declared size lies).
    public func read(_ name: String, limit: UInt64 = .max) throws -> Data {
        let index = zip_name_locate(handle, name, 0)
        guard index >= 0 else {
            throw ZipError(operation: "find entry", path: path, message: "no entry named \(name)")
        }
        var st = zip_stat_t()
        zip_stat_init(&st)
        guard zip_stat_index(handle, UInt64(index), 0, &st) == 0 else { throw error("stat \(name)") }
        guard let file = zip_fopen_index(handle, UInt64(index), 0) else { throw error("open entry \(name)") }
        defer { zip_fclose(file) }
        var data = Data()
        if st.valid & UInt64(ZIP_STAT_SIZE) != 0 { data.reserveCapacity(Int(min(st.size, limit, 1 << 30))) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, UInt64($0.count)) }
            if n < 0 {
                let msg = String(cString: zip_error_strerror(zip_file_get_error(file)))
                throw ZipError(operation: "read entry \(name)", path: path, message: msg)
            }
            if n == 0 { break }
            if UInt64(data.count) + UInt64(n) > limit {
                throw ZipError(operation: "read entry \(name)", path: path,
                               message: "uncompressed data exceeds the limit of \(limit) bytes")
            }
            data.append(contentsOf: buffer[0..<Int(n)])
        }
        return data
    }

    private func error(_ op: String) -> ZipError {
        ZipError(operation: op, path: path, message: String(cString: zip_strerror(handle)))
    }

    static func message(forCode code: Int32) -> String {
        var e = zip_error_t()
        zip_error_init_with_code(&e, code)
        defer { zip_error_fini(&e) }
        return String(cString: zip_error_strerror(&e))
    }
}

/// Writes a new zip archive (replacing any file at `path` on `close`).
///
/// Entries get a fixed modification time so that the same entries give the same bytes.
public final class ZipWriter {
    public let path: String
    private var handle: OpaquePointer?

    public init(path: String) throws {
        self.path = path
        var code: Int32 = 0
        guard let h = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else {
            throw ZipError(operation: "create", path: path, message: ZipArchive.message(forCode: code))
        }
        handle = h
    }

    deinit { if let handle { zip_discard(handle) } }

    public func add(_ name: String, _ data: Data) throws {
        guard let handle else { preconditionFailure("ZipWriter used after close") }
        // libzip reads the bytes at close time: hand it a malloc'd copy it frees itself.
        let copy = malloc(max(data.count, 1))!
        data.withUnsafeBytes { if let b = $0.baseAddress { memcpy(copy, b, data.count) } }
        guard let source = zip_source_buffer(handle, copy, UInt64(data.count), 1) else {
            free(copy)
            throw error("buffer entry \(name)")
        }
        let index = zip_file_add(handle, name, source, zip_flags_t(ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            zip_source_free(source)
            throw error("add entry \(name)")
        }
        zip_file_set_mtime(handle, UInt64(index), 315_532_800, 0)   // 1980-01-01, the DOS epoch
    }

    public func close() throws {
        guard let h = handle else { return }
        if zip_close(h) != 0 {
            let e = error("write")
            zip_discard(h)
            handle = nil
            throw e
        }
        handle = nil
    }

    private func error(_ op: String) -> ZipError {
        ZipError(operation: op, path: path, message: handle.map { String(cString: zip_strerror($0)) } ?? "closed")
    }
}
