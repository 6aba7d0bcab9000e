import Crypto
import Foundation
import XCTest

/// Runs the built `venuetiles` binary, as a user or a script would.
enum CLI {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var binary: String {
        // The test bundle sits next to the products of the same build.
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [dir.appendingPathComponent("venuetiles").path,
                          packageRoot.appendingPathComponent(".build/debug/venuetiles").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    struct Result {
        var status: Int32; var stdout: String; var stderr: String

        /// The "N rendered" count of a build's summary line; -1 when there is none.
        var rendered: Int {
            guard let range = stdout.range(of: #"(\d+) rendered"#, options: .regularExpression) else { return -1 }
            return Int(stdout[range].split(separator: " ")[0]) ?? -1
        }
    }

    /// Starts the binary without waiting (its output goes to /dev/null).
    static func start(_ args: [String], env: [String: String] = [:]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(env) { _, b in b }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    /// Waits (at most 120 s) until a file exists: a build paused by `VENUETILES_TEST_PAUSE` made it.
    static func waitForFile(_ path: String) throws {
        for _ in 0..<1200 where !FileManager.default.fileExists(atPath: path) { usleep(100_000) }
        guard FileManager.default.fileExists(atPath: path) else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
    }

    static func run(_ args: [String], cwd: URL? = nil, env: [String: String] = [:]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = args
        if !env.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(env) { _, b in b } }
        if let cwd { p.currentDirectoryURL = cwd }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Read before waiting so a full pipe cannot block the child.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Removes a folder of test output without waiting: unlinking thousands of
    /// tiles takes seconds on a filesystem mounted with `discard`, and nothing
    /// in the tests depends on the folder being gone.
    static func removeTree(_ url: URL) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/rm")
        p.arguments = ["-rf", url.path]
        try? p.run()
    }

    /// Edits the features of a GeoJSON FeatureCollection file in place.
    static func editFeatures(_ url: URL, _ body: (inout [[String: Any]]) -> Void) throws {
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var feats = doc["features"] as! [[String: Any]]
        body(&feats)
        doc["features"] = feats
        try JSONSerialization.data(withJSONObject: doc, options: [.sortedKeys]).write(to: url)
    }

    static func tempDir(_ name: String) throws -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("venuetiles-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: u, withIntermediateDirectories: true)
        return u
    }

    static var fixture: URL { packageRoot.appendingPathComponent("Tests/VenueFormatsTests/Fixtures/harbour-arcade") }

    static func writeConfig(_ dir: URL, sources: [(String, String, String)], extra: String = "") throws -> URL {
        let list = sources.map { #"{"id": "\#($0.0)", "format": "\#($0.1)", "path": "\#($0.2)"}"# }.joined(separator: ", ")
        let text = """
        {"output": "out", "zoom": {"min": 17, "max": 23}, "sources": [\(list)]\(extra)}
        """
        let url = dir.appendingPathComponent("pipeline.json")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Every file under `dir` with its SHA-256 and modification time, but for
    /// venuetiles' own state (`.venuetiles/`: lock, index, trash), which is not
    /// output (unless `state`).
    static func snapshot(_ dir: URL, state: Bool = false) -> [String: String] {
        var out = [String: String]()
        guard let e = FileManager.default.enumerator(atPath: dir.path) else { return out }
        for case let rel as String in e {
            if !state && (rel == ".venuetiles" || rel.hasSuffix("/.venuetiles")) { e.skipDescendants(); continue }
            let path = dir.appendingPathComponent(rel).path
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: path, isDirectory: &isDir)
            if isDir.boolValue { out[rel] = "dir"; continue }
            let data = FileManager.default.contents(atPath: path) ?? Data()
            let mtime = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            out[rel] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() + "@\(mtime)"
        }
        return out
    }
}
