import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Files an incremental build replaces or removes, set aside in the output
/// folder instead of freed, and deleted by the next build on a background thread.
///
/// Freeing a file's blocks can make the caller wait on the filesystem. On ext4
/// mounted with `discard` (usual on cloud disks, and on the machine the
/// benchmarks run on) an unlink, or a rename over an existing file, blocked for
/// about 0.9 ms per tile and 40 ms for a 32 MB manifest, with almost no CPU
/// time: on a one-unit edit of the medium venue that was a quarter of the wall
/// time. A hard link keeps the old file's blocks while the new file is renamed
/// over its name (still one atomic rename for readers); the link is deleted
/// later, where nobody waits for it.
///
/// Each build sets aside into a folder of its own, so the next build deletes
/// only earlier builds' folders. The output lock keeps two builds apart.
public final class Trash: Sendable {
    public static let folderName = ".venuetiles.trash"
    /// The most files a build sets aside. Deleting one took up to about 1 ms of
    /// waiting (a tile written and synced just before; 33 µs each in a bulk
    /// delete of 40,000), so the next build (an edit takes a third of a second)
    /// may delete only a few hundred; a trash of this size is gone after a few builds.
    public static let maxFiles = 2048
    /// This build's folder.
    public let folder: String
    private let next = Atomic<Int>(0)

    public init(root: String) throws {
        let base = root + "/" + Trash.folderName
        mkdir(base, 0o755)
        var n = 0
        var folder: String
        repeat {
            folder = base + "/\(getpid())-\(time(nil))-\(n)"
            n += 1
            if mkdir(folder, 0o755) == 0 { break }
            guard errno == EEXIST, n < 100 else {
                throw StoreError(operation: "create folder", path: folder, reason: String(cString: strerror(errno)))
            }
        } while true
        self.folder = folder
    }

    private func slot() -> String { folder + "/\(next.wrappingAdd(1, ordering: .relaxed).oldValue)" }

    /// Gives the file at `path`, if there is one, a second name in the trash,
    /// so that renaming another file over `path` does not free it.
    func keep(_ path: String) {
        _ = link(path, slot())
    }

    /// Moves the file at `path` into the trash; false when it could not.
    func take(_ path: String) -> Bool {
        rename(path, slot()) == 0
    }

    /// Deletes what earlier builds set aside (the folders there now), on a
    /// background thread that the build does not wait for: what is left when
    /// the process exits is deleted by the next build.
    ///
    /// Called first thing, before the output lock: a build that is still
    /// running elsewhere only loses its set-aside files early (its links then
    /// fail, and its renames free the old files as they would without a trash).
    public static func emptyEarlier(root: String) {
        let base = root + "/" + Trash.folderName
        guard let folders = try? FileManager.default.contentsOfDirectory(atPath: base), !folders.isEmpty else { return }
        DispatchQueue.global().async {
            for f in folders {
                let dir = base + "/" + f
                for name in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] { unlink(dir + "/" + name) }
                rmdir(dir)
            }
        }
    }
}
