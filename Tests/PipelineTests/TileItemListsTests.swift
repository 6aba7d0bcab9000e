@testable import Pipeline
import TileGeometry
import XCTest

/// `TileItemLists` against the per-tile arrays it replaces, on random lists
/// (empty lists among them), and the plan operations built on it.
final class TileItemListsTests: XCTestCase {
    /// Deterministic random lists: 0–6 indices each, about one in five empty.
    func randomLists(_ count: Int, seed: UInt64) -> [[Int32]] {
        var g = SplitMix(seed: seed)
        return (0..<count).map { _ in
            let n = g.next() % 5 == 0 ? 0 : Int(g.next() % 7)
            return (0..<n).map { _ in Int32(g.next() % 50) }
        }
    }

    func assertSame(_ flat: TileItemLists, _ model: [[Int32]], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(flat.count, model.count, file: file, line: line)
        XCTAssertEqual(flat.map { Array($0) }, model, file: file, line: line)
        XCTAssertEqual(flat.items, model.flatMap { $0 }, "the flat array is the lists one after another", file: file, line: line)
    }

    func testListsAndOffsetsMatchPerTileArrays() {
        for seed in 0..<20 as Range<UInt64> {
            let model = randomLists(Int(seed) * 7, seed: seed)
            var appended = TileItemLists()
            for l in model { appended.append(l) }
            assertSame(appended, model)
            assertSame(TileItemLists(model), model)
            XCTAssertEqual(appended, TileItemLists(model))
            // Each list is a slice of the flat array, at its own offset.
            var offset = 0
            for (i, l) in model.enumerated() {
                XCTAssertEqual(appended[i].startIndex, offset)
                XCTAssertEqual(appended[i].endIndex, offset + l.count)
                offset += l.count
            }
        }
    }

    func testEmpty() {
        let none = TileItemLists()
        XCTAssertTrue(none.isEmpty)
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual(none.selecting([]), none)
        XCTAssertEqual(none.prefixing([1, 2]), none)
        // Empty lists still count as tiles, and a list after them starts where they end.
        var lists = TileItemLists()
        lists.append([Int32]())
        lists.append([Int32]())
        lists.append([Int32(3)])
        XCTAssertEqual(lists.count, 3)
        XCTAssertTrue(lists[0].isEmpty && lists[1].isEmpty)
        XCTAssertEqual(Array(lists[2]), [3])
        XCTAssertNotEqual(lists, TileItemLists([[Int32(3)]]))
    }

    func testSelectingMappingAndPrefixing() {
        for seed in 100..<120 as Range<UInt64> {
            let model = randomLists(40, seed: seed)
            let flat = TileItemLists(model)
            var g = SplitMix(seed: seed)
            let positions = (0..<model.count).filter { _ in g.next() % 3 != 0 }
            assertSame(flat.selecting(positions), positions.map { model[$0] })
            assertSame(flat.selecting([5, 2, 5]), [model[5], model[2], model[5]])
            assertSame(flat.mappingItems { $0 >= 20 ? $0 + 7 : $0 }, model.map { $0.map { $0 >= 20 ? $0 + 7 : $0 } })
            assertSame(flat.prefixing([0, 1]), model.map { [0, 1] + $0 })
            assertSame(flat.prefixing([]), model)
            XCTAssertEqual(flat.exactSize(), flat)
            var two = TileItemLists()
            for (a, b) in zip(model, model.reversed()) { two.append(a, then: b) }
            assertSame(two, zip(model, model.reversed()).map { $0 + $1 })
        }
    }

    func plan(_ tiles: [TileID], _ lists: [[Int32]]) -> FloorZoomPlan {
        FloorZoomPlan(zoom: tiles.first?.z ?? 20, tiles: tiles, items: TileItemLists(lists))
    }

    func testRestrictionKeepsTheListsOfTheKeptTiles() throws {
        let tiles = (0..<30).map { TileID(z: 20, x: 100 + $0 / 6, y: 200 + $0 % 6) }
        let model = randomLists(tiles.count, seed: 7)
        let p = plan(tiles, model)
        let keep = [0, 3, 4, 11, 29]
        let cut = try XCTUnwrap(p.restricted(to: PlannedTiles(zoom: 20, keep.map { tiles[$0] })))
        XCTAssertEqual(Array(cut.tiles), keep.map { tiles[$0] })
        assertSame(cut.items, keep.map { model[$0] })
        XCTAssertNil(p.restricted(to: PlannedTiles(zoom: 20, [TileID(z: 20, x: 1, y: 1)])), "a tile the plan does not have")
        XCTAssertNil(p.restricted(to: nil))
        assertSame(try XCTUnwrap(p.restricted(to: PlannedTiles(zoom: 20, []))).items, [])
        assertSame(try XCTUnwrap(p.restricted(to: PlannedTiles(zoom: 20, tiles))).items, model)
    }

    /// The label merge against the dictionary-and-sort it replaced.
    func testLabelMergeMatchesPerTileMerge() {
        for seed in 200..<220 as Range<UInt64> {
            var g = SplitMix(seed: seed)
            let all = (0..<40).map { TileID(z: 21, x: 10 + $0 / 8, y: 30 + $0 % 8) }
            let floorTiles = all.filter { _ in g.next() % 2 == 0 }, labelTiles = all.filter { _ in g.next() % 3 == 0 }
            let floorLists = randomLists(floorTiles.count, seed: seed).map { $0.isEmpty ? [Int32(1)] : $0 }
            let labelLists = randomLists(labelTiles.count, seed: seed + 1000).map { $0.isEmpty ? [Int32(0)] : $0 }
            let base: Int32 = 50, wholeTile: [Int32] = seed % 2 == 0 ? [0] : []
            let merged = Plan.merge(plan(floorTiles, floorLists), labels: plan(labelTiles, labelLists), base: base, wholeTile: wholeTile)
            var expected = [TileID: [Int32]]()
            for (t, l) in zip(floorTiles, floorLists) { expected[t] = l }
            for (t, l) in zip(labelTiles, labelLists) { expected[t] = (expected[t] ?? wholeTile) + l.map { $0 + base } }
            let order = expected.keys.sorted()
            XCTAssertEqual(Array(merged.tiles), order)
            assertSame(merged.items, order.map { expected[$0]! })
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure repeats.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
