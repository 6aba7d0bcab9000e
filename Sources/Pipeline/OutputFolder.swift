import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An output folder that VenueTiles refuses to write to, delete or clean, and why.
public struct OutputFolderError: Error, CustomStringConvertible {
    public var path: String
    public var problem: String
    public var description: String { "output folder \(path): \(problem)" }
}

/// A path read from our own state (manifest, index, intent file) that does not
/// name a file inside the output folder. Nothing is deleted when one is found.
public struct OutputStateError: Error, CustomStringConvertible {
    public var file: String
    public var entry: String
    public var problem: String
    public var description: String {
        "\(file): entry \"\(entry)\": \(problem); nothing was deleted (remove the output folder by hand if it is damaged)"
    }
}

/// The output folder as VenueTiles owns it: the only type that decides whether a
/// folder may be written to or deleted from.
///
/// A folder is ours when it holds `.venuetiles/owner.json`, written when a build
/// first created or adopted it. Everything VenueTiles keeps for itself (lock,
/// intent, index, trash) lives in `.venuetiles/`, which is never published.
/// Deleting steps (`clean`, stale tiles) act only on a folder that is ours and
/// only on relative paths that stay inside it (`OutputFolder.checkRelative`);
/// folders inside it are walked without following symbolic links (`TileStore`).
public final class OutputFolder {
    public static let stateFolder = ".venuetiles"
    public static let ownerName = stateFolder + "/owner.json"
    /// The marker's format; a later version that changes the layout bumps it.
    static let ownerFormat = 1

    public let root: String
    private var lockFD: Int32 = -1
    /// This run made the folder (it was missing) or wrote its marker.
    private var madeFolder = false, wroteMarker = false

    /// What a folder is, as `open` finds it.
    public enum Ownership: Equatable {
        case missing
        case empty
        case ours
        /// Written by venuetiles 0.3 or older: a manifest of ours and state files
        /// beside it, before the marker existed.
        case legacy
        /// Holds files of someone else (the names of a few of them).
        case foreign([String])
    }

    public init(root: String) { self.root = root }

    deinit { unlock() }

    // MARK: - path rules

    /// Refuses output paths that would put someone else's files at risk: `/`,
    /// the home folder, the folder of the config (or any ancestor of it, of the
    /// style, the sprite or a source), and the inside of a source.
    public static func checkPath(_ output: String, config: PipelineConfig) throws {
        let out = canonical(output)
        func refuse(_ why: String) -> OutputFolderError { OutputFolderError(path: output, problem: why) }
        if out == "/" { throw refuse("refusing the root folder /: give a folder of its own, such as ./output") }
        for home in homeFolders() where out == home {
            throw refuse("refusing the home folder: give a folder of its own, such as \(home)/tiles-output")
        }
        var inputs: [(String, String)] = [("the config \(config.file)", config.file)]
        if let s = config.style { inputs.append(("the style \(s)", s)) }
        if let s = config.sprite { inputs.append(("the sprite \(s)", s)) }
        for s in config.sources { inputs.append(("source \"\(s.id)\" (\(s.path))", s.path)) }
        for (name, path) in inputs {
            let p = canonical(path)
            if p == out || p.hasPrefix(out == "/" ? out : out + "/") {
                throw refuse("it holds \(name): a build would write beside it and `clean` could delete it; use a folder of its own")
            }
        }
        for s in config.sources {
            let p = canonical(s.path)
            if out.hasPrefix(p + "/") {
                throw refuse("it is inside source \"\(s.id)\" (\(s.path)); write the tiles outside the venue data")
            }
        }
    }

    /// The absolute path with `.`/`..` resolved and symbolic links of its
    /// existing part followed (`realpath` of the longest existing prefix).
    static func canonical(_ path: String) -> String {
        var head = URL(fileURLWithPath: path).standardizedFileURL.path
        var tail = [String]()
        while true {
            if let r = realpath(head, nil) {
                defer { free(r) }
                let base = String(cString: r)
                return tail.isEmpty ? base : (base == "/" ? "" : base) + "/" + tail.reversed().joined(separator: "/")
            }
            let parent = (head as NSString).deletingLastPathComponent
            guard parent != head, !parent.isEmpty else { return path }
            tail.append((head as NSString).lastPathComponent)
            head = parent
        }
    }

    static func homeFolders() -> [String] {
        var out = [String]()
        if let h = getenv("HOME") { out.append(canonical(String(cString: h))) }
        if let pw = getpwuid(getuid()), let d = pw.pointee.pw_dir { out.append(canonical(String(cString: d))) }
        return out
    }

    // MARK: - ownership

    /// What the folder at `root` is.
    public static func ownership(_ root: String) throws -> Ownership {
        var st = stat()
        guard lstat(root, &st) == 0 || stat(root, &st) == 0 else {
            if errno == ENOENT { return .missing }
            throw OutputFolderError(path: root, problem: "cannot be examined: \(String(cString: strerror(errno)))")
        }
        if st.st_mode & S_IFMT == S_IFLNK { stat(root, &st) }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw OutputFolderError(path: root, problem: "it is a file, not a folder") }
        let names = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        if names.isEmpty || holdsOnlyEmptyFolders(root) { return .empty }
        if isRegularFile(root + "/" + ownerName) { return .ours }
        let legacyState = [".venuetiles.lock", ".venuetiles.index", ".venuetiles.intent"].contains { names.contains($0) }
        if legacyState, let m = FileManager.default.contents(atPath: root + "/" + Manifest.fileName),
           let doc = try? JSONSerialization.jsonObject(with: m) as? [String: Any],
           (doc["generator"] as? [String: Any])?["name"] as? String == Generator.name {
            return .legacy
        }
        return .foreign(Array(names.prefix(4)))
    }

    /// Whether the folder holds nothing but (nested) empty folders, as `clean`
    /// leaves once the files it kept are gone. Looks at 10,000 entries at most.
    static func holdsOnlyEmptyFolders(_ root: String) -> Bool {
        guard let e = FileManager.default.enumerator(atPath: root) else { return false }
        var n = 0
        for case let rel as String in e {
            n += 1
            var st = stat()
            guard n < 10_000, lstat(root + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { return false }
        }
        return true
    }

    /// Opens the folder for a build: checks the path rules, refuses a non-empty
    /// folder that is not ours (unless `allowExisting`), creates it and its
    /// marker when needed, and takes the lock before anything else is read.
    /// A dry run creates nothing and takes the lock shared when there is one.
    public static func openForBuild(_ root: String, config: PipelineConfig, allowExisting: Bool, dryRun: Bool,
                                    notice: (String) -> Void) throws -> OutputFolder {
        try checkPath(root, config: config)
        if !dryRun { try checkWritableFileSystem(root) }
        let folder = OutputFolder(root: root)
        switch try ownership(root) {
        case .foreign(let names) where !allowExisting:
            throw OutputFolderError(path: root, problem: "it is not empty and was not made by venuetiles (it holds \(names.joined(separator: ", "))…); "
                                    + "choose an empty or new folder, or pass --allow-existing to build beside those files (they are never deleted)")
        case .missing, .empty, .foreign:
            if dryRun { return folder }
            try folder.adopt()
        case .legacy:
            if dryRun { return folder }
            notice("notice: \(root) was written by an older venuetiles; taking it over (its tiles are rendered again)")
            try folder.adopt()
            for name in [".venuetiles.lock", ".venuetiles.index", ".venuetiles.intent"] { unlinkIfRegular(root + "/" + name) }
            Verify.removeState(root, folders: [".venuetiles.trash"])
        case .ours:
            break
        }
        try folder.lock(shared: dryRun)
        return folder
    }

    /// Refuses an output on a read-only file system (or the file system of the
    /// nearest folder above it that exists) before anything is written:
    /// otherwise the build would render everything and fail at its first write,
    /// or as root, which ignores permission bits, at the lock with a bare EROFS.
    static func checkWritableFileSystem(_ root: String) throws {
        var path = root.isEmpty ? "." : root
        var vfs = statvfs()
        while statvfs(path, &vfs) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else { return }
            let parent = (path as NSString).deletingLastPathComponent
            if parent == path || parent.isEmpty { return }
            path = parent
        }
        if vfs.f_flag & UInt(ST_RDONLY) != 0 {
            throw OutputFolderError(path: root, problem: "it is on a read-only file system\(path == root ? "" : " (as \(path) is)"): "
                                    + "nothing was written; mount it read-write or choose another folder")
        }
    }

    /// Opens the folder for `venuetiles merge` as `openForBuild` does for a
    /// build, with the merge's path rules: not `/`, not the home folder, and
    /// neither a shard folder nor inside or around one.
    public static func openForMerge(_ root: String, shards: [String], allowExisting: Bool, notice: (String) -> Void) throws -> OutputFolder {
        let out = canonical(root)
        func refuse(_ why: String) -> OutputFolderError { OutputFolderError(path: root, problem: why) }
        if out == "/" { throw refuse("refusing the root folder /: give a folder of its own, such as ./output") }
        if homeFolders().contains(out) { throw refuse("refusing the home folder: give a folder of its own") }
        for s in shards {
            let p = canonical(s)
            if p == out || p.hasPrefix(out + "/") || out.hasPrefix(p + "/") {
                throw refuse("it is, holds or lies inside the shard folder \(s); merge into a folder of its own")
            }
        }
        let folder = OutputFolder(root: root)
        switch try ownership(root) {
        case .foreign(let names) where !allowExisting:
            throw refuse("it is not empty and was not made by venuetiles (it holds \(names.joined(separator: ", "))…); "
                         + "choose an empty or new folder, or pass --allow-existing to merge beside those files (they are never deleted)")
        case .missing, .empty, .foreign, .legacy:
            try folder.adopt()
        case .ours:
            break
        }
        try folder.lock()
        return folder
    }

    /// Creates the folder, `.venuetiles/` and the marker (a format and an id).
    func adopt() throws {
        var st = stat()
        madeFolder = stat(root, &st) != 0
        try mkdirs(root)
        try mkdirNoFollow(root + "/" + OutputFolder.stateFolder)
        guard !OutputFolder.isRegularFile(root + "/" + OutputFolder.ownerName) else { return }
        let doc = "{\"format\": \(OutputFolder.ownerFormat), \"generator\": \"\(Generator.name)\", \"id\": \"\(UUID().uuidString.lowercased())\"}\n"
        try writeNoFollow(OutputFolder.ownerName, Data(doc.utf8))
        wroteMarker = true
    }

    /// Releases the lock at the end of a build. When this run took the folder
    /// over and the build left no manifest (it failed before one), what it made
    /// is removed again: a failed first build leaves the folder as it found it.
    public func release() {
        defer { unlock() }
        guard wroteMarker, !FileManager.default.fileExists(atPath: root + "/" + Manifest.fileName) else { return }
        Verify.removeState(root, folders: [OutputFolder.stateFolder])
        if madeFolder { rmdir(root) }
    }

    /// Takes the folder's lock: `.venuetiles/lock`, a regular file we created
    /// (a symbolic link there is refused, never followed), flock'ed exclusively
    /// (shared for a dry run). Throws `LockError` naming the holder.
    public func lock(shared: Bool = false) throws {
        let p = root + "/" + OutputFolder.stateFolder + "/lock"
        let flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | (shared ? 0 : O_CREAT)
        let fd = open(p, flags, 0o644)
        guard fd >= 0 else {
            let e = errno
            if shared && e == ENOENT { return }  // never built: nothing to read, nothing to guard
            throw OutputFolderError(path: root, problem: e == ELOOP ? "\(p) is a symbolic link; refusing to follow it"
                                    : "cannot open the lock \(p): \(String(cString: strerror(e)))")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_nlink == 1 else {
            close(fd)
            throw OutputFolderError(path: root, problem: "\(p) is not a plain file of ours (a hard link or a special file); remove it by hand")
        }
        if flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            var buf = [UInt8](repeating: 0, count: 64)
            let n = pread(fd, &buf, 64, 0)
            close(fd)
            let holder = String(decoding: buf.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw LockError(path: root, holder: holder.isEmpty ? "lock held" : holder)
        }
        if !shared {
            ftruncate(fd, 0)
            let note = Array("pid \(getpid())\n".utf8)
            _ = note.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        }
        lockFD = fd
    }

    public func unlock() {
        guard lockFD >= 0 else { return }
        flock(lockFD, LOCK_UN)
        close(lockFD)
        lockFD = -1
    }

    // MARK: - paths read from our own state

    /// Checks that a path read from our own manifest, index or intent file names
    /// a file inside the output folder: relative, no empty, `.` or `..`
    /// component, no backslash or NUL, not inside `.venuetiles/`. Symbolic links
    /// on the way are refused where the path is used (`TileStore`).
    public static func checkRelative(_ path: String, file: String) throws {
        var path = path
        try path.withUTF8 { try checkRelative(utf8: $0, file: file) }
    }

    /// `checkRelative` of a path given as UTF-8 bytes: the last build's index
    /// holds a million of them for a large venue, all checked before the
    /// build may plan, and a `String` made of each was most of that wait.
    static func checkRelative(utf8 u: UnsafeBufferPointer<UInt8>, file: String) throws {
        func bad(_ why: String) -> OutputStateError { OutputStateError(file: file, entry: String(decoding: u, as: UTF8.self), problem: why) }
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        guard let first = u.first else { throw bad("an empty path") }
        guard first != slash else { throw bad("an absolute path, outside the output folder") }
        guard u.last != slash else { throw bad("a path that ends with /") }
        var start = 0, firstPart = true
        for i in 0...u.count {
            let b = i < u.count ? u[i] : slash
            if b == 0 || b == UInt8(ascii: "\\") { throw bad("a path with a NUL or a backslash") }
            guard b == slash else { continue }
            let n = i - start
            if n == 0 || (n == 1 && u[start] == dot) { throw bad("a path with an empty or \".\" part") }
            if n == 2 && u[start] == dot && u[start + 1] == dot { throw bad("a path that climbs out of the output folder (\"..\")") }
            if firstPart && UnsafeBufferPointer(rebasing: u[start..<i]).elementsEqual(stateFolder.utf8) {
                throw bad("a path inside \(stateFolder)/, which holds venuetiles' own state")
            }
            firstPart = false
            start = i + 1
        }
    }

    // MARK: - raw calls

    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    private static func unlinkIfRegular(_ path: String) {
        if isRegularFile(path) { unlink(path) }
    }

    private func mkdirs(_ dir: String) throws {
        var st = stat()
        if stat(dir, &st) == 0 {
            guard st.st_mode & S_IFMT == S_IFDIR else { throw OutputFolderError(path: dir, problem: "a file is in the way") }
            return
        }
        let parent = (dir as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != dir { try mkdirs(parent) }
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw OutputFolderError(path: dir, problem: "cannot create the folder: \(String(cString: strerror(errno)))")
        }
    }

    private func mkdirNoFollow(_ dir: String) throws {
        if mkdir(dir, 0o755) == 0 { return }
        var st = stat()
        guard errno == EEXIST, lstat(dir, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else {
            throw OutputFolderError(path: dir, problem: "cannot create venuetiles' state folder: a file or a symbolic link is in the way")
        }
    }

    private func writeNoFollow(_ relative: String, _ data: Data) throws {
        let p = root + "/" + relative
        let fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw OutputFolderError(path: root, problem: "cannot create \(p): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let n = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n == data.count else { throw OutputFolderError(path: root, problem: "cannot write \(p): \(String(cString: strerror(errno)))") }
    }
}
