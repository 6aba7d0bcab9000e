import Crypto
import Foundation
import TestSupport
import XCTest

/// Path layouts in the build (pipeline.json `layout` / `path` per tileset):
/// every tile where its template says, TileJSON and web clients' URLs that
/// lead to it, incremental rebuilds and `verify` under each layout.
final class LayoutBuildTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws { dir = try CLI.tempDir("layouts") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    /// The layouts tried, as pipeline.json gives them.
    static let layouts: [(name: String, key: String)] = [
        ("xyz", #""layout": "xyz""#),
        ("tms", #""layout": "tms""#),
        ("quadkey", #""layout": "quadkey""#),
        ("app-bundle", #""layout": "app-bundle""#),
        ("custom", #""path": "tiles/{venue}/{floor}/{format}{scale}/{z}-{x}-{y}.{ext}""#),
    ]

    /// The fixture's floors by ordinal.
    static let ordinals = ["floor_m1": "-1", "floor_0": "0", "floor_1": "1", "all": "all"]

    static func quadkey(_ z: Int, _ x: Int, _ y: Int) -> String {
        var s = ""
        for bit in stride(from: z - 1, through: 0, by: -1) {
            let d: Int = ((x >> bit) & 1) + 2 * ((y >> bit) & 1)
            s += String(d)
        }
        return s
    }

    /// Where a tile of the xyz tree (`h/<floor>/<tileset>/<z>/<x>/<y>.<ext>`) goes
    /// under `layout`, worked out here without the template code.
    static func expectedPath(_ layout: String, _ xyzPath: String) -> String {
        let p = xyzPath.split(separator: "/").map(String.init)
        let (venue, floor, ts, z, x) = (p[0], p[1], p[2], Int(p[3])!, Int(p[4])!)
        let last = p[5].split(separator: ".")
        let y = Int(last[0])!, ext = String(last[1])
        switch layout {
        case "xyz": return xyzPath
        case "tms": return "\(venue)/\(floor)/\(ts)/\(z)/\(x)/\((1 << z) - 1 - y).\(ext)"
        case "quadkey": return "\(venue)/\(floor)/\(ts)/\(quadkey(z, x, y)).\(ext)"
        case "app-bundle": return "\(venue)/\(ordinals[floor]!)/\(ts)/\(z)/\(x)_\(y).\(ext)"
        case "custom": return "tiles/\(venue)/\(floor)/\(ts)/\(z)-\(x)-\(y).\(ext)"
        default: preconditionFailure(layout)
        }
    }

    /// A folder with its own copy of the venue and a config using `key` for both tilesets.
    func setUpVenue(_ name: String, key: String) throws -> (root: URL, config: URL, venue: URL) {
        let root = dir.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let venue = root.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        let config = try writeConfig(root, key: key)
        return (root, config, venue)
    }

    func writeConfig(_ root: URL, key: String) throws -> URL {
        try CLI.writeConfig(root, sources: [("h", "imdf", root.appendingPathComponent("venue").path)],
                            extra: #", "zoom": {"min": 17, "max": 19}, "tilesets": [{"format": "png", "archive": "pmtiles", \#(key)}, {"format": "mvt", \#(key)}]"#)
    }

    @discardableResult
    func build(_ config: URL, _ extra: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(["build", "--config", config.path, "-q"] + extra)
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        return r
    }

    struct Entry: Decodable { var path: String; var sha256: String; var key: String? }
    struct M: Decodable { var tiles: [Entry]; var files: [Entry] }

    func manifest(_ out: URL) throws -> M {
        try JSONDecoder().decode(M.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
    }

    /// Resolves a relative URL against the folder of `from` (both relative to the output folder).
    func resolve(_ url: String, from: String) -> String {
        var parts = from.split(separator: "/").dropLast().map(String.init)
        for s in url.split(separator: "/") {
            if s == ".." { parts.removeLast() } else { parts.append(String(s)) }
        }
        return parts.joined(separator: "/")
    }

    /// Fills a URL template for one tile, as a client does (TMS: y from the south).
    func fill(_ template: String, z: Int, x: Int, y: Int, scheme: String) -> String {
        let yy = scheme == "tms" ? (1 << z) - 1 - y : y
        return template.replacingOccurrences(of: "{z}", with: "\(z)").replacingOccurrences(of: "{x}", with: "\(x)")
            .replacingOccurrences(of: "{y}", with: "\(yy)").replacingOccurrences(of: "{quadkey}", with: LayoutBuildTests.quadkey(z, x, y))
    }

    func testEachLayoutPutsEveryTileWhereItsTemplateSays() throws {
        let ref = try setUpVenue("reference", key: #""layout": "xyz""#)
        try build(ref.config)
        let reference = try manifest(ref.root.appendingPathComponent("out"))
        XCTAssertGreaterThan(reference.tiles.count, 50)
        for (name, key) in LayoutBuildTests.layouts where name != "xyz" {
            let root = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: ref.venue, to: root.appendingPathComponent("venue"))
            let config = try writeConfig(root, key: key)
            try build(config)
            let out = root.appendingPathComponent("out")
            let m = try manifest(out)
            let expected = Dictionary(uniqueKeysWithValues: reference.tiles.map { (LayoutBuildTests.expectedPath(name, $0.path), $0.sha256) })
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: m.tiles.map { ($0.path, $0.sha256) }), expected, name)
            for (path, _) in expected.prefix(20) { XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(path).path), "\(name): \(path)") }
            XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0, name)
            // The PNG archives, one per floor, named by the floor as the template names it.
            let floorPart = name == "app-bundle" ? ["-1", "0", "1"] : ["floor_m1", "floor_0", "floor_1"]
            XCTAssertEqual(Set(m.files.map(\.path).filter { $0.hasSuffix(".pmtiles") }), Set(floorPart.map { "h/\($0)/png.pmtiles" }), name)

            // Each TileJSON's URL, filled for one of its pyramid's tiles, leads to that tile.
            let docs = m.files.filter { $0.path.hasSuffix("/tilejson.json") }
            XCTAssertEqual(docs.count, 7, name)   // 3 floors × png, 3 floors × mvt, all × mvt
            for doc in docs {
                let tj = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(doc.path))) as? [String: Any])
                let scheme = try XCTUnwrap(tj["scheme"] as? String)
                XCTAssertEqual(scheme, name == "tms" ? "tms" : "xyz", doc.path)
                let url = try XCTUnwrap((tj["tiles"] as? [String])?.first)
                // A tile of the reference tree in the same pyramid.
                let parts = doc.path.split(separator: "/").map(String.init)
                let floor = name == "app-bundle" ? LayoutBuildTests.ordinals.first { $0.value == parts[1] }!.key : parts[name == "custom" ? 2 : 1]
                let ts = parts[parts.count - 2]
                let tile = try XCTUnwrap(reference.tiles.first { $0.path.hasPrefix("h/\(floor)/\(ts)/19/") }, doc.path)
                let t = tile.path.split(separator: "/")
                let z = Int(t[3])!, x = Int(t[4])!, y = Int(t[5].split(separator: ".")[0])!
                let path = resolve(fill(url, z: z, x: x, y: y, scheme: scheme), from: doc.path)
                XCTAssertEqual(path, LayoutBuildTests.expectedPath(name, tile.path), "\(name): \(doc.path) → \(url)")
            }
            // floors.json (web clients) names the same tiles.
            let floorsDoc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/floors.json"))) as? [String: Any])
            let ground = try XCTUnwrap((floorsDoc["floors"] as? [[String: Any]])?.first { $0["id"] as? String == "floor_0" })
            let png = try XCTUnwrap((ground["tilesets"] as? [[String: Any]])?.first { $0["format"] as? String == "png" })
            let tile = try XCTUnwrap(reference.tiles.first { $0.path.hasPrefix("h/floor_0/png/18/") })
            let t = tile.path.split(separator: "/")
            let filled = fill(png["tiles"] as! String, z: 18, x: Int(t[4])!, y: Int(t[5].split(separator: ".")[0])!, scheme: png["scheme"] as? String ?? "xyz")
            XCTAssertEqual(resolve(filled, from: "h/floors.json"), LayoutBuildTests.expectedPath(name, tile.path), name)
            XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent(resolve(png["tilejson"] as! String, from: "h/floors.json")).path), name)
        }
    }

    func testAnEditRebuildsOnlyTheChangedTilesUnderEveryLayoutAndEqualsACleanBuild() throws {
        for (name, key) in LayoutBuildTests.layouts {
            let v = try setUpVenue(name, key: key)
            let out = v.root.appendingPathComponent("out")
            try build(v.config)
            let a = try manifest(out)
            let before = CLI.snapshot(out)
            try IncrementalBuildTests.moveShopCorner(v.venue.appendingPathComponent("unit.geojson"))
            let r = try build(v.config)
            let b = try manifest(out)
            let oldKeys = Dictionary(uniqueKeysWithValues: a.tiles.map { ($0.path, $0.key) })
            let changed = Set(b.tiles.filter { oldKeys[$0.path] != $0.key }.map(\.path))
            XCTAssertGreaterThan(changed.count, 0, name)
            XCTAssertLessThan(changed.count, b.tiles.count / 3, name)
            // Blank tiles rendered again are counted too: at least the changed files.
            XCTAssertGreaterThanOrEqual(r.rendered, changed.count, name)
            XCTAssertLessThan(r.rendered, b.tiles.count / 3, name)
            // Only changed tiles (and the manifest, TileJSON and client files) were touched.
            let after = CLI.snapshot(out)
            let tilePaths = Set(b.tiles.map(\.path)).union(a.tiles.map(\.path))
            let touchedTiles = Set(after.keys.filter { tilePaths.contains($0) && after[$0] != before[$0] })
            XCTAssertTrue(touchedTiles.isSubset(of: changed.union(Set(a.tiles.map(\.path)).subtracting(b.tiles.map(\.path)))),
                          "\(name): touched \(touchedTiles.subtracting(changed).sorted().prefix(5))")
            XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0, name)

            // The same manifest and files as a clean build of the edited venue.
            let clean = v.root.appendingPathComponent("clean")
            try build(v.config, ["--force", "--output", clean.path])
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("manifest.json")),
                           try Data(contentsOf: clean.appendingPathComponent("manifest.json")), "\(name): manifests differ")
            func files(_ root: URL) -> [String: String] { CLI.snapshot(root).filter { !$0.key.hasPrefix(".venuetiles") }.mapValues { String($0.prefix(64)) } }
            XCTAssertEqual(files(out), files(clean), "\(name): trees differ")
        }
    }

    func testSwitchingTheLayoutMovesTheTilesAndLeavesNoOldOnes() throws {
        let v = try setUpVenue("switch", key: #""layout": "xyz""#)
        let out = v.root.appendingPathComponent("out")
        try build(v.config)
        let xyz = try manifest(out)
        let config = try writeConfig(v.root, key: #""layout": "quadkey""#)
        let r = try build(config)
        XCTAssertGreaterThan(r.rendered, 0)
        let m = try manifest(out)
        XCTAssertEqual(Set(m.tiles.map(\.path)), Set(xyz.tiles.map { LayoutBuildTests.expectedPath("quadkey", $0.path) }))
        for t in xyz.tiles.prefix(50) { XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(t.path).path), t.path) }
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
        // And back: the same tree as the first build.
        try build(try writeConfig(v.root, key: #""layout": "xyz""#))
        XCTAssertEqual(Set(try manifest(out).tiles.map(\.path)), Set(xyz.tiles.map(\.path)))
        XCTAssertEqual(try CLI.run(["verify", "--output", out.path]).status, 0)
    }

    func testATemplateThatPutsPyramidsInOneFolderIsRefused() throws {
        let v = try setUpVenue("mixed", key: #""path": "{venue}/{z}/{x}/{y}/{floor}-{format}{scale}.{ext}""#)
        let r = try CLI.run(["build", "--config", v.config.path, "-q"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("tilesets[0].path"), r.stderr)
        XCTAssertTrue(r.stderr.contains("in one folder") || r.stderr.contains("top of the output folder"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: v.root.appendingPathComponent("out/manifest.json").path))
    }
}
