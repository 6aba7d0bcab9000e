import Foundation

/// A folder served by a web server (scripts/nginx/venuetiles.conf sets the
/// headers by extension). Files are written under a temporary name and renamed,
/// so a reader never sees part of one; folders left empty by deletes are removed.
public struct FolderDestination: PublishDestination {
    public let root: String
    public var description: String { root }

    public init(root: String) { self.root = root }

    public func read(_ key: String) async throws -> Data? {
        let path = root + "/" + key
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let d = FileManager.default.contents(atPath: path) else {
            throw PublishError.io(path: path, operation: "read", reason: "cannot be read")
        }
        return d
    }

    public func write(_ key: String, data: Data, headers: ObjectHeaders) async throws {
        let path = root + "/" + key
        let dir = (path as NSString).deletingLastPathComponent
        try makeDirectories(dir)
        // A dot name that nginx does not serve, unique per writer.
        let tmp = dir + "/.venuetiles-publish-" + UUID().uuidString
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PublishError.io(path: tmp, operation: "create", reason: posixReason()) }
        var failure: String?
        data.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; failure = posixReason(); return }
                off += n
            }
        }
        if Glibc.close(fd) != 0 && failure == nil { failure = posixReason() }
        if let failure {
            unlink(tmp)
            throw PublishError.io(path: path, operation: "write", reason: failure)
        }
        guard rename(tmp, path) == 0 else {
            let reason = posixReason()
            unlink(tmp)
            throw PublishError.io(path: path, operation: "rename into place", reason: reason)
        }
    }

    public func delete(_ key: String) async throws {
        let path = root + "/" + key
        if unlink(path) != 0 && errno != ENOENT {
            throw PublishError.io(path: path, operation: "delete", reason: posixReason())
        }
        // Remove the folders this left empty, up to (not including) the root;
        // rmdir fails harmlessly on one that still holds something.
        var dir = (path as NSString).deletingLastPathComponent
        while dir.count > root.count && dir.hasPrefix(root + "/") {
            if rmdir(dir) != 0 { break }
            dir = (dir as NSString).deletingLastPathComponent
        }
    }

    public func invalidationPath(_ key: String) -> String { "/" + key }

    public func close() async throws {}

    /// mkdir -p; a file in the way is an error that names it.
    func makeDirectories(_ dir: String) throws {
        var st = stat()
        if stat(dir, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw PublishError.io(path: dir, operation: "create folder", reason: "a file is in the way")
            }
            return
        }
        let parent = (dir as NSString).deletingLastPathComponent
        if parent != dir && !parent.isEmpty { try makeDirectories(parent) }
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw PublishError.io(path: dir, operation: "create folder", reason: posixReason())
        }
    }
}
