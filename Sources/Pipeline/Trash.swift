import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Files a build replaces or removes, set aside in the output folder instead
/// of freed: they are what a failed build puts back, and the next build
/// deletes them on a background thread.
///
/// Two reasons. A build that fails half way (disk full, a bad write) renames
/// every old file back and removes the new ones, so the folder is exactly the
/// previous output again (`TileStore.Undo`). And freeing a file's blocks can
/// make the caller wait on the filesystem: on ext4 mounted with `discard`
/// (usual on cloud disks, and on the machine the benchmarks run on) an unlink,
/// or a rename over an existing file, blocked for about 0.9 ms per tile and
/// 40 ms for a 32 MB manifest, with almost no CPU time. A hard link keeps the
/// old file's blocks while the new file is renamed over its name (still one
/// atomic rename for readers); the link is deleted later, where nobody waits.
///
/// Each build sets aside into a folder of its own under `.venuetiles/trash`,
/// so the next build deletes only earlier builds' folders, under the lock.
public final class Trash: @unchecked Sendable {
    public static let folderName = OutputFolder.stateFolder + "/trash"
    private let root: String
    /// This build's folder, made when the first file is set aside (a build
    /// that replaces nothing makes none); -1 until then, or if it cannot be made.
    private var fd: Int32 = -2
    private let made = NSLock()
    private let next = Atomic<Int32>(0)

    public init(root: String) { self.root = root }

    deinit { if fd >= 0 { close(fd) } }

    /// The folder's descriptor, made on first use.
    private func folder() -> Int32 {
        made.lock(); defer { made.unlock() }
        if fd != -2 { return fd }
        fd = -1
        let base = root + "/" + Trash.folderName
        mkdir(root + "/" + OutputFolder.stateFolder, 0o755)
        mkdir(base, 0o755)
        for n in 0..<100 {
            let f = base + "/\(getpid())-\(time(nil))-\(n)"
            if mkdir(f, 0o755) == 0 { fd = open(f, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); break }
            if errno != EEXIST { break }
        }
        return fd
    }

    private func slot() -> (Int32, String) {
        let n = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return (n, "\(n)")
    }

    /// Gives the file `name` in folder `dir`, if there is one, a second name in
    /// the trash, so that renaming another file over it does not free it.
    /// Returns its slot; nil when there was no file. Throws when there is one
    /// that cannot be kept: replacing it then could not be undone.
    func keep(_ dir: Int32, _ name: String) throws -> Int32? {
        // No file, nothing to keep (and no folder to make for it).
        var st = stat()
        guard fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let (n, s) = slot()
        guard linkat(dir, name, folder(), s, 0) == 0 else {
            throw StoreError(operation: "set aside the old file", path: name, reason: "cannot link it into \(root)/\(Trash.folderName): \(String(cString: strerror(errno)))")
        }
        return n
    }

    /// Moves the file `name` in folder `dir` into the trash; its slot, or nil when it could not.
    func take(_ dir: Int32, _ name: String) -> Int32? {
        let (n, s) = slot()
        return renameat(dir, name, folder(), s) == 0 ? n : nil
    }

    /// Renames a slot back to `name` in folder `dir` (over whatever is there).
    func restore(_ slot: Int32, to dir: Int32, _ name: String) {
        renameat(folder(), "\(slot)", dir, name)
    }

    /// Deletes what earlier builds set aside (the folders there now), on a
    /// background thread that the build does not wait for: what is left when
    /// the process exits is deleted by the next build. Called under the lock,
    /// so no running build's folder is among them.
    public static func emptyEarlier(root: String) {
        let base = root + "/" + Trash.folderName
        guard let folders = try? FileManager.default.contentsOfDirectory(atPath: base), !folders.isEmpty else { return }
        DispatchQueue.global().async {
            for f in folders {
                let dir = open(base + "/" + f, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard dir >= 0 else { continue }
                for name in (try? FileManager.default.contentsOfDirectory(atPath: base + "/" + f)) ?? [] { unlinkat(dir, name, 0) }
                close(dir)
                rmdir(base + "/" + f)
            }
        }
    }
}
