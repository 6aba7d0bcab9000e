import Foundation
import TestSupport
import VenueModel
import XCTest
@testable import VenueFormats

final class MVFReaderTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("mvf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func read(_ path: URL) throws -> (Venue, Diagnostics) {
        var r = MVFReader()
        let v = try r.read(path: path.path)
        return (v, r.diagnostics)
    }

    func byID(_ v: Venue) -> [String: Feature] {
        Dictionary(v.features.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    func testV3FloorsStacksKindsConnectionsLocationsStyles() throws {
        let b = dir.appendingPathComponent("v3")
        try MVFFixture.writeV3(to: b)
        let (v, d) = try read(b)
        XCTAssertEqual(v.name["und"], "Harbour Hall")
        XCTAssertNotNil(v.displayPoint)
        // File order is upper first; ordinals come from elevation.
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: v.levels.map { ($0.id, $0.ordinal) }), ["f_ground": 0, "f_upper": 1])
        XCTAssertEqual(Floor.group(v.levels).map(\.id), ["floor_0", "floor_1"])
        XCTAssertEqual(v.buildings.map(\.id), ["fs_hall"])
        XCTAssertTrue(v.levels.allSatisfy { $0.buildingIDs == ["fs_hall"] && $0.geometry != nil })
        let f = byID(v)
        XCTAssertEqual(f["g_bakery"]?.featureClass, .room)
        XCTAssertEqual(f["g_bakery"]?.name["und"], "Harbour Bakery", "locations.json names win over details.name")
        XCTAssertEqual(f["g_bakery"]?.sourcePaint, SourcePaint(color: "#CC3322", opacity: 0.5, height: 4.5))
        XCTAssertEqual(f["g_hall"]?.featureClass, .walkway)
        XCTAssertEqual(f["g_wall"]?.featureClass, .wall)
        XCTAssertEqual(f["g_door"]?.featureClass, .opening)
        XCTAssertEqual(f["g_stairs0"]?.featureClass, .stairs, "a stairs connection outranks kind room")
        XCTAssertEqual(f["g_stairs1"]?.featureClass, .stairs)
        XCTAssertEqual(f["g_lift0"]?.featureClass, .amenity)
        XCTAssertEqual(f["g_lift0"]?.category, "elevator")
        XCTAssertEqual(f["g_kiosk"]?.featureClass, .fixture)
        XCTAssertEqual(f["g_kiosk"]?.sourcePaint?.hidden, true)
        XCTAssertEqual(f["g_lounge"]?.levelID, "f_upper")
        XCTAssertEqual(d.warningCount, 0, d.items.description)
    }

    func testV3ZipMatchesFolder() throws {
        let b = dir.appendingPathComponent("v3")
        try MVFFixture.writeV3(to: b)
        let zip = dir.appendingPathComponent("v3.zip").path
        let names = try FileManager.default.subpathsOfDirectory(atPath: b.path).sorted().filter {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: b.appendingPathComponent($0).path, isDirectory: &isDir)
            return !isDir.boolValue
        }
        try ZipFixture.write(zip, try names.map { .file("bundle/" + $0, try Data(contentsOf: b.appendingPathComponent($0))) })
        let (a, _) = try read(b)
        let (z, _) = try read(URL(fileURLWithPath: zip))
        XCTAssertEqual(a.features, z.features)
        XCTAssertEqual(a.levels, z.levels)
    }

    func testV2NewAndOldFileNamesGiveTheSameVenue() throws {
        let new = dir.appendingPathComponent("v2"), old = dir.appendingPathComponent("v2-old")
        try MVFFixture.writeV2(to: new)
        try MVFFixture.writeV2(to: old, oldNames: true)
        let (v, d) = try read(new)
        let (o, _) = try read(old)
        func unbuilt(_ fs: [Feature]) -> [Feature] { fs.map { var f = $0; f.buildingID = nil; return f } }
        XCTAssertEqual(unbuilt(v.features), unbuilt(o.features))
        XCTAssertTrue(o.features.allSatisfy { $0.buildingID == "ms_hall" })
        XCTAssertEqual(v.levels.map(\.ordinal), o.levels.map(\.ordinal))
        XCTAssertEqual(o.buildings.map(\.id), ["ms_hall"])
        XCTAssertEqual(Floor.group(v.levels).map(\.id), ["floor_0", "floor_1"])
        XCTAssertEqual(v.levels.first { $0.id == "m_ground" }?.shortName["und"], "G")
        let f = byID(v)
        XCTAssertEqual(f["s_bakery"]?.featureClass, .room)
        XCTAssertEqual(f["s_bakery"]?.name["und"], "Harbour Bakery")
        XCTAssertEqual(f["s_bakery"]?.sourcePaint?.color, "#CC3322")
        XCTAssertEqual(f["s_bakery"]?.sourcePaint?.height, 4.5)
        XCTAssertEqual(f["s_hall"]?.featureClass, .walkway)
        XCTAssertEqual(f["o_wall"]?.featureClass, .wall)
        XCTAssertEqual(f["o_desk"]?.featureClass, .fixture)
        XCTAssertEqual(f["e_door"]?.featureClass, .opening)
        XCTAssertEqual(v.features.filter { $0.id == "n_s0" || $0.id == "n_s1" }.map(\.category), ["stairs", "stairs"])
        XCTAssertEqual(d.warningCount, 0, d.items.description)
    }

    func testMissingFilesAndDanglingFloors() throws {
        let b = dir.appendingPathComponent("v3")
        try MVFFixture.writeV3(to: b)
        // A geometry file for a floor that does not exist: warned and skipped.
        try FileManager.default.copyItem(at: b.appendingPathComponent("geometry/f_upper.geojson"),
                                         to: b.appendingPathComponent("geometry/f_attic.geojson"))
        let (v, d) = try read(b)
        XCTAssertFalse(v.features.contains { $0.levelID == "f_attic" })
        XCTAssertTrue(d.items.contains { $0.kind == .warning && $0.file.hasSuffix("geometry/f_attic.geojson") && $0.message.contains("not in floors.geojson") })

        try FileManager.default.removeItem(at: b.appendingPathComponent("floors.geojson"))
        XCTAssertThrowsError(try read(b)) { e in XCTAssertTrue("\(e)".contains("floors.geojson") && "\(e)".contains("missing"), "\(e)") }
        try FileManager.default.removeItem(at: b.appendingPathComponent("manifest.geojson"))
        XCTAssertThrowsError(try read(b)) { e in XCTAssertTrue("\(e)".contains("manifest.geojson"), "\(e)") }
    }

    func testFormatDetection() throws {
        let v3 = dir.appendingPathComponent("v3")
        try MVFFixture.writeV3(to: v3)
        XCTAssertEqual(try detectFormat(path: v3.path), .mvf)
        XCTAssertEqual(try detectFormat(path: "x.geojson"), .geojson)
        let imdf = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/harbour-arcade")
        XCTAssertEqual(try detectFormat(path: imdf.path), .imdf)
    }
}
