import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Faults of the machine (issue 23): a file system that fills up during a
/// build, and an output on a read-only file system. Real ones: the test mounts
/// a small tmpfs and a read-only bind mount (root in a sandbox that allows
/// mounts; skipped with the kernel's reason where it refuses).
final class FaultTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var mounts = [String]()

    override func setUpWithError() throws {
        dir = try CLI.tempDir("faults")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)],
                                     extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 20}, "style": "style.json""#)
        try restyle("#D8D0C0")
    }

    override func tearDownWithError() throws {
        for m in mounts.reversed() { _ = try? ExternalTools.run("umount", ["-l", m]) }
        CLI.removeTree(dir)
    }

    // MARK: helpers

    /// The built-in style with the rooms in `colour`: changing it changes most PNG tiles.
    func restyle(_ colour: String) throws {
        let url = CLI.packageRoot.appendingPathComponent("Sources/Styling/Resources/default-style.json")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        doc["styles"] = (doc["styles"] as! [[String: Any]]).map { e in
            var e = e
            if e["layer-id"] as? String == "floor_rooms_[FLOOR]" { e["fill-color"] = colour }
            return e
        }
        try JSONSerialization.data(withJSONObject: doc).write(to: dir.appendingPathComponent("style.json"))
    }

    func mount(_ args: [String], at path: URL) throws {
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let r = try ExternalTools.run("mount", args + [path.path])
        try ExternalTools.skipUnless(r.status == 0, needs: "`mount \(args.joined(separator: " "))` (root where the kernel allows mounts; it said: \(r.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
        mounts.append(path.path)
    }

    func mountTmpfs(_ path: URL, kib: Int) throws {
        try mount(["-t", "tmpfs", "-o", "size=\(kib)k", "venuetiles-test"], at: path)
    }

    func remount(_ path: URL, kib: Int) throws {
        let r = try ExternalTools.run("mount", ["-o", "remount,size=\(kib)k", path.path])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func build(_ output: URL, expect: Int32? = 0, file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q", "--output", output.path])
        if let expect { XCTAssertEqual(r.status, expect, r.stderr, file: file, line: line) }
        return r
    }

    func assertVerifies(_ output: URL, file: StaticString = #filePath, line: UInt = #line) throws {
        let v = try CLI.run(["verify", "--output", output.path])
        XCTAssertEqual(v.status, 0, v.stdout + v.stderr, file: file, line: line)
    }

    func manifest(_ output: URL) throws -> Data { try Data(contentsOf: output.appendingPathComponent("manifest.json")) }

    /// Bytes of the files under `url` (rounded up to pages, as tmpfs counts them).
    func pagesUsed(_ url: URL) -> Int {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: url.path)) ?? []
        return files.reduce(0) { sum, f in
            let size = (try? FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(f).path)[.size] as? Int) ?? 0
            return sum + (size + 4095) / 4096 * 4096
        }
    }

    /// Fills the file system of `folder` but for `leave` bytes.
    func fill(_ folder: URL, leave: Int) throws -> URL {
        let filler = folder.appendingPathComponent("filler")
        let fd = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let chunk = [UInt8](repeating: 0x55, count: 4096)
        var size = 0
        while write(fd, chunk, chunk.count) == chunk.count { size += chunk.count }
        XCTAssertEqual(ftruncate(fd, off_t(max(0, size - leave))), 0)
        close(fd)
        return filler
    }

    // MARK: full file system

    func testAFirstBuildOnAFullFileSystemFailsNamingThePathAndTheNextEqualsACleanBuild() throws {
        let clean = dir.appendingPathComponent("clean")
        _ = try build(clean)
        let needed = pagesUsed(clean)
        let mnt = dir.appendingPathComponent("small")
        try mountTmpfs(mnt, kib: needed / 2 / 1024)
        let out = mnt.appendingPathComponent("out")
        let r = try build(out, expect: nil)
        XCTAssertNotEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
        XCTAssertTrue(r.stderr.contains(mnt.path), "the message names the path: \(r.stderr)")
        // A failed first build leaves nothing behind, not even empty folders.
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), (try? FileManager.default.subpathsOfDirectory(atPath: out.path))?.description ?? "")
        // Space freed: the next build completes and equals a clean one.
        try remount(mnt, kib: needed * 3 / 1024)
        _ = try build(out)
        try assertVerifies(out)
        XCTAssertEqual(try manifest(out), try manifest(clean))
    }

    func testAnIncrementalBuildOnAFullFileSystemKeepsThePreviousOutputAndTheNextEqualsACleanBuild() throws {
        let clean = dir.appendingPathComponent("clean")
        _ = try build(clean)
        let mnt = dir.appendingPathComponent("small")
        try mountTmpfs(mnt, kib: pagesUsed(clean) * 3 / 1024)
        let out = mnt.appendingPathComponent("out")
        _ = try build(out)
        let before = CLI.snapshot(out)
        // Nearly full, and an edit that changes most tiles.
        try restyle("#3366CC")
        for leave in [0, 64 << 10] {
            let filler = try fill(mnt, leave: leave)
            let r = try build(out, expect: nil)
            XCTAssertNotEqual(r.status, 0, "free \(leave): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("No space left on device") && r.stderr.contains(mnt.path), "free \(leave): \(r.stderr)")
            XCTAssertEqual(CLI.snapshot(out), before, "free \(leave): the previous output, exactly")
            try assertVerifies(out)
            try FileManager.default.removeItem(at: filler)
        }
        _ = try build(out)
        try assertVerifies(out)
        let clean2 = dir.appendingPathComponent("clean2")
        _ = try build(clean2)
        XCTAssertEqual(try manifest(out), try manifest(clean2))
    }

    // MARK: read-only output

    func testAReadOnlyOutputIsRefusedBeforeAnythingIsWritten() throws {
        let src = dir.appendingPathComponent("rw")
        let out = src.appendingPathComponent("out")
        _ = try build(out)
        let ro = dir.appendingPathComponent("ro")
        try mount(["--bind", src.path], at: ro)
        let r0 = try ExternalTools.run("mount", ["-o", "remount,bind,ro", ro.path])
        try ExternalTools.skipUnless(r0.status == 0, needs: "a read-only bind remount (it said: \(r0.stderr))")
        let roOut = ro.appendingPathComponent("out")
        let before = CLI.snapshot(roOut, state: true)
        try restyle("#3366CC")
        let r = try build(roOut, expect: nil)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("read-only file system") && r.stderr.contains(roOut.path), r.stderr)
        XCTAssertEqual(CLI.snapshot(roOut, state: true), before)
        try assertVerifies(roOut)
        // A first build into a read-only folder: the same.
        try FileManager.default.createDirectory(at: src.appendingPathComponent("empty"), withIntermediateDirectories: true)
        let r2 = try build(ro.appendingPathComponent("empty"), expect: nil)
        XCTAssertEqual(r2.status, 1, r2.stderr)
        XCTAssertTrue(r2.stderr.contains("read-only file system"), r2.stderr)
        let r3 = try build(ro.appendingPathComponent("new/out"), expect: nil)
        XCTAssertEqual(r3.status, 1, r3.stderr)
        XCTAssertTrue(r3.stderr.contains("read-only file system"), r3.stderr)
    }
}
