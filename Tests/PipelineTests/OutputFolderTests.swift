import Foundation
@testable import Pipeline
import XCTest

/// The rules `OutputFolder` keeps, in-process: which paths from our own state
/// are accepted, which output folders are refused, and what counts as ours.
final class OutputFolderTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "outputfolder-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: root) }

    func testRelativePathsFromOurStateMustStayInside() {
        for good in ["a.png", "venue/floor_0/png/17/1/2.png", "v/all/mvt/tilejson.json", "v/.hidden", "v/..x/y", "...", "v/.venuetiles", ".venuetilesx/a"] {
            XCTAssertNoThrow(try OutputFolder.checkRelative(good, file: "m"), good)
        }
        let bad: [(String, String)] = [
            ("", "empty"), ("/etc/passwd", "absolute"), ("../victim.txt", "climbs out"), ("a/../../b", "climbs out"),
            ("a//b", "empty or \".\""), ("./a", "empty or \".\""), ("a/", "ends with /"), ("a\\b", "backslash"),
            ("a\u{0}b", "NUL"), (".venuetiles/lock", "venuetiles' own state"), (".venuetiles", "venuetiles' own state"),
            ("..", "climbs out"), ("a/..", "climbs out"), ("a/.", "empty or \".\""), (".", "empty or \".\""), ("/", "absolute"),
        ]
        for (path, why) in bad {
            XCTAssertThrowsError(try OutputFolder.checkRelative(path, file: "manifest.json"), path) { e in
                let text = "\(e)"
                XCTAssertTrue(text.contains(why) && text.contains("manifest.json"), "\(path): \(text)")
            }
        }
    }

    func config(sources: [String], file: String) throws -> PipelineConfig {
        let list = sources.map { #"{"id": "s\#($0.count)", "format": "imdf", "path": "\#($0)"}"# }.joined(separator: ",")
        return try PipelineConfig.parse(Data(#"{"sources": [\#(list)]}"#.utf8), file: file)
    }

    func testOutputPathRules() throws {
        let venue = root + "/data/venue"
        try FileManager.default.createDirectory(atPath: venue, withIntermediateDirectories: true)
        let c = try config(sources: [venue], file: root + "/conf/pipeline.json")
        XCTAssertNoThrow(try OutputFolder.checkPath(root + "/conf/out", config: c))
        XCTAssertNoThrow(try OutputFolder.checkPath(root + "/data/tiles", config: c))
        for (path, why) in [("/", "root folder"), (root + "/conf", "holds the config"), (root, "holds the config"),
                            (root + "/data", "holds source"), (venue, "holds source"), (venue + "/out", "inside source"),
                            (root + "/conf/out/..", "holds the config")] {
            XCTAssertThrowsError(try OutputFolder.checkPath(path, config: c), path) { XCTAssertTrue("\($0)".contains(why), "\(path): \($0)") }
        }
        // A link to the source folder is the source folder.
        try FileManager.default.createSymbolicLink(atPath: root + "/alias", withDestinationPath: venue)
        XCTAssertThrowsError(try OutputFolder.checkPath(root + "/alias", config: c))
        XCTAssertThrowsError(try OutputFolder.checkPath(root + "/alias/sub", config: c))
    }

    func testOwnership() throws {
        XCTAssertEqual(try OutputFolder.ownership(root + "/missing"), .missing)
        XCTAssertEqual(try OutputFolder.ownership(root), .empty)
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        XCTAssertEqual(try OutputFolder.ownership(root), .empty, "empty folders only")
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/a/manifest.json"))
        XCTAssertEqual(try OutputFolder.ownership(root), .foreign(["a"]))
        let folder = OutputFolder(root: root)
        try folder.adopt()
        XCTAssertEqual(try OutputFolder.ownership(root), .ours)
        XCTAssertThrowsError(try OutputFolder.ownership(root + "/a/manifest.json")) { XCTAssertTrue("\($0)".contains("not a folder")) }
        // A 0.3 output: our manifest and state beside it, no marker.
        let old = root + "/old"
        try FileManager.default.createDirectory(atPath: old, withIntermediateDirectories: true)
        try Data(#"{"generator": {"name": "venuetiles", "version": "0.3.0"}}"#.utf8).write(to: URL(fileURLWithPath: old + "/manifest.json"))
        XCTAssertEqual(try OutputFolder.ownership(old), .foreign(["manifest.json"]))
        try Data().write(to: URL(fileURLWithPath: old + "/.venuetiles.index"))
        XCTAssertEqual(try OutputFolder.ownership(old), .legacy)
    }

    func testTheLockIsExclusiveAndRefusesALink() throws {
        let a = OutputFolder(root: root)
        try a.adopt()
        try a.lock()
        let b = OutputFolder(root: root)
        XCTAssertThrowsError(try b.lock()) { XCTAssertTrue($0 is LockError) }
        a.unlock()
        XCTAssertNoThrow(try b.lock())
        b.unlock()
        let lock = root + "/.venuetiles/lock"
        try FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createSymbolicLink(atPath: lock, withDestinationPath: root + "/target")
        XCTAssertThrowsError(try b.lock()) { XCTAssertTrue("\($0)".contains("symbolic link"), "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/target"), "a dangling link's target is not created")
    }

    /// A failed build's writes are undone: replaced files come back, new ones go.
    func testTheStoreUndoesWhatItDid() throws {
        let store = TileStore(root: root, trash: Trash(root: root))
        try FileManager.default.createDirectory(atPath: root + "/p/1", withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: root + "/p/1/a.png"))
        try Data("gone".utf8).write(to: URL(fileURLWithPath: root + "/p/1/b.png"))
        let replaced = try store.write("p/1/a.png", Data("new".utf8))
        let created = try store.write("p/2/c.png", Data("c".utf8))
        let removed = try XCTUnwrap(store.remove("p/1/b.png"))
        XCTAssertEqual(created, .created)
        store.revert("p/1/b.png", removed)
        store.revert("p/2/c.png", created)
        store.revert("p/1/a.png", replaced)
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/p/1/a.png"), Data("old".utf8))
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/p/1/b.png"), Data("gone".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/p/2"))
    }
}
