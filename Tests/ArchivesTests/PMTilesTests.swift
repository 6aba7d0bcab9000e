@testable import Archives
import Foundation
import XCTest

final class PMTilesTests: XCTestCase {
    func testTileIDsFollowTheSpec() {
        // The spec's examples: z0 is 0; z1 in Hilbert order (0,0), (0,1), (1,1), (1,0) is 1…4; z2 starts at 5.
        XCTAssertEqual(PMTilesTileID.of(z: 0, x: 0, y: 0), 0)
        XCTAssertEqual([(0, 0), (0, 1), (1, 1), (1, 0)].map { PMTilesTileID.of(z: 1, x: $0.0, y: $0.1) }, [1, 2, 3, 4])
        XCTAssertEqual(PMTilesTileID.of(z: 2, x: 0, y: 0), 5)
        // The whole of z3 is a permutation of its 64 ids, neighbours on the curve are neighbours on the map.
        var byID = [UInt64: (Int, Int)]()
        for x in 0..<8 { for y in 0..<8 { byID[PMTilesTileID.of(z: 3, x: x, y: y)] = (x, y) } }
        XCTAssertEqual(Set(byID.keys), Set(21..<85))
        for id in UInt64(21)..<84 {
            let a = byID[id]!, b = byID[id + 1]!
            XCTAssertEqual(abs(a.0 - b.0) + abs(a.1 - b.1), 1, "ids \(id) and \(id + 1)")
        }
    }

    func testDirectorySerialization() {
        let entries = [PMTilesEntry(tileID: 5, offset: 0, length: 10, runLength: 1),
                       PMTilesEntry(tileID: 6, offset: 10, length: 300, runLength: 2),
                       PMTilesEntry(tileID: 9, offset: 0, length: 10, runLength: 1)]
        // count; id deltas 5,1,3; runs 1,2,1; lengths 10,300(varint ac 02),10; offsets 0+1, contiguous 0, back-reference 0+1.
        XCTAssertEqual(PMTilesWriter.serialize(entries), [3, 5, 1, 3, 1, 2, 1, 10, 0xAC, 0x02, 10, 1, 0, 1])
    }

    func testEveryTileReadsBackWithThePyPIReader() throws {
        let m = Fixtures.pyramid()
        let dir = try Fixtures.tempDir("pmtiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.pmtiles").path
        let s = try PMTilesWriter.write(to: path, tiles: m.tiles.reversed(), metadata: try Fixtures.metadata(), read: m.read)
        let dump = try Fixtures.dumpPMTiles(path)
        XCTAssertEqual(dump["tiles"] as? [String: String], m.expected)

        let h = try XCTUnwrap(dump["header"] as? [String: Any])
        XCTAssertEqual(h["version"] as? Int, 3)
        XCTAssertEqual(h["min_zoom"] as? Int, 17)
        XCTAssertEqual(h["max_zoom"] as? Int, 19)
        XCTAssertEqual(h["min_lon_e7"] as? Int, 100_015_000)
        XCTAssertEqual(h["min_lat_e7"] as? Int, 535_405_000)
        XCTAssertEqual(h["max_lon_e7"] as? Int, 100_032_384)
        XCTAssertEqual(h["max_lat_e7"] as? Int, 535_408_593)
        XCTAssertEqual(h["center_lon_e7"] as? Int, 100_023_314)
        XCTAssertEqual(h["center_lat_e7"] as? Int, 535_406_797)
        XCTAssertEqual(h["center_zoom"] as? Int, 18)
        XCTAssertEqual(h["clustered"] as? Bool, true)
        XCTAssertEqual(h["internal_compression"] as? Int, 2)
        XCTAssertEqual(h["tile_compression"] as? Int, 1)
        XCTAssertEqual(h["tile_type"] as? Int, 2)
        XCTAssertEqual(h["leaf_directory_length"] as? Int, 0)

        // Counts worked out here from the tiles, in Hilbert order.
        let ordered = m.tiles.sorted { PMTilesTileID.of(z: $0.z, x: $0.x, y: $0.y) < PMTilesTileID.of(z: $1.z, x: $1.x, y: $1.y) }
        let distinct = Set(m.tiles.map(\.sha256))
        var entries = 0
        for (i, t) in ordered.enumerated() {
            let id = PMTilesTileID.of(z: t.z, x: t.x, y: t.y)
            let runs = i > 0 && ordered[i - 1].sha256 == t.sha256 && PMTilesTileID.of(z: ordered[i - 1].z, x: ordered[i - 1].x, y: ordered[i - 1].y) + 1 == id
            if !runs { entries += 1 }
        }
        XCTAssertLessThan(entries, m.tiles.count, "the fixture has runs")
        XCTAssertEqual(h["addressed_tiles_count"] as? Int, m.tiles.count)
        XCTAssertEqual(h["tile_entries_count"] as? Int, entries)
        XCTAssertEqual(h["tile_contents_count"] as? Int, distinct.count)
        XCTAssertEqual(s.tileContents, distinct.count)
        XCTAssertEqual(h["tile_data_length"] as? Int, distinct.reduce(0) { acc, sha in acc + m.tiles.first { $0.sha256 == sha }!.bytes })

        let meta = try XCTUnwrap(dump["metadata"] as? [String: Any])
        XCTAssertEqual(meta["name"] as? String, "Harbour Arcade — G")
        XCTAssertEqual(meta["format"] as? String, "png")
        XCTAssertEqual(meta["type"] as? String, "overlay")
        XCTAssertNil(meta["tiles"], "the tree's URLs do not belong in the archive")
    }

    func testVectorMetadataAndGzippedTiles() throws {
        var m = MemoryTiles()
        m.add(z: 17, x: 69177, y: 42367, Data([0x1F, 0x8B] + Array("gzipped layer bytes".utf8)), ext: "pbf")
        m.add(z: 17, x: 69178, y: 42367, Data([0x1F, 0x8B] + Array("other".utf8)), ext: "pbf")
        let dir = try Fixtures.tempDir("pmtiles-mvt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.pmtiles").path
        _ = try PMTilesWriter.write(to: path, tiles: m.tiles, metadata: try Fixtures.metadata(format: "pbf", gzip: true), read: m.read)
        let dump = try Fixtures.dumpPMTiles(path)
        let h = try XCTUnwrap(dump["header"] as? [String: Any])
        XCTAssertEqual(h["tile_type"] as? Int, 1)
        XCTAssertEqual(h["tile_compression"] as? Int, 2)
        XCTAssertEqual(h["min_zoom"] as? Int, 17)
        XCTAssertEqual(h["max_zoom"] as? Int, 17)
        let layers = try XCTUnwrap((dump["metadata"] as? [String: Any])?["vector_layers"] as? [[String: Any]])
        XCTAssertEqual(layers.first?["id"] as? String, "floor_rooms_floor_0")
    }

    /// 60,000 distinct tiles: the root alone would pass 16 KiB, so it points to leaves.
    func testLeafDirectoriesWhenTheRootWouldPass16KiB() throws {
        var m = MemoryTiles()
        var i = 0
        for x in 0..<250 {
            for y in 0..<240 {
                i += 1
                m.add(z: 12, x: 2100 + x, y: 1300 + y, Data("tile \(x) \(y) ".utf8 + Array(repeating: UInt8(i % 256), count: i % 300)))
            }
        }
        let dir = try Fixtures.tempDir("pmtiles-leaves")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("big.pmtiles").path
        let s = try PMTilesWriter.write(to: path, tiles: m.tiles, metadata: try Fixtures.metadata(minzoom: 12, maxzoom: 12), read: m.read)
        XCTAssertGreaterThan(s.leafDirectories, 1)
        XCTAssertLessThanOrEqual(127 + s.rootDirectoryBytes, 16_384)
        // Without leaves the root would not fit.
        let layout = try PMTilesWriter.plan(m.tiles) { ArchiveError(file: path, format: "pmtiles", problem: $0) }
        XCTAssertGreaterThan(127 + (try GzipMember.compress(PMTilesWriter.serialize(layout.entries), file: path)).count, 16_384)

        let dump = try Fixtures.dumpPMTiles(path)
        XCTAssertEqual(dump["tiles"] as? [String: String], m.expected)
        let h = try XCTUnwrap(dump["header"] as? [String: Any])
        XCTAssertGreaterThan(h["leaf_directory_length"] as? Int ?? 0, 0)
        XCTAssertEqual(h["addressed_tiles_count"] as? Int, 60_000)
        XCTAssertEqual(h["tile_contents_count"] as? Int, 60_000)
    }

    func testSameTilesGiveTheSameBytes() throws {
        let m = Fixtures.pyramid()
        let dir = try Fixtures.tempDir("pmtiles-same")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.pmtiles").path, b = dir.appendingPathComponent("b.pmtiles").path
        _ = try PMTilesWriter.write(to: a, tiles: m.tiles, metadata: try Fixtures.metadata(), read: m.read)
        _ = try PMTilesWriter.write(to: b, tiles: m.tiles.shuffled(), metadata: try Fixtures.metadata(), read: m.read)
        XCTAssertEqual(FileManager.default.contents(atPath: a), FileManager.default.contents(atPath: b))
        // The directories' gzip headers carry no time and no OS.
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: a))
        XCTAssertEqual(Array(bytes[127..<137]), GzipMember.header)
    }

    func testBadInputIsATypedError() throws {
        var m = MemoryTiles()
        m.add(z: 17, x: 1, y: 1, Data("a".utf8))
        let dir = try Fixtures.tempDir("pmtiles-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.pmtiles").path
        var twice = m.tiles
        twice.append(ArchiveTile(z: 17, x: 1, y: 1, sha256: m.tiles[0].sha256, bytes: 1, path: "other/17/1/1.png"))
        XCTAssertThrowsError(try PMTilesWriter.write(to: path, tiles: twice, metadata: try Fixtures.metadata(), read: m.read)) {
            XCTAssertTrue("\($0)".contains("two tiles at 17/1/1"), "\($0)")
        }
        XCTAssertThrowsError(try PMTilesWriter.write(to: path, tiles: [], metadata: try Fixtures.metadata(), read: m.read)) {
            XCTAssertTrue("\($0)".contains("no tiles"), "\($0)")
        }
        // A file that changed size since the manifest was written.
        let wrong = [ArchiveTile(z: 17, x: 1, y: 1, sha256: m.tiles[0].sha256, bytes: 5, path: m.tiles[0].path)]
        XCTAssertThrowsError(try PMTilesWriter.write(to: path, tiles: wrong, metadata: try Fixtures.metadata(), read: m.read)) {
            XCTAssertEqual(($0 as? ArchiveError)?.format, "pmtiles")
            XCTAssertTrue("\($0)".contains("expected 5"), "\($0)")
        }
        XCTAssertThrowsError(try ArchiveMetadata(tileJSON: Data("{\"name\": \"x\"}".utf8), file: "x/tilejson.json", gzipTiles: false)) {
            XCTAssertTrue("\($0)".hasPrefix("x/tilejson.json: tilejson: "), "\($0)")
        }
    }
}
