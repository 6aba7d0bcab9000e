import Foundation
import TestSupport
import XCTest

/// Shapes of real venue data through the built CLI: a level whose second
/// ring is a separate wing, a mezzanine at level 0.5, hostile level values,
/// and an IMDF dataset whose files are named `.json` (issue 17 items 1, 6, 8;
/// issue 23 items 1, 6).
final class WildVenueTests: XCTestCase {
    var dir: URL!
    override func setUpWithError() throws { dir = try CLI.tempDir("wild") }
    override func tearDownWithError() throws { CLI.removeTree(dir) }

    func square(_ x: Double, _ y: Double, _ s: Double) -> String {
        "[[\(x), \(y)], [\(x + s), \(y)], [\(x + s), \(y + s)], [\(x), \(y + s)], [\(x), \(y)]]"
    }

    func feature(_ id: String, _ props: String, _ rings: [String]) -> String {
        #"{"type": "Feature", "id": "\#(id)", "properties": {\#(props)}, "geometry": {"type": "Polygon", "coordinates": [\#(rings.joined(separator: ", "))]}}"#
    }

    func write(_ name: String, _ features: [String]) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try (#"{"type": "FeatureCollection", "features": ["# + features.joined(separator: ",\n") + "]}")
            .write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    func validate(_ path: URL) throws -> (status: Int32, problems: [[String: Any]], source: [String: Any]) {
        let r = try CLI.run(["validate", "--format", "json", path.path])
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stderr)
        let source = try XCTUnwrap((doc["sources"] as? [[String: Any]])?.first)
        return (r.status, source["problems"] as? [[String: Any]] ?? [], source)
    }

    /// The wing (second ring, beside the first) keeps its tiles; the mezzanine
    /// gets a floor folder of its own, `floor_0_5`, between 0 and 1.
    func testWingAndMezzanineAreBuilt() throws {
        let venue = try write("wing.geojson", [
            feature("way/1", #""indoor": "level", "level": "0""#, [square(5.0, 45.0, 0.0004), square(5.0020, 45.0, 0.0004)]),
            feature("way/2", #""indoor": "room", "level": "0", "name": "West""#, [square(5.0001, 45.0001, 0.0002)]),
            feature("way/3", #""indoor": "room", "level": "0", "name": "East""#, [square(5.0021, 45.0001, 0.0002)]),
            feature("way/4", #""indoor": "room", "level": "0.5", "name": "Gallery""#, [square(5.0001, 45.0001, 0.0001)]),
            feature("way/5", #""indoor": "room", "level": "1""#, [square(5.0001, 45.0001, 0.0002)]),
        ])
        let v = try validate(venue)
        XCTAssertEqual(v.status, 0)
        XCTAssertEqual(v.problems.filter { $0["severity"] as? String == "warning" }.count, 0, "\(v.problems)")
        XCTAssertEqual(v.source["floors"] as? [String], ["floor_0", "floor_0_5", "floor_1"], "\(v.source)")
        let config = try CLI.writeConfig(dir, sources: [("wing", "geojson", venue.path)], extra: #", "tilesets": [{"format": "png"}, {"format": "mvt"}]"#)
            .path
        let text = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(of: #""max": 23"#, with: #""max": 19"#)
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let b = try CLI.run(["build", "--config", config])
        XCTAssertEqual(b.status, 0, b.stderr)
        let out = dir.appendingPathComponent("out/wing")
        let floors = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasPrefix("floor_") }.sorted()
        XCTAssertEqual(floors, ["floor_0", "floor_0_5", "floor_1"])
        // The east wing (lon 5.0020–5.0024) has its own z19 tiles on floor 0: x of lon 5.0022 at z19.
        let x = Int(((5.0022 + 180) / 360 * Double(1 << 19)).rounded(.down))
        let columns = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("floor_0/png/19").path)
        XCTAssertTrue(columns.contains(String(x)), "no z19 column \(x) for the east wing: \(columns.sorted())")
        XCTAssertEqual(try CLI.run(["verify", "--config", config]).status, 0)
    }

    /// Values that trapped (signal 4) or never finished: warnings that name
    /// the file, the feature and the problem; the rest of the venue validates.
    func testHostileLevelValuesAreWarnings() throws {
        let list = (0...99_999).map(String.init).joined(separator: ";")
        let venue = try write("hostile.geojson", [
            feature("way/1", #""indoor": "room", "level": "-9223372036854775808""#, [square(5.0, 45.0, 0.0002)]),
            feature("way/2", #""indoor": "room", "level": "-5000000000000000000-5000000000000000000""#, [square(5.0, 45.0, 0.0002)]),
            feature("way/3", #""indoor": "room", "level": "\#(list)""#, [square(5.0, 45.0, 0.0002)]),
            feature("way/4", #""indoor": "room", "level": "0""#, [square(5.0, 45.0, 0.0002)]),
        ])
        let v = try validate(venue)
        XCTAssertEqual(v.status, 0)
        let w = v.problems.filter { $0["severity"] as? String == "warning" }
        XCTAssertEqual(w.compactMap { $0["feature"] as? String }, ["way/1", "way/2", "way/3"])
        XCTAssertTrue(w.allSatisfy { ($0["file"] as? String ?? "").hasSuffix("hostile.geojson") })
        XCTAssertTrue((w[0]["message"] as? String ?? "").contains("out of range"), "\(w[0])")
        XCTAssertTrue((w[2]["message"] as? String ?? "").contains("names 100000 floors"), "\(w[2])")
        XCTAssertEqual(v.source["floors"] as? [String], ["floor_0"])
    }

    /// An IMDF dataset converted by a tool that names its files `.json`.
    func testIMDFWithJSONNamesValidates() throws {
        let copy = dir.appendingPathComponent("imdf")
        try FileManager.default.copyItem(at: CLI.fixture, to: copy)
        for n in try FileManager.default.contentsOfDirectory(atPath: copy.path) where n.hasSuffix(".geojson") {
            try FileManager.default.moveItem(at: copy.appendingPathComponent(n), to: copy.appendingPathComponent(String(n.dropLast(7)) + "json"))
        }
        let v = try validate(copy)
        XCTAssertEqual(v.status, 0, "\(v.problems)")
        let original = try validate(CLI.fixture)
        XCTAssertEqual(v.source["floors"] as? [String], original.source["floors"] as? [String])
        XCTAssertEqual(v.source["features"] as? Int, original.source["features"] as? Int)
        XCTAssertTrue(v.problems.contains { ($0["message"] as? String) == "read as the IMDF file level.geojson (named .json rather than .geojson)" },
                      "\(v.problems)")
    }
}
