import Crypto
import Foundation
import XCTest
@testable import Publish

/// Publishing to a folder, in process: what is sent, in which state a failed
/// publish leaves the destination, and what the next publish does about it.
final class FolderPublishTests: XCTestCase {
    var cleanup = [URL]()
    override func tearDown() { for u in cleanup { try? FileManager.default.removeItem(at: u) } }

    func makeDest() -> URL {
        let u = FileManager.default.temporaryDirectory.appendingPathComponent("publish-dest-\(UUID().uuidString)")
        cleanup.append(u)
        return u
    }

    func publish(_ out: OutputFixture, to dest: PublishDestination, dryRun: Bool = false, concurrency: Int = 4) async throws -> PublishSummary {
        try await Publisher(output: out.folder.path, destination: dest, options: PublishOptions(concurrency: concurrency, dryRun: dryRun)).run()
    }

    /// What the destination must hold after a complete publish: the listed files and the manifest.
    func expectedTree(_ out: OutputFixture) throws -> [String: Data] {
        var t = out.files
        t["manifest.json"] = try Data(contentsOf: out.folder.appendingPathComponent("manifest.json"))
        return t
    }

    func testFirstPublishThenOnlyChanges() async throws {
        var out = try OutputFixture(name: "folder")
        cleanup.append(out.folder)
        let destURL = makeDest()
        let dest = FolderDestination(root: destURL.path)

        let first = try await publish(out, to: dest)
        XCTAssertEqual(first.uploaded, out.files.count + 1)
        XCTAssertEqual(first.deleted, 0)
        XCTAssertEqual(tree(destURL), try expectedTree(out), "the destination holds exactly the output, no internal files")

        // Nothing changed: nothing sent, nothing rewritten.
        let before = try FileManager.default.attributesOfItem(atPath: destURL.appendingPathComponent("manifest.json").path)[.modificationDate] as! Date
        let again = try await publish(out, to: dest)
        XCTAssertEqual(again.uploaded, 0)
        XCTAssertEqual(again.unchanged, out.files.count + 1)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: destURL.appendingPathComponent("manifest.json").path)[.modificationDate] as? Date, before)

        // One tile changed, one gone, one new: exactly those and the manifest.
        let paths = out.tilePaths
        out.files[paths[0]] = OutputFixture.gzipped("changed")
        out.files[paths[1]] = nil
        out.files["v1/floor_0/png/1x/20/1/1.png"] = Data("new".utf8)
        try out.write()
        let dry = try await publish(out, to: dest, dryRun: true)
        XCTAssertEqual(dry.uploaded, 3)
        XCTAssertNotEqual(tree(destURL), try expectedTree(out), "a dry run changes nothing")
        let third = try await publish(out, to: dest)
        XCTAssertEqual(third.uploaded, 3)
        XCTAssertEqual(third.deleted, 1)
        XCTAssertEqual(Set(third.changedPaths), Set(["/" + paths[0], "/" + paths[1], "/v1/floor_0/png/1x/20/1/1.png", "/manifest.json"]))
        XCTAssertEqual(tree(destURL), try expectedTree(out))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destURL.appendingPathComponent((paths[1] as NSString).deletingLastPathComponent).path),
                       "a folder emptied by a delete is removed")
    }

    /// A publish that fails half way leaves the old manifest and a journal; the
    /// output is then rebuilt with one file back to its old bytes (which the old
    /// manifest lists) and one new file gone again; the next publish still ends
    /// with exactly the output.
    func testFailedPublishIsFinishedByTheNext() async throws {
        var out = try OutputFixture(name: "fail", tiles: 20)
        cleanup.append(out.folder)
        let destURL = makeDest()
        let folder = FolderDestination(root: destURL.path)
        _ = try await publish(out, to: folder)
        let oldManifest = try Data(contentsOf: destURL.appendingPathComponent("manifest.json"))
        let oldFiles = out.files

        let paths = out.tilePaths
        for p in paths.prefix(10) { out.files[p] = p.hasSuffix(".pbf") ? OutputFixture.gzipped("second \(p)") : Data("second \(p)".utf8) }
        out.files["v1/floor_0/aaa/21/5/5.png"] = Data("new in the failed publish".utf8)
        try out.write()
        // The journal, then 4 tiles; the fifth write fails.
        let failing = FailingDestination(folder, allowedWrites: 5)
        do {
            _ = try await publish(out, to: failing, concurrency: 1)
            XCTFail("the injected failure did not stop the publish")
        } catch let e as PublishError {
            XCTAssertTrue("\(e)".contains("injected failure"), "\(e)")
        }
        XCTAssertEqual(failing.writes.first, PublishState.fileName)
        XCTAssertEqual(try Data(contentsOf: destURL.appendingPathComponent("manifest.json")), oldManifest, "the old manifest stays")
        XCTAssertTrue(FileManager.default.fileExists(atPath: destURL.appendingPathComponent(PublishState.fileName).path))
        let sentBeforeFailure = failing.writes.dropFirst()
        XCTAssertEqual(sentBeforeFailure.count, 4)

        // The output changes again: a tile sent by the failed publish goes back to
        // the bytes the destination's manifest lists, and the new tile goes away.
        XCTAssertTrue(sentBeforeFailure.contains("v1/floor_0/aaa/21/5/5.png"), "the new tile went out first")
        let reverted = try XCTUnwrap(sentBeforeFailure.first { oldFiles[$0] != nil })
        out.files[reverted] = oldFiles[reverted]
        out.files["v1/floor_0/aaa/21/5/5.png"] = nil
        try out.write()
        let finish = try await publish(out, to: folder)
        XCTAssertTrue(finish.changedPaths.contains("/" + reverted), "a journalled key is sent again")
        XCTAssertEqual(tree(destURL), try expectedTree(out), "the destination is exactly the output, the journal gone")
    }

    func testRefusesOutputThatDoesNotMatchItsManifest() async throws {
        let out = try OutputFixture(name: "mismatch")
        cleanup.append(out.folder)
        let destURL = makeDest()
        let dest = FolderDestination(root: destURL.path)
        let victim = out.tilePaths[3]
        // Same size, other bytes: found by the hash before anything is written.
        var bytes = out.files[victim]!
        bytes[bytes.startIndex + bytes.count - 1] ^= 0xFF
        try bytes.write(to: out.folder.appendingPathComponent(victim))
        do { _ = try await publish(out, to: dest); XCTFail("published a file that does not match") } catch let e as PublishError {
            guard case .outputMismatch(let path, let problem) = e else { return XCTFail("\(e)") }
            XCTAssertTrue(path.hasSuffix(victim)); XCTAssertTrue(problem.contains("SHA-256"), problem)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: destURL.path), "nothing was written")
        // Another size: found by the stat.
        try Data("short".utf8).write(to: out.folder.appendingPathComponent(victim))
        do { _ = try await publish(out, to: dest); XCTFail("published a file of the wrong size") } catch let e as PublishError {
            XCTAssertTrue("\(e)".contains("5 bytes, the manifest says"), "\(e)")
        }
        try FileManager.default.removeItem(at: out.folder.appendingPathComponent(victim))
        do { _ = try await publish(out, to: dest); XCTFail("published with a file missing") } catch let e as PublishError {
            XCTAssertEqual(e, .outputMismatch(path: out.folder.appendingPathComponent(victim).path, problem: "missing"))
        }
    }

    func testRefusesGzipTilesetWhoseFilesAreNotGzip() async throws {
        var out = try OutputFixture(name: "gzip", gzipVector: false)
        cleanup.append(out.folder)
        // The manifest claims gzip; the files are plain protobuf.
        out.gzipVector = true
        let plain = out.files
        try out.write()
        for (p, d) in plain { try d.write(to: out.folder.appendingPathComponent(p)) }
        do { _ = try await publish(out, to: FolderDestination(root: makeDest().path)); XCTFail("sent plain tiles as gzip") } catch let e as PublishError {
            XCTAssertTrue("\(e)".contains("not gzip data") || "\(e)".contains("SHA-256"), "\(e)")
        }
    }

    func testHeadersFromTheManifest() throws {
        let out = try OutputFixture(name: "headers")
        cleanup.append(out.folder)
        let local = try LocalOutput.load(folder: out.folder.path, cache: CachePolicy(tiles: "T", index: "I"))
        let byPath = Dictionary(uniqueKeysWithValues: local.objects.map { ($0.path, $0) })
        let pbf = byPath[out.tilePaths.first { $0.hasSuffix(".pbf") }!]!
        XCTAssertEqual(pbf.headers, ObjectHeaders(contentType: "application/vnd.mapbox-vector-tile", contentEncoding: "gzip", cacheControl: "T"))
        let png = byPath[out.tilePaths.first { $0.hasSuffix(".png") }!]!
        XCTAssertEqual(png.headers, ObjectHeaders(contentType: "image/png", cacheControl: "T"))
        XCTAssertEqual(byPath["v1/floor_0/png/1x/tiles.json"]!.headers, ObjectHeaders(contentType: "application/json", cacheControl: "I"))
        XCTAssertEqual(local.objects.last!.path, "manifest.json")
        XCTAssertEqual(local.objects.last!.kind, .manifest)
        XCTAssertFalse(local.objects.contains { $0.path.hasPrefix(".venuetiles") })
        XCTAssertEqual(LocalOutput.contentType(forExtension: "pmtiles"), "application/vnd.pmtiles")
        XCTAssertEqual(LocalOutput.contentType(forExtension: "mbtiles"), "application/octet-stream")
    }

    func testUnsafeManifestPathsAndDestinations() throws {
        for bad in ["../x.png", "/etc/passwd", "a//b.png", ".venuetiles.index", "a/.venuetiles.trash/1.png", "manifest.json"] {
            XCTAssertThrowsError(try LocalOutput.checkSafe(bad), bad)
        }
        XCTAssertEqual(try DestinationSpec.parse("s3://my-bucket/tiles/v1"), .s3(bucket: "my-bucket", prefix: "tiles/v1/"))
        XCTAssertEqual(try DestinationSpec.parse("s3://my-bucket"), .s3(bucket: "my-bucket", prefix: ""))
        XCTAssertThrowsError(try DestinationSpec.parse("s3://My_Bucket/x"))
        XCTAssertThrowsError(try DestinationSpec.parse("gs://bucket/x"))
        XCTAssertThrowsError(try DestinationSpec.folder("/tmp/out/sub").open(output: "/tmp/out"))
        XCTAssertThrowsError(try DestinationSpec.folder("/tmp").open(output: "/tmp/out"))
        XCTAssertThrowsError(try DestinationSpec.s3(bucket: "b", prefix: "").open(output: "/tmp/out", env: [:])) { e in
            XCTAssertEqual(e as? PublishError, .missingCredentials)
        }
    }

    func testPlanSendsJournalledKeysAgain() throws {
        let out = try OutputFixture(name: "plan")
        cleanup.append(out.folder)
        let local = try LocalOutput.load(folder: out.folder.path, cache: CachePolicy())
        var published = [String: String]()
        for o in local.objects where o.kind != .manifest { published[o.path] = o.sha256 }
        let manifestSHA = local.objects.last!.sha256
        let clean = PublishPlan(local: local, remote: PublishState(published: published, manifestSHA256: manifestSHA, pending: []))
        XCTAssertTrue(clean.isEmpty)
        XCTAssertEqual(clean.unchanged, local.objects.count)
        let key = out.tilePaths[2]
        let doubt = PublishPlan(local: local, remote: PublishState(published: published, manifestSHA256: manifestSHA, pending: [key, "gone.png"]))
        XCTAssertEqual(doubt.tileUploads.map(\.path), [key])
        XCTAssertEqual(doubt.deletes, ["gone.png"])
        XCTAssertNotNil(doubt.manifestUpload, "the manifest is written last whenever anything else is")
    }
}
