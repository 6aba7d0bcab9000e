@testable import Archives
import Crypto
import Foundation
import TestSupport
import XCTest

final class ZipPackageTests: XCTestCase {
    private func hex(_ d: Data) -> String { SHA256.hash(data: d).map { String(format: "%02x", $0) }.joined() }

    /// A small output tree on disk and the zip entries for it.
    private func tree(_ root: URL) throws -> [ZipPackageWriter.Entry] {
        let files: [(String, Data, Bool)] = [
            ("v/floor_0/png/17/1/2.png", PNGFixture.solid(size: 256, rgba: [10, 20, 30, 255]), false),
            ("v/floor_0/png/17/1/3.png", PNGFixture.solid(size: 256, rgba: [10, 20, 30, 255]), false),
            ("v/floor_0/mvt/17/1/2.pbf", Data([0x1F, 0x8B, 8, 0, 1, 2, 3]), false),
            ("v/floor_0/png/tilejson.json", Data(String(repeating: "{\"tilejson\": \"3.0.0\"}\n", count: 40).utf8), true),
        ]
        var entries = [ZipPackageWriter.Entry]()
        for (path, data, deflate) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            entries.append(.init(name: path, content: .file(path: path, sha256: hex(data), bytes: data.count), deflate: deflate))
        }
        entries.append(.init(name: "manifest.json", content: .data(Data("{\"tiles\": []}\n".utf8)), deflate: true))
        return entries
    }

    func testDeterministicSortedStoredAndDeflated() throws {
        let dir = try Fixtures.tempDir("zip")
        defer { try? FileManager.default.removeItem(at: dir) }
        let entries = try tree(dir.appendingPathComponent("out"))
        let files = TileFiles(root: dir.appendingPathComponent("out").path)
        let a = dir.appendingPathComponent("a.zip").path, b = dir.appendingPathComponent("b.zip").path
        let s = try ZipPackageWriter.write(to: a, entries: entries, files: files)
        XCTAssertEqual([s.entries, s.stored, s.deflated], [5, 3, 2])
        // Files touched later and entries given in another order: the same bytes.
        for e in entries { if case .file(let p, _, _) = e.content { try FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: files.root + "/" + p) } }
        _ = try ZipPackageWriter.write(to: b, entries: entries.reversed(), files: files)
        XCTAssertEqual(FileManager.default.contents(atPath: a), FileManager.default.contents(atPath: b))

        // Python's zipfile, independently: order, methods, times, modes, bytes.
        let script = """
        import hashlib, json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        assert z.testzip() is None
        print(json.dumps([[i.filename, i.compress_type, list(i.date_time), i.external_attr >> 16, hashlib.sha256(z.read(i)).hexdigest()] for i in z.infolist()]))
        """
        let r = try ExternalTools.run("python3", ["-c", script, a])
        XCTAssertEqual(r.status, 0, r.stderr)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [[Any]])
        XCTAssertEqual(list.map { $0[0] as? String }, ["manifest.json", "v/floor_0/mvt/17/1/2.pbf", "v/floor_0/png/17/1/2.png",
                                                       "v/floor_0/png/17/1/3.png", "v/floor_0/png/tilejson.json"])
        XCTAssertEqual(list.map { $0[1] as? Int }, [8, 0, 0, 0, 8], "JSON deflated, tiles stored")
        for row in list {
            XCTAssertEqual(row[2] as? [Int], [1980, 1, 1, 0, 0, 0])
            XCTAssertEqual(row[3] as? Int, 0o100644)
        }
        for e in entries { if case .file(let p, let sha, _) = e.content { XCTAssertTrue(list.contains { $0[0] as? String == p && $0[4] as? String == sha }, p) } }
    }

    func testAFileChangedSinceTheManifestIsRefused() throws {
        let dir = try Fixtures.tempDir("zip-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let entries = try tree(dir.appendingPathComponent("out"))
        let files = TileFiles(root: dir.appendingPathComponent("out").path)
        try Data("changed".utf8).write(to: dir.appendingPathComponent("out/v/floor_0/png/17/1/3.png"))
        let path = dir.appendingPathComponent("a.zip").path
        XCTAssertThrowsError(try ZipPackageWriter.write(to: path, entries: entries, files: files)) { e in
            XCTAssertEqual((e as? ArchiveError)?.format, "tiles")
            XCTAssertTrue("\(e)".contains("v/floor_0/png/17/1/3.png"), "\(e)")
            XCTAssertTrue("\(e)".contains("changed since the build"), "\(e)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        var dup = entries
        dup.append(entries[0])
        XCTAssertThrowsError(try ZipPackageWriter.write(to: path, entries: dup, files: files)) { XCTAssertTrue("\($0)".contains("two entries named"), "\($0)") }
    }
}
