import Crypto
import Foundation
import TestSupport
import VenueFormats
import VenueModel
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Incremental rebuilds keyed by input hashes, through the built CLI.
final class IncrementalBuildTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("incr")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        try writeConfig()
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func writeConfig(style: String? = nil, maxZoom: Int = 21) throws {
        let s = style.map { #", "style": "\#($0)""# } ?? ""
        config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": \#(maxZoom)}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "tilesets": [{"format": "png"}, {"format": "mvt"}]\#(s)}"#
            .write(to: config, atomically: true, encoding: .utf8)
    }

    @discardableResult
    func build(_ extra: [String] = [], expect status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q"] + extra)
        XCTAssertEqual(r.status, status, r.stderr, file: file, line: line)
        return r
    }

    struct Entry: Decodable { var path: String; var sha256: String; var key: String? }
    struct M: Decodable { var tiles: [Entry]; var files: [Entry] }

    func manifest(_ root: URL? = nil) throws -> [String: Entry] {
        let m = try JSONDecoder().decode(M.self, from: Data(contentsOf: (root ?? out).appendingPathComponent("manifest.json")))
        return Dictionary(uniqueKeysWithValues: m.tiles.map { ($0.path, $0) })
    }

    /// Edits the features of one IMDF file of the venue in place.
    func editFeatures(_ file: String, _ body: (inout [[String: Any]]) -> Void) throws {
        try CLI.editFeatures(venue.appendingPathComponent(file), body)
    }

    func testNoOpRebuildRendersNothingAndTouchesNoFile() throws {
        try build()
        // State included: a no-op leaves the index alone too (not the lock, which records its holder's pid).
        let before = CLI.snapshot(out, state: true).filter { $0.key != ".venuetiles/lock" }
        var inodes = [String: UInt64]()
        for path in before.keys {
            var st = stat()
            if lstat(out.appendingPathComponent(path).path, &st) == 0 { inodes[path] = UInt64(st.st_ino) }
        }
        let r = try build()
        XCTAssertEqual(r.rendered, 0, r.stdout)
        XCTAssertTrue(r.stdout.contains("0 deleted"))
        // Contents and modification times of every file (the lock file records the last holder's pid).
        let after = CLI.snapshot(out, state: true).filter { $0.key != ".venuetiles/lock" }
        XCTAssertEqual(Set(after.keys), Set(before.keys))
        XCTAssertEqual(after.keys.filter { after[$0] != before[$0] }.sorted(), [])
        for (path, ino) in inodes where !path.hasPrefix(".venuetiles/") {
            var st = stat()
            XCTAssertEqual(lstat(out.appendingPathComponent(path).path, &st), 0)
            XCTAssertEqual(UInt64(st.st_ino), ino, path)
        }
    }

    /// Moves one corner of a shop: exactly the tiles the old or new outline reaches
    /// (within the raster stroke or the vector buffer) are rendered again.
    func testGeometryEditRerendersExactlyTheTouchedTiles() throws {
        try build()
        let a = try manifest()
        var oldRing = [[Double]](), newRing = [[Double]]()
        try editFeatures("unit.geojson") { feats in
            // The first room of the ground floor's north row (Nordic Books, 0…13.3 m × 24…40 m).
            let i = feats.firstIndex { f in
                let c = ((f["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])?.first
                return (f["properties"] as? [String: Any])?["category"] as? String == "room" && c?.count == 5 && f["id"] as? String == IncrementalBuildTests.shopID
            }!
            var g = feats[i]["geometry"] as! [String: Any]
            var rings = g["coordinates"] as! [[[Double]]]
            oldRing = rings[0]
            // Pull the corner with the largest longitude and latitude inwards by about 0.8 m.
            let k = rings[0].indices.max { rings[0][$0][0] + rings[0][$0][1] < rings[0][$1][0] + rings[0][$1][1] }!
            rings[0][k][0] -= 0.000012; rings[0][k][1] -= 0.000007
            if k == 0 { rings[0][rings[0].count - 1] = rings[0][0] }
            newRing = rings[0]
            g["coordinates"] = rings
            feats[i]["geometry"] = g
        }
        let r = try build()
        let b = try manifest()
        XCTAssertEqual(Set(a.keys), Set(b.keys), "coverage did not change, so the set of tiles must not")
        let changed = Set(b.values.filter { a[$0.path]?.key != $0.key }.map(\.path))
        XCTAssertEqual(r.rendered, changed.count)

        // Independent expectation, per pyramid: tiles whose square, grown by the pad, meets either ring.
        func touched(_ ring: [[Double]], z: Int, pad: Double) -> Set<[Int]> {
            let pts = ring.map { IndependentCoverage.tileXY(.init(lon: $0[0], lat: $0[1]), zoom: z) }
            var s = Set<[Int]>()
            let x0 = Int((pts.map(\.x).min()! - pad).rounded(.down)), x1 = Int((pts.map(\.x).max()! + pad).rounded(.down))
            let y0 = Int((pts.map(\.y).min()! - pad).rounded(.down)), y1 = Int((pts.map(\.y).max()! + pad).rounded(.down))
            for ty in y0...y1 { for tx in x0...x1 {
                let fx = Double(tx), fy = Double(ty)
                if IndependentCoverage.clippedArea(pts, minX: fx - pad, minY: fy - pad, maxX: fx + 1 + pad, maxY: fy + 1 + pad) > 0 { s.insert([tx, ty]) }
            } }
            return s
        }
        var expected = Set<String>()
        for z in 17...21 {
            for (pyramid, ext, pad) in [("h/floor_0/png", "png", 0.5 / 256), ("h/floor_0/mvt", "pbf", 80.0 / 4096), ("h/all/mvt", "pbf", 80.0 / 4096)] {
                for t in touched(oldRing, z: z, pad: pad).union(touched(newRing, z: z, pad: pad)) {
                    let p = "\(pyramid)/\(z)/\(t[0])/\(t[1]).\(ext)"
                    if a[p] != nil { expected.insert(p) }
                }
            }
        }
        XCTAssertEqual(changed.subtracting(expected).sorted(), [], "re-rendered but not touched")
        XCTAssertEqual(expected.subtracting(changed).sorted(), [], "touched but not re-rendered")
        XCTAssertGreaterThan(changed.count, 10)
        try assertEqualToCleanBuild()
    }

    /// Nordic Books: scripts/make_sample.py names features uuid5(its namespace, "unit/g/shop0").
    static let shopID = "b66c10fd-eaeb-5633-ad7d-055b33c3cc22"

    /// Moves the second corner of that shop on the ground floor by about 1 m: a few tiles change.
    static func moveShopCorner(_ unitFile: URL) throws {
        try CLI.editFeatures(unitFile) { feats in
            let i = feats.firstIndex { $0["id"] as? String == shopID }!
            var g = feats[i]["geometry"] as! [String: Any]
            var rings = g["coordinates"] as! [[[Double]]]
            rings[0][1][0] -= 0.000012; rings[0][1][1] -= 0.000007
            g["coordinates"] = rings
            feats[i]["geometry"] = g
        }
    }

    func testNameEditChangesOnlyVectorTilesCarryingTheName() throws {
        try build()
        let a = try manifest()
        try editFeatures("unit.geojson") { feats in
            let i = feats.firstIndex { (($0["properties"] as? [String: Any])?["name"] as? [String: Any])?["en"] as? String == "Restrooms" }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": "Toilets", "de": "WC"]
            feats[i]["properties"] = p
        }
        try build()
        let b = try manifest()
        let changed = Set(b.values.filter { a[$0.path]?.key != $0.key }.map(\.path))
        XCTAssertFalse(changed.isEmpty)
        XCTAssertTrue(changed.allSatisfy { $0.hasSuffix(".pbf") }, "raster tiles do not draw names: \(changed.filter { $0.hasSuffix(".png") }.prefix(3))")
        // Exactly the vector tiles that now carry the new name changed.
        var carrying = Set<String>()
        for (path, _) in b where path.hasSuffix(".pbf") {
            let t = try DecodedTile(Array(Data(contentsOf: out.appendingPathComponent(path))))
            if t.layers.contains(where: { $0.features.contains { $0.properties["name"] == "Toilets" } }) { carrying.insert(path) }
        }
        XCTAssertEqual(changed, carrying)
        try assertEqualToCleanBuild()
    }

    func testStyleColourChangeRerendersTilesDrawingThatLayerOnly() throws {
        let style = dir.appendingPathComponent("style.json")
        func writeStyle(_ rooms: String) throws {
            try ##"{"id": "t", "version": "1.1", "styles": [{"layer-id": "floor_outlines_[FLOOR]", "fill-color": "#EEEEEE"}, {"layer-id": "floor_walkways_[FLOOR]", "fill-color": "#FFFFFF"}, {"layer-id": "floor_rooms_[FLOOR]", "fill-color": "\##(rooms)", "outline-color": "#806040"}]}"##
                .write(to: style, atomically: true, encoding: .utf8)
        }
        try writeStyle("#FBE5C4")
        try writeConfig(style: "style.json")
        try build()
        let a = try manifest()
        try writeStyle("#C4E5FB")
        try build()
        let b = try manifest()
        let changedKeys = Set(b.values.filter { a[$0.path]?.key != $0.key }.map(\.path))
        let changedBytes = Set(b.values.filter { a[$0.path]?.sha256 != $0.sha256 }.map(\.path))
        XCTAssertFalse(changedKeys.isEmpty)
        XCTAssertTrue(changedKeys.allSatisfy { $0.hasSuffix(".png") }, "the style does not reach vector tiles")
        // No tile whose pixels changed was skipped.
        XCTAssertEqual(changedBytes.subtracting(changedKeys).sorted(), [], "bytes changed, not re-rendered")
        // Re-rendered: every tile the rooms layer draws in (fill, or its outline within half a pixel), and no other.
        var reader = IMDFReader()
        let v = try reader.read(path: venue.path)
        var expected = Set<String>()
        for floor in Floor.group(v.levels) {
            let ids = Set(floor.levels.map(\.id))
            let rooms = v.features.filter { $0.featureClass == .room && $0.levelID.map(ids.contains) == true }
            for z in 17...21 {
                for room in rooms {
                    for poly in room.geometry.polygons {
                        let pts = poly.exterior.map { IndependentCoverage.tileXY($0, zoom: z) }
                        let pad = 0.5 / 256
                        for ty in Int((pts.map(\.y).min()! - pad).rounded(.down))...Int((pts.map(\.y).max()! + pad).rounded(.down)) {
                            for tx in Int((pts.map(\.x).min()! - pad).rounded(.down))...Int((pts.map(\.x).max()! + pad).rounded(.down)) {
                                let area = IndependentCoverage.clippedArea(pts, minX: Double(tx) - pad, minY: Double(ty) - pad,
                                                                           maxX: Double(tx + 1) + pad, maxY: Double(ty + 1) + pad)
                                let p = "h/\(floor.id)/png/\(z)/\(tx)/\(ty).png"
                                if area > 0, a[p] != nil { expected.insert(p) }
                            }
                        }
                    }
                }
            }
        }
        XCTAssertEqual(changedKeys.subtracting(expected).sorted(), [], "re-rendered without drawing a room")
        XCTAssertEqual(expected.subtracting(changedKeys).sorted(), [], "draws a room, not re-rendered")
        try assertEqualToCleanBuild()
    }

    func testRemovingAFloorRemovesItsTree() throws {
        try build()
        XCTAssertTrue(try manifest().keys.contains { $0.hasPrefix("h/floor_1/") })
        try editFeatures("level.geojson") { feats in
            feats.removeAll { (($0["properties"] as? [String: Any])?["ordinal"] as? Int) == 1 }
        }
        let r = try build()
        XCTAssertTrue(r.stderr.contains("names no level"))
        XCTAssertFalse(try manifest().keys.contains { $0.hasPrefix("h/floor_1/") })
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("h/floor_1").path))
        try assertEqualToCleanBuild()
    }

    /// A unit edit on one floor leaves the other floors' pyramids to the last
    /// build, not planned again, unless one of their files was damaged: that
    /// pyramid is planned and the damaged tile rendered again.
    func testPyramidsOfUnchangedFloorsAreTakenFromTheLastBuild() throws {
        try build()
        let before = try manifest()
        let floors = Set(before.keys.map { $0.split(separator: "/")[1] }).subtracting(["all"])
        XCTAssertGreaterThan(floors.count, 1)
        try editFeatures("unit.geojson") { feats in
            let i = feats.firstIndex { $0["id"] as? String == IncrementalBuildTests.shopID }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": "Nordic Books & Maps"]
            feats[i]["properties"] = p
        }
        let victim = before.keys.filter { $0.hasPrefix("h/floor_1/png/") }.sorted()[0]
        try FileManager.default.removeItem(at: out.appendingPathComponent(victim))
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The shop is on floor 0: its png and mvt pyramids and the venue-wide one change; of the
        // other floors' pyramids (png and mvt each), all but the damaged one are carried over.
        XCTAssertTrue(r.stderr.contains("(\(2 * (floors.count - 1) - 1) pyramids with unchanged inputs not planned again)"), r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(victim).path))
        let after = try manifest()
        XCTAssertEqual(Set(after.keys), Set(before.keys))
        XCTAssertEqual(after.keys.filter { after[$0]?.key != before[$0]?.key && !$0.hasPrefix("h/floor_0/") && !$0.hasPrefix("h/all/") }, [],
                       "only floor 0 and the venue-wide pyramid have new keys")
        try assertEqualToCleanBuild()
        XCTAssertEqual(try CLI.run(["verify", "--config", config.path]).status, 0)
    }

    /// An incremental build sets the files it replaces (and the manifest) aside
    /// in a trash folder instead of freeing them while the build waits; the
    /// next build deletes them in the background. Verify ignores the trash.
    func testReplacedFilesAreSetAsideAndDeletedByTheNextBuild() throws {
        try build()
        let before = try manifest()
        let oldManifest = try Data(contentsOf: out.appendingPathComponent("manifest.json"))
        func rename(_ name: String) throws {
            try editFeatures("unit.geojson") { feats in
                let i = feats.firstIndex { $0["id"] as? String == IncrementalBuildTests.shopID }!
                var p = feats[i]["properties"] as! [String: Any]
                p["name"] = ["en": name]
                feats[i]["properties"] = p
            }
        }
        try rename("Nordic Books & Maps")
        XCTAssertGreaterThan(try build().rendered, 0)
        let trash = out.appendingPathComponent(".venuetiles/trash")
        let folders = try FileManager.default.contentsOfDirectory(atPath: trash.path)
        XCTAssertEqual(folders.count, 1)
        let first = trash.appendingPathComponent(folders[0])
        let kept = Set(try FileManager.default.contentsOfDirectory(atPath: first.path).map {
            try SHA256.hash(data: Data(contentsOf: first.appendingPathComponent($0))).map { String(format: "%02x", $0) }.joined()
        })
        // The old bytes of every tile whose bytes changed, and the old manifest.
        let after = try manifest()
        let replaced = after.filter { path, entry in before[path].map { $0.sha256 != entry.sha256 } ?? false }
        XCTAssertFalse(replaced.isEmpty)
        for (path, _) in replaced { XCTAssertTrue(kept.contains(before[path]!.sha256), "old \(path) set aside") }
        XCTAssertTrue(kept.contains(SHA256.hash(data: oldManifest).map { String(format: "%02x", $0) }.joined()), "old manifest set aside")
        XCTAssertEqual(try CLI.run(["verify", "--config", config.path]).status, 0)
        try assertEqualToCleanBuild()

        // The next build deletes the first folder (on a thread it does not wait for:
        // what it leaves at exit the build after deletes).
        try rename("Nordic Maps")
        try build()
        var gone = false
        for _ in 0..<3 where !gone {
            for _ in 0..<50 where !gone {
                gone = !FileManager.default.fileExists(atPath: first.path)
                if !gone { usleep(100_000) }
            }
            if !gone { try build() }
        }
        XCTAssertTrue(gone, "the first build's trash is deleted by later builds")
    }

    /// An input edit that no tile reads (a property nothing draws or encodes)
    /// renders nothing and leaves manifest.json as it was, inode and mtime.
    func testEditNoTileReadsLeavesTheManifestInPlace() throws {
        try build()
        let manifestPath = out.appendingPathComponent("manifest.json").path
        var before = stat()
        XCTAssertEqual(lstat(manifestPath, &before), 0)
        try editFeatures("unit.geojson") { feats in
            var p = feats[0]["properties"] as! [String: Any]
            p["x_note"] = "not drawn"
            feats[0]["properties"] = p
        }
        XCTAssertEqual(try build().rendered, 0)
        var after = stat()
        XCTAssertEqual(lstat(manifestPath, &after), 0)
        XCTAssertEqual(after.st_ino, before.st_ino)
        XCTAssertEqual(after.st_mtim.tv_sec, before.st_mtim.tv_sec)
        XCTAssertEqual(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec)
        try assertEqualToCleanBuild()
        // And the next build with no change stops before parsing.
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertTrue(r.stderr.contains("nothing to do"), r.stderr)
    }

    /// A venue-wide vector tile rendered with its floors' tiles takes their
    /// clipped geometries; rendered alone it clips them itself. Both give the
    /// same bytes: deleting every venue-wide tile and building again renders
    /// them alone and leaves the manifest byte-identical.
    func testVenueWideVectorTilesAreTheSameRenderedWithOrWithoutTheirFloors() throws {
        try build()
        let manifestURL = out.appendingPathComponent("manifest.json")
        let before = try Data(contentsOf: manifestURL)
        let venueWide = try manifest().keys.filter { $0.hasPrefix("h/all/mvt/") }
        XCTAssertGreaterThan(venueWide.count, 10)
        for p in venueWide { try FileManager.default.removeItem(at: out.appendingPathComponent(p)) }
        XCTAssertEqual(try build().rendered, venueWide.count)
        XCTAssertEqual(try Data(contentsOf: manifestURL), before)
    }

    func testUnchangedInputsStopBeforeParsing() throws {
        try build()
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing to do"), r.stderr)
        XCTAssertTrue(r.stdout.contains("0 rendered"), r.stdout)
        // A tile touched since the last build disables the shortcut; the full check repairs it.
        let m = try manifest()
        let victim = m.keys.sorted()[3]
        try Data("x".utf8).write(to: out.appendingPathComponent(victim))
        let r2 = try CLI.run(["build", "--config", config.path])
        XCTAssertFalse(r2.stderr.contains("nothing to do"), r2.stderr)
        XCTAssertEqual(r2.rendered, 1)
        XCTAssertTrue(try CLI.run(["build", "--config", config.path]).stderr.contains("nothing to do"))
        // A tile rewritten with its own bytes: one full check (nothing rendered), then the shortcut again.
        let same = try Data(contentsOf: out.appendingPathComponent(victim))
        Thread.sleep(forTimeInterval: 0.02)
        try same.write(to: out.appendingPathComponent(victim))
        let r3 = try CLI.run(["build", "--config", config.path])
        XCTAssertFalse(r3.stderr.contains("nothing to do"), r3.stderr)
        XCTAssertEqual(r3.rendered, 0)
        XCTAssertTrue(try CLI.run(["build", "--config", config.path]).stderr.contains("nothing to do"))
        // So does a missing file that is not a tile (a TileJSON document), which the build writes again.
        let tilejson = out.appendingPathComponent("h/floor_0/png/tilejson.json")
        try FileManager.default.removeItem(at: tilejson)
        XCTAssertFalse(try CLI.run(["build", "--config", config.path]).stderr.contains("nothing to do"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: tilejson.path))
        XCTAssertTrue(try CLI.run(["build", "--config", config.path]).stderr.contains("nothing to do"))
        // So does a changed input byte.
        try editFeatures("amenity.geojson") { _ in }
        XCTAssertFalse(try CLI.run(["build", "--config", config.path]).stderr.contains("nothing to do"))
    }

    func testDryRunChangesNothing() throws {
        try build()
        try editFeatures("unit.geojson") { feats in feats.removeLast() }
        let before = CLI.snapshot(out)
        let r = try build(["--dry-run", "--timings"])
        XCTAssertEqual(CLI.snapshot(out), before)
        XCTAssertTrue(r.stdout.contains("h/floor_1/png z21: render "), r.stdout)
        XCTAssertTrue(r.stdout.contains("dry run: would render"), r.stdout)
        // The stages a dry run goes through, each with its peak memory.
        for stage in ["load", "plan", "keys", "diff"] {
            XCTAssertTrue(r.stderr.split(separator: "\n").contains { $0.hasPrefix("timing: \(stage) ") && $0.contains(" MiB") }, r.stderr)
        }
        XCTAssertGreaterThan(try build().rendered, 0)
    }

    func testKilledBuildIsFinishedByTheNext() throws {
        try writeConfig(maxZoom: 22)
        try build()
        try editFeatures("unit.geojson") { feats in feats.removeAll { ($0["properties"] as? [String: Any])?["category"] as? String == "walkway" } }
        for delay in [0.4, 0.9, 1.5] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: CLI.binary)
            p.arguments = ["build", "--config", config.path, "-q", "--force"]
            p.standardOutput = Pipe(); p.standardError = Pipe()
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            // Whatever was killed, the output is readable: the manifest is whole.
            XCTAssertNoThrow(try manifest())
        }
        try build()
        try assertEqualToCleanBuild()
        let v = try CLI.run(["verify", "--config", config.path])
        XCTAssertEqual(v.status, 0, v.stdout)
    }

    func testSecondBuildIntoTheSameFolderIsRefused() throws {
        try build()
        let lock = out.appendingPathComponent(".venuetiles/lock").path
        let fd = open(lock, O_RDWR | O_CREAT, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(flock(fd, LOCK_EX | LOCK_NB), 0)
        let before = CLI.snapshot(out)
        let r = try build(["--force"], expect: 4)
        XCTAssertTrue(r.stderr.contains("another venuetiles build"), r.stderr)
        XCTAssertEqual(CLI.snapshot(out), before)
        close(fd)
        try build()
    }

    func testVerifyAndClean() throws {
        try build()
        let paths = try manifest().keys.sorted()
        try Data("x".utf8).write(to: out.appendingPathComponent(paths[0]))
        try FileManager.default.removeItem(at: out.appendingPathComponent(paths[1]))
        try Data().write(to: out.appendingPathComponent("h/stray.bin"))
        let v = try CLI.run(["verify", "--config", config.path])
        XCTAssertEqual(v.status, 1)
        XCTAssertTrue(v.stdout.contains("altered: \(paths[0])"), v.stdout)
        XCTAssertTrue(v.stdout.contains("missing: \(paths[1])"), v.stdout)
        XCTAssertTrue(v.stdout.contains("unexpected: h/stray.bin"), v.stdout)
        // The next build repairs both tiles (the stray file is not ours to delete).
        XCTAssertEqual(try build().rendered, 2)
        // Clean removes what venuetiles wrote, and keeps the stray file and the folders that hold it.
        let c = try CLI.run(["clean", "--config", config.path])
        XCTAssertEqual(c.status, 0, c.stderr)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: out.path).sorted(), ["h", "h/stray.bin"])
        try FileManager.default.removeItem(at: out.appendingPathComponent("h/stray.bin"))
        try build()
        XCTAssertEqual(try CLI.run(["clean", "--config", config.path]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        // A folder that is not venuetiles output is left alone.
        let other = dir.appendingPathComponent("precious")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: other.appendingPathComponent("notes.txt"))
        XCTAssertEqual(try CLI.run(["clean", "--output", other.path]).status, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: other.appendingPathComponent("notes.txt").path))
    }

    /// The incremental output equals a clean `--force` build of the same input, byte for byte.
    func assertEqualToCleanBuild(file: StaticString = #filePath, line: UInt = #line) throws {
        let clean = dir.appendingPathComponent("clean-\(UUID().uuidString)")
        let r = try CLI.run(["build", "--config", config.path, "-q", "--force", "--output", clean.path])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")),
                       try Data(contentsOf: clean.appendingPathComponent("manifest.json")), "manifests differ", file: file, line: line)
        func files(_ root: URL) -> [String: String] { CLI.snapshot(root).filter { !$0.key.hasPrefix(".venuetiles") }.mapValues { String($0.prefix(64)) } }
        XCTAssertEqual(files(out), files(clean), "trees differ", file: file, line: line)
    }
}
