import Foundation
@testable import Pipeline
import Rendering
import Styling
import VenueModel
import XCTest

/// The text `level` and the feature ids of the venue-wide pyramid, in process
/// (the end-to-end test reads them back from the tiles of an OSM venue).
final class VectorLevelTests: XCTestCase {
    func square(_ x: Double, _ size: Double = 0.0001) -> Geometry {
        .polygon(Polygon(rings: [[LonLat(lon: x, lat: 0), LonLat(lon: x + size, lat: 0), LonLat(lon: x + size, lat: size),
                                  LonLat(lon: x, lat: size), LonLat(lon: x, lat: 0)]]))
    }

    func venue(_ features: [Feature]) -> Venue {
        let levels = [-1, 0, 1].map { Level(id: "L\($0)", ordinal: $0, name: LocalizedName(), shortName: LocalizedName(),
                                            outdoor: false, buildingIDs: [], category: "unspecified", geometry: nil) }
        return Venue(id: "v", name: LocalizedName(["en": "V"]), category: "shoppingcenter", language: "en", displayPoint: nil,
                     geometry: nil, buildings: [], levels: levels, features: features)
    }

    func property(_ item: VectorItem, _ key: String) -> String? {
        for p in item.properties where p.key == key {
            switch p.value {
            case .string(let s): return s
            case .int(let n): return String(n)
            default: return nil
            }
        }
        return nil
    }

    func testRepeatedFeatureIsOnceInTheVenueWidePyramidWithEveryLevel() {
        let corridor = square(0)
        let v = venue([
            Feature(id: "way/3", featureClass: .walkway, category: "corridor", levelID: "L0", geometry: corridor),
            Feature(id: "way/3", featureClass: .walkway, category: "corridor", levelID: "L1", geometry: corridor),
            Feature(id: "way/9", featureClass: .room, category: "room", levelID: "L-1", geometry: square(0.001)),
        ])
        let prepared = PrepareVector.run(Prepare.run(sourceID: "v", venue: v, style: .builtIn))
        let walkways = prepared.all.filter { $0.venueLayer == "floor_walkways" }
        XCTAssertEqual(walkways.count, 1)
        XCTAssertEqual(walkways.first.flatMap { property($0, "level") }, "0;1")
        // Each floor's pyramid has it too, with the same level text.
        XCTAssertEqual(prepared.floors[2].filter { $0.venueLayer == "floor_walkways" }.map { property($0, "level") }, ["0;1"])
        XCTAssertEqual(prepared.all.first { $0.venueLayer == "floor_rooms" }.flatMap { property($0, "level") }, "-1")
    }

    func testSameIDWithOtherGeometryGetsItsOwnID() {
        let v = venue([
            Feature(id: "dup", featureClass: .room, category: "room", levelID: "L0", geometry: square(0)),
            Feature(id: "dup", featureClass: .room, category: "room", levelID: "L1", geometry: square(0.001)),
        ])
        let prepared = PrepareVector.run(Prepare.run(sourceID: "v", venue: v, style: .builtIn))
        let rooms = prepared.all.filter { $0.venueLayer == "floor_rooms" }
        XCTAssertEqual(rooms.count, 2)
        XCTAssertEqual(Set(rooms.map(\.id)).count, 2, "ids must be unique per layer")
        XCTAssertEqual(rooms[0].id, PrepareVector.stableID("dup"))   // the first keeps the id of its source id
        // Two features that share an id: each is on its own floor.
        XCTAssertEqual(rooms.map { property($0, "level") }, ["0", "1"])
    }
}

/// Levels between floors keep their place in the text `level` (OSM writes `0.5`).
final class LevelTextFormatTests: XCTestCase {
    func testPlacesPrintAsOSMWritesThem() {
        let s: Int = Floor.fractionScale
        let places: [Int] = [0, -s, 2 * s, s / 2, -s / 2, -3 * s / 2, s + s / 4, 5]
        let texts: [String] = places.map { LevelText.format($0) }
        XCTAssertEqual(texts, ["0", "-1", "2", "0.5", "-0.5", "-1.5", "1.25", "0.000005"])
    }
}
