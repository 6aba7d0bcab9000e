import Foundation
@testable import Pipeline
import XCTest

/// `FileSpill` (client files and meshes waiting for the commit): what goes
/// in comes out, byte for byte. (`TilePathTable`: MappedColumnTests.)
final class FileSpillTests: XCTestCase {
    func testContentsComeBackAndEachIsStoredOnce() throws {
        let spill = FileSpill()
        let a = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let b = Data("style.json".utf8)
        let ra = try spill.put(a), rb = try spill.put(b), rEmpty = try spill.put(Data())
        XCTAssertEqual(try spill.put(Data(a)), ra, "the same content is stored once")
        XCTAssertNotEqual(ra, rb)
        XCTAssertEqual(try spill.get(rb), b)
        XCTAssertEqual(try spill.get(ra), a)
        XCTAssertEqual(try spill.get(rEmpty), Data())
        XCTAssertGreaterThanOrEqual(ra.offset, 0, "kept in the temporary file")
    }

    func testWithoutATemporaryFolderTheContentsStayInMemory() throws {
        let old = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", "/nonexistent-venuetiles-\(getpid())", 1)
        defer { if let old { setenv("TMPDIR", old, 1) } else { unsetenv("TMPDIR") } }
        let spill = FileSpill()
        let r = try spill.put(Data("index.html".utf8))
        XCTAssertLessThan(r.offset, 0, "no file could be made")
        XCTAssertEqual(try spill.get(r), Data("index.html".utf8))
    }
}
