import Crypto
import Foundation

/// Checks an output folder against its manifest: every file present, every
/// hash equal, nothing else there.
public struct VerifyReport: Sendable {
    public var checked = 0
    public var missing: [String] = []
    public var altered: [String] = []
    public var unexpected: [String] = []
    public var isClean: Bool { missing.isEmpty && altered.isEmpty && unexpected.isEmpty }
}

public enum Verify {
    public static func run(output: String) throws -> VerifyReport {
        guard FileManager.default.fileExists(atPath: output + "/" + Manifest.fileName) else {
            throw StoreError(operation: "verify", path: output, reason: "no \(Manifest.fileName): not a venuetiles output folder, or never built")
        }
        guard let manifest = Manifest.load(from: output) else {
            throw StoreError(operation: "verify", path: output + "/" + Manifest.fileName, reason: "cannot be read as a manifest")
        }
        let store = TileStore(root: output)
        var report = VerifyReport()
        var expected = Set<String>([Manifest.fileName])
        for e in manifest.tiles + manifest.files {
            try OutputFolder.checkRelative(e.path, file: store.path(Manifest.fileName))
            expected.insert(e.path)
            report.checked += 1
            // Read without following a symbolic link: a link is not our file.
            guard let d = store.read(e.path) else { report.missing.append(e.path); continue }
            if d.count != e.bytes || Digest32.sha256(d) != e.sha256 { report.altered.append(e.path) }
        }
        if let walker = FileManager.default.enumerator(atPath: output) {
            for case let rel as String in walker {
                // venuetiles' own state: lock, intent, index, and the files the
                // last build replaced (deleted by the next one, see Trash).
                if rel == OutputFolder.stateFolder { walker.skipDescendants(); continue }
                var st = stat()
                guard lstat(output + "/" + rel, &st) == 0 else { continue }
                if st.st_mode & S_IFMT != S_IFDIR && !expected.contains(rel) { report.unexpected.append(rel) }
            }
        }
        report.missing.sort(); report.altered.sort(); report.unexpected.sort()
        return report
    }

    /// What `clean` did.
    public struct CleanReport: Sendable {
        /// Files removed (listed by the manifest or by an unfinished build's intent).
        public var removed = 0
        /// The folder itself is gone.
        public var folderRemoved = false
        /// Entries left because venuetiles did not write them (at most a few named).
        public var kept: [String] = []
    }

    /// Removes what venuetiles wrote into an output folder: the files its
    /// manifest lists (and those an unfinished build meant to write), its own
    /// state, then every folder that became empty, the output folder last.
    /// Refuses a folder without our marker; never follows a symbolic link; a
    /// file it did not write stays, and so do the folders that hold one.
    public static func clean(output: String) throws -> CleanReport {
        var report = CleanReport()
        switch try OutputFolder.ownership(output) {
        case .missing: return report
        case .foreign:
            throw OutputFolderError(path: output, problem: "not made by venuetiles (no \(OutputFolder.ownerName)); nothing removed")
        case .empty, .ours, .legacy: break
        }
        let folder = OutputFolder(root: output)
        if FileManager.default.fileExists(atPath: output + "/" + OutputFolder.stateFolder) { try folder.lock() }
        defer { folder.unlock() }
        let store = TileStore(root: output)
        // Every path is checked before anything is deleted.
        var ours = [String]()
        if let d = store.read(Manifest.fileName) {
            guard let m = try? JSONDecoder().decode(Manifest.self, from: d) else {
                throw OutputStateError(file: store.path(Manifest.fileName), entry: "", problem: "cannot be read as a manifest, so what venuetiles wrote is not known")
            }
            ours = (m.tiles + m.files).map(\.path)
        }
        if let d = store.read(TileStore.intentName) {
            ours += String(decoding: d, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        for p in ours { try OutputFolder.checkRelative(p, file: store.path(Manifest.fileName)) }
        for p in Set(ours).sorted() where store.remove(p) != nil { report.removed += 1 }
        for p in [Manifest.fileName, ".venuetiles.index", ".venuetiles.intent", ".venuetiles.lock"] where store.remove(p) != nil { report.removed += 1 }
        removeState(output, folders: [OutputFolder.stateFolder, ".venuetiles.trash"])
        folder.unlock()
        if rmdir(output) == 0 {
            report.folderRemoved = true
        } else {
            report.kept = ((try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []).sorted()
        }
        return report
    }

    /// Removes `.venuetiles/` (and a 0.3 output's trash): the folders and their
    /// files, opened without following links (a link is removed, not followed).
    static func removeState(_ output: String, folders: [String]) {
        let root = open(output, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard root >= 0 else { return }
        for state in folders { removeTree(root, state, depth: 3) }
        close(root)
    }

    /// Removes `name` in folder `dir`: a file or link is unlinked; a folder is
    /// emptied first, `depth` levels down at most (the trash is three deep).
    private static func removeTree(_ dir: Int32, _ name: String, depth: Int) {
        if unlinkat(dir, name, 0) == 0 || errno == ENOENT { return }
        guard depth > 0 else { return }
        let sub = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard sub >= 0 else { return }
        if let d = fdopendir(dup(sub)) {
            var names = [String]()
            while let e = readdir(d) {
                let n = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if n != "." && n != ".." { names.append(n) }
            }
            closedir(d)
            for n in names { removeTree(sub, n, depth: depth - 1) }
        }
        close(sub)
        unlinkat(dir, name, AT_REMOVEDIR)
    }
}
