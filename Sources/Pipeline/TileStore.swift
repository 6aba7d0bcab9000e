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
/// Folders under the root are opened one component at a time without
/// following symbolic links (`O_NOFOLLOW`): a link planted inside the output
/// folder is refused, never written or deleted through. The root itself may be
/// a link (the user named it).
///
/// With a `trash`, every file this store replaces or removes is set aside
/// there first (a hard link before the rename, a rename for a removal), and the
/// store says where, so that a failed build can put the old files back.
///
/// Used from one writer thread only; it keeps its last folders open.
public final class TileStore {
    public let root: String

    /// Written before a build changes anything and removed after its manifest:
    /// if it is there at the start of a build, the last one did not finish.
    public static let intentName = OutputFolder.stateFolder + "/intent"

    /// Where replaced and removed files go instead of being freed (see `Trash`).
    /// Nil: they are freed at once. Set before writing.
    public var trash: Trash?

    /// What happened to the file at a path, for putting it back.
    public enum Undo: Equatable {
        /// The file did not exist: remove it.
        case created
        /// The old file is in the trash under this slot: rename it back.
        case replaced(Int32)
        /// The file was moved into the trash under this slot: rename it back.
        case removed(Int32)
        /// The new bytes wait beside the old file under its temporary name; the
        /// old file is untouched until `switchStaged` renames the new one over it.
        case staged
        /// The file stays, for readers of the last manifest, until `switchStaged` removes it.
        case removeAtSwitch
    }
    /// Small files (TileJSON, meshes, the manifest) written or removed by path,
    /// in order; tiles are tracked by the writer, which knows their jobs.
    private(set) var undoLog = [(relative: String, undo: Undo)]()
    private let undoLock = NSLock()

    /// The folders of the last tiles written, open, most recent first: a name
    /// relative to an open folder spares the kernel the walk down from the
    /// root twice per file. Tiles come in plan order, so most land in the
    /// folder of the one before; a vector group writes the same place in each
    /// floor's pyramid and then the venue-wide one, a folder each, in turn.
    /// With one open folder, that group order cost an `open` and a `close`
    /// per file (213,000 opens for the medium venue's 106,000 vector tiles).
    ///
    /// `made`: this store created the folder (its `mkdirat` succeeded), so
    /// with `eachPathOnce` a name in it cannot have a file yet: no look-up
    /// before writing (two `fstatat` per tile of a first build, a third of
    /// its system calls).
    private var openFolders = [(relative: Substring, fd: Int32, made: Bool)]()
    /// More than the floors of a large venue plus its venue-wide pyramid.
    private static let openFolderLimit = 16

    /// Each path is written at most once while this store lives, by it or by
    /// any other (the tile writer: one job per path, its stores made per build).
    let eachPathOnce: Bool

    public convenience init(root: String, trash: Trash? = nil) {
        self.init(root: root, trash: trash, eachPathOnce: false)
    }

    init(root: String, trash: Trash?, eachPathOnce: Bool) {
        self.root = root
        self.trash = trash
        self.eachPathOnce = eachPathOnce
    }

    deinit { closeFolders() }

    private func closeFolders() {
        for f in openFolders { close(f.fd) }
        openFolders.removeAll()
    }

    /// The open folder `relative` (under the root), made if missing (unless
    /// `create` is false); `made` as in `openFolders`.
    func folder(_ relative: Substring, create: Bool = true) throws -> (fd: Int32, made: Bool) {
        if let k = openFolders.firstIndex(where: { $0.relative == relative }) {
            if k > 0 { openFolders.swapAt(0, k) }
            return (openFolders[0].fd, openFolders[0].made)
        }
        var made = false
        let fd = try openFolder(relative, create: create, made: &made)
        if openFolders.count == TileStore.openFolderLimit { close(openFolders.removeLast().fd) }
        openFolders.insert((relative, fd, made), at: 0)
        return (fd, made)
    }

    /// Opens `relative` one component at a time from the root, never following
    /// a symbolic link, creating missing folders when asked. The caller closes it.
    func openFolder(_ relative: Substring, create: Bool) throws -> Int32 {
        var made = false
        return try openFolder(relative, create: create, made: &made)
    }

    /// `openFolder`, telling whether its last component was created here.
    private func openFolder(_ relative: Substring, create: Bool, made: inout Bool) throws -> Int32 {
        made = false
        var fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 && create && errno == ENOENT {
            mkdir(root, 0o755)
            fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard fd >= 0 else { let e = errno; throw StoreError(operation: "open folder", path: root, reason: String(cString: strerror(e)), code: e) }
        var walked = root
        for c in relative.split(separator: "/", omittingEmptySubsequences: true) {
            let name = String(c)
            walked += "/" + name
            var next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            made = false
            if next < 0 && errno == ENOENT && create {
                if mkdirat(fd, name, 0o755) == 0 {
                    made = true
                } else if errno != EEXIST {
                    let e = errno; close(fd)
                    throw StoreError(operation: "create folder", path: walked, reason: String(cString: strerror(e)), code: e)
                }
                next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let e = errno
            close(fd)
            guard next >= 0 else {
                var st = Glibc.stat()
                let isLink = e == ELOOP || (e == ENOTDIR && lstat(walked, &st) == 0 && st.st_mode & S_IFMT == S_IFLNK)
                let reason = isLink ? "a symbolic link is in the way (never followed inside the output folder)"
                    : e == ENOTDIR ? "a file is in the way" : String(cString: strerror(e))
                throw StoreError(operation: create ? "create folder" : "open folder", path: walked, reason: reason, code: e)
            }
            fd = next
        }
        return fd
    }

    public func path(_ relative: String) -> String { root + "/" + relative }

    /// The temporary name beside `name` in its folder: where a write lands
    /// before its rename, and where a staged file waits until the switch.
    static func temporaryName(_ name: String) -> String { "." + name + ".tmp" }

    /// The path, relative to the root, of the temporary (staged) twin of `relative`.
    public static func temporaryPath(_ relative: String) -> String {
        let (dir, name) = split(relative)
        return (dir.isEmpty ? "" : String(dir) + "/") + temporaryName(name)
    }

    static func split(_ relative: String) -> (dir: Substring, name: String) {
        // On the UTF-8 bytes: searching Characters from the end (grapheme
        // breaking) was a third of the writer's instructions per tile.
        guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", relative) }
        return (relative[..<slash], String(relative[relative.utf8.index(after: slash)...]))
    }

    /// Writes a tile; returns what to do to put the old state back. With
    /// `stage`, a file already there is not replaced yet: the new bytes wait
    /// under the temporary name (`Undo.staged`) until `switchStaged`.
    @discardableResult
    public func write(_ relative: String, _ data: Data, stage: Bool = false) throws -> Undo {
        let (dirPath, name) = TileStore.split(relative)
        do {
            var dir = try folder(dirPath)
            let tmp = TileStore.temporaryName(name)
            do {
                try TileStore.fill(dir.fd, tmp, data, path: path(relative))
            } catch let e as StoreError where e.code == ENOENT {
                // The open folder was removed meanwhile (another writer deleted its
                // last file, or someone else did): make it again, once.
                closeFolders()
                dir = try folder(dirPath)
                try TileStore.fill(dir.fd, tmp, data, path: path(relative))
            }
            let new = eachPathOnce && dir.made
            if stage && !new && TileStore.exists(dir.fd, name) { return .staged }
            // Looked up just now, or new: no old file to keep.
            return try rename(dir.fd, tmp, over: name, relative, absent: stage || new)
        } catch {
            // A failed write (a full disk) leaves no folder it made: the undo log
            // knows only the files that were written, and a failed first build
            // must leave nothing behind.
            removeEmptyFolders(dirPath)
            throw error
        }
    }

    private static func exists(_ dir: Int32, _ name: String) -> Bool {
        var st = Glibc.stat()
        return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0
    }

    /// Carries out what `write(stage:)` or the writer left for the switch: the
    /// staged file renamed over the old one (kept in the trash), or a file
    /// removed. Returns the undo of what it did (nil: nothing to undo).
    public func switchStaged(_ relative: String, _ undo: Undo) throws -> Undo? {
        switch undo {
        case .staged:
            let (dirPath, name) = TileStore.split(relative)
            return try rename(try folder(dirPath).fd, TileStore.temporaryName(name), over: name, relative)
        case .removeAtSwitch:
            return remove(relative)
        default:
            return undo
        }
    }

    /// Renames the temporary file over `name`, the file there first set aside
    /// (unless the caller knows there is none: `absent`).
    private func rename(_ dir: Int32, _ tmp: String, over name: String, _ relative: String, absent: Bool = false) throws -> Undo {
        let undo = absent ? .created : try trash.flatMap { try $0.keep(dir, name) }.map(Undo.replaced) ?? .created
        if renameat(dir, tmp, dir, name) != 0 {
            let reason = String(cString: strerror(errno))
            unlinkat(dir, tmp, 0)
            throw StoreError(operation: "rename to", path: path(relative), reason: reason)
        }
        return undo
    }

    /// Creates (or truncates) `name` in folder `dir` and writes `data` to it.
    private static func fill(_ dir: Int32, _ name: String, _ data: Data, path: @autoclosure () -> String) throws {
        let fd = openat(dir, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { let e = errno; throw StoreError(operation: "create", path: path(), reason: String(cString: strerror(e)), code: e) }
        let ok = data.withUnsafeBytes { buf -> Bool in
            var off = 0
            while off < buf.count {
                let n = Glibc.write(fd, buf.baseAddress! + off, buf.count - off)
                if n <= 0 { return false }
                off += n
            }
            return true
        }
        let e = errno
        let closed = close(fd) == 0
        guard ok && closed else {
            unlinkat(dir, name, 0)
            throw StoreError(operation: "write", path: path(), reason: String(cString: strerror(ok ? errno : e)), code: e)
        }
    }

    /// Creates the folder, lets `fill` write the temporary file, then renames it
    /// into place, unless `keepOld` finds the file in place equal to it. Opens its
    /// own folder (the index is written beside the manifest, on another thread).
    private func atomically(_ relative: String, stage: Bool = false, keepOld: ((Int32, String, String) -> Bool)? = nil,
                            _ fill: (Int32, String) throws -> Void) throws -> Bool {
        let (dirPath, name) = TileStore.split(relative)
        let dir = try openFolder(dirPath, create: true)
        defer { close(dir) }
        let tmp = TileStore.temporaryName(name)
        try fill(dir, tmp)
        if let keepOld, keepOld(dir, tmp, name) { unlinkat(dir, tmp, 0); return false }
        let undo = stage && TileStore.exists(dir, name) ? .staged : try rename(dir, tmp, over: name, relative)
        // The manifest and the index are written at once, on two threads.
        undoLock.lock(); undoLog.append((relative, undo)); undoLock.unlock()
        return true
    }

    /// Writes a file like `write` (through the open folders of the last
    /// files), recording how to undo it for `revertFiles`: the merge's copies,
    /// which come in tile order like a build's.
    public func writeRecorded(_ relative: String, _ data: Data) throws {
        let undo = try write(relative, data)
        undoLock.lock(); undoLog.append((relative, undo)); undoLock.unlock()
    }

    /// Puts `source`'s file `relative` at the same place under this root as a
    /// hard link, recording the undo like `writeRecorded`: the merge's files
    /// come from the shard folders without their bytes being read or written
    /// again. The two folders then share the file, which is safe because no
    /// build or merge writes a file in place (each replaces by rename). Where
    /// no link can be made (another file system) the bytes are copied.
    public func linkRecorded(_ relative: String, from source: TileStore) throws {
        let (dirPath, name) = TileStore.split(relative)
        let from = try source.folder(dirPath, create: false).fd
        let dir = try folder(dirPath).fd
        // A file the output does not have yet is linked straight to its name
        // (a link is whole when it appears): one call instead of five, and
        // nothing to set aside. Any failure takes the general way below.
        if linkat(from, name, dir, name, 0) == 0 {
            undoLock.lock(); undoLog.append((relative, .created)); undoLock.unlock()
            return
        }
        let tmp = TileStore.temporaryName(name)
        unlinkat(dir, tmp, 0)   // left by a killed merge
        if linkat(from, name, dir, tmp, 0) != 0 {
            let e = errno
            guard [EXDEV, EPERM, ENOTSUP, EMLINK].contains(e) else {
                throw StoreError(operation: "link", path: path(relative), reason: String(cString: strerror(e)), code: e)
            }
            guard let data = source.readInOrder(relative) else {
                throw StoreError(operation: "read", path: source.path(relative), reason: "missing or not a regular file", code: ENOENT)
            }
            return try writeRecorded(relative, data)
        }
        let undo = try rename(dir, tmp, over: name, relative)
        undoLock.lock(); undoLog.append((relative, undo)); undoLock.unlock()
    }

    /// Writes a small file atomically by path (TileJSON, meshes), recording how
    /// to undo it; with `stage`, a file already there is replaced only by `switchStagedFiles`.
    public func writeFile(_ relative: String, _ data: Data, stage: Bool = false) throws {
        _ = try atomically(relative, stage: stage) { dir, tmp in try TileStore.fill(dir, tmp, data, path: path(relative)) }
    }

    /// Renames every small file staged by `writeFile(stage:)` over its old one.
    public func switchStagedFiles() throws {
        undoLock.lock(); defer { undoLock.unlock() }
        for k in undoLog.indices where undoLog[k].undo == .staged {
            undoLog[k].undo = try switchStaged(undoLog[k].relative, .staged) ?? .created
        }
    }

    /// Writes a file produced in pieces, atomically like `write`.
    public func writeStream(_ relative: String, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        _ = try atomically(relative) { dir, tmp in try stream(dir, tmp, relative, produce) }
    }

    /// `writeStream`, except that when the file in place already holds exactly
    /// these bytes it is left alone (its mtime too); returns whether it wrote.
    /// For large files whose bytes are cheaper to produce than to predict.
    @discardableResult
    public func writeStreamIfChanged(_ relative: String, _ produce: ((Data) throws -> Void) throws -> Void) throws -> Bool {
        try atomically(relative, keepOld: TileStore.sameBytes) { dir, tmp in try stream(dir, tmp, relative, produce) }
    }

    /// Whether the files `a` and `b` of folder `dir` hold the same bytes.
    private static func sameBytes(_ dir: Int32, _ a: String, _ b: String) -> Bool {
        guard let new = MappedFile(dir: dir, name: a), let old = MappedFile(dir: dir, name: b), new.size == old.size else { return false }
        // 8 MiB at a time, each piece's pages given back once compared (a
        // large venue's manifest is hundreds of megabytes).
        var k = 0
        while k < new.size {
            let n = min(8 << 20, new.size - k)
            let x = UnsafeRawBufferPointer(rebasing: new.bytes[k..<(k + n)]), y = UnsafeRawBufferPointer(rebasing: old.bytes[k..<(k + n)])
            let same = memcmp(x.baseAddress!, y.baseAddress!, n) == 0
            new.release(x); old.release(y)
            if !same { return false }
            k += n
        }
        return true
    }

    /// A file that a library writes by name (SQLite, libzip: archives), made
    /// atomically like `writeFile`: `make` writes the whole file at the absolute
    /// path it is given, a temporary name beside `relative` that holds a copy of
    /// the file in place when `update` (an MBTiles archive brought up to date).
    /// The file in place stays (mtime and all) when the new one has the same
    /// bytes; else it is set aside in the trash, so a failed build puts it back.
    @discardableResult
    public func writeByName(_ relative: String, update: Bool, stage: Bool = false, _ make: (String) throws -> Void) throws -> Bool {
        try atomically(relative, stage: stage, keepOld: TileStore.sameBytes) { dir, tmp in
            let (dirPath, name) = TileStore.split(relative)
            // The folder was opened without following links; the library gets its path.
            let tmpPath = path(dirPath.isEmpty ? tmp : dirPath + "/" + tmp)
            let clear = { for suffix in ["", "-journal", "-wal", "-shm"] { unlinkat(dir, tmp + suffix, 0) } }
            clear()
            do {
                if update && faccessat(dir, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 {
                    try FileManager.default.copyItem(atPath: path(relative), toPath: tmpPath)
                }
                try make(tmpPath)
            } catch {
                clear()
                throw error
            }
        }
    }

    private func stream(_ dir: Int32, _ tmp: String, _ relative: String, _ produce: ((Data) throws -> Void) throws -> Void) throws {
        let fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { let e = errno; throw StoreError(operation: "create", path: path(relative), reason: String(cString: strerror(e)), code: e) }
        let h = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        do {
            try produce { try h.write(contentsOf: $0) }
            guard close(fd) == 0 else { throw StoreError(operation: "write", path: path(relative), reason: String(cString: strerror(errno))) }
        } catch {
            close(fd); unlinkat(dir, tmp, 0)
            if let e = error as? StoreError { throw e }
            throw StoreError(operation: "write", path: path(relative), reason: "\(error)")
        }
    }

    /// Writes only when the file is missing or holds other bytes (small files:
    /// TileJSON, meshes); returns whether it wrote.
    @discardableResult
    public func writeIfChanged(_ relative: String, _ data: Data, stage: Bool = false) throws -> Bool {
        if read(relative) == data { return false }
        try writeFile(relative, data, stage: stage)
        return true
    }

    /// Removes a file (set aside in the trash when there is one; its leftover
    /// temporary twin too) and then every folder above it that became empty, up
    /// to the root. Returns how to undo it (nil: there was no file). A path
    /// through a symbolic link or a file removes nothing.
    @discardableResult
    public func remove(_ relative: String, setAside: Bool = true) -> Undo? {
        let (dirPath, name) = TileStore.split(relative)
        guard let dir = try? openFolder(dirPath, create: false) else { return nil }
        defer { close(dir) }
        var undo: Undo?
        if setAside, let t = trash, let slot = t.take(dir, name) {
            undo = .removed(slot)
        } else if unlinkat(dir, name, 0) == 0 {
            undo = .created  // freed: nothing to put back
        }
        unlinkat(dir, TileStore.temporaryName(name), 0)
        removeEmptyFolders(dirPath)
        return undo
    }

    /// Removes the folders of `relative` (deepest first) while they are empty.
    private func removeEmptyFolders(_ relative: Substring) {
        var parts = relative.split(separator: "/")
        while let last = parts.popLast() {
            let parent = parts.joined(separator: "/")
            guard let fd = try? openFolder(Substring(parent), create: false) else { return }
            let ok = unlinkat(fd, String(last), AT_REMOVEDIR) == 0
            close(fd)
            if !ok { return }
            closeFolders()
        }
    }

    /// Puts back what `undo` says about `relative`, after a failed build.
    public func revert(_ relative: String, _ undo: Undo) {
        let (dirPath, name) = TileStore.split(relative)
        switch undo {
        case .created:
            remove(relative, setAside: false)
        case .replaced(let slot), .removed(let slot):
            guard let t = trash, let dir = try? openFolder(dirPath, create: true) else { return }
            t.restore(slot, to: dir, name)
            close(dir)
        case .staged:
            removeTemporary(relative)
        case .removeAtSwitch:
            break
        }
    }

    /// Reverts this store's small files, newest first.
    public func revertFiles() {
        undoLock.lock(); let log = undoLog; undoLog.removeAll(); undoLock.unlock()
        for (relative, undo) in log.reversed() { revert(relative, undo) }
    }

    /// Removes the temporary file a killed build may have left beside `relative`.
    public func removeTemporary(_ relative: String) {
        let (dirPath, name) = TileStore.split(relative)
        guard let dir = try? openFolder(dirPath, create: false) else { return }
        unlinkat(dir, TileStore.temporaryName(name), 0)
        close(dir)
    }
}
