import Crypto
import Foundation
import VenueFormats
import VenueModel
import TestSupport
import XCTest

/// The built `venuetiles` command, end to end.
final class BuildCommandTests: XCTestCase {
    struct ManifestView: Decodable {
        struct Tile: Decodable { var path: String; var sha256: String; var bytes: Int }
        struct Tileset: Decodable { var tile_count: Int; var total_bytes: Int; var tiles_per_floor: [String: [String: Int]]; var path_template: String }
        struct FloorEntry: Decodable { var id: String; var ordinal: Int }
        struct VenueEntry: Decodable { var id: String; var name: String?; var floors: [FloorEntry]; var tilesets: [Tileset]; var bounds: [Double]; var center: [Double]; var warnings: Int }
        struct Generator: Decodable { var name: String; var version: String }
        var generator: Generator
        var venues: [VenueEntry]
        var tiles: [Tile]
    }

    func loadManifest(_ out: URL) throws -> ManifestView {
        try JSONDecoder().decode(ManifestView.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
    }

    /// Builds `source` (an IMDF folder) and checks every floor and zoom against the independent coverage.
    func buildAndCheck(_ source: URL, id: String, minZoom: Int = 17, maxZoom: Int = 23) throws -> ManifestView {
        let dir = try CLI.tempDir(id)
        defer { CLI.removeTree(dir) }
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": \#(minZoom), "max": \#(maxZoom)}, "sources": [{"id": "\#(id)", "format": "imdf", "path": "\#(source.path)"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "--jobs", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("built "), r.stdout)
        let out = dir.appendingPathComponent("out")
        let m = try loadManifest(out)

        // Hashes and sizes in the manifest match the files, and no tile is missing from it.
        for t in m.tiles {
            let data = try Data(contentsOf: out.appendingPathComponent(t.path))
            XCTAssertEqual(SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined(), t.sha256, t.path)
            XCTAssertEqual(data.count, t.bytes)
        }
        let onDisk = CLI.snapshot(out).keys.filter { $0.hasSuffix(".png") }
        XCTAssertEqual(Set(onDisk), Set(m.tiles.map(\.path)))

        // Tile sets per floor and zoom against the independent computation.
        var reader = IMDFReader()
        let venue = try reader.read(path: source.path)
        let floors = Floor.group(venue.levels)
        XCTAssertEqual(m.venues[0].floors.map(\.id), floors.map(\.id))
        for floor in floors {
            for z in minZoom...maxZoom {
                let produced = Set(m.tiles.compactMap { t -> [Int]? in
                    let c = t.path.split(separator: "/")
                    guard c[1] == floor.id, Int(c[3]) == z else { return nil }
                    return [Int(c[4])!, Int(c[5].dropLast(4))!]
                })
                var (must, may) = IndependentCoverage.tiles(venue, floor: floor, zoom: z)
                // Tiles a placed label or icon reaches beyond the drawing exist too (issue 17 item 2).
                may.formUnion(IndependentCoverage.labelReach(venue, floor: floor, zoom: z))
                XCTAssertTrue(must.isSubset(of: produced), "\(id) \(floor.id) z\(z): missing \(must.subtracting(produced).sorted { $0.lexicographicallyPrecedes($1) }.prefix(5))")
                XCTAssertTrue(produced.isSubset(of: may), "\(id) \(floor.id) z\(z): unexpected \(produced.subtracting(may).sorted { $0.lexicographicallyPrecedes($1) }.prefix(5))")
                XCTAssertEqual(m.venues[0].tilesets[0].tiles_per_floor[floor.id]?["\(z)"] ?? 0, produced.count)
            }
        }
        XCTAssertEqual(m.venues[0].tilesets[0].tile_count, m.tiles.count)
        XCTAssertEqual(m.venues[0].tilesets[0].total_bytes, m.tiles.reduce(0) { $0 + $1.bytes })
        return m
    }

    func testBuildsFixtureWithExactCoverage() throws {
        let m = try buildAndCheck(CLI.fixture, id: "harbour")
        XCTAssertEqual(m.generator.name, "venuetiles")
        XCTAssertEqual(m.venues[0].name, "Harbour Arcade")
        XCTAssertEqual(m.venues[0].floors.map(\.ordinal), [-1, 0, 1])
        XCTAssertEqual(m.venues[0].warnings, 2)
        XCTAssertEqual(m.venues[0].tilesets[0].path_template, "harbour/{floor}/png/{z}/{x}/{y}.png")
        XCTAssertGreaterThan(m.tiles.count, 1000)
    }

    /// The real airport dataset in ../shared (internal test data, not shipped).
    func testBuildsRealAirport() throws {
        let yyj = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/venues/yyj-victoria-airport-imdf/VictoriaAirport_IMDF")
        try ExternalTools.skipUnless(FileManager.default.fileExists(atPath: yyj.path), needs: "../shared/venues beside the clone")
        let m = try buildAndCheck(yyj, id: "yyj", minZoom: 17, maxZoom: 21)
        XCTAssertEqual(m.venues[0].floors.map(\.ordinal), [0, 1, 2])
    }

    func testSameOutputWithOneOrManyWorkers() throws {
        let dir = try CLI.tempDir("jobs")
        defer { CLI.removeTree(dir) }
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", CLI.fixture.path)])
        let a = try CLI.run(["build", "--config", config.path, "--jobs", "1", "--output", dir.appendingPathComponent("one").path])
        let b = try CLI.run(["build", "--config", config.path, "--jobs", "3", "--output", dir.appendingPathComponent("three").path])
        XCTAssertEqual(a.status, 0, a.stderr); XCTAssertEqual(b.status, 0, b.stderr)
        let m1 = try Data(contentsOf: dir.appendingPathComponent("one/manifest.json"))
        let m3 = try Data(contentsOf: dir.appendingPathComponent("three/manifest.json"))
        XCTAssertEqual(m1, m3)
    }

    /// A tile that cannot be written stops the build: the workers and the
    /// writer wind down, the command fails naming the folder, and no manifest
    /// claims the build finished.
    func testAWriteFailureStopsTheBuildAndNamesThePath() throws {
        let dir = try CLI.tempDir("writefail")
        defer { CLI.removeTree(dir) }
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", CLI.fixture.path)])
        let probe = dir.appendingPathComponent("probe")
        let ok = try CLI.run(["build", "--config", config.path, "--output", probe.path, "-q"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        // A z21 folder of the first floor, made a file in a fresh output folder.
        let tile = try XCTUnwrap(try loadManifest(probe).tiles.map(\.path).first { $0.split(separator: "/")[3] == "21" })
        let folder = tile.split(separator: "/").prefix(5).joined(separator: "/")
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent(folder).deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("not a folder".utf8).write(to: out.appendingPathComponent(folder))
        for jobs in ["1", "3"] {
            // The folder holds a file venuetiles did not write: it must be allowed in.
            let r = try CLI.run(["build", "--config", config.path, "--output", out.path, "--jobs", jobs, "--allow-existing"])
            XCTAssertNotEqual(r.status, 0, "jobs \(jobs): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("create folder \(out.path)/\(folder): a file is in the way"), "jobs \(jobs): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path), "jobs \(jobs)")
        }
    }

    func testStaleTilesAreRemovedWhenZoomShrinks() throws {
        let dir = try CLI.tempDir("stale")
        defer { CLI.removeTree(dir) }
        var config = try CLI.writeConfig(dir, sources: [("h", "imdf", CLI.fixture.path)])
        XCTAssertEqual(try CLI.run(["build", "--config", config.path]).status, 0)
        config = try CLI.writeConfig(dir, sources: [("h", "imdf", CLI.fixture.path)], extra: #", "tilesets": [{"format": "png"}]"#)
        try #"{"output": "out", "zoom": {"min": 17, "max": 19}, "sources": [{"id": "h", "format": "imdf", "path": "\#(CLI.fixture.path)"}]}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let files = CLI.snapshot(dir.appendingPathComponent("out"))
        XCTAssertFalse(files.keys.contains { $0.contains("/png/20") || $0.contains("/png/23") })
        let m = try loadManifest(dir.appendingPathComponent("out"))
        XCTAssertEqual(Set(files.keys.filter { $0.hasSuffix(".png") }), Set(m.tiles.map(\.path)))
    }

    func testHelpExplainsEveryOption() throws {
        let r = try CLI.run(["build", "--help"])
        XCTAssertEqual(r.status, 0)
        for option in ["--config", "--output", "--jobs", "--quiet"] { XCTAssertTrue(r.stdout.contains(option), option) }
        XCTAssertNotEqual(try CLI.run(["build", "--jobs", "0"]).status, 0)
        XCTAssertNotEqual(try CLI.run(["frobnicate"]).status, 0)
    }
}
