import Crypto
import Foundation
import TestSupport
import XCTest

/// `venuetiles archive` over a build of the bundled sample.
final class ArchiveCommandTests: XCTestCase {
    /// The sample, built once for every test here (it takes a while in debug builds).
    private static let built: Result<URL, Error> = Result {
        let dir = try CLI.tempDir("archive-sample")
        let sample = CLI.packageRoot.appendingPathComponent("samples/harbour-arcade").path
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "base_url": "https://tiles.example.com", "sources": [{"id": "harbour-arcade", "format": "imdf", "path": "\#(sample)"}], "tilesets": [{"format": "png", "scale": [1, 2]}, {"format": "mvt"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "--quiet"])
        guard r.status == 0 else { throw NSError(domain: "build", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
        return dir.appendingPathComponent("out")
    }

    override class func tearDown() {
        if case .success(let out) = built { CLI.removeTree(out.deletingLastPathComponent()) }
        super.tearDown()
    }

    struct ManifestView: Decodable {
        struct Tile: Decodable { var path: String; var sha256: String; var bytes: Int }
        var tiles: [Tile]
        var files: [Tile]
    }

    private func sample() throws -> (out: URL, tiles: [ManifestView.Tile]) {
        let out = try ArchiveCommandTests.built.get()
        let m = try JSONDecoder().decode(ManifestView.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        return (out, m.tiles)
    }

    /// "z/x/y" → SHA-256 of the tree's tiles under `folder` (e.g. harbour-arcade/floor_0/png), up to `maxZoom`.
    private func treeTiles(_ tiles: [ManifestView.Tile], folder: String, maxZoom: Int = 23) -> [String: String] {
        var out = [String: String]()
        for t in tiles where t.path.hasPrefix(folder + "/") {
            let rest = t.path.dropFirst(folder.count + 1).split(separator: "/")
            let key = "\(rest[0])/\(rest[1])/\(rest[2].split(separator: ".")[0])"
            if Int(rest[0])! <= maxZoom { out[key] = t.sha256 }
        }
        return out
    }

    private func pmtilesDump(_ path: String) throws -> [String: Any] {
        try ExternalTools.requirePython(module: "pmtiles")
        let helper = CLI.packageRoot.appendingPathComponent("Tests/ArchivesTests/Helpers/pmtiles_dump.py").path
        let r = try ExternalTools.run("python3", [helper, path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
    }

    func testPMTilesHoldEveryTileOfTheTreeAndAreByteIdenticalAgain() throws {
        let (out, tiles) = try sample()
        let dest = try CLI.tempDir("archive-pmtiles")
        defer { CLI.removeTree(dest) }
        let r = try CLI.run(["archive", "--output", out.path, "--to", dest.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("wrote 10 pmtiles archives (\(tiles.count) tiles"), r.stdout)
        var seen = 0
        for floor in ["floor_m1", "floor_0", "floor_1", "all"] {
            for ts in floor == "all" ? ["mvt"] : ["png", "png@2x", "mvt"] {
                let path = dest.appendingPathComponent("harbour-arcade/\(floor)/\(ts).pmtiles").path
                let dump = try pmtilesDump(path)
                let expected = treeTiles(tiles, folder: "harbour-arcade/\(floor)/\(ts)")
                XCTAssertEqual(dump["tiles"] as? [String: String], expected, path)
                seen += expected.count
                let h = try XCTUnwrap(dump["header"] as? [String: Any])
                XCTAssertEqual(h["min_zoom"] as? Int, 17)
                XCTAssertEqual(h["max_zoom"] as? Int, 23)
                XCTAssertEqual(h["clustered"] as? Bool, true)
                XCTAssertEqual(h["tile_type"] as? Int, ts == "mvt" ? 1 : 2)
                XCTAssertEqual(h["addressed_tiles_count"] as? Int, expected.count)
                XCTAssertEqual(h["tile_contents_count"] as? Int, Set(expected.values).count)
                // The header's bounds are the pyramid's TileJSON bounds.
                let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("harbour-arcade/\(floor)/\(ts)/tilejson.json"))) as! [String: Any]
                XCTAssertEqual(h["min_lon_e7"] as? Int, Int(((tj["bounds"] as! [Double])[0] * 1e7).rounded()), path)
                let meta = try XCTUnwrap(dump["metadata"] as? [String: Any])
                XCTAssertEqual(meta["vector_layers"] != nil, ts == "mvt", path)
            }
        }
        XCTAssertEqual(seen, tiles.count, "every tile of the tree is in one archive")

        let before = CLI.snapshot(dest)
        let again = try CLI.run(["archive", "--output", out.path, "--to", dest.path])
        XCTAssertEqual(again.status, 0, again.stderr)
        let after = CLI.snapshot(dest)
        XCTAssertEqual(before, after, "same bytes, and the files left as they were (same modification times)")
    }

    func testMBTilesForGDALAndAnUpdateInPlace() throws {
        let (out, tiles) = try sample()
        let dest = try CLI.tempDir("archive-mbtiles")
        defer { CLI.removeTree(dest) }
        // GDAL's MBTiles driver reads zoom levels up to 22.
        let r = try CLI.run(["archive", "--output", out.path, "--format", "mbtiles", "--tileset", "png", "--tileset", "mvt",
                             "--max-zoom", "22", "--to", dest.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("wrote 7 mbtiles archives"), r.stdout)
        let png = dest.appendingPathComponent("harbour-arcade/floor_0/png.mbtiles").path
        try ExternalTools.require(program: "gdalinfo", hint: "Debian gdal-bin; scripts/setup installs it")
        let info = try ExternalTools.run("gdalinfo", [png])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("Driver: MBTiles/MBTiles"), info.text)
        XCTAssertTrue(info.text.contains("ZOOM_LEVEL=22"), info.text)
        let ogr = try ExternalTools.run("ogrinfo", ["-ro", "-so", dest.appendingPathComponent("harbour-arcade/all/mvt.mbtiles").path])
        XCTAssertEqual(ogr.status, 0, ogr.stderr)
        XCTAssertTrue(ogr.text.contains("floor_rooms"), ogr.text)

        // mbutil exports exactly the tree's tiles.
        try ExternalTools.require(program: "mb-util", hint: "PyPI mbutil; scripts/setup installs it")
        let export = dest.appendingPathComponent("export")
        let mb = try ExternalTools.run("mb-util", ["--image_format=png", png, export.path])
        XCTAssertEqual(mb.status, 0, mb.stderr)
        var exported = [String: String]()
        for case let rel as String in FileManager.default.enumerator(atPath: export.path)! where rel.hasSuffix(".png") {
            exported[String(rel.dropLast(4))] = SHA256.hash(data: try Data(contentsOf: export.appendingPathComponent(rel))).map { String(format: "%02x", $0) }.joined()
        }
        XCTAssertEqual(exported, treeTiles(tiles, folder: "harbour-arcade/floor_0/png", maxZoom: 22))

        // All zooms now: the existing archive gains the z23 rows and nothing else changes.
        let z23 = treeTiles(tiles, folder: "harbour-arcade/floor_0/png").keys.filter { $0.hasPrefix("23/") }.count
        let full = try CLI.run(["archive", "--output", out.path, "--format", "mbtiles", "--tileset", "png", "--to", dest.path])
        XCTAssertEqual(full.status, 0, full.stderr)
        XCTAssertTrue(full.stderr.contains("harbour-arcade/floor_0/png.mbtiles: ") && full.stderr.contains("rows +\(z23) ~0 -0"), full.stderr)
    }

    func testZipPackageUnpacksToAFolderVerifyAccepts() throws {
        let (out, tiles) = try sample()
        let dest = try CLI.tempDir("archive-zip")
        defer { CLI.removeTree(dest) }
        let r = try CLI.run(["archive", "--output", out.path, "--format", "zip", "--to", dest.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let zip = dest.appendingPathComponent("harbour-arcade.zip").path
        let unpacked = dest.appendingPathComponent("unpacked")
        let script = """
        import json, sys, zipfile
        z = zipfile.ZipFile(sys.argv[1])
        names = z.namelist()
        assert names == sorted(names, key=lambda n: n.encode()), "entries not sorted"
        z.extractall(sys.argv[2])
        print(json.dumps({i.filename: i.compress_type for i in z.infolist()}))
        """
        let py = try ExternalTools.run("python3", ["-c", script, zip, unpacked.path])
        XCTAssertEqual(py.status, 0, py.stderr)
        let methods = try XCTUnwrap(try JSONSerialization.jsonObject(with: py.stdout) as? [String: Int])
        let files = try JSONDecoder().decode(ManifestView.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json"))).files
        XCTAssertEqual(methods.count, tiles.count + files.count + 1, "tiles, the other files of the manifest (TileJSON, web clients' files) and the manifest")
        XCTAssertEqual(methods["manifest.json"], 8)
        XCTAssertEqual(methods["harbour-arcade/floor_0/png/tilejson.json"], 8)
        XCTAssertEqual(methods[tiles.first { $0.path.hasSuffix(".png") }!.path], 0, "PNG stored")
        let v = try CLI.run(["verify", "--output", unpacked.path])
        XCTAssertEqual(v.status, 0, v.stdout + v.stderr)

        // The same output gives the same package.
        let first = try Data(contentsOf: URL(fileURLWithPath: zip))
        XCTAssertEqual(try CLI.run(["archive", "--output", out.path, "--format", "zip", "--to", dest.path]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: zip)), first)
    }

    func testAnOutputThatNoLongerMatchesItsManifestIsRefused() throws {
        let (out, tiles) = try sample()
        // A copy of the output with one tile changed after the build.
        let dir = try CLI.tempDir("archive-tampered")
        defer { CLI.removeTree(dir) }
        let copy = dir.appendingPathComponent("out")
        let cp = try ExternalTools.run("cp", ["-a", out.path, copy.path])
        XCTAssertEqual(cp.status, 0, cp.stderr)
        let victim = tiles.first { $0.path.hasPrefix("harbour-arcade/floor_1/mvt/") }!.path
        try Data("not the tile".utf8).write(to: copy.appendingPathComponent(victim))
        let dest = dir.appendingPathComponent("archives")
        for format in ["pmtiles", "mbtiles", "zip"] {
            let r = try CLI.run(["archive", "--output", copy.path, "--format", format, "--to", dest.path])
            XCTAssertEqual(r.status, 1, format + ": " + r.stderr)
            XCTAssertTrue(r.stderr.contains(victim) && r.stderr.contains("changed since the build"), r.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: dest.path), "\(format): nothing written")
        }
        // Only what goes in is checked: the PNG tiles alone are still as built.
        let png = try CLI.run(["archive", "--output", copy.path, "--tileset", "png", "--to", dest.path])
        XCTAssertEqual(png.status, 0, png.stderr)
        XCTAssertTrue(png.stdout.hasPrefix("wrote 3 pmtiles archives"), png.stdout)
        let bad = try CLI.run(["archive", "--output", out.path, "--tileset", "jpg", "--to", dest.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("no tileset \"jpg\"") && bad.stderr.contains("png@2x"), bad.stderr)
        let usage = try CLI.run(["archive", "--output", out.path, "--format", "zip", "--max-zoom", "22"])
        XCTAssertEqual(usage.status, 64, usage.stderr)
        let none = try CLI.run(["archive", "--output", dir.appendingPathComponent("nothing").path, "--to", dest.path])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("no manifest.json"), none.stderr)
    }
}
