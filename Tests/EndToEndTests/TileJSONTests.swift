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
}
