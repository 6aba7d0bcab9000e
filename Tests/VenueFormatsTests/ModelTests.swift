import VenueModel
import XCTest

final class ModelTests: XCTestCase {
    func testFloorIDs() {
        XCTAssertEqual(Floor.id(forOrdinal: 0), "floor_0")
        XCTAssertEqual(Floor.id(forOrdinal: 3), "floor_3")
        XCTAssertEqual(Floor.id(forOrdinal: -2), "floor_m2")
    }

    func testFloorGroupingPrefersIndoorLevels() {
        func level(_ id: String, _ ordinal: Int, outdoor: Bool, short: String) -> Level {
            Level(id: id, ordinal: ordinal, name: LocalizedName(), shortName: LocalizedName(["en": short]),
                  outdoor: outdoor, buildingIDs: [], category: "unspecified", geometry: nil)
        }
        let floors = Floor.group([level("a", 0, outdoor: true, short: "Plaza"), level("b", 0, outdoor: false, short: "G"),
                                  level("c", -1, outdoor: false, short: "B1")])
        XCTAssertEqual(floors.map(\.ordinal), [-1, 0])
        XCTAssertEqual(floors[1].levels.map(\.id), ["b", "a"])
        XCTAssertEqual(floors[1].shortName(language: "en"), "G")
    }

    func testUnitCategoryMapping() {
        XCTAssertEqual(FeatureClass.imdfUnit("restroom.unisex.wheelchair"), .restroom)
        XCTAssertEqual(FeatureClass.imdfUnit("escalator"), .stairs)
        XCTAssertEqual(FeatureClass.imdfUnit("opentobelow"), .openToBelow)
        XCTAssertEqual(FeatureClass.imdfUnit("nonpublic"), .nonPublic)
        XCTAssertEqual(FeatureClass.imdfUnit("unspecified"), .otherRoom)
        XCTAssertEqual(FeatureClass.imdfUnit("something-new"), .otherRoom)
        XCTAssertEqual(FeatureClass.imdfUnit("foodservice"), .room)
    }

    func testLocalizedNamePreference() {
        let n = LocalizedName(["de": "Brunnen", "en": "Fountain", "fr": "Fontaine"])
        XCTAssertEqual(n.text(preferring: "fr"), "Fontaine")
        XCTAssertEqual(n.text(preferring: "it"), "Fountain")
        XCTAssertEqual(LocalizedName(["de": "Brunnen", "fr": "Fontaine"]).text(preferring: nil), "Brunnen")
    }
}
