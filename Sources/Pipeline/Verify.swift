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
        var report = VerifyReport()
        var expected = Set<String>([Manifest.fileName, TileStore.lockName, BuildIndex.fileName])
        for e in manifest.tiles + manifest.files {
            expected.insert(e.path)
            report.checked += 1
            guard let d = FileManager.default.contents(atPath: output + "/" + e.path) else { report.missing.append(e.path); continue }
            if d.count != e.bytes || Digest32(bytes: SHA256.hash(data: d)) != e.sha256 { report.altered.append(e.path) }
        }
        let root = URL(fileURLWithPath: output).standardizedFileURL.path + "/"
        if let walker = FileManager.default.enumerator(atPath: output) {
            for case let rel as String in walker {
                var isDir: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: root + rel, isDirectory: &isDir)
                // Files the last build replaced, deleted by the next one (see Trash).
                if rel.hasPrefix(Trash.folderName + "/") { continue }
                if !isDir.boolValue && !expected.contains(rel) { report.unexpected.append(rel) }
            }
        }
        report.missing.sort(); report.altered.sort(); report.unexpected.sort()
        return report
    }

    /// Removes an output folder; refuses a folder that is not one.
    public static func clean(output: String) throws -> Bool {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output, isDirectory: &isDir) else { return false }
        guard isDir.boolValue else { throw StoreError(operation: "clean", path: output, reason: "not a folder") }
        let contents = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
        guard contents.isEmpty || contents.contains(Manifest.fileName) || contents.contains(TileStore.intentName) else {
            throw StoreError(operation: "clean", path: output, reason: "holds no \(Manifest.fileName): not a venuetiles output folder, left alone")
        }
        let store = TileStore(root: output)
        try store.lock()
        defer { store.unlock() }
        for name in contents where name != TileStore.lockName {
            try FileManager.default.removeItem(atPath: output + "/" + name)
        }
        store.unlock()
        try? FileManager.default.removeItem(atPath: output)
        return true
    }
}
