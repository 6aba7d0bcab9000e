import Crypto
import Foundation
import XCTest

/// What the tool will and will not touch (issue: "Never destroy what is not
/// ours"). Each test reproduces one way a careless user, a hostile file or a
/// racing job could make it delete or corrupt files, and checks that nothing
/// outside the output folder changed and that `verify` passes afterwards.
final class SafetyTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("safety")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 20}"#)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    @discardableResult
    func run(_ args: [String], expect: Int32? = 0, env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, env: env)
        if let expect { XCTAssertEqual(r.status, expect, "venuetiles \(args.joined(separator: " ")): \(r.stderr)", file: file, line: line) }
        return r
    }

    @discardableResult
    func build(_ extra: [String] = [], expect: Int32? = 0, env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        try run(["build", "--config", config.path, "-q"] + extra, expect: expect, env: env, file: file, line: line)
    }

    func assertVerifies(_ folder: URL? = nil, file: StaticString = #filePath, line: UInt = #line) throws {
        let v = try CLI.run(["verify", "--output", (folder ?? out).path])
        XCTAssertEqual(v.status, 0, v.stdout, file: file, line: line)
    }

    func renameShop(_ name: String) throws {
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { feats in
            let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["name"] != nil && ($0["properties"] as? [String: Any])?["category"] as? String == "room" }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": name]
            feats[i]["properties"] = p
        }
    }

    /// A folder beside the output whose every byte is checked after each step.
    func sibling() throws -> (URL, [String: String]) {
        let s = dir.appendingPathComponent("sibling")
        try FileManager.default.createDirectory(at: s.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: s.appendingPathComponent("victim.txt"))
        try Data("keep me".utf8).write(to: s.appendingPathComponent("sub/also.txt"))
        return (s, CLI.snapshot(s, state: true))
    }

    // MARK: 1. clean deletes only what is ours

    func testCleanRefusesAVenueFolderAndAWebAppWithTheirOwnManifest() throws {
        // An IMDF folder has a manifest.json; so does many a web app.
        let before = CLI.snapshot(venue, state: true)
        let r = try run(["clean", "--output", venue.path], expect: 1)
        XCTAssertTrue(r.stderr.contains("not made by venuetiles"), r.stderr)
        XCTAssertEqual(CLI.snapshot(venue, state: true), before)
        let app = dir.appendingPathComponent("webapp")
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try Data(#"{"name": "my app", "start_url": "/"}"#.utf8).write(to: app.appendingPathComponent("manifest.json"))
        try Data("<html></html>".utf8).write(to: app.appendingPathComponent("index.html"))
        try run(["clean", "--output", app.path], expect: 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: app.appendingPathComponent("index.html").path))
    }

    func testCleanRemovesOnlyOurFilesAndKeepsOthers() throws {
        try build()
        // Someone else's file inside the output, and a link pointing out of it.
        let (s, before) = try sibling()
        try Data("notes".utf8).write(to: out.appendingPathComponent("h/README.txt"))
        try FileManager.default.createSymbolicLink(at: out.appendingPathComponent("h/link"), withDestinationURL: s)
        let r = try run(["clean", "--output", out.path])
        XCTAssertTrue(r.stdout.contains("kept 1 entries"), r.stdout)
        XCTAssertEqual(CLI.snapshot(s, state: true), before, "nothing outside the output folder changed")
        let left = try FileManager.default.subpathsOfDirectory(atPath: out.path).sorted()
        XCTAssertEqual(left, ["h", "h/README.txt", "h/link"])
        // With those gone too, the folder (empty folders only) is a build's again, and clean removes it.
        try FileManager.default.removeItem(at: out.appendingPathComponent("h/README.txt"))
        try FileManager.default.removeItem(at: out.appendingPathComponent("h/link"))
        try build()
        XCTAssertTrue(try run(["clean", "--output", out.path]).stdout.hasPrefix("removed \(out.path)"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    // MARK: 2. destructive output paths

    func testDestructiveOutputPathsAreRefused() throws {
        let (s, before) = try sibling()
        let home = dir.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent(".ssh"), withIntermediateDirectories: true)
        let all = CLI.snapshot(dir, state: true)
        let cases: [([String], String, Int32)] = [
            (["--output", ""], "--output must name a folder", 64),
            (["--output", "/"], "refusing the root folder", 1),
            (["--output", home.path], "refusing the home folder", 1),
            (["--output", dir.path], "it holds the config", 1),
            (["--output", venue.path], "it holds source \"h\"", 1),
            (["--output", venue.appendingPathComponent("tiles").path], "inside source \"h\"", 1),
            (["--output", s.path], "not made by venuetiles", 1),
        ]
        for (args, message, status) in cases {
            let r = try build(args, expect: status, env: ["HOME": home.path])
            XCTAssertTrue(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        // "output": "" in the config (the config's own folder).
        let empty = dir.appendingPathComponent("empty-output.json")
        try Data(#"{"output": "", "sources": [{"id": "h", "format": "imdf", "path": "venue"}]}"#.utf8).write(to: empty)
        let r = try run(["build", "--config", empty.path], expect: 1)
        XCTAssertTrue(r.stderr.contains("is empty, which would be the config's own folder"), r.stderr)
        XCTAssertEqual(CLI.snapshot(s, state: true), before)
        var now = CLI.snapshot(dir, state: true)
        now["empty-output.json"] = nil
        XCTAssertEqual(now, all, "nothing changed anywhere")
        // With --allow-existing the sibling is built into and its files are kept, even by clean.
        try build(["--output", s.path, "--allow-existing"])
        try run(["clean", "--output", s.path])
        XCTAssertEqual(CLI.snapshot(s, state: true), before)
    }

    // MARK: 3. the lock comes first

    /// A build of `config` that stops at test pause point `point` (VENUETILES_TEST_PAUSE) and
    /// has reached it: it goes on when the returned gate file is created.
    func startPaused(at point: String, gate name: String, config: URL? = nil) throws -> (Process, gate: String) {
        let gate = dir.appendingPathComponent(name).path
        let p = try CLI.start(["build", "--config", (config ?? self.config).path, "-q"], env: ["VENUETILES_TEST_PAUSE": "\(point):\(gate)"])
        try CLI.waitForFile(gate + ".reached")
        return (p, gate)
    }

    func testASecondBuildIsRefusedBeforeItReadsOrDeletesAnything() throws {
        try build()
        try renameShop("Lock First")
        // An earlier build's set-aside files: only the lock holder may delete them.
        let earlier = out.appendingPathComponent(".venuetiles/trash/earlier-0")
        try FileManager.default.createDirectory(at: earlier, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: earlier.appendingPathComponent("0"))
        let (first, gate) = try startPaused(at: "locked", gate: "gate")
        let second = try build(["--force"], expect: 4)
        XCTAssertTrue(second.stderr.contains("another venuetiles build"), second.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: earlier.appendingPathComponent("0").path), "the refused build deleted nothing")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 0)
        try assertVerifies()
        XCTAssertGreaterThan(try build(["--force"]).rendered, 0)
        try assertVerifies()
    }

    // MARK: 4. our own state files are not trusted

    func testPathsOutsideTheFolderInOurOwnStateAreRefused() throws {
        try build()
        let (s, before) = try sibling()
        // A manifest entry climbing out of the folder (the binary index goes, so the manifest is read).
        let manifestURL = out.appendingPathComponent("manifest.json")
        let good = try Data(contentsOf: manifestURL)
        var doc = try JSONSerialization.jsonObject(with: good) as! [String: Any]
        var files = doc["files"] as! [[String: Any]]
        files.append(["path": "../sibling/victim.txt", "sha256": String(repeating: "0", count: 64), "bytes": 8])
        doc["files"] = files
        try JSONSerialization.data(withJSONObject: doc).write(to: manifestURL)
        try FileManager.default.removeItem(at: out.appendingPathComponent(".venuetiles/index"))
        for args in [["build", "--config", config.path], ["build", "--config", config.path, "--force"], ["verify", "--output", out.path], ["clean", "--output", out.path]] {
            let r = try run(args, expect: 1)
            XCTAssertTrue(r.stderr.contains("../sibling/victim.txt") && r.stderr.contains("climbs out"), "\(args[0]): \(r.stderr)")
        }
        XCTAssertEqual(CLI.snapshot(s, state: true), before)
        try good.write(to: manifestURL)

        // The same in an unfinished build's intent file.
        try Data("h/x.png\n/etc/passwd\n".utf8).write(to: out.appendingPathComponent(".venuetiles/intent"))
        XCTAssertTrue(try build(expect: 1).stderr.contains("an absolute path"))
        try FileManager.default.removeItem(at: out.appendingPathComponent(".venuetiles/intent"))

        // A symbolic link where the lock goes, live or dangling, is never followed.
        let lock = out.appendingPathComponent(".venuetiles/lock")
        for target in [s.appendingPathComponent("victim.txt"), s.appendingPathComponent("created-by-lock")] {
            try? FileManager.default.removeItem(at: lock)
            try FileManager.default.createSymbolicLink(at: lock, withDestinationURL: target)
            XCTAssertTrue(try build(["--force"], expect: 1).stderr.contains("symbolic link"))
        }
        XCTAssertEqual(CLI.snapshot(s, state: true), before)
        try FileManager.default.removeItem(at: lock)

        // A link planted where a tile folder is: nothing is written or deleted through it.
        let manifest = try JSONDecoder().decode(Paths.self, from: good)
        let tile = try XCTUnwrap(manifest.tiles.first { $0.path.contains("/png/20/") }).path
        let folder = out.appendingPathComponent((tile as NSString).deletingLastPathComponent)
        try FileManager.default.removeItem(at: folder)
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: s)
        let r = try build(["--force"], expect: 3)
        XCTAssertTrue(r.stderr.contains("symbolic link is in the way"), r.stderr)
        XCTAssertEqual(CLI.snapshot(s, state: true), before)
        try run(["clean", "--output", out.path])
        XCTAssertEqual(CLI.snapshot(s, state: true), before, "clean did not follow the link")
    }

    struct Paths: Decodable { struct E: Decodable { var path: String }; var tiles: [E] }

    // MARK: 5. the fingerprint is of the bytes parsed

    func testAnInputEditedWhileTheBuildReadsItIsNotTakenForTheOneOnDisk() throws {
        try build()
        try renameShop("Edit E")
        let unitE = try Data(contentsOf: venue.appendingPathComponent("unit.geojson"))
        // The build checks E on disk, then parses F: F is what it records.
        let (p, gate) = try startPaused(at: "loading", gate: "gate")
        try renameShop("Edit F")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        // Back to E: the tiles are F's, so this is no no-op.
        try unitE.write(to: venue.appendingPathComponent("unit.geojson"))
        let r = try build()
        XCTAssertGreaterThan(r.rendered, 0, r.stdout)
        try assertVerifies()
        // And the output is E's: a clean build of E gives the same manifest.
        let clean = dir.appendingPathComponent("clean")
        try build(["--output", clean.path])
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), try Data(contentsOf: clean.appendingPathComponent("manifest.json")))
    }

    /// Rendering reads each venue again (it was dropped after planning), or,
    /// for the last venue kept whole from planning (`KeptVenue`), first reads
    /// its files again to compare: a source edited in between would give
    /// tiles other than the planned ones, so the build stops and the previous
    /// output is put back.
    func testAnInputEditedBetweenPlanAndRenderStopsTheBuild() throws {
        try build()
        let before = CLI.snapshot(out)
        try renameShop("Planned")
        let (p, gate) = try startPaused(at: "writing", gate: "gate")
        try renameShop("Edited Meanwhile")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 1, "refused as a changed input")
        XCTAssertEqual(CLI.snapshot(out), before, "exactly the previous output")
        try assertVerifies()
        XCTAssertGreaterThan(try build().rendered, 0)
        try assertVerifies()
    }

    // MARK: 6. consistent between builds

    func testAFailedIncrementalBuildPutsThePreviousOutputBack() throws {
        try build()
        let before = CLI.snapshot(out)
        try renameShop("Disk Full")
        for jobs in ["1", "3"] {
            let r = try build(["--jobs", jobs], expect: 3, env: ["VENUETILES_TEST_FAIL": "write-after:5"])
            XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
            XCTAssertEqual(CLI.snapshot(out), before, "jobs \(jobs): exactly the previous output")
            try assertVerifies()
        }
        XCTAssertGreaterThan(try build().rendered, 0)
        try assertVerifies()
    }

    func testAFailedFirstBuildLeavesNothingBehind() throws {
        let r = try build(expect: 3, env: ["VENUETILES_TEST_FAIL": "write-after:5"])
        XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), (try? FileManager.default.subpathsOfDirectory(atPath: out.path))?.description ?? "")
    }

    func testOldFilesStayUntilTheManifestSwitchesAndAKilledBuildIsFinishedNext() throws {
        try build()
        // Fewer zooms (every z20 tile becomes stale) and a renamed shop (its
        // tiles are replaced): neither is visible before the manifest switches.
        try renameShop("Renamed While Served")
        let smaller = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 19}"#)
        let (p, _) = try startPaused(at: "committing", gate: "gate", config: smaller)
        // Rendered and written, not switched: every name of the last manifest
        // holds the bytes it lists (new files and staged ones are only extra).
        let during = try CLI.run(["verify", "--output", out.path])
        XCTAssertFalse(during.stdout.contains("missing:"), during.stdout)
        XCTAssertFalse(during.stdout.contains("altered:"), during.stdout)
        XCTAssertTrue(during.stdout.contains("unexpected:"), "the build wrote nothing? \(during.stdout)")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let v = try CLI.run(["verify", "--output", out.path])
        XCTAssertFalse(v.stdout.contains("missing:"), v.stdout)
        XCTAssertFalse(v.stdout.contains("altered:"), v.stdout)
        // The next build finishes the job: it equals a clean build, and verifies.
        try run(["build", "--config", smaller.path, "-q"])
        try assertVerifies()
        let clean = dir.appendingPathComponent("clean")
        try run(["build", "--config", smaller.path, "-q", "--output", clean.path])
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), try Data(contentsOf: clean.appendingPathComponent("manifest.json")))
    }

    /// kill -9 at each point of the commit order, in turn over one folder:
    /// before the switch the previous output is whole; at any point the next
    /// build finishes the job and equals a clean build.
    func testAKillAtEachPointOfTheCommitIsFinishedByTheNextBuild() throws {
        try build()
        for (k, point) in ["locked", "loading", "writing", "committing", "switched", "committed"].enumerated() {
            try renameShop("Killed At \(point)")
            let (p, _) = try startPaused(at: point, gate: "gate-\(point)")
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            if k < 4 {
                let v = try CLI.run(["verify", "--output", out.path])
                XCTAssertFalse(v.stdout.contains("missing:") || v.stdout.contains("altered:"), "killed at \(point): \(v.stdout)")
            }
            try build()
            try assertVerifies()
            let clean = dir.appendingPathComponent("clean-\(point)")
            try run(["build", "--config", config.path, "-q", "--output", clean.path])
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")), try Data(contentsOf: clean.appendingPathComponent("manifest.json")),
                           "killed at \(point), then built again: equal to a clean build")
        }
    }

    func testAFailureDuringTheSwitchPutsThePreviousOutputBack() throws {
        try build()
        let before = CLI.snapshot(out)
        try renameShop("Switch Fails")
        for jobs in ["1", "2"] {
            let r = try build(["--jobs", jobs], expect: 3, env: ["VENUETILES_TEST_FAIL": "switch-after:3"])
            XCTAssertTrue(r.stderr.contains("Input/output error"), r.stderr)
            XCTAssertEqual(CLI.snapshot(out), before, "jobs \(jobs): exactly the previous output")
            try assertVerifies()
        }
        XCTAssertGreaterThan(try build().rendered, 0)
        try assertVerifies()
    }

    // MARK: rebuilds keep every kind of output (meshes were deleted)

    func testEveryRebuildLeavesAnOutputThatVerifies() throws {
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}], "zoom": {"min": 17, "max": 19}, "mesh": true"#)
        try build()
        try assertVerifies()
        try build(["--force"])
        try assertVerifies()
        try renameShop("Mesh Kept")
        try build()
        try assertVerifies()
        try build()
        try assertVerifies()
    }
}
