import CZip
import Foundation

/// Builds zip archives for tests with libzip directly, including the hostile
/// kinds a reader must refuse (symlink entries, encrypted entries, names that
/// climb out, sizes that lie), which the product's own writer never makes.
public struct ZipFixture {
    public enum Entry {
        case file(String, Data)
        case symlink(String, target: String)
        case encrypted(String, Data, password: String)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `entries` to `path`. Returns false when this libzip cannot encrypt (the caller skips).
    @discardableResult
    public static func write(_ path: String, _ entries: [Entry]) throws -> Bool {
        var code: Int32 = 0
        guard let z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &code) else { throw Failure(description: "zip_open \(path): \(code)") }
        func add(_ name: String, _ data: Data) throws -> Int64 {
            let copy = malloc(max(data.count, 1))!
            data.withUnsafeBytes { if let b = $0.baseAddress { memcpy(copy, b, data.count) } }
            guard let src = zip_source_buffer(z, copy, UInt64(data.count), 1) else { free(copy); throw Failure(description: "source") }
            let i = zip_file_add(z, name, src, zip_flags_t(ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8))
            guard i >= 0 else { zip_source_free(src); throw Failure(description: "add \(name): \(String(cString: zip_strerror(z)))") }
            return i
        }
        for e in entries {
            switch e {
            case .file(let n, let d):
                _ = try add(n, d)
            case .symlink(let n, let target):
                let i = try add(n, Data(target.utf8))
                zip_file_set_external_attributes(z, UInt64(i), 0, UInt8(ZIP_OPSYS_UNIX), UInt32(0o120777) << 16)
            case .encrypted(let n, let d, let pw):
                guard zip_encryption_method_supported(UInt16(ZIP_EM_AES_256), 1) != 0 else { zip_discard(z); return false }
                let i = try add(n, d)
                guard zip_file_set_encryption(z, UInt64(i), UInt16(ZIP_EM_AES_256), pw) == 0 else { zip_discard(z); return false }
            }
        }
        guard zip_close(z) == 0 else {
            let m = String(cString: zip_strerror(z)); zip_discard(z)
            throw Failure(description: "zip_close: \(m)")
        }
        return true
    }

    /// Rewrites the uncompressed size recorded for every entry (local headers and
    /// the central directory) to `size`: an archive whose sizes lie, as zip bombs' do.
    public static func forgeUncompressedSizes(_ path: String, to size: UInt32) throws {
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func put(_ at: Int) { for k in 0..<4 { b[at + k] = UInt8((size >> (8 * UInt32(k))) & 0xFF) } }
        var i = 0
        while i + 46 <= b.count {
            if b[i] == 0x50 && b[i + 1] == 0x4B && b[i + 2] == 0x03 && b[i + 3] == 0x04 { put(i + 22) }
            if b[i] == 0x50 && b[i + 1] == 0x4B && b[i + 2] == 0x01 && b[i + 3] == 0x02 { put(i + 24) }
            i += 1
        }
        try Data(b).write(to: URL(fileURLWithPath: path))
    }

    /// Flips bytes in the middle of the archive's first entry data (a corrupt download).
    public static func corrupt(_ path: String) throws {
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let nameLength = Int(b[26]) | Int(b[27]) << 8, extraLength = Int(b[28]) | Int(b[29]) << 8
        let start = 30 + nameLength + extraLength
        for k in 0..<16 { b[start + 8 + k] ^= 0x5A }
        try Data(b).write(to: URL(fileURLWithPath: path))
    }
}
