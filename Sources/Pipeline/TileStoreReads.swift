import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The read side of `TileStore`: file statuses and bytes under the root,
/// by path or through the open folders of the last files (for readers of
/// many files in tile order), never through a symbolic link; and the last
/// manifest mapped into memory.
extension TileStore {
    /// Size and modification time through the open folders of the last files
    /// (as `readInOrder`), not following a symbolic link; nil when missing.
    public func statusInOrder(_ relative: String) -> (size: Int, mtime: timespec)? {
        let (dirPath, name) = TileStore.split(relative)
        guard let dir = try? folder(dirPath, create: false).fd else { return nil }
        var st = Glibc.stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int(st.st_size), st.st_mtim)
    }

    /// Size and modification time, or nil when the file is missing.
    public func fileStatus(_ relative: String) -> (size: Int, mtime: timespec)? {
        var st = Glibc.stat()
        guard lstat(path(relative), &st) == 0 else { return nil }
        return (Int(st.st_size), st.st_mtim)
    }

    /// The bytes of a regular file under the root (nil when missing, or when a
    /// symbolic link is on the way).
    public func read(_ relative: String) -> Data? {
        let (dirPath, name) = TileStore.split(relative)
        guard let dir = try? openFolder(dirPath, create: false) else { return nil }
        defer { close(dir) }
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let h = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        return try? h.readToEnd() ?? Data()
    }

    /// `read(_:)` through the open folders of the last files read: for a
    /// reader of many files in tile order (the merge reading a shard folder),
    /// one `open` per file instead of one per path component.
    public func readInOrder(_ relative: String) -> Data? {
        let (dirPath, name) = TileStore.split(relative)
        guard let dir = try? folder(dirPath, create: false).fd else { return nil }
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        var data = Data(count: Int(st.st_size))
        let ok = data.withUnsafeMutableBytes { b -> Bool in
            var done = 0
            while done < b.count {
                let n = Glibc.read(fd, b.baseAddress! + done, b.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return ok ? data : nil
    }

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
                fd = (try? store.openFolder(Substring(String(decoding: dir, as: UTF8.self)), create: false)) ?? -1
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
    convenience init?(path: String) {
        self.init(dir: AT_FDCWD, name: path)
    }

    /// The file `name` in the open folder `dir` (a symbolic link is not followed).
    init?(dir: Int32, name: String) {
        let fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
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
        releaseRange(part)
    }

    /// Gives back every page from the start of the mapping to the end of
    /// `part`: read in order a piece at a time, the pages a piece shares with
    /// the next (and those the kernel mapped ahead of a read, 64 KiB by
    /// default) go too, which `release` alone would keep for each of
    /// thousands of small pieces.
    func release(through part: UnsafeRawBufferPointer) {
        guard let base = part.baseAddress, let mine = bytes.baseAddress, base >= mine, base + part.count <= mine + size else { return }
        releaseRange(UnsafeRawBufferPointer(start: mine, count: base + part.count - mine))
    }

    private func releaseRange(_ part: UnsafeRawBufferPointer) {
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
