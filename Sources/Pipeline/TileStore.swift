import Foundation

/// A filesystem failure with the operation and the path.
public struct StoreError: Error, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var reason: String
    public var description: String { "\(operation) \(path): \(reason)" }
}

/// Writes files under the output root atomically: a temporary name in the
/// same folder, then rename(2), so a reader never sees half a file.
///
/// Used from one writer thread only; it caches the folders it created.
public final class TileStore {
    public let root: String
    private var madeDirs = Set<String>()

    public init(root: String) { self.root = root }

    public func path(_ relative: String) -> String { root + "/" + relative }

    public func write(_ relative: String, _ data: Data) throws {
        let full = path(relative)
        let dir = (full as NSString).deletingLastPathComponent
        try makeDirectory(dir)
        let tmp = dir + "/.tmp-" + (full as NSString).lastPathComponent + "-\(getpid())"
        guard FileManager.default.createFile(atPath: tmp, contents: data) else {
            throw StoreError(operation: "write", path: tmp, reason: String(cString: strerror(errno)))
        }
        if rename(tmp, full) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw StoreError(operation: "rename to", path: full, reason: reason)
        }
    }

    public func makeDirectory(_ dir: String) throws {
        if madeDirs.contains(dir) { return }
        do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
            throw StoreError(operation: "create folder", path: dir, reason: error.localizedDescription)
        }
        madeDirs.insert(dir)
    }

    /// Removes a file and then every folder above it that became empty (up to the root).
    public func remove(_ relative: String) {
        let full = path(relative)
        unlink(full)
        var dir = (full as NSString).deletingLastPathComponent
        while dir.count > root.count && dir.hasPrefix(root) {
            if rmdir(dir) != 0 { break }
            madeDirs.remove(dir)
            dir = (dir as NSString).deletingLastPathComponent
        }
    }
}
