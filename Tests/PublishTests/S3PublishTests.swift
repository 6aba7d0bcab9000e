import Crypto
import Foundation
import TestSupport
import XCTest
@testable import Publish

/// Publishing to S3 in process, against moto's S3 server on 127.0.0.1.
final class S3PublishTests: XCTestCase {
    var moto: MotoServer!
    var cleanup = [URL]()
    let env = ["AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1"]

    override func setUpWithError() throws {
        try skipUnlessAvailable(MotoServer.available, "moto[server] and boto3 are not importable by python3 (scripts/setup installs them)")
        do { moto = try MotoServer() } catch { try skipUnlessAvailable(false, "moto_server cannot start: \(error)") }
    }

    override func tearDown() {
        moto = nil
        for u in cleanup { try? FileManager.default.removeItem(at: u) }
    }

    func publish(_ out: OutputFixture, _ to: String, endpoint: String? = nil, retry: RetryPolicy = RetryPolicy(baseDelay: 0.01)) async throws -> PublishSummary {
        let dest = try DestinationSpec.parse(to).open(output: out.folder.path, endpoint: endpoint ?? moto.endpoint, connections: 4, retry: retry, env: env)
        do {
            let s = try await Publisher(output: out.folder.path, destination: dest, options: PublishOptions(concurrency: 4)).run()
            try await dest.close()
            return s
        } catch { try? await dest.close(); throw error }
    }

    func md5(_ d: Data) -> String { Insecure.MD5.hash(data: d).map { String(format: "%02x", $0) }.joined() }

    func testPublishReadBackAndRepublish() async throws {
        try moto.createBucket("tiles")
        var out = try OutputFixture(name: "s3")
        cleanup.append(out.folder)
        let first = try await publish(out, "s3://tiles/site/v1")
        XCTAssertEqual(first.uploaded, out.files.count + 1)
        var expected = out.files.reduce(into: [String: String]()) { $0["site/v1/" + $1.key] = md5($1.value) }
        expected["site/v1/manifest.json"] = md5(try Data(contentsOf: out.folder.appendingPathComponent("manifest.json")))
        XCTAssertEqual(try moto.listObjects("tiles"), expected, "exactly the output, no journal, no internal files")

        let pbf = out.tilePaths.first { $0.hasSuffix(".pbf") }!
        let got = try moto.getObject("tiles", "site/v1/" + pbf)
        XCTAssertEqual(got.body, out.files[pbf])
        XCTAssertEqual(got.headers["content-type"], "application/vnd.mapbox-vector-tile")
        XCTAssertEqual(got.headers["content-encoding"], "gzip")
        XCTAssertEqual(got.headers["cache-control"], CachePolicy.defaultTiles)
        let png = try moto.getObject("tiles", "site/v1/" + out.tilePaths.first { $0.hasSuffix(".png") }!)
        XCTAssertEqual(png.headers["content-type"], "image/png")
        XCTAssertNil(png.headers["content-encoding"])
        let manifest = try moto.getObject("tiles", "site/v1/manifest.json")
        XCTAssertEqual(manifest.headers["content-type"], "application/json")
        XCTAssertEqual(manifest.headers["cache-control"], CachePolicy.defaultIndex)

        let none = try await publish(out, "s3://tiles/site/v1")
        XCTAssertEqual(none.uploaded, 0)
        XCTAssertEqual(none.deleted, 0)

        out.files[pbf] = OutputFixture.gzipped("edited")
        out.files[out.tilePaths.last!] = nil
        try out.write()
        let edit = try await publish(out, "s3://tiles/site/v1")
        XCTAssertEqual(edit.uploaded, 2, "the edited tile and the manifest")
        XCTAssertEqual(edit.deleted, 1)
        XCTAssertEqual(edit.changedPaths.count, 3)
        XCTAssertTrue(edit.changedPaths.allSatisfy { $0.hasPrefix("/site/v1/") })
        expected = out.files.reduce(into: [String: String]()) { $0["site/v1/" + $1.key] = md5($1.value) }
        expected["site/v1/manifest.json"] = md5(try Data(contentsOf: out.folder.appendingPathComponent("manifest.json")))
        XCTAssertEqual(try moto.listObjects("tiles"), expected)
    }

    /// 503s and dropped connections are retried with backoff; the result is complete.
    func testRetriesSlowDownAndDroppedConnections() async throws {
        try moto.createBucket("flaky")
        let out = try OutputFixture(name: "flaky", tiles: 6)
        cleanup.append(out.folder)
        let proxy = try FlakyProxy(upstreamPort: moto.port)
        let s = try await publish(out, "s3://flaky", endpoint: proxy.endpoint)
        XCTAssertEqual(s.uploaded, out.files.count + 1)
        let stats = try proxy.stats()
        XCTAssertGreaterThan(stats["slowdown"] ?? 0, 0)
        XCTAssertGreaterThan(stats["dropped"] ?? 0, 0)
        XCTAssertEqual(try moto.listObjects("flaky").count, out.files.count + 1)
    }

    /// A 4xx stops the publish at once with the key, status and S3's code; the
    /// destination's manifest is not written.
    func testClientErrorsNameTheKey() async throws {
        let out = try OutputFixture(name: "denied", tiles: 3)
        cleanup.append(out.folder)
        do { _ = try await publish(out, "s3://no-such-bucket/p"); XCTFail("published to a missing bucket") } catch let e as PublishError {
            guard case let .http(_, key, status, code, _, attempts) = e else { return XCTFail("\(e)") }
            XCTAssertEqual(status, 404); XCTAssertEqual(code, "NoSuchBucket"); XCTAssertEqual(attempts, 1)
            XCTAssertTrue(key.hasPrefix("s3://no-such-bucket/p/"), key)
        }
        try moto.createBucket("denied")
        let victim = out.tilePaths[1]
        let proxy = try FlakyProxy(upstreamPort: moto.port, failKeysWith403: [victim])
        do { _ = try await publish(out, "s3://denied", endpoint: proxy.endpoint); XCTFail("a 403 did not stop the publish") } catch let e as PublishError {
            XCTAssertTrue("\(e)".contains("PUT s3://denied/\(victim): HTTP 403 AccessDenied: Access Denied"), "\(e)")
        }
        XCTAssertNil(try moto.listObjects("denied")["manifest.json"], "no manifest after a failed publish")
        XCTAssertNotNil(try moto.listObjects("denied")[PublishState.fileName], "the journal says what is in doubt")
    }
}
