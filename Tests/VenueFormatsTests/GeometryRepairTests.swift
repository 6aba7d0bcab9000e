import VenueModel
import XCTest
@testable import VenueFormats

/// The repair contract of `GeometryRepair`, one case per row of its table
/// (ring organisation by containment: `RingOrganisationTests`).
final class GeometryRepairTests: XCTestCase {
    func ring(_ pts: [(Double, Double)]) -> [LonLat] {
        var r = pts.map { LonLat(lon: $0.0, lat: $0.1) }
        r.append(r[0])
        return r
    }

    let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]

    func repair(_ g: Geometry) -> (Geometry?, [Diagnostic]) {
        var d = Diagnostics()
        let out = GeometryRepair.repair(g, file: "f.geojson", featureID: "u1", diagnostics: &d)
        return (out, d.items)
    }

    func testCorrectPolygonIsUntouched() {
        let p = Geometry.polygon(Polygon(rings: [ring(square), ring([(0.2, 0.2), (0.2, 0.4), (0.4, 0.4), (0.4, 0.2)])]))
        let (out, d) = repair(p)
        XCTAssertEqual(out, p)
        XCTAssertTrue(d.isEmpty)
    }

    func testWrongWindingIsReversed() {
        let cw = ring(square.reversed())
        let ccwHole = ring([(0.2, 0.2), (0.4, 0.2), (0.4, 0.4), (0.2, 0.4)])
        let (out, d) = repair(.polygon(Polygon(rings: [cw, ccwHole])))
        let p = out!.polygons[0]
        XCTAssertGreaterThan(GeometryRepair.signedArea(p.rings[0]), 0)
        XCTAssertLessThan(GeometryRepair.signedArea(p.rings[1]), 0)
        // Routine: one counted notice for the file, not a warning per ring.
        XCTAssertEqual(d.map(\.location), ["f.geojson: rings wound the wrong way reversed (RFC 7946 §3.1.6): 2"])
        XCTAssertEqual(d.first?.kind, .notice)
    }

    func testHoleOutsideIsAPolygonOfItsOwn() {
        let outside = ring([(2.0, 2.0), (2.0, 3.0), (3.0, 3.0), (3.0, 2.0)])
        let (out, d) = repair(.polygon(Polygon(rings: [ring(square), outside])))
        XCTAssertEqual(out?.polygons.count, 2)
        XCTAssertEqual(out?.polygons[1].rings, [outside.reversed()])
        XCTAssertEqual(d.filter { $0.kind == .warning }.count, 0, d.description)
    }

    func testSelfIntersectionIsSkippedWithItsLocation() {
        let bowTie = ring([(0, 0), (1, 1), (1, 0), (0, 1)])
        let (out, d) = repair(.polygon(Polygon(rings: [bowTie])))
        XCTAssertNil(out)
        XCTAssertEqual(d.count, 1)
        XCTAssertTrue(d[0].message.contains("self-intersection at (0.5, 0.5)"), d[0].message)
    }

    func testSpikeIsASelfIntersection() {
        let spike = ring([(0, 0), (1, 0), (1, 1), (0.5, 1), (0.5, 2), (0.5, 1), (0, 1)])
        let (out, d) = repair(.polygon(Polygon(rings: [spike])))
        XCTAssertNil(out)
        XCTAssertTrue(d[0].message.contains("self-intersection"))
    }

    func testHoleCrossingTheExteriorIsDropped() {
        let crossing = ring([(0.5, 0.5), (1.5, 0.5), (1.5, 0.7), (0.5, 0.7)])
        let (out, d) = repair(.polygon(Polygon(rings: [ring(square), crossing])))
        XCTAssertEqual(out?.polygons[0].rings.count, 1)
        XCTAssertTrue(d[0].message.contains("dropped ring 1: crosses ring 0 at"), d[0].message)
    }

    func testHoleTouchingTheExteriorAtAVertexIsKept() {
        let touching = ring([(0.0, 0.5), (0.3, 0.3), (0.3, 0.7)])
        let (out, d) = repair(.polygon(Polygon(rings: [ring(square), touching])))
        XCTAssertEqual(out?.polygons[0].rings.count, 2, d.description)
    }

    func testMultiPolygonDropsOnlyTheBadPart() {
        let good = Polygon(rings: [ring(square)])
        let bad = Polygon(rings: [ring([(5, 5), (6, 6), (6, 5), (5, 6)])])
        let (out, d) = repair(.multiPolygon([good, bad]))
        XCTAssertEqual(out, .polygon(good))
        XCTAssertTrue(d[0].message.hasPrefix("dropped polygon 1 ring 0: self-intersection at (5.5, 5.5)"), d[0].message)
    }

    func testZeroAreaIsSkipped() {
        let (out, d) = repair(.polygon(Polygon(rings: [ring([(0, 0), (1, 0), (2, 0)])])))
        XCTAssertNil(out)
        XCTAssertTrue(d[0].message.contains("zero area"))
    }

    func testSameInputSameOutcome() {
        let g = Geometry.multiPolygon([Polygon(rings: [ring(square.reversed())]), Polygon(rings: [ring([(5, 5), (6, 6), (6, 5), (5, 6)])])])
        let a = repair(g), b = repair(g)
        XCTAssertEqual(a.0, b.0)
        XCTAssertEqual(a.1, b.1)
    }
}
