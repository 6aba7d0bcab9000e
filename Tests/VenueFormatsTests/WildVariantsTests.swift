import Foundation
import TestSupport
import VenueModel
import XCTest
@testable import VenueFormats

/// Variants found in real data (issue 17 items 6–8) and hostile level values
/// (issue 23 items 1 and 6), one fixture each, written from the description.
final class WildVariantsTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("wild-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    // MARK: IMDF files named .json

    func testIMDFFilesNamedJSONAreRead() throws {
        let fixture = Bundle.module.path(forResource: "Fixtures/harbour-arcade", ofType: nil)!
        let copy = dir.appendingPathComponent("imdf-json")
        try FileManager.default.copyItem(atPath: fixture, toPath: copy.path)
        let names = try FileManager.default.contentsOfDirectory(atPath: copy.path).filter { $0.hasSuffix(".geojson") }
        XCTAssertTrue(names.contains("unit.geojson"))
        for n in names {
            try FileManager.default.moveItem(at: copy.appendingPathComponent(n),
                                             to: copy.appendingPathComponent(String(n.dropLast("geojson".count)) + "json"))
        }
        var a = IMDFReader(), b = IMDFReader()
        let original = try a.read(path: fixture), renamed = try b.read(path: copy.path)
        XCTAssertEqual(renamed.features, original.features)
        XCTAssertEqual(renamed.levels, original.levels)
        let notices = b.diagnostics.items.filter { $0.message.hasPrefix("read as the IMDF file") }
        XCTAssertTrue(notices.contains { $0.file.hasSuffix("unit.json") && $0.message == "read as the IMDF file unit.geojson (named .json rather than .geojson)" },
                      notices.description)
        XCTAssertEqual(b.diagnostics.warningCount, a.diagnostics.warningCount)
        // A feature's problem names the file as it is on disk.
        XCTAssertTrue(b.diagnostics.items.allSatisfy { !$0.file.hasSuffix("unit.geojson") })
    }

    func testIMDFWithBothNamesReadsTheGeoJSONOne() throws {
        let fixture = Bundle.module.path(forResource: "Fixtures/harbour-arcade", ofType: nil)!
        let copy = dir.appendingPathComponent("imdf-both")
        try FileManager.default.copyItem(atPath: fixture, toPath: copy.path)
        try "not json".write(to: copy.appendingPathComponent("unit.json"), atomically: true, encoding: .utf8)
        var r = IMDFReader()
        _ = try r.read(path: copy.path)
        XCTAssertTrue(r.diagnostics.items.contains { $0.file.hasSuffix("unit.json") && $0.message == "ignored: unit.geojson is read instead" })
    }

    // MARK: MVF v2 mapstack.geojson as a plain array

    func testMVFMapstackAsAPlainArray() throws {
        let b = dir.appendingPathComponent("v2-array")
        try MVFFixture.writeV2(to: b, oldNames: true)
        let array = #"[{"id": "ms_hall", "name": "Harbour Hall", "maps": ["m_ground", "m_upper"]}]"#
        try array.write(to: b.appendingPathComponent("mapstack.geojson"), atomically: true, encoding: .utf8)
        var r = MVFReader()
        let v = try r.read(path: b.path)
        XCTAssertEqual(v.buildings.map(\.id), ["ms_hall"])
        XCTAssertEqual(v.buildings.first?.name["und"], "Harbour Hall")
        XCTAssertTrue(v.levels.allSatisfy { $0.buildingIDs == ["ms_hall"] })
        XCTAssertEqual(r.diagnostics.warningCount, 0, r.diagnostics.items.description)
    }

    // MARK: OSM GeoJSON

    func writeOSM(_ features: [String]) throws -> String {
        let path = dir.appendingPathComponent("osm-\(UUID().uuidString).geojson").path
        try (#"{"type": "FeatureCollection", "features": ["# + features.joined(separator: ",\n") + "]}")
            .write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func square(_ x: Double, _ y: Double, _ s: Double) -> String {
        "[[[\(x), \(y)], [\(x + s), \(y)], [\(x + s), \(y + s)], [\(x), \(y + s)], [\(x), \(y)]]]"
    }

    func feature(_ id: String, _ props: String, polygon: String) -> String {
        #"{"type": "Feature", "id": "\#(id)", "properties": {\#(props)}, "geometry": {"type": "Polygon", "coordinates": \#(polygon)}}"#
    }

    /// A mall (`shop=mall`, no level) enclosing its shops, and a named
    /// sandwich shop drawn as a building outside it: the mall names the venue.
    func testVenueNameIsTheMallThatEnclosesTheShops() throws {
        let path = try writeOSM([
            feature("way/1", #""amenity": "fast_food", "building": "yes", "name": "Sandwich Corner""#, polygon: square(5.0030, 45.0, 0.0002)),
            feature("way/2", #""shop": "mall", "name": "Riverside Mall""#, polygon: square(5.0, 45.0, 0.002)),
            feature("way/3", #""indoor": "room", "shop": "books", "level": "0", "name": "Books""#, polygon: square(5.0002, 45.0002, 0.0003)),
            feature("way/4", #""indoor": "room", "shop": "shoes", "level": "0", "name": "Shoes""#, polygon: square(5.0008, 45.0002, 0.0003)),
            feature("way/5", #""indoor": "corridor", "level": "1""#, polygon: square(5.0002, 45.0008, 0.0006)),
        ])
        var r = IndoorGeoJSONReader()
        let v = try r.read(path: path, venueID: "riverside")
        XCTAssertEqual(v.name.text(preferring: nil), "Riverside Mall")
    }

    /// `level=0.5` (a mezzanine) is a floor of its own between 0 and 1, and so are ranges ending on one.
    func testFractionalLevelIsAFloorBetweenTheIntegers() throws {
        let path = try writeOSM([
            feature("way/1", #""indoor": "room", "level": "0""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/2", #""indoor": "room", "level": "0.5", "name": "Mezzanine""#, polygon: square(5.0004, 45.0, 0.0003)),
            feature("way/3", #""indoor": "room", "level": "1""#, polygon: square(5.0, 45.0004, 0.0003)),
            feature("way/4", #""indoor": "room", "level": "-1-0.5", "highway": "steps""#, polygon: square(5.0008, 45.0, 0.0001)),
            feature("way/5", #""indoor": "room", "level": "-0.5""#, polygon: square(5.0008, 45.0004, 0.0001)),
        ])
        var r = IndoorGeoJSONReader()
        let v = try r.read(path: path, venueID: "mezz")
        XCTAssertEqual(r.diagnostics.warningCount, 0, r.diagnostics.items.description)
        let floors = Floor.group(v.levels)
        XCTAssertEqual(floors.map(\.id), ["floor_m1", "floor_m0_5", "floor_0", "floor_0_5", "floor_1"])
        XCTAssertEqual(floors.map(\.position), [-1, -0.5, 0, 0.5, 1])
        XCTAssertEqual(v.levels.first { $0.id == "level:0.5" }?.shortName["und"], "0.5")
        XCTAssertEqual(v.features.filter { $0.id == "way/4" }.compactMap(\.levelID), ["level:-1", "level:0", "level:0.5"])
        XCTAssertEqual(v.features.first { $0.id == "way/2" }?.levelID, "level:0.5")
    }

    func testFloorIDsOfFractionalFloors() {
        XCTAssertEqual(Floor.id(forOrdinal: 0, fraction: 500_000), "floor_0_5")
        XCTAssertEqual(Floor.id(forOrdinal: 1, fraction: 250_000), "floor_1_25")
        XCTAssertEqual(Floor.id(forOrdinal: -1, fraction: 500_000), "floor_m0_5")
        XCTAssertEqual(Floor.id(forOrdinal: -2, fraction: 750_000), "floor_m1_25")
        XCTAssertEqual(Floor.id(forOrdinal: 2, fraction: 1), "floor_2_000001")
        XCTAssertEqual(Floor.id(forOrdinal: Int.min), "floor_m9223372036854775808")
    }

    /// Numbers that overflowed (signal 4) and lists that never finished:
    /// a warning naming the file, the feature and the problem; the rest is read.
    func testHostileLevelValuesAreWarningsNotTraps() throws {
        let list = (0...99_999).map(String.init).joined(separator: ";")
        let path = try writeOSM([
            feature("way/1", #""indoor": "room", "level": "-9223372036854775808""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/2", #""indoor": "room", "level": "-5000000000000000000-5000000000000000000""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/3", #""indoor": "room", "level": "\#(list)""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/4", #""indoor": "room", "level": "0-1000""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/5", #""indoor": "room", "level": "1e300""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/6", #""indoor": "room", "level": 9.3e18"#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/7", #""indoor": "room", "level": "0", "repeat_on": "99999999999999999999""#, polygon: square(5.0, 45.0, 0.0003)),
            feature("way/8", #""indoor": "room", "level": "0.1234567""#, polygon: square(5.0, 45.0, 0.0003)),
        ])
        var r = IndoorGeoJSONReader()
        let v = try r.read(path: path, venueID: "hostile")
        XCTAssertEqual(v.levels.map(\.id), ["level:0"])
        let w = r.diagnostics.items.filter { $0.kind == .warning }
        XCTAssertTrue(w.allSatisfy { $0.file == path }, w.description)
        XCTAssertEqual(w.map { $0.featureID ?? "" }, ["way/1", "way/2", "way/3", "way/4", "way/5", "way/6", "way/7", "way/8"])
        XCTAssertEqual(w[0].message, #"skipped: level="-9223372036854775808": level -9223372036854775808 is out of range (at most ±1000 floors)"#)
        XCTAssertEqual(w[1].message, #"skipped: level="-5000000000000000000-5000000000000000000": level -5000000000000000000 is out of range (at most ±1000 floors)"#)
        XCTAssertTrue(w[2].message.hasPrefix(#"skipped: level="0;1;2;3;4;5;6;7;8;9;10;11;"#), w[2].message)
        XCTAssertTrue(w[2].message.hasSuffix(#"…": names 100000 floors (a ";" list); at most 200 are read per feature"#), w[2].message)
        XCTAssertEqual(w[3].message, #"skipped: level="0-1000": the range 0-1000 names 1001 floors; at most 200 are read per feature"#)
        XCTAssertTrue(w[4].message.contains("is not a level number"), w[4].message)
        // A JSON number past Int64 arrives as a Double ("9.3e+18"): not a level either way.
        XCTAssertTrue(w[5].message.contains("out of range") || w[5].message.contains("is not a level number"), w[5].message)
        XCTAssertTrue(w[6].message.hasPrefix("repeat_on=\"99999999999999999999\" ignored: "), w[6].message)
        XCTAssertTrue(w[7].message.contains("more than 6 decimals"), w[7].message)
    }

    func testLevelValueParsing() {
        XCTAssertEqual(OSMLevels.parse("0;1"), .floors([0, 1_000_000]))
        XCTAssertEqual(OSMLevels.parse("-2--1"), .floors([-2_000_000, -1_000_000]))
        XCTAssertEqual(OSMLevels.parse("0.5-2"), .floors([500_000, 1_000_000, 2_000_000]))
        XCTAssertEqual(OSMLevels.parse("1000"), .floors([1_000_000_000]))
        XCTAssertEqual(OSMLevels.parse("-1000.0"), .floors([-1_000_000_000]))
        XCTAssertEqual(OSMLevels.parse("0-199"), .floors((0...199).map { $0 * 1_000_000 }))
        if case .floors = OSMLevels.parse("0-200") { XCTFail("201 floors") }
        if case .floors = OSMLevels.parse("1000.5") { XCTFail("beyond ±1000") }
        if case .floors = OSMLevels.parse("2-1") { XCTFail("downwards") }
        if case .floors = OSMLevels.parse("+1") { XCTFail("sign") }
        XCTAssertEqual(OSMLevels.text(-500_000), "-0.5")
        XCTAssertEqual(OSMLevels.place(-500_000).ordinal, -1)
        XCTAssertEqual(OSMLevels.place(-500_000).fraction, 500_000)
    }
}
