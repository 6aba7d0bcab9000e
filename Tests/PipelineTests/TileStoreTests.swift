import Foundation
@testable import Pipeline
import XCTest

/// Tiles are written relative to the folder of the last one; the folder may
/// vanish between two writes (another writer removed its last file).
final class TileStoreTests: XCTestCase {
    var root = ""

    override func setUpWithError() throws {
        root = NSTemporaryDirectory() + "tilestore-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: root)
    }

    func contents(_ relative: String) -> Data? { FileManager.default.contents(atPath: root + "/" + relative) }

    /// The merge's placement: a hard link to the shard's file on one file
    /// system, a copy across two (here /dev/shm, where it is another file
    /// system than the temporary folder); undone by `revertFiles` either way,
    /// the replaced file put back from the trash.
    func testLinkRecordedLinksOrCopiesAndIsUndone() throws {
        for sourceBase in [NSTemporaryDirectory(), "/dev/shm/"] where FileManager.default.fileExists(atPath: sourceBase) {
            let sourceRoot = sourceBase + "tilestore-src-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: sourceRoot) }
            let source = TileStore(root: sourceRoot)
            try source.write("a/17/1/2.png", Data([9, 9, 9]))
            try source.write("a/17/1/3.png", Data([8]))
            let out = TileStore(root: root, trash: Trash(root: root))
            try out.write("a/17/1/3.png", Data([1, 2]))   // replaced, then put back
            try out.linkRecorded("a/17/1/2.png", from: source)
            try out.linkRecorded("a/17/1/3.png", from: source)
            XCTAssertEqual(contents("a/17/1/2.png"), Data([9, 9, 9]))
            XCTAssertEqual(contents("a/17/1/3.png"), Data([8]))
            var a = stat(), b = stat()
            XCTAssertEqual(stat(sourceRoot + "/a/17/1/2.png", &a), 0)
            XCTAssertEqual(stat(root + "/a/17/1/2.png", &b), 0)
            XCTAssertEqual(a.st_ino == b.st_ino && a.st_dev == b.st_dev, a.st_dev == b.st_dev, "a link on one file system, a copy across two")
            XCTAssertEqual(out.statusInOrder("a/17/1/2.png")?.size, 3)
            XCTAssertNil(source.statusInOrder("a/17/1/4.png"))
            out.revertFiles()
            XCTAssertNil(contents("a/17/1/2.png"))
            XCTAssertEqual(contents("a/17/1/3.png"), Data([1, 2]))
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: sourceRoot + "/a/17/1/2.png")), Data([9, 9, 9]), "the shard's file stays")
            XCTAssertThrowsError(try out.linkRecorded("a/17/1/5.png", from: source))
            try FileManager.default.removeItem(atPath: root + "/a")
        }
    }

    func testWritesInPlaceWithoutTemporaryFilesAcrossFolders() throws {
        let store = TileStore(root: root)
        try store.write("p/17/1/2.png", Data([1, 2, 3]))
        try store.write("p/17/1/3.png", Data([4]))
        try store.write("p/18/2/4.png", Data([5, 6]))
        try store.write("p/17/1/2.png", Data([7]))   // back to the first folder, replacing a file
        XCTAssertEqual(contents("p/17/1/2.png"), Data([7]))
        XCTAssertEqual(contents("p/17/1/3.png"), Data([4]))
        XCTAssertEqual(contents("p/18/2/4.png"), Data([5, 6]))
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(left, [], "no temporary file left behind")
    }

    /// A vector group writes one tile into each floor's pyramid and the
    /// venue-wide one in turn: more folders than the store keeps open.
    func testWritesTakingTurnsAcrossMoreFoldersThanKeptOpen() throws {
        let store = TileStore(root: root)
        for round in 0..<3 {
            for floor in 0..<20 {
                try store.write("v/f\(floor)/21/7/\(round).pbf", Data([UInt8(floor), UInt8(round)]))
            }
        }
        for round in 0..<3 {
            for floor in 0..<20 {
                XCTAssertEqual(contents("v/f\(floor)/21/7/\(round).pbf"), Data([UInt8(floor), UInt8(round)]))
            }
        }
        // A folder removed by the store is made again, whichever open folders it held.
        for round in 0..<3 { store.remove("v/f3/21/7/\(round).pbf") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/v/f3"))
        try store.write("v/f3/21/7/9.pbf", Data([9]))
        try store.write("v/f4/21/7/9.pbf", Data([8]))
        XCTAssertEqual(contents("v/f3/21/7/9.pbf"), Data([9]))
        XCTAssertEqual(contents("v/f4/21/7/9.pbf"), Data([8]))
        let left = try FileManager.default.subpathsOfDirectory(atPath: root).filter { $0.hasSuffix(".tmp") }
        XCTAssertEqual(left, [])
    }

    /// Pages given back after a piece of the old manifest was copied are read
    /// again from the file if touched: the bytes stay the same.
    func testReleasedPagesOfAMappedFileReadTheSameAgain() throws {
        let path = root + "/big"
        let bytes = (0..<(3 * 65_536 + 123)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let m = try XCTUnwrap(MappedFile(path: path))
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
        // An unaligned piece in the middle, then everything, then a piece that is not this mapping's.
        m.release(UnsafeRawBufferPointer(rebasing: m.bytes[1000..<150_000]))
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
        m.release(m.bytes)
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
        bytes.withUnsafeBytes { m.release($0) }
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
        // Everything up to the end of a piece (its first page and the one it
        // shares with the next included), and a piece of another buffer.
        m.release(through: UnsafeRawBufferPointer(rebasing: m.bytes[70_000..<70_100]))
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
        bytes.withUnsafeBytes { m.release(through: $0) }
        XCTAssertTrue(m.bytes.elementsEqual(bytes))
    }

    /// Reading a mapped file in order and releasing through each piece keeps
    /// little of it resident, pages shared by neighbouring pieces included.
    func testReleasingThroughEachPieceKeepsLittleResident() throws {
        let path = root + "/manifest-like"
        try Data(repeating: 0x7B, count: 48 << 20).write(to: URL(fileURLWithPath: path))
        let m = try XCTUnwrap(MappedFile(path: path))
        func resident() throws -> Int {
            let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
            return (Int(statm[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
        }
        let before = try resident()
        var sum = 0, at = 0
        // Pieces of 10,000 bytes: no piece covers a whole page's neighbours alone.
        while at < m.size {
            let piece = UnsafeRawBufferPointer(rebasing: m.bytes[at..<min(at + 10_000, m.size)])
            sum += Int(piece.first!) + Int(piece.last!)
            m.release(through: piece)
            at += piece.count
        }
        XCTAssertEqual(sum, 2 * 0x7B * (((48 << 20) + 9_999) / 10_000))
        XCTAssertLessThan(try resident() - before, 8, "48 MiB read a piece at a time")
    }

    func testFolderRemovedBetweenWritesIsMadeAgain() throws {
        let store = TileStore(root: root)
        try store.write("p/20/5/6.png", Data([1]))
        // Someone else empties and removes the folder the store holds open.
        XCTAssertEqual(unlink(root + "/p/20/5/6.png"), 0)
        XCTAssertEqual(rmdir(root + "/p/20/5"), 0)
        try store.write("p/20/5/7.png", Data([2]))
        XCTAssertEqual(contents("p/20/5/7.png"), Data([2]))
        // The store's own remove takes the emptied folders away; the next write makes them again.
        store.remove("p/20/5/7.png")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/p/20"))
        try store.write("p/20/5/8.png", Data([3]))
        XCTAssertEqual(contents("p/20/5/8.png"), Data([3]))
    }

    /// A replaced file keeps its old bytes until the switch; a new file goes
    /// in at once; a failed build puts back every one, whichever step it reached.
    func testStagedFilesChangeOnlyAtTheSwitchAndRevertFromEitherSide() throws {
        let store = TileStore(root: root, trash: Trash(root: root))
        try store.write("p/17/1/old.png", Data([1]))
        try store.write("p/17/1/gone.png", Data([2]))
        XCTAssertEqual(try store.write("p/17/1/old.png", Data([9]), stage: true), .staged)
        XCTAssertEqual(try store.write("p/17/1/new.png", Data([3]), stage: true), .created)
        XCTAssertEqual(contents("p/17/1/old.png"), Data([1]), "the old bytes until the switch")
        XCTAssertEqual(contents("p/17/1/.old.png.tmp"), Data([9]))
        XCTAssertEqual(contents("p/17/1/new.png"), Data([3]))

        // Reverted before the switch: the staged file goes, the old one was never touched.
        store.revert("p/17/1/old.png", .staged)
        XCTAssertNil(contents("p/17/1/.old.png.tmp"))
        XCTAssertEqual(contents("p/17/1/old.png"), Data([1]))

        XCTAssertEqual(try store.write("p/17/1/old.png", Data([9]), stage: true), .staged)
        let replaced = try XCTUnwrap(try store.switchStaged("p/17/1/old.png", .staged))
        let removed = try XCTUnwrap(try store.switchStaged("p/17/1/gone.png", .removeAtSwitch))
        XCTAssertEqual(contents("p/17/1/old.png"), Data([9]))
        XCTAssertNil(contents("p/17/1/gone.png"))
        XCTAssertNil(contents("p/17/1/.old.png.tmp"))

        // Reverted after the switch: the trash gives the old files back.
        store.revert("p/17/1/old.png", replaced)
        store.revert("p/17/1/gone.png", removed)
        XCTAssertEqual(contents("p/17/1/old.png"), Data([1]))
        XCTAssertEqual(contents("p/17/1/gone.png"), Data([2]))
    }

    /// The tile writer's stores (each path written once in a build) look no
    /// name up in a folder they made themselves; in a folder that was there
    /// before, or that another of them made, a file in place is still staged.
    func testWriterStoresLookUpNamesOnlyInFoldersTheyDidNotMake() throws {
        try TileStore(root: root).write("p/17/1/old.png", Data([1]))   // the last build's
        let trash = Trash(root: root)
        let a = TileStore(root: root, trash: trash, eachPathOnce: true)
        let b = TileStore(root: root, trash: trash, eachPathOnce: true)
        XCTAssertEqual(try a.write("p/17/1/old.png", Data([9]), stage: true), .staged)
        XCTAssertEqual(try a.write("p/18/1/new.png", Data([2]), stage: true), .created)
        // Something a build does not write appears in a's folder: b did not make it, so b looks and stages.
        try Data([5]).write(to: URL(fileURLWithPath: root + "/p/18/1/foreign.png"))
        XCTAssertEqual(try b.write("p/18/1/foreign.png", Data([6]), stage: true), .staged)
        XCTAssertEqual(contents("p/18/1/foreign.png"), Data([5]), "the old bytes until the switch")
        XCTAssertEqual(contents("p/17/1/old.png"), Data([1]))
        XCTAssertEqual(contents("p/18/1/new.png"), Data([2]))
        XCTAssertNil(contents("p/18/1/.new.png.tmp"))
    }

    /// Small files staged by path switch together, and revert like tiles.
    func testStagedSmallFilesSwitchTogether() throws {
        try TileStore(root: root).writeFile("a/tilejson.json", Data("old".utf8))   // the last build's
        let store = TileStore(root: root, trash: Trash(root: root))
        XCTAssertTrue(try store.writeIfChanged("a/tilejson.json", Data("new".utf8), stage: true))
        XCTAssertEqual(contents("a/tilejson.json"), Data("old".utf8))
        try store.switchStagedFiles()
        XCTAssertEqual(contents("a/tilejson.json"), Data("new".utf8))
        store.revertFiles()
        XCTAssertEqual(contents("a/tilejson.json"), Data("old".utf8))
    }
}
