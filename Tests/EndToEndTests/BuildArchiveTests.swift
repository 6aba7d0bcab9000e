import Crypto
import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Archives the build writes (pipeline.json `"archive"` per tileset): listed in
/// the manifest, equal to `venuetiles archive`'s, MBTiles brought up to date in
/// place, PMTiles and zip files byte-identical to a clean build's, and put back
/// by a build that fails.
final class BuildArchiveTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var out: URL { dir.appendingPathComponent("out") }

    static let archives = ["h/floor_m1/png.mbtiles", "h/floor_0/png.mbtiles", "h/floor_1/png.mbtiles",
                           "h/floor_m1/mvt.pmtiles", "h/floor_0/mvt.pmtiles", "h/floor_1/mvt.pmtiles", "h/all/mvt.pmtiles", "h.zip"]

    override func setUpWithError() throws {
        dir = try CLI.tempDir("build-archives")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        // The zip package holds the 512 px tiles, built to z19 only: the fixture's 2x tiles take long.
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "zoom": {"min": 17, "max": 20}, "tilesets": [{"format": "png", "archive": "mbtiles"}, {"format": "mvt", "archive": "pmtiles"}, {"format": "png", "scale": 2, "archive": "zip"}]"#)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    @discardableResult
    func build(_ extra: [String] = [], output: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q"] + (output.map { ["--output", $0.path] } ?? []) + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r
    }

    struct Entry: Decodable { var path: String; var sha256: String; var bytes: Int; var key: String? }
    struct M: Decodable { var tiles: [Entry]; var files: [Entry] }

    func manifest(_ root: URL) throws -> M {
        try JSONDecoder().decode(M.self, from: Data(contentsOf: root.appendingPathComponent("manifest.json")))
    }

    func sha(_ url: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
    }

    /// Every row of an MBTiles archive's `map` table ("z/x/tms_row" → image id)
    /// and, through the `tiles` view readers use, each tile's SHA-256.
    func mbtilesRows(_ path: URL) throws -> (map: [String: String], tiles: [String: String]) {
        let script = """
        import hashlib, json, sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        m = {f"{z}/{x}/{y}": i for z, x, y, i in db.execute("SELECT zoom_level, tile_column, tile_row, tile_id FROM map")}
        t = {f"{z}/{x}/{y}": hashlib.sha256(d).hexdigest() for z, x, y, d in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")}
        print(json.dumps({"map": m, "tiles": t}))
        """
        let r = try ExternalTools.run("python3", ["-c", script, path.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: r.stdout) as? [String: [String: String]])
        return (o["map"] ?? [:], o["tiles"] ?? [:])
    }

    /// "z/x/tms_row" → SHA-256 of the tree's tiles under `folder`.
    func treeRows(_ m: M, folder: String) -> [String: String] {
        var out = [String: String]()
        for t in m.tiles where t.path.hasPrefix(folder + "/") {
            let p = t.path.dropFirst(folder.count + 1).split(separator: "/")
            let z = Int(p[0])!, x = Int(p[1])!, y = Int(p[2].split(separator: ".")[0])!
            out["\(z)/\(x)/\((1 << z) - 1 - y)"] = t.sha256
        }
        return out
    }

    func testTheBuildWritesTheArchivesItsConfigAsksForAndListsThem() throws {
        try build()
        let m = try manifest(out)
        let files = Dictionary(uniqueKeysWithValues: m.files.map { ($0.path, $0) })
        for a in BuildArchiveTests.archives {
            let e = try XCTUnwrap(files[a], "\(a) listed among the manifest's files")
            XCTAssertEqual(try sha(out.appendingPathComponent(a)), e.sha256, a)
        }
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)

        // The same bytes as `venuetiles archive` makes from the same output.
        let packed = dir.appendingPathComponent("packed")
        XCTAssertEqual(try CLI.run(["archive", "--output", out.path, "--to", packed.path, "--format", "pmtiles", "--tileset", "mvt"]).status, 0)
        XCTAssertEqual(try CLI.run(["archive", "--output", out.path, "--to", packed.path, "--format", "zip", "--tileset", "png@2x"]).status, 0)
        for a in BuildArchiveTests.archives where !a.hasSuffix(".mbtiles") {
            XCTAssertEqual(try sha(packed.appendingPathComponent(a)), try sha(out.appendingPathComponent(a)), a)
        }
        // Each MBTiles archive holds exactly its floor's PNG tiles, read through the `tiles` view.
        for floor in ["floor_m1", "floor_0", "floor_1"] {
            let rows = try mbtilesRows(out.appendingPathComponent("h/\(floor)/png.mbtiles"))
            XCTAssertEqual(rows.tiles, treeRows(m, folder: "h/\(floor)/png"), floor)
        }

        // A --force build whose bytes come out the same leaves every archive alone (inode and mtime).
        let before = CLI.snapshot(out).filter { BuildArchiveTests.archives.contains($0.key) }
        var inodes = [String: UInt64]()
        for a in BuildArchiveTests.archives { var st = stat(); lstat(out.appendingPathComponent(a).path, &st); inodes[a] = UInt64(st.st_ino) }
        try build(["--force"])
        XCTAssertEqual(CLI.snapshot(out).filter { BuildArchiveTests.archives.contains($0.key) }, before)
        for a in BuildArchiveTests.archives {
            var st = stat(); lstat(out.appendingPathComponent(a).path, &st)
            XCTAssertEqual(UInt64(st.st_ino), inodes[a], a)
        }

        // clean removes them with the rest.
        XCTAssertEqual(try CLI.run(["clean", "--config", config.path]).status, 0)
        for a in BuildArchiveTests.archives { XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(a).path), a) }
    }

    func testAnEditChangesOnlyTheMBTilesRowsOfChangedTilesAndRewritesPMTilesAsACleanBuildWould() throws {
        try build()
        let a = try manifest(out)
        let mbtiles = out.appendingPathComponent("h/floor_0/png.mbtiles")
        let rowsBefore = try mbtilesRows(mbtiles)
        // Moves one corner of a shop on the ground floor.
        try IncrementalBuildTests.moveShopCorner(venue.appendingPathComponent("unit.geojson"))
        let r = try build()
        let b = try manifest(out)
        XCTAssertGreaterThan(r.rendered, 0)
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)

        // The rows that changed are exactly those of the floor's PNG tiles whose bytes changed, came or went.
        let treeBefore = treeRows(a, folder: "h/floor_0/png"), treeAfter = treeRows(b, folder: "h/floor_0/png")
        let changedTiles = Set(treeBefore.keys).union(treeAfter.keys).filter { treeBefore[$0] != treeAfter[$0] }
        XCTAssertFalse(changedTiles.isEmpty, "the edit changes some ground-floor PNG tiles")
        let rowsAfter = try mbtilesRows(mbtiles)
        let changedRows = Set(rowsBefore.map.keys).union(rowsAfter.map.keys).filter { rowsBefore.map[$0] != rowsAfter.map[$0] }
        XCTAssertEqual(changedRows, changedTiles)
        XCTAssertEqual(rowsAfter.tiles, treeAfter)
        XCTAssertLessThan(changedRows.count, rowsAfter.map.count / 2, "an edit of one shop changes few rows")
        // A floor the edit did not reach keeps its archive file as it was.
        XCTAssertEqual(treeRows(a, folder: "h/floor_1/png"), treeRows(b, folder: "h/floor_1/png"))
        let f1 = a.files.first { $0.path == "h/floor_1/png.mbtiles" }!.sha256
        XCTAssertEqual(b.files.first { $0.path == "h/floor_1/png.mbtiles" }!.sha256, f1)

        // Readers still open it: mbutil exports every tile, GDAL's driver reads it.
        try ExternalTools.require(program: "mb-util", hint: "PyPI mbutil; scripts/setup installs it")
        let export = dir.appendingPathComponent("mbutil")
        let mb = try ExternalTools.run("mb-util", ["--image_format=png", mbtiles.path, export.path])
        XCTAssertEqual(mb.status, 0, mb.stderr)
        let exported = FileManager.default.enumerator(atPath: export.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".png") }
        XCTAssertEqual(exported.count, treeAfter.count)
        try ExternalTools.require(program: "gdalinfo", hint: "Debian gdal-bin; scripts/setup installs it")
        let info = try ExternalTools.run("gdalinfo", [mbtiles.path])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("Driver: MBTiles/MBTiles"), info.text)

        // A clean build of the edited venue: the same PMTiles and zip bytes, the same MBTiles rows.
        let clean = dir.appendingPathComponent("clean")
        try build(output: clean)
        for p in BuildArchiveTests.archives {
            if p.hasSuffix(".mbtiles") {
                XCTAssertEqual(try mbtilesRows(out.appendingPathComponent(p)).tiles, try mbtilesRows(clean.appendingPathComponent(p)).tiles, p)
            } else {
                XCTAssertEqual(try sha(out.appendingPathComponent(p)), try sha(clean.appendingPathComponent(p)), p)
            }
        }
    }

    func testArchivesAreByteIdenticalAcrossRunsAndWorkerCounts() throws {
        var digests = [[String: String]]()
        for (i, jobs) in ["1", "2", "2"].enumerated() {
            let o = dir.appendingPathComponent("out\(i)")
            try build(["--jobs", jobs], output: o)
            digests.append(Dictionary(uniqueKeysWithValues: try BuildArchiveTests.archives.map { ($0, try sha(o.appendingPathComponent($0))) }))
        }
        XCTAssertEqual(digests[0], digests[1], "--jobs 1 and --jobs 2")
        XCTAssertEqual(digests[1], digests[2], "two runs")
    }

    func testABuildStoppedBeforeItsManifestPutsTheOldArchivesBack() throws {
        try build()
        let before = CLI.snapshot(out)
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { feats in
            let i = feats.firstIndex { $0["id"] as? String == IncrementalBuildTests.shopID }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": "Renamed"]
            feats[i]["properties"] = p
        }
        // Stopped once every archive is written, as the manifest is about to be.
        let gate = dir.appendingPathComponent("gate").path
        let p = try CLI.start(["build", "--config", config.path, "-q"], env: ["VENUETILES_TEST_PAUSE": "committing:\(gate)"])
        try CLI.waitForFile(gate + ".reached")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 143)
        XCTAssertEqual(CLI.snapshot(out), before, "the previous output, archives included, exactly")
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
        // The next build finishes the job.
        try build()
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
        XCTAssertNotEqual(CLI.snapshot(out)["manifest.json"], before["manifest.json"])
    }
}
