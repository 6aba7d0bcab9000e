import Foundation
import XCTest

/// TileJSON that clients can follow as they are: bounds covering every tile
/// that was made, the centre inside them, and tile URLs that resolve from the
/// TileJSON file itself when there is no base_url.
final class TileJSONTests: XCTestCase {
    func testBoundsCoverEveryTileAndURLsResolveFromTheTileJSON() throws {
        let dir = try CLI.tempDir("tilejson")
        defer { CLI.removeTree(dir) }
        // The venue polygon reaches well past the levels (landside, car parks).
        let venue = dir.appendingPathComponent("venue")
        try FileManager.default.copyItem(at: CLI.fixture, to: venue)
        try CLI.editFeatures(venue.appendingPathComponent("venue.geojson")) { feats in
            var g = feats[0]["geometry"] as! [String: Any]
            let ring = (g["coordinates"] as! [[[Double]]])[0]
            let cx = ring.map { $0[0] }.reduce(0, +) / Double(ring.count), cy = ring.map { $0[1] }.reduce(0, +) / Double(ring.count)
            g["coordinates"] = [ring.map { [cx + ($0[0] - cx) * 3, cy + ($0[1] - cy) * 3] }]
            feats[0]["geometry"] = g
        }
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 19}"#)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = dir.appendingPathComponent("out")
        struct E: Decodable { var path: String }
        struct M: Decodable { var tiles: [E]; var files: [E] }
        let m = try JSONDecoder().decode(M.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let tileJSONs = m.files.map(\.path).filter { $0.hasSuffix("/tilejson.json") }
        XCTAssertEqual(tileJSONs.count, 7)
        for tj in tileJSONs {
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(tj))) as! [String: Any]
            let b = doc["bounds"] as! [Double], c = doc["center"] as! [Double]
            XCTAssertTrue(c[0] >= b[0] && c[0] <= b[2] && c[1] >= b[1] && c[1] <= b[3], "\(tj): centre \(c) outside \(b)")
            // A client resolves the tile URL against the TileJSON's own URL.
            let template = (doc["tiles"] as! [String])[0]
            let base = URL(string: "https://cdn.example.com/tiles/" + tj)!
            let dirPath = (tj as NSString).deletingLastPathComponent
            XCTAssertEqual(URL(string: template.replacingOccurrences(of: "{", with: "%7B").replacingOccurrences(of: "}", with: "%7D"), relativeTo: base)!.absoluteString
                            .replacingOccurrences(of: "%7B", with: "{").replacingOccurrences(of: "%7D", with: "}"),
                           "https://cdn.example.com/tiles/\(dirPath)/" + template, tj)
            // Every tile made for this pyramid meets the bounds (so a client asks for it).
            for t in m.tiles where t.path.hasPrefix(dirPath + "/") {
                let parts = t.path.dropFirst(dirPath.count + 1).split(separator: "/")
                let z = Int(parts[0])!, x = Int(parts[1])!, y = Int(parts[2].split(separator: ".")[0])!
                let n = Double(1 << z)
                let west = Double(x) / n * 360 - 180, east = Double(x + 1) / n * 360 - 180
                func lat(_ yy: Double) -> Double { atan(sinh(Double.pi * (1 - 2 * yy / n))) * 180 / Double.pi }
                let north = lat(Double(y)), south = lat(Double(y + 1))
                XCTAssertTrue(west <= b[2] && east >= b[0] && south <= b[3] && north >= b[1], "\(t.path) outside \(tj)'s bounds \(b)")
            }
        }
    }

    /// Issue 17 item 10: a source's `attribution` reaches its TileJSON, the
    /// manifest and the web clients' styles; OSM-tagged GeoJSON gets the
    /// OpenStreetMap credit its licence requires without being told.
    func testAttributionReachesTileJSONAndManifest() throws {
        let dir = try CLI.tempDir("attribution")
        defer { CLI.removeTree(dir) }
        let osm = dir.appendingPathComponent("mall.geojson")
        func square(_ x: Double, _ y: Double, _ s: Double) -> String {
            "[[[\(x), \(y)], [\(x + s), \(y)], [\(x + s), \(y + s)], [\(x), \(y + s)], [\(x), \(y)]]]"
        }
        try (#"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "way/1", "properties": {"indoor": "room", "level": "0", "name": "Bakery"}, "geometry": {"type": "Polygon", "coordinates": "# + square(5.0, 45.0, 0.0002) + "}}]}")
            .write(to: osm, atomically: true, encoding: .utf8)
        let config = try CLI.writeConfig(dir, sources: [("h", "imdf", CLI.fixture.path), ("mall", "geojson", osm.path)],
                                         extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}], "zoom": {"min": 17, "max": 18}"#)
        var text = try String(contentsOf: config, encoding: .utf8)
        text = text.replacingOccurrences(of: #""format": "imdf","#, with: #""format": "imdf", "attribution": "© Harbour Arcade Ltd","#)
        try text.write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = dir.appendingPathComponent("out")
        let expected = ["h": "© Harbour Arcade Ltd", "mall": "© OpenStreetMap contributors"]
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        let venues = manifest["venues"] as! [[String: Any]]
        XCTAssertEqual(venues.count, 2)
        for v in venues { XCTAssertEqual(v["attribution"] as? String, expected[v["source_id"] as! String]) }
        var checked = 0
        for e in manifest["files"] as! [[String: Any]] {
            let path = e["path"] as! String
            guard path.hasSuffix("/tilejson.json") else { continue }
            let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(path))) as! [String: Any]
            XCTAssertEqual(doc["attribution"] as? String, expected[String(path.split(separator: "/")[0])], path)
            checked += 1
        }
        XCTAssertGreaterThan(checked, 4)
    }
}
