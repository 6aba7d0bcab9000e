import Foundation
import VenueFormats
import VenueModel
import XCTest

final class IMDFReaderTests: XCTestCase {
    static var fixture: String { Bundle.module.path(forResource: "Fixtures/harbour-arcade", ofType: nil)! }

    func read(_ path: String) throws -> (Venue, Diagnostics) {
        var r = IMDFReader()
        let v = try r.read(path: path)
        return (v, r.diagnostics)
    }

    func testOneThreadOrSeveralReadTheSameVenue() throws {
        var one = IMDFReader(threads: 1), four = IMDFReader(threads: 4)
        let a = try one.read(path: Self.fixture), b = try four.read(path: Self.fixture)
        XCTAssertEqual("\(a)", "\(b)")
        XCTAssertEqual(one.diagnostics.items, four.diagnostics.items)
        XCTAssertFalse(one.diagnostics.items.isEmpty, "the fixture's notices (address.geojson) are compared too")
    }

    func testFolderFixture() throws {
        let (v, d) = try read(Self.fixture)
        XCTAssertEqual(v.name.text(preferring: "en"), "Harbour Arcade")
        XCTAssertEqual(v.name["de"], "Hafen-Arkaden")
        XCTAssertEqual(v.buildings.count, 2)
        XCTAssertEqual(v.levels.count, 4)

        // Floors by ordinal: a basement, a ground floor shared by two buildings, an upper floor.
        let floors = Floor.group(v.levels)
        XCTAssertEqual(floors.map(\.ordinal), [-1, 0, 1])
        XCTAssertEqual(floors.map(\.id), ["floor_m1", "floor_0", "floor_1"])
        XCTAssertEqual(Set(floors[1].levels.flatMap(\.buildingIDs)).count, 2)
        XCTAssertEqual(floors[0].shortName(language: "en"), "B1")

        // A MultiPolygon unit (the food court's two halls) and a polygon with a hole (a shop around a column).
        let court = try XCTUnwrap(v.features.first { $0.name["en"] == "Food Court" })
        XCTAssertEqual(court.featureClass, .room)
        guard case .multiPolygon(let parts) = court.geometry else { return XCTFail("food court is \(court.geometry)") }
        XCTAssertEqual(parts.count, 2)
        let withHole = v.features.filter { $0.geometry.polygons.contains { $0.rings.count > 1 } }
        XCTAssertEqual(withHole.count, 2)   // the fashion shop and the upper walkway over the atrium
        XCTAssertTrue(withHole.contains { $0.featureClass == .walkway })

        // Class mapping of IMDF unit categories.
        XCTAssertTrue(v.features.contains { $0.featureClass == .openToBelow })
        XCTAssertTrue(v.features.contains { $0.featureClass == .elevator })
        XCTAssertTrue(v.features.contains { $0.featureClass == .stairs && $0.category == "escalator" })
        XCTAssertTrue(v.features.contains { $0.featureClass == .restroom && $0.category == "restroom.female" })
        XCTAssertTrue(v.features.contains { $0.featureClass == .water })
        XCTAssertEqual(v.features.filter { $0.featureClass == .amenity }.count, 4)
        XCTAssertEqual(v.features.filter { $0.featureClass == .opening }.count, 16)
        // Occupant names reach their anchors.
        XCTAssertTrue(v.features.contains { $0.featureClass == .anchor && $0.name["en"] == "Nordic Books" })
        // display_point is read.
        XCTAssertNotNil(court.displayPoint)

        // The defects: the orphan unit is skipped, the unclosed ring repaired, each named once.
        let warnings = d.items.filter { $0.kind == .warning }
        XCTAssertEqual(warnings.count, 2, "\(warnings)")
        XCTAssertTrue(warnings.contains { $0.message.contains("names no level") && $0.file.hasSuffix("unit.geojson") })
        XCTAssertTrue(warnings.contains { $0.message.contains("not closed") })
        let repaired = try XCTUnwrap(v.features.first { $0.id == warnings.first { $0.message.contains("not closed") }!.featureID })
        XCTAssertEqual(repaired.geometry.polygons[0].exterior.first, repaired.geometry.polygons[0].exterior.last)
        XCTAssertFalse(v.features.contains { $0.id == warnings.first { $0.message.contains("names no level") }!.featureID })
        XCTAssertTrue(d.items.contains { $0.kind == .notice && $0.file.hasSuffix("README.txt") })
    }

    func testZipMatchesFolder() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let zipPath = tmp.appendingPathComponent("venue.zip").path
        // Zips made by hand usually wrap a folder: the reader must find the dataset inside it.
        let w = try ZipWriter(path: zipPath)
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.fixture).sorted() {
            try w.add("harbour-arcade/" + name, try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/" + name)))
        }
        try w.close()

        let (fromZip, dz) = try read(zipPath)
        let (fromDir, dd) = try read(Self.fixture)
        XCTAssertEqual(fromZip.features, fromDir.features)
        XCTAssertEqual(fromZip.levels, fromDir.levels)
        XCTAssertEqual(dz.warningCount, dd.warningCount)
    }

    func testUnreadableZipIsAnError() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).zip")
        try Data("this is not a zip archive".utf8).write(to: tmp)
        defer { try? FileManager.default.removeItem(at: tmp) }
        XCTAssertThrowsError(try read(tmp.path)) { e in
            let err = e as? VenueFormatError
            XCTAssertEqual(err?.file, tmp.path)
            XCTAssertTrue(err?.problem.contains("not a readable zip") ?? false, "\(e)")
        }
    }

    /// Copies the fixture, applies `edit` to one file, and returns the error reading it gives.
    func errorAfterEditing(_ file: String, _ edit: (String) -> String) throws -> VenueFormatError? {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: tmp.path)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let path = tmp.appendingPathComponent(file).path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = edit(text)
        XCTAssertNotEqual(edited, text, "the edit changed nothing")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        do { _ = try read(tmp.path); return nil } catch let e as VenueFormatError { return e } catch let e as VenueFormatErrors {
            // Problems inside features are all listed; these edits make exactly one.
            XCTAssertEqual(e.errors.count, 1, e.description)
            return e.errors.first.map { VenueFormatError(file: $0.file, featureID: $0.featureID, problem: $0.message) }
        }
    }

    /// `errorAfterEditing` with the first `text` in the file replaced.
    func errorAfterReplacing(_ text: String, with replacement: String, in file: String) throws -> VenueFormatError? {
        try errorAfterEditing(file) { contents in
            guard let r = contents.range(of: text) else { return contents }
            return contents.replacingCharacters(in: r, with: replacement)
        }
    }

    func testMalformedJSONNamesTheFile() throws {
        let e = try errorAfterEditing("unit.geojson") { String($0.dropLast(20)) }
        XCTAssertTrue(e?.file.hasSuffix("unit.geojson") ?? false)
        XCTAssertTrue(e?.problem.hasPrefix("malformed JSON") ?? false, "\(String(describing: e))")
    }

    func testCoordinateOutsideWGS84NamesTheFeature() throws {
        // Move the first coordinate of the first unit to latitude 153.54.
        let e = try errorAfterReplacing("53.54", with: "153.54", in: "unit.geojson")
        let err = try XCTUnwrap(e)
        XCTAssertTrue(err.file.hasSuffix("unit.geojson"))
        XCTAssertNotNil(err.featureID)
        XCTAssertTrue(err.problem.contains("outside WGS84"), err.description)
    }

    func testNonFiniteCoordinateIsRefused() throws {
        let e = try errorAfterReplacing("10.00", with: "1e999", in: "fixture.geojson")
        let err = try XCTUnwrap(e)
        XCTAssertTrue(err.file.hasSuffix("fixture.geojson"), err.description)
    }

    /// A boolean is not a coordinate (JSON true is not the number 1).
    func testBooleanCoordinateIsRefused() throws {
        let e = try errorAfterReplacing("10.0015", with: "true", in: "unit.geojson")
        let err = try XCTUnwrap(e)
        XCTAssertTrue(err.file.hasSuffix("unit.geojson"), err.description)
        XCTAssertTrue(err.problem.contains("not [longitude, latitude]"), err.description)
    }

    func testMissingRequiredFile() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: tmp.path)
        defer { try? FileManager.default.removeItem(at: tmp) }
        try FileManager.default.removeItem(atPath: tmp.appendingPathComponent("level.geojson").path)
        XCTAssertThrowsError(try read(tmp.path)) { e in
            XCTAssertTrue("\(e)".contains("level.geojson"), "\(e)")
            XCTAssertTrue("\(e)".contains("missing"), "\(e)")
        }
        XCTAssertThrowsError(try read(tmp.path + "-does-not-exist")) { e in
            XCTAssertTrue("\(e)".contains("no such file"), "\(e)")
        }
    }
    /// The files are parsed at once on several threads; their problems are
    /// still listed in the order the reader takes the files (units, openings,
    /// amenities), not in the order the threads finished or by name.
    func testProblemsInSeveralFilesAreListedInReadingOrder() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("imdf-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: tmp.path)
        defer { try? FileManager.default.removeItem(at: tmp) }
        for name in ["amenity.geojson", "unit.geojson", "opening.geojson"] {
            let path = tmp.appendingPathComponent(name).path
            let text = try String(contentsOfFile: path, encoding: .utf8)
            // A feature that is not an object, first in the list.
            let r = try XCTUnwrap(text.range(of: "\"features\""))
            let open = try XCTUnwrap(text[r.upperBound...].firstIndex(of: "["))
            try text.replacingCharacters(in: open...open, with: "[42,").write(toFile: path, atomically: true, encoding: .utf8)
        }
        for threads in [1, 2, 3, 8] {
            var reader = IMDFReader(threads: threads)
            XCTAssertThrowsError(try reader.read(path: tmp.path)) { e in
                guard let e = e as? VenueFormatErrors else { return XCTFail("\(e)") }
                XCTAssertEqual(e.errors.map { ($0.file as NSString).lastPathComponent }, ["unit.geojson", "opening.geojson", "amenity.geojson"])
                XCTAssertEqual(e.errors.map(\.featureID), ["#0", "#0", "#0"])
            }
        }
    }
}
