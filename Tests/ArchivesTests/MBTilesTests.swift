@testable import Archives
import Crypto
import Foundation
import TestSupport
import XCTest

final class MBTilesTests: XCTestCase {
    /// A pyramid of real PNGs (z17–19; GDAL reads MBTiles up to z22): runs of the same tile and distinct ones.
    private func pngPyramid() -> MemoryTiles {
        var m = MemoryTiles()
        let colours: [[UInt8]] = [[255, 255, 255, 0], [200, 220, 240, 255], [240, 200, 180, 255], [90, 90, 90, 255]]
        let pngs = colours.map { PNGFixture.solid(size: 256, rgba: $0) }
        for z in 17...19 {
            let n = 1 << (z - 17)
            for dx in 0..<(2 * n) { for dy in 0..<(2 * n) {
                m.add(z: z, x: 69177 * n + dx, y: 42367 * n + dy, pngs[(dx * 3 + dy + z) % 4 == 0 ? 0 : (dx + 2 * dy) % 4])
            } }
        }
        return m
    }

    /// mbutil's export of an archive: "z/x/y" → SHA-256, and its metadata.json.
    private func mbutilExport(_ archive: String, format: String) throws -> (tiles: [String: String], metadata: [String: Any]) {
        try ExternalTools.require(program: "mb-util", hint: "PyPI mbutil; scripts/setup installs it")
        let out = try Fixtures.tempDir("mbutil")
        defer { try? FileManager.default.removeItem(at: out) }
        let dir = out.appendingPathComponent("x")
        let r = try ExternalTools.run("mb-util", ["--image_format=\(format)", archive, dir.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        var tiles = [String: String]()
        let e = FileManager.default.enumerator(atPath: dir.path)!
        for case let rel as String in e where rel.hasSuffix("." + format) {
            let d = try Data(contentsOf: dir.appendingPathComponent(rel))
            tiles[String(rel.dropLast(format.count + 1))] = SHA256.hash(data: d).map { String(format: "%02x", $0) }.joined()
        }
        let meta = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("metadata.json"))) as? [String: Any]
        return (tiles, meta ?? [:])
    }

    private func rows(_ path: String) throws -> [String] {
        let db = try SQLiteDatabase(path: path, create: false)
        var out = [String]()
        try db.prepare("SELECT rowid, zoom_level, tile_column, tile_row, tile_id FROM map ORDER BY rowid").query {
            out.append("\($0.int(0)) \($0.int(1))/\($0.int(2))/\($0.int(3)) \($0.text(4)!)")
        }
        return out
    }

    func testMBUtilExportsTheSameTilesAndGDALOpensIt() throws {
        let m = pngPyramid()
        let dir = try Fixtures.tempDir("mbtiles")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.mbtiles").path
        let s = try MBTilesWriter.write(to: path, tiles: m.tiles, metadata: try Fixtures.metadata(minzoom: 17, maxzoom: 19), read: m.read)
        XCTAssertEqual(s.inserted, m.tiles.count)
        XCTAssertEqual(s.images, Set(m.tiles.map(\.sha256)).count)
        XCTAssertLessThan(s.images, m.tiles.count, "identical tiles stored once")

        let export = try mbutilExport(path, format: "png")
        XCTAssertEqual(export.tiles, m.expected)
        XCTAssertEqual(export.metadata["name"] as? String, "Harbour Arcade — G")
        XCTAssertEqual(export.metadata["format"] as? String, "png")
        XCTAssertEqual(export.metadata["bounds"] as? String, "10.0015,53.5405,10.00323841,53.540859324")
        XCTAssertEqual(export.metadata["minzoom"] as? String, "17")
        XCTAssertEqual(export.metadata["maxzoom"] as? String, "19")

        try ExternalTools.require(program: "gdalinfo", hint: "Debian gdal-bin; scripts/setup installs it")
        let info = try ExternalTools.run("gdalinfo", [path])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("Driver: MBTiles/MBTiles"), info.text)
        // The full resolution is z19's: 2 × 20037508.34 m over 256 × 2^19 px.
        XCTAssertTrue(info.text.contains("Pixel Size = (0.29858214"), info.text)
        XCTAssertTrue(info.text.contains("Band 4"), info.text)
        XCTAssertTrue(info.text.contains("ZOOM_LEVEL=19"), info.text)
    }

    func testVectorArchiveHasItsLayersForGDAL() throws {
        var m = MemoryTiles()
        m.add(z: 17, x: 69177, y: 42367, Data([0x1A, 0x00]), ext: "pbf")   // an empty layer message is enough for a listing
        let dir = try Fixtures.tempDir("mbtiles-mvt")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("v.mbtiles").path
        _ = try MBTilesWriter.write(to: path, tiles: m.tiles, metadata: try Fixtures.metadata(format: "pbf", minzoom: 17, maxzoom: 17), read: m.read)
        let export = try mbutilExport(path, format: "pbf")
        XCTAssertEqual(export.tiles, m.expected)
        let json = try XCTUnwrap(export.metadata["json"] as? String)
        let layers = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])?["vector_layers"] as? [[String: Any]])
        XCTAssertEqual(layers.first?["id"] as? String, "floor_rooms_floor_0")
        try ExternalTools.require(program: "ogrinfo", hint: "Debian gdal-bin; scripts/setup installs it")
        let info = try ExternalTools.run("ogrinfo", ["-ro", "-so", path])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("floor_rooms_floor_0"), info.text)
    }

    func testSyncChangesOnlyTheRowsOfChangedTiles() throws {
        var m = pngPyramid()
        let dir = try Fixtures.tempDir("mbtiles-sync")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.mbtiles").path
        let meta = try Fixtures.metadata(minzoom: 17, maxzoom: 19)
        _ = try MBTilesWriter.write(to: path, tiles: m.tiles, metadata: meta, read: m.read)
        let before = try rows(path)

        // Nothing changed: nothing is written.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let same = try MBTilesWriter.sync(at: path, tiles: m.tiles, metadata: meta, read: m.read)
        XCTAssertEqual(same.rowChanges, 0)
        XCTAssertEqual(same.unchanged, m.tiles.count)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes)

        // One tile re-drawn, one gone, one new.
        let changed = m.tiles[5], gone = m.tiles[9]
        var next = MemoryTiles()
        for t in m.tiles where t != gone {
            next.add(z: t.z, x: t.x, y: t.y, t == changed ? PNGFixture.solid(size: 256, rgba: [1, 2, 3, 255]) : m.data[t.path]!)
        }
        next.add(z: 19, x: 69177 * 4 + 8, y: 42367 * 4, PNGFixture.solid(size: 256, rgba: [9, 9, 9, 255]))
        let s = try MBTilesWriter.sync(at: path, tiles: next.tiles, metadata: meta, read: next.read)
        XCTAssertEqual([s.inserted, s.replaced, s.deleted, s.unchanged], [1, 1, 1, m.tiles.count - 2])
        let after = try rows(path)
        // Every other row is the same row (same rowid, same image).
        let key = { (r: String) in r.split(separator: " ")[1] }
        let touched = Set(["\(changed.z)/\(changed.x)/\((1 << changed.z) - 1 - changed.y)", "\(gone.z)/\(gone.x)/\((1 << gone.z) - 1 - gone.y)"])
        XCTAssertEqual(before.filter { !touched.contains(String(key($0))) }, after.filter { r in !touched.contains(String(key(r))) && !r.contains(" 19/\(69177 * 4 + 8)/") })
        XCTAssertEqual(after.count, before.count)
        // map: 1 delete + 2 upserts; images: 2 new, none orphaned (the replaced tile's image is used elsewhere).
        XCTAssertLessThanOrEqual(s.rowChanges, 6)
        XCTAssertEqual(try mbutilExport(path, format: "png").tiles, next.expected)
        m = next
        XCTAssertEqual(s.images, Set(m.tiles.map(\.sha256)).count, "no image left that no row uses")
    }

    func testUpdateWithTheBuildsChangeList() throws {
        let m = pngPyramid()
        let dir = try Fixtures.tempDir("mbtiles-update")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("a.mbtiles").path
        let meta = try Fixtures.metadata(minzoom: 17, maxzoom: 19)
        _ = try MBTilesWriter.write(to: path, tiles: m.tiles, metadata: meta, read: m.read)
        var next = MemoryTiles()
        let gone = m.tiles.last!
        for t in m.tiles.dropLast() { next.add(z: t.z, x: t.x, y: t.y, m.data[t.path]!) }
        let redrawn = next.tiles[0]
        next.data[redrawn.path] = PNGFixture.solid(size: 256, rgba: [7, 7, 7, 255])
        next.tiles[0].sha256 = SHA256.hash(data: next.data[redrawn.path]!).map { String(format: "%02x", $0) }.joined()
        next.tiles[0].bytes = next.data[redrawn.path]!.count
        let s = try MBTilesWriter.update(at: path, upserts: [next.tiles[0]], deletions: [.init(z: gone.z, x: gone.x, xyzY: gone.y)],
                                         metadata: meta, read: next.read)
        XCTAssertEqual([s.replaced, s.deleted], [1, 1])
        XCTAssertEqual(try mbutilExport(path, format: "png").tiles, next.expected)
    }

    func testSameTilesGiveTheSameBytesAndForeignFilesAreLeftAlone() throws {
        let m = pngPyramid()
        let dir = try Fixtures.tempDir("mbtiles-same")
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.mbtiles").path, b = dir.appendingPathComponent("b.mbtiles").path
        _ = try MBTilesWriter.write(to: a, tiles: m.tiles, metadata: try Fixtures.metadata(), read: m.read)
        _ = try MBTilesWriter.write(to: b, tiles: m.tiles.shuffled(), metadata: try Fixtures.metadata(), read: m.read)
        XCTAssertEqual(FileManager.default.contents(atPath: a), FileManager.default.contents(atPath: b))

        let foreign = dir.appendingPathComponent("other.mbtiles").path
        let db = try SQLiteDatabase(path: foreign, create: true)
        try db.exec("CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB)")
        try db.close()
        XCTAssertThrowsError(try MBTilesWriter.sync(at: foreign, tiles: m.tiles, metadata: try Fixtures.metadata(), read: m.read)) {
            XCTAssertTrue("\($0)".hasPrefix(foreign + ": mbtiles: not an archive this tool wrote"), "\($0)")
        }
    }
}
