import Foundation
import VenueFormats
import VenueModel
import XCTest

final class IndoorGeoJSONReaderTests: XCTestCase {
    static var fixture: String { Bundle.module.path(forResource: "Fixtures/osm-indoor", ofType: "geojson")! }

    func testOSMSimpleIndoorTagging() throws {
        var r = IndoorGeoJSONReader()
        let v = try r.read(path: Self.fixture, venueID: "mall")
        XCTAssertEqual(v.name.text(preferring: v.language), "Test Mall")
        XCTAssertEqual(v.levels.map(\.ordinal), [-1, 0, 0, 1, 2, 3])
        XCTAssertEqual(v.levels.map(\.id), ["level:-1", "level:0", "level:0.5", "level:1", "level:2", "level:3"])
        func on(_ id: String) -> [Int] { v.features.filter { $0.id == id }.compactMap { $0.levelID }.compactMap { Int($0.dropFirst(6)) }.sorted() }
        XCTAssertEqual(on("way/3"), [0, 1])             // "0;1"
        XCTAssertEqual(on("way/5"), [-1, 0, 1])         // "-1-1" is a range
        XCTAssertEqual(on("way/10"), [2, 3])            // repeat_on
        XCTAssertEqual(on("node/6"), [0])               // numeric level
        let cls = Dictionary(v.features.map { ($0.id, $0.featureClass) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(cls["way/1"], .building)
        XCTAssertEqual(cls["way/2"], .room)
        XCTAssertEqual(cls["way/3"], .walkway)
        XCTAssertEqual(cls["way/4"], .restroom)         // tags nested under properties.tags
        XCTAssertEqual(cls["way/5"], .elevator)
        XCTAssertEqual(cls["node/6"], .amenity)
        XCTAssertEqual(cls["way/7"], .wall)             // wall lines on the walls layer
        XCTAssertEqual(v.features.first { $0.id == "way/2" }?.name["fr"], "Livres")
        // No level: reported once and skipped. Level 0.5: a floor of its own.
        let warnings = r.diagnostics.items.filter { $0.kind == .warning }
        XCTAssertEqual(warnings.map { $0.featureID ?? "" }.sorted(), ["way/8"])
        XCTAssertNil(cls["way/8"])
        XCTAssertEqual(v.features.first { $0.id == "way/9" }?.levelID, "level:0.5")
    }

    func testLevelValues() {
        XCTAssertEqual(IndoorGeoJSONReaderProbe.levels("0;1"), [0, 1])
        XCTAssertEqual(IndoorGeoJSONReaderProbe.levels("0-2"), [0, 1, 2])
        XCTAssertEqual(IndoorGeoJSONReaderProbe.levels("-2--1"), [-2, -1])
        XCTAssertEqual(IndoorGeoJSONReaderProbe.levels(" 1 ; 3 "), [1, 3])
        XCTAssertNil(IndoorGeoJSONReaderProbe.levels("roof"))
    }

    func testNoLevelAtAllIsAnError() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("nolevel-\(UUID().uuidString).geojson")
        try #"{"type": "FeatureCollection", "features": [{"type": "Feature", "id": "n/1", "properties": {"amenity": "atm"}, "geometry": {"type": "Point", "coordinates": [5, 45]}}]}"#
            .write(to: tmp, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tmp) }
        var r = IndoorGeoJSONReader()
        XCTAssertThrowsError(try r.read(path: tmp.path, venueID: "x")) { e in
            XCTAssertTrue("\(e)".contains("level"), "\(e)")
        }
    }
}
