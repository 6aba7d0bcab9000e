import Foundation
import XCTest

/// Runs programs the tests check our files with (python3 with PyPI readers,
/// gdalinfo, …). A missing one skips the test with the reason printed, except
/// under CI=true, where scripts/setup has installed it and its absence is a failure.
public enum ExternalTools {
    public struct Output {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        public var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    public static func run(_ executable: String, _ args: [String], cwd: URL? = nil) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [executable] + args
        if let cwd { p.currentDirectoryURL = cwd }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        // Drain stderr on another thread so that neither pipe can fill and block the child.
        final class Box: @unchecked Sendable { var data = Data() }
        let errData = Box()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async { errData.data = err.fileHandleForReading.readDataToEndOfFile(); group.leave() }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: o, stderr: String(decoding: errData.data, as: UTF8.self))
    }

    /// Skips (or fails under CI=true) unless `python3 -c "import <module>"` works.
    public static func requirePython(module: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try? run("python3", ["-c", "import \(module)"])
        if probe?.status != 0 { try missing("python3 with the PyPI package for `\(module)` (scripts/setup installs it)", file: file, line: line) }
    }

    /// `../shared/tools/check_mvt.py`, the strict and independent MVT 2.1 checker, over a folder of
    /// tiles (`--quiet`): its output ends with a count of failed tiles. Skips (fails under CI=true)
    /// without the checker beside the clone or without shapely, which it uses for polygon validity.
    public static func checkMVT(_ folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Output {
        let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/tools/check_mvt.py")
        try skipUnless(FileManager.default.fileExists(atPath: checker.path), needs: "../shared/tools/check_mvt.py beside the clone",
                       file: file, line: line)
        try requirePython(module: "shapely", file: file, line: line)
        return try run("python3", [checker.path, folder.path, "--quiet"])
    }

    /// Skips (or fails under CI=true) unless `program` is on PATH.
    public static func require(program: String, hint: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let probe = try? run("sh", ["-c", "command -v \(program)"])
        if probe?.status != 0 { try missing("\(program) (\(hint))", file: file, line: line) }
    }

    /// Skips with a printed reason unless `ok`; under CI=true, where
    /// scripts/setup installs everything the tests use, fails instead.
    public static func skipUnless(_ ok: Bool, needs what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        if !ok { try missing(what, file: file, line: line) }
    }

    private static func missing(_ what: String, file: StaticString, line: UInt) throws {
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            XCTFail("CI=true and \(what) is missing", file: file, line: line)
            throw XCTSkip("failed above")
        }
        print("skipping: needs \(what)")
        throw XCTSkip("needs \(what)")
    }
}
