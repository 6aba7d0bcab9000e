import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A filesystem failure with the operation and the path.
public struct StoreError: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var reason: String
    /// The errno behind `reason`, where the caller acts on it (0: not kept).
    public var code: Int32 = 0
    public var description: String { "\(operation) \(path): \(reason)" }
}

/// Another build holds the output folder.
public struct LockError: Error, CustomStringConvertible {
    public var path: String
    public var holder: String
    public var description: String {
        "another venuetiles build is writing to \(path) (\(holder)); wait for it to finish or remove nothing: the lock is released when that process exits"
    }
}

/// Writes files under the output root atomically: a temporary name in the
/// same folder, then rename(2), so a reader never sees half a file.
///
/// Used from one writer thread only; it caches the folders it created.
public final class TileStore {
    public let root: String
    private var madeDirs = Set<String>()
    private var lockFD: Int32 = -1

    public static let lockName = ".venuetiles.lock"
    /// Written before a build changes anything and removed after its manifest:
    /// if it is there at the start of a build, the last one did not finish.
    public static let intentName = ".venuetiles.intent"

    /// Where replaced and removed files go instead of being freed (incremental
    /// builds; see `Trash`). Nil: they are freed at once. Set before writing.
    public var trash: Trash?

    /// The folders of the last tiles written, open, most recent first: a name
    /// relative to an open folder spares the kernel the walk down from the
    /// root twice per file. Tiles come in plan order, so most land in the
    /// folder of the one before; a vector group writes the same place in each
    /// floor's pyramid and then the venue-wide one, a folder each, in turn.
    /// With one open folder, that group order cost an `open` and a `close`
    /// per file (213,000 opens for the medium venue's 106,000 vector tiles).
    private var openFolders = [(relative: Substring, fd: Int32)]()
    /// More than the floors of a large venue plus its venue-wide pyramid.
    private static let openFolderLimit = 16

    public init(root: String, trash: Trash? = nil) {
        self.root = root
        self.trash = trash
    }

    deinit {
        closeFolders()
        unlock()
    }

    private func closeFolders() {
        for f in openFolders { close(f.fd) }
        openFolders.removeAll()
    }

    /// The open folder `relative` (under the root), made if missing.
    private func folder(_ relative: Substring) throws -> Int32 {
        if let k = openFolders.firstIndex(where: { $0.relative == relative }) {
            if k > 0 { openFolders.swapAt(0, k) }
            return openFolders[0].fd
        }
        let full = path(String(relative))
        try makeDirectory(full)
        let fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw StoreError(operation: "open folder", path: full, reason: String(cString: strerror(errno))) }
        if openFolders.count == TileStore.openFolderLimit { close(openFolders.removeLast().fd) }
        openFolders.insert((relative, fd), at: 0)
        return fd
    }

    public func path(_ relative: String) -> String { root + "/" + relative }

    /// Takes the output folder's lock (flock), or throws `LockError` naming the holder.
    public func lock() throws {
        try makeDirectory(root)
        let p = path(TileStore.lockName)
        let fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StoreError(operation: "open lock", path: p, reason: String(cString: strerror(errno))) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder = (try? String(contentsOfFile: p, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw LockError(path: root, holder: holder.isEmpty ? "lock held" : holder)
        }
        ftruncate(fd, 0)
        let note = "pid \(getpid())\n"
        _ = note.withCString { Glibc.write(fd, $0, strlen($0)) }
        lockFD = fd
    }

    public func unlock() {
        guard lockFD >= 0 else { return }
        flock(lockFD, LOCK_UN)
        close(lockFD)
        lockFD = -1
    }

    /// The temporary twin of a file: same folder, hidden name. One writer per
    /// output folder (the lock), so it need not be unique.
    private func temporaryPath(_ full: String) -> (dir: String, tmp: String) {
        let slash = full.lastIndex(of: "/")!
        let dir = String(full[..<slash])
        return (dir, dir + "/." + full[full.index(after: slash)...] + ".tmp")
    }

    /// Creates the folder, lets `fill` write the temporary file, then renames it
    /// into place, unless `keepOld` finds the file in place equal to it.
    private func atomically(_ relative: String, keepOld: ((String, String) -> Bool)? = nil, _ fill: (String) throws -> Void) throws {
        let full = path(relative)
        let (dir, tmp) = temporaryPath(full)
        try makeDirectory(dir)
        try fill(tmp)
        if let keepOld, keepOld(tmp, full) { unlink(tmp); return }
        trash?.keep(full)
        if rename(tmp, full) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw StoreError(operation: "rename to", path: full, reason: reason)
        }
    }

    public func write(_ relative: String, _ data: Data) throws {
        // Replaced files go to the trash by full path: the slower path, for small builds only.
        guard trash == nil, let slash = relative.lastIndex(of: "/") else {
            try atomically(relative) { try TileStore.fill(AT_FDCWD, $0, data, path: $0) }
            return
        }
        var dir = try folder(relative[..<slash])
        let name = String(relative[relative.index(after: slash)...])
        let tmp = "." + name + ".tmp"
        do {
            try TileStore.fill(dir, tmp, data, path: path(relative))
        } catch let e as StoreError where e.code == ENOENT {
            // The open folder was removed meanwhile (another writer deleted its
            // last file, or someone else did): make it again, once.
            closeFolders()
            madeDirs.remove(path(String(relative[..<slash])))
            dir = try folder(relative[..<slash])
            try TileStore.fill(dir, tmp, data, path: path(relative))
        }
        if renameat(dir, tmp, dir, name) != 0 {
            let reason = String(cString: strerror(errno))
            unlinkat(dir, tmp, 0)
            throw StoreError(operation: "rename to", path: path(relative), reason: reason)
        }
    }

    /// Creates (or truncates) `name` in folder `dir` and writes `data` to it.
    private static func fill(_ dir: Int32, _ name: String, _ data: Data, path: String) throws {
        let fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { let e = errno; throw StoreError(operation: "create", path: path, reason: String(cString: strerror(e)), code: e) }
        let ok = data.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return false }
                off += n
            }
            return true
        }
        let reason = String(cString: strerror(errno))
        close(fd)
        guard ok else { unlinkat(dir, name, 0); throw StoreError(operation: "write", path: path, reason: reason) }
    }

    /// Writes a file produced in pieces, atomically like `write`.
    public func writeStream(_ relative: String, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        try atomically(relative) { try stream(to: $0, produce) }
    }

    /// `writeStream`, except that when the file in place already holds exactly
    /// these bytes it is left alone (its mtime too); returns whether it wrote.
    /// For large files whose bytes are cheaper to produce than to predict.
    @discardableResult
    public func writeStreamIfChanged(_ relative: String, _ produce: ((Data) throws -> Void) throws -> Void) throws -> Bool {
        var wrote = true
        try atomically(relative, keepOld: { tmp, full in
            guard let new = MappedFile(path: tmp), let old = MappedFile(path: full), new.size == old.size else { return false }
            // 8 MiB at a time, each piece's pages given back once compared (a
            // large venue's manifest is hundreds of megabytes).
            var k = 0
            while k < new.size {
                let n = min(8 << 20, new.size - k)
                let a = UnsafeRawBufferPointer(rebasing: new.bytes[k..<(k + n)]), b = UnsafeRawBufferPointer(rebasing: old.bytes[k..<(k + n)])
                let same = memcmp(a.baseAddress!, b.baseAddress!, n) == 0
                new.release(a); old.release(b)
                if !same { return false }
                k += n
            }
            wrote = false
            return true
        }) { try stream(to: $0, produce) }
        return wrote
    }

    private func stream(to tmp: String, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        guard FileManager.default.createFile(atPath: tmp, contents: nil), let h = FileHandle(forWritingAtPath: tmp) else {
            throw StoreError(operation: "create", path: tmp, reason: String(cString: strerror(errno)))
        }
        do {
            try produce { try h.write(contentsOf: $0) }
            try h.close()
        } catch {
            try? h.close(); unlink(tmp)
            throw StoreError(operation: "write", path: tmp, reason: "\(error)")
        }
    }

    /// Writes only when the file is missing or holds other bytes (small files:
    /// TileJSON, meshes); returns whether it wrote.
    @discardableResult
    public func writeIfChanged(_ relative: String, _ data: Data) throws -> Bool {
        if read(relative) == data { return false }
        try write(relative, data)
        return true
    }

    /// `mkdir -p`, failing with the system's reason and the part of the path
    /// that is in the way (Foundation's message for a file where a folder
    /// should be was "The operation could not be completed").
    public func makeDirectory(_ dir: String) throws {
        if madeDirs.contains(dir) { return }
        var st = Glibc.stat()
        if stat(dir, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else {
                throw StoreError(operation: "create folder", path: dir, reason: "a file is in the way", code: ENOTDIR)
            }
        } else {
            let parent = (dir as NSString).deletingLastPathComponent
            if !parent.isEmpty && parent != dir { try makeDirectory(parent) }
            if mkdir(dir, 0o755) != 0 && errno != EEXIST {
                let e = errno
                throw StoreError(operation: "create folder", path: dir, reason: String(cString: strerror(e)), code: e)
            }
        }
        madeDirs.insert(dir)
    }

    /// Removes a file (and its leftover temporary twin) and then every folder
    /// above it that became empty, up to the root.
    public func remove(_ relative: String) {
        let full = path(relative)
        if !(trash?.take(full) ?? false) { unlink(full) }
        var dir = (full as NSString).deletingLastPathComponent
        while dir.count > root.count && dir.hasPrefix(root) {
            if rmdir(dir) != 0 { break }
            madeDirs.remove(dir)
            closeFolders()
            dir = (dir as NSString).deletingLastPathComponent
        }
    }

    /// Removes the temporary file a killed build may have left beside `relative`.
    public func removeTemporary(_ relative: String) {
        unlink(temporaryPath(path(relative)).tmp)
    }

    /// Size and modification time, or nil when the file is missing.
    public func fileStatus(_ relative: String) -> (size: Int, mtime: timespec)? {
        var st = Glibc.stat()
        guard lstat(path(relative), &st) == 0 else { return nil }
        return (Int(st.st_size), st.st_mtim)
    }

    public func read(_ relative: String) -> Data? { FileManager.default.contents(atPath: path(relative)) }

    /// Stats files one after another with the folder of the last one kept open:
    /// tiles come sorted by folder, so most stats resolve one name instead of
    /// walking the whole path again. One per thread; `lstat` semantics, as
    /// `fileStatus(_:)`.
    final class StatCursor {
        private let store: TileStore
        private var folder = [UInt8]()
        private var fd: Int32 = -1
        /// The file name, NUL-terminated for fstatat (reused: no allocation per file).
        private var name = [CChar](repeating: 0, count: 256)

        init(_ store: TileStore) { self.store = store }
        deinit { if fd >= 0 { close(fd) } }

        func status(_ relative: String) -> (size: Int, mtime: timespec)? {
            // Bytes, not Characters: this runs once per file of the output.
            var relative = relative
            return relative.withUTF8 { status(utf8: $0) }
        }

        /// `status` of a relative path given as UTF-8 bytes.
        func status(utf8 u: UnsafeBufferPointer<UInt8>) -> (size: Int, mtime: timespec)? {
            guard let slash = u.lastIndex(of: UInt8(ascii: "/")) else { return store.fileStatus(String(decoding: u, as: UTF8.self)) }
            let dir = UnsafeBufferPointer(rebasing: u[..<slash])
            if fd < 0 || !folder.elementsEqual(dir) {
                if fd >= 0 { close(fd) }
                folder = Array(dir)
                fd = open(store.path(String(decoding: dir, as: UTF8.self)), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }
            // No folder: no file in it.
            guard fd >= 0 else { return nil }
            let n = u.count - slash - 1
            if name.count <= n { name = [CChar](repeating: 0, count: n + 1) }
            name.withUnsafeMutableBufferPointer { b in
                UnsafeMutableRawPointer(b.baseAddress!).copyMemory(from: u.baseAddress! + slash + 1, byteCount: n)
                b[n] = 0
            }
            var st = Glibc.stat()
            guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
            return (Int(st.st_size), st.st_mtim)
        }
    }
}

/// A file mapped read-only into memory, unmapped on deinit: the last
/// manifest, whose carried pyramids' lines the new one copies.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer
    let size: Int
    let mtime: timespec

    /// nil when the file cannot be opened, is empty or cannot be mapped.
    init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, st.st_size > 0 else { return nil }
        let p = mmap(nil, Int(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else { return nil }
        bytes = UnsafeRawBufferPointer(start: p, count: Int(st.st_size))
        size = Int(st.st_size)
        mtime = st.st_mtim
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), size) }

    /// Gives back the pages wholly inside `part` (a piece of this mapping):
    /// read pages of a mapped file count in the process's resident memory (and
    /// a container's) until unmapped. The bytes stay readable: touched again,
    /// they are read again from the file.
    func release(_ part: UnsafeRawBufferPointer) {
        guard let base = part.baseAddress, let mine = bytes.baseAddress, base >= mine, base + part.count <= mine + size else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let lo = (Int(bitPattern: base) + page - 1) / page * page
        let hi = (Int(bitPattern: base) + part.count) / page * page
        if hi > lo { madvise(UnsafeMutableRawPointer(bitPattern: lo), hi - lo, MADV_DONTNEED) }
    }
}

extension timespec {
    static func > (a: timespec, b: timespec) -> Bool { (a.tv_sec, a.tv_nsec) > (b.tv_sec, b.tv_nsec) }
}
