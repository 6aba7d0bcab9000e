import Foundation
@testable import Pipeline
import XCTest

/// `MappedColumn` (the whole build's per-tile lists in a mapped temporary
/// file) and the lists built on it: what is stored is what is read, whatever
/// `dropResident` did, and dropping gives the pages back.
final class MappedColumnTests: XCTestCase {
    func testValuesSurviveDroppingTheResidentPages() {
        let c = MappedColumn(repeating: Digest16(high: 0, low: 0), count: 100_000)
        XCTAssertTrue(c.isFileBacked, "TMPDIR (or /tmp) takes a temporary file")
        for i in c.indices { c[i] = Digest16(high: UInt64(i), low: UInt64(i) &* 0x9E37_79B9_7F4A_7C15) }
        c.dropResident()
        XCTAssertTrue(c.indices.allSatisfy { c[$0] == Digest16(high: UInt64($0), low: UInt64($0) &* 0x9E37_79B9_7F4A_7C15) })
        c[99_999] = Digest16(high: 7, low: 7)
        c.dropResident()
        XCTAssertEqual(c[99_999], Digest16(high: 7, low: 7))
        XCTAssertEqual(c.count, 100_000)
    }

    func testThreadsWriteTheirOwnIndicesWhileThePagesAreDropped() {
        let c = MappedColumn(repeating: Int32(-1), count: 1 << 20)
        DispatchQueue.concurrentPerform(iterations: 5) { w in
            if w == 4 {
                for _ in 0..<50 { c.dropResident() }
                return
            }
            for i in stride(from: w, to: c.count, by: 4) { c[i] = Int32(i) }
        }
        c.dropResident()
        XCTAssertTrue(c.indices.allSatisfy { c[$0] == Int32($0) })
    }

    func testDroppingGivesThePagesBack() throws {
        func residentMiB() throws -> Int {
            let statm = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
            return (Int(statm[1])! * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
        }
        let c = MappedColumn(repeating: UInt8(0), count: 128 << 20)
        c.buffer.update(repeating: 1)
        let before = try residentMiB()
        c.dropResident()
        let after = try residentMiB()
        XCTAssertGreaterThanOrEqual(before - after, 100, "128 MiB written, then dropped: resident \(before) -> \(after) MiB")
        XCTAssertEqual(c[(128 << 20) - 1], 1)
        // A column of another value than zero is written a window at a time, each let go of.
        let start = try residentMiB()
        let d = MappedColumn(repeating: UInt16(7), count: 64 << 20)
        let made = try residentMiB()
        XCTAssertLessThan(made - start, 16, "a 128 MiB column of sevens made: resident \(start) -> \(made) MiB")
        XCTAssertTrue(stride(from: 0, to: d.count, by: 4093).allSatisfy { d[$0] == 7 } && d[d.count - 1] == 7)
    }

    func testWithoutATemporaryFolderTheValuesAreInMemory() {
        let old = ProcessInfo.processInfo.environment["TMPDIR"]
        setenv("TMPDIR", "/nonexistent-venuetiles-\(getpid())", 1)
        defer { if let old { setenv("TMPDIR", old, 1) } else { unsetenv("TMPDIR") } }
        let c = MappedColumn([3, 1, 4, 1, 5], placeholder: 0)
        XCTAssertFalse(c.isFileBacked)
        c.dropResident()   // must not zero anonymous memory
        XCTAssertEqual(Array(c), [3, 1, 4, 1, 5])
        XCTAssertEqual(MappedColumn(repeating: 9, count: 0).count, 0)
    }

    func testAMappedPathTableFilledOutOfOrderGivesBackEveryPathInOrder() {
        let paths = (0..<3000).map { "v\($0 % 7)/floor_0/png/\(17 + $0 % 7)/\($0 * 13)/\($0 * 17).png" } + ["é/ü.pbf", "", "last"]
        let columns = ResidentColumns()
        let table = TilePathTable(paths: paths.count, bytes: paths.reduce(0) { $0 + $1.utf8.count }, columns: columns)
        var starts = [0]
        for p in paths { starts.append(starts.last! + p.utf8.count) }
        // Two threads, each its own paths, as the plan's runs fill it.
        let fill = table.filler
        DispatchQueue.concurrentPerform(iterations: 2) { w in
            for i in stride(from: paths.count - 1 - w, through: 0, by: -2) {
                XCTAssertEqual(fill.put(Array(paths[i].utf8), index: i, at: starts[i]), starts[i + 1])
            }
        }
        columns.drop()
        XCTAssertEqual(Array(table), paths)
        XCTAssertEqual(table.byteCount, starts.last!)
    }

    func testMadeTileEntriesWriteTheSameManifestAsAnArray() throws {
        let entries = (0..<40_000).map { i in
            Manifest.TileEntry(path: "v/f/png/21/\(i)/\(i * 3).png", sha256: Digest32(bytes: (0..<32).map { UInt8(truncatingIfNeeded: $0 &+ i) }),
                               bytes: 100 + i, key: Digest16(high: UInt64(i), low: 1))
        }
        let released = Counter()
        let made = Manifest.TileEntries(count: entries.count, entry: { entries[$0] }, letGo: { released.add() })
        func written(_ tiles: Manifest.TileEntries) throws -> Data {
            let m = Manifest(generator: .init(name: "venuetiles", version: "test"), venues: [], tiles: tiles, files: [], blank_tiles: [])
            var d = Data()
            try m.write(workers: 2) { d.append($0) }
            return d
        }
        let fromArray = try written(Manifest.TileEntries(entries))
        XCTAssertEqual(try written(made), fromArray)
        XCTAssertGreaterThan(released.value, 0, "the writer lets go of each run it read")
        XCTAssertEqual(try JSONDecoder().decode(Manifest.self, from: fromArray).tiles, made)
        var appended = made
        appended.append(entries[0])
        XCTAssertEqual(appended.count, entries.count + 1)
        XCTAssertEqual(appended.last, entries[0])
        XCTAssertEqual(made.count, entries.count, "appending to a copy leaves the original")
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
