import Crypto
import Foundation
import TestSupport
import XCTest

/// `venuetiles publish` through the built CLI: to S3 (moto on 127.0.0.1) and to a
/// folder served by nginx on 127.0.0.1.
final class PublishCommandTests: XCTestCase {
    var dir: URL!
    var venue: URL!
    var config: URL!
    var out: URL { dir.appendingPathComponent("out") }

    override func setUpWithError() throws {
        dir = try CLI.tempDir("publish")
        venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        config = dir.appendingPathComponent("pipeline.json")
        // Zooms 17-21 keep moto's work to a few thousand objects; gzip so that
        // Content-Encoding is exercised.
        try #"{"output": "out", "zoom": {"min": 17, "max": 21}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "tilesets": [{"format": "png"}, {"format": "mvt", "compress": "gzip"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func skipUnless(_ ok: Bool, _ reason: String) throws {
        if ok { return }
        if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("\(reason) (CI=true: scripts/setup installs it)") }
        print("skipped: \(reason)")
        throw XCTSkip(reason)
    }

    let awsEnv = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"]

    /// Starts the CLI with extra environment variables.
    func start(_ args: [String], env: [String: String]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: CLI.binary)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        let o = Pipe(), e = Pipe()
        p.standardOutput = o; p.standardError = e
        try p.run()
        return (p, o, e)
    }

    func run(_ args: [String], env: [String: String] = [:]) throws -> CLI.Result {
        let (p, o, e) = try start(args, env: env)
        let od = o.fileHandleForReading.readDataToEndOfFile(), ed = e.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLI.Result(status: p.terminationStatus, stdout: String(decoding: od, as: UTF8.self), stderr: String(decoding: ed, as: UTF8.self))
    }

    @discardableResult
    func build(file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r
    }

    struct Entry: Decodable { var path: String; var sha256: String }
    struct M: Decodable { var tiles: [Entry]; var files: [Entry] }

    /// path → sha256 of every tile and file of the output's manifest.
    func manifest() throws -> [String: String] {
        let m = try JSONDecoder().decode(M.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        return Dictionary(uniqueKeysWithValues: (m.tiles + m.files).map { ($0.path, $0.sha256) })
    }

    /// key → MD5 (S3's ETag) of what a complete publish of the output under `prefix` holds.
    func expectedObjects(prefix: String) throws -> [String: String] {
        var e = [String: String]()
        for path in try manifest().keys.sorted() + ["manifest.json"] {
            let d = try Data(contentsOf: out.appendingPathComponent(path))
            e[prefix + path] = Insecure.MD5.hash(data: d).map { String(format: "%02x", $0) }.joined()
        }
        return e
    }

    func count(_ summary: String, _ word: String) -> Int {
        guard let r = summary.range(of: #"(\d+) "# + word, options: .regularExpression) else { return -1 }
        return Int(summary[r].split(separator: " ")[0]) ?? -1
    }

    /// Publish, read back with headers; edit one unit, rebuild, re-publish: exactly
    /// the changed objects go out, and --changed-list names them.
    func testS3PublishAndOneUnitEdit() throws {
        let moto = try motoOrSkip()
        try moto.createBucket("venue-tiles")
        try build()
        let s3 = ["publish", "--config", config.path, "--to", "s3://venue-tiles/maps", "--endpoint", moto.endpoint]
        let first = try run(s3, env: awsEnv)
        XCTAssertEqual(first.status, 0, first.stderr)
        let total = try manifest().count + 1
        XCTAssertEqual(count(first.stdout, "uploaded"), total, first.stdout)
        XCTAssertEqual(try moto.listObjects("venue-tiles"), try expectedObjects(prefix: "maps/"))

        let m = try manifest()
        let pbf = m.keys.sorted().first { $0.hasSuffix(".pbf") }!
        let obj = try moto.getObject("venue-tiles", "maps/" + pbf)
        XCTAssertEqual(obj.headers["content-type"], "application/vnd.mapbox-vector-tile")
        XCTAssertEqual(obj.headers["content-encoding"], "gzip")
        XCTAssertEqual(Array(obj.body.prefix(2)), [0x1F, 0x8B])
        XCTAssertEqual(obj.body, try Data(contentsOf: out.appendingPathComponent(pbf)))
        let png = try moto.getObject("venue-tiles", "maps/" + m.keys.sorted().first { $0.hasSuffix(".png") }!)
        XCTAssertEqual(png.headers["content-type"], "image/png")
        XCTAssertEqual(png.headers["cache-control"], "public, max-age=86400, stale-while-revalidate=604800")
        let tilejson = try moto.getObject("venue-tiles", "maps/" + m.keys.sorted().first { $0.hasSuffix(".json") }!)
        XCTAssertEqual(tilejson.headers["content-type"], "application/json")
        XCTAssertEqual(tilejson.headers["cache-control"], "public, max-age=60")

        // One unit renamed: its label and vector properties change.
        try CLI.editFeatures(venue.appendingPathComponent("unit.geojson")) { feats in
            let i = feats.firstIndex { ($0["properties"] as? [String: Any])?["category"] as? String == "room" }!
            var p = feats[i]["properties"] as! [String: Any]
            p["name"] = ["en": "Renamed Room For Publish"]
            feats[i]["properties"] = p
        }
        let rebuilt = try build()
        let after = try manifest()
        let changed = Set(after.keys.filter { m[$0] != after[$0] })
        let gone = Set(m.keys).subtracting(after.keys)
        XCTAssertGreaterThan(changed.count, 0)
        let list = dir.appendingPathComponent("changed.txt")
        let second = try run(s3 + ["--changed-list", list.path], env: awsEnv)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(count(second.stdout, "uploaded"), changed.count + 1, second.stdout)
        XCTAssertEqual(count(second.stdout, "deleted"), gone.count, second.stdout)
        XCTAssertEqual(count(second.stdout, "unchanged"), after.count - changed.count, second.stdout)
        let listed = Set(try String(contentsOf: list, encoding: .utf8).split(separator: "\n").map(String.init))
        XCTAssertEqual(listed, Set((changed.union(gone).union(["manifest.json"])).map { "/maps/" + $0 }))
        XCTAssertEqual(try moto.listObjects("venue-tiles"), try expectedObjects(prefix: "maps/"))
        print("publish: one-unit edit re-rendered \(rebuilt.rendered) tiles; re-publish uploaded \(changed.count + 1) objects (\(changed.count) changed files + manifest), deleted \(gone.count), of \(after.count + 1)")

        // Nothing changed since: nothing goes out. A dry run sends nothing either.
        let third = try run(s3, env: awsEnv)
        XCTAssertEqual(count(third.stdout, "uploaded"), 0, third.stdout)
        let dry = try run(["publish", "--config", config.path, "--to", "s3://venue-tiles/dry", "--endpoint", moto.endpoint, "--dry-run"], env: awsEnv)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("dry run: would upload \(after.count + 1) files"), dry.stdout)
        XCTAssertFalse(try moto.listObjects("venue-tiles").keys.contains { $0.hasPrefix("dry/") })
    }

    /// A publish killed half way (SIGKILL) leaves no manifest at the destination;
    /// the next one gives the full state.
    func testKilledPublishIsFinishedByTheNext() throws {
        let moto = try motoOrSkip()
        try moto.createBucket("killed")
        try build()
        let args = ["publish", "--config", config.path, "--to", "s3://killed/p", "--endpoint", moto.endpoint, "--concurrency", "1"]
        let (p, _, _) = try start(args, env: awsEnv)
        let deadline = Date().addingTimeInterval(120)
        var seen = 0
        while Date() < deadline && p.isRunning {
            seen = try moto.listObjects("killed").count
            if seen >= 40 { break }
            usleep(100_000)
        }
        XCTAssertTrue(p.isRunning, "the publish ended before it could be killed (\(seen) objects)")
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        let half = try moto.listObjects("killed")
        XCTAssertNil(half["p/manifest.json"], "no manifest after a killed first publish")
        XCTAssertNotNil(half["p/.venuetiles-publish.json"], "the journal is there")
        XCTAssertLessThan(half.count, try manifest().count)
        let again = try run(Array(args.dropLast(2)) + ["--concurrency", "8"], env: awsEnv)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try moto.listObjects("killed"), try expectedObjects(prefix: "p/"))
    }

    func motoOrSkip() throws -> MotoServer {
        try skipUnless(MotoServer.available, "moto[server] and boto3 are not importable by python3 (scripts/setup installs them)")
        do { return try MotoServer() } catch {
            try skipUnless(false, "moto_server cannot start: \(error)")
            throw error
        }
    }

    /// Publish to a folder, serve it with scripts/nginx/venuetiles-locations.conf,
    /// and fetch a PNG, a gzipped .pbf and a TileJSON with their headers.
    func testFolderPublishServedByNginx() throws {
        try skipUnless(NginxServer.binary != nil, "nginx is not installed (scripts/setup installs it)")
        try build()
        let site = dir.appendingPathComponent("site")
        let r = try run(["publish", "--config", config.path, "--to", site.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let m = try manifest()
        XCTAssertEqual(count(r.stdout, "uploaded"), m.count + 1, r.stdout)
        // The folder holds the output's files and nothing internal.
        let files = Set(FileManager.default.enumerator(atPath: site.path)!.compactMap { $0 as? String }.filter {
            var d: ObjCBool = false
            return FileManager.default.fileExists(atPath: site.appendingPathComponent($0).path, isDirectory: &d) && !d.boolValue
        })
        XCTAssertEqual(files, Set(m.keys).union(["manifest.json"]))
        let again = try run(["publish", "--config", config.path, "--to", site.path])
        XCTAssertEqual(count(again.stdout, "uploaded"), 0, again.stdout)

        let nginx = try NginxServer(root: site, locations: CLI.packageRoot.appendingPathComponent("scripts/nginx/venuetiles-locations.conf"))
        let png = m.keys.sorted().first { $0.hasSuffix(".png") }!
        let pbf = m.keys.sorted().first { $0.hasSuffix(".pbf") }!
        let tilejson = m.keys.sorted().first { $0.hasSuffix(".json") }!
        let a = try nginx.get("/" + png, headers: ["Origin": "https://app.example"])
        XCTAssertEqual(a.status, 200)
        XCTAssertEqual(a.headers["content-type"], "image/png")
        XCTAssertEqual(a.headers["access-control-allow-origin"], "*")
        XCTAssertTrue(a.headers["cache-control"]?.contains("max-age=86400") == true)
        XCTAssertEqual(a.body, try Data(contentsOf: out.appendingPathComponent(png)))
        let b = try nginx.get("/" + pbf, headers: ["Accept-Encoding": "gzip"])
        XCTAssertEqual(b.status, 200)
        XCTAssertEqual(b.headers["content-type"], "application/vnd.mapbox-vector-tile")
        XCTAssertEqual(b.headers["content-encoding"], "gzip")
        XCTAssertEqual(b.body, try Data(contentsOf: out.appendingPathComponent(pbf)), "sent as stored, not compressed again")
        XCTAssertEqual(Array(b.body.prefix(2)), [0x1F, 0x8B])
        let c = try nginx.get("/" + tilejson)
        XCTAssertEqual(c.status, 200)
        XCTAssertEqual(c.headers["content-type"], "application/json")
        XCTAssertEqual(c.headers["cache-control"], "public, max-age=60")
        XCTAssertNotNil(try JSONSerialization.jsonObject(with: c.body) as? [String: Any])
        XCTAssertEqual(try nginx.get("/manifest.json").status, 200)
        // Internal files are never served (the output's own, had it been the root).
        try Data("{}".utf8).write(to: site.appendingPathComponent(".venuetiles-publish.json"))
        XCTAssertEqual(try nginx.get("/.venuetiles-publish.json").status, 404)
    }

    func testBadInputExitCodes() throws {
        let none = try run(["publish", "--output", dir.appendingPathComponent("nothing").path, "--to", dir.appendingPathComponent("site").path])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("manifest.json: no manifest to publish"), none.stderr)
        try build()
        let noCreds = try run(["publish", "--config", config.path, "--to", "s3://bucket/x"], env: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
        XCTAssertEqual(noCreds.status, 1)
        XCTAssertTrue(noCreds.stderr.contains("AWS_ACCESS_KEY_ID"), noCreds.stderr)
        let inside = try run(["publish", "--config", config.path, "--to", out.appendingPathComponent("x").path])
        XCTAssertEqual(inside.status, 1)
        XCTAssertTrue(inside.stderr.contains("overlaps the output folder"), inside.stderr)
        // A tile altered after the build: refused before anything is written.
        let tile = try manifest().keys.sorted().first { $0.hasSuffix(".png") }!
        var d = try Data(contentsOf: out.appendingPathComponent(tile))
        d[d.count - 1] ^= 0xFF
        try d.write(to: out.appendingPathComponent(tile))
        let site = dir.appendingPathComponent("site2")
        let altered = try run(["publish", "--config", config.path, "--to", site.path])
        XCTAssertEqual(altered.status, 1)
        XCTAssertTrue(altered.stderr.contains("does not match manifest.json: SHA-256"), altered.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: site.path))
        let usage = try run(["publish", "--config", config.path, "--to", site.path, "--concurrency", "0"])
        XCTAssertEqual(usage.status, 64)
    }
}
