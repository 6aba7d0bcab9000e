import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files made early and written late — web clients' files and meshes, made
/// while their venue is read and written at the commit — kept in an unlinked
/// temporary file rather than in memory, so that what a build holds between
/// the two does not grow with its venues. Each distinct content is stored
/// once (the vendored MapLibre files are the same for every venue).
///
/// The file is made in `TMPDIR` (else `/tmp`) and unlinked at once, so nothing
/// is left behind by a killed build. Where no temporary file can be made the
/// contents stay in memory, as they did before: spilling saves memory, and a
/// build must not fail for want of it. Raw calls (`mkstemp`, `pwrite`,
/// `pread`) are in this file only.
final class FileSpill: @unchecked Sendable {
    /// Where one content is: in the file, or the index of an in-memory copy.
    struct Ref: Sendable, Equatable { var offset: Int; var count: Int }

    private var fd: Int32 = -1
    private var opened = false
    private var end = 0
    private var memory = [Data]()
    private var stored = [Digest32: Ref]()
    private let lock = NSLock()

    init() {}

    deinit { if fd >= 0 { close(fd) } }

    /// Stores `data` once per distinct content; returns where it is.
    func put(_ data: Data) throws -> Ref {
        let digest = Digest32.sha256(data)
        lock.lock(); defer { lock.unlock() }
        if let r = stored[digest] { return r }
        openOnce()
        let r: Ref
        if fd >= 0 {
            r = Ref(offset: end, count: data.count)
            try data.withUnsafeBytes { b in
                var done = 0
                while done < b.count {
                    let n = pwrite(fd, b.baseAddress! + done, b.count - done, off_t(end + done))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw spillError("write") }
                    done += n
                }
            }
            end += data.count
        } else {
            r = Ref(offset: -1 - memory.count, count: data.count)
            memory.append(data)
        }
        stored[digest] = r
        return r
    }

    /// The bytes `put` stored at `r`.
    func get(_ r: Ref) throws -> Data {
        lock.lock(); defer { lock.unlock() }
        if r.offset < 0 { return memory[-1 - r.offset] }
        var data = Data(count: r.count)
        try data.withUnsafeMutableBytes { b in
            var done = 0
            while done < r.count {
                let n = pread(fd, b.baseAddress! + done, r.count - done, off_t(r.offset + done))
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw spillError("read") }
                done += n
            }
        }
        return data
    }

    private func openOnce() {
        guard !opened else { return }
        opened = true
        fd = FileSpill.unlinkedTemporaryFile(prefix: "venuetiles-spill") ?? -1
    }

    /// A new file in `TMPDIR` (else `/tmp`), unlinked at once so that nothing
    /// is left behind by a killed build: its descriptor, or nil when none can
    /// be made. Also where `MappedColumn` keeps its values.
    static func unlinkedTemporaryFile(prefix: String) -> Int32? {
        let dir = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array("\(dir)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard made >= 0 else { return nil }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        unlink(path)
        return made
    }

    private func spillError(_ operation: String) -> StoreError {
        StoreError(operation: "\(operation) the temporary file of client files and meshes", path: "(unlinked, in TMPDIR)",
                   reason: String(cString: strerror(errno)), code: errno)
    }
}

/// A file to write at the commit whose bytes wait in a `FileSpill`.
struct SpilledFile: Sendable {
    var path: String
    var ref: FileSpill.Ref
}
