import Foundation
import TestSupport
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// glTF output of the built CLI.
final class MeshTests: XCTestCase {
    /// MVF bundles carry their own heights (default-style.json / styles.json): the
    /// bakery's prism tops out at the bundle's 4.5 m, not at the 4 m configured for rooms.
    func testMVFHeightsDriveTheExtrusion() throws {
        let dir = try CLI.tempDir("mesh-mvf")
        defer { CLI.removeTree(dir) }
        try MVFFixture.writeV3(to: dir.appendingPathComponent("hall"))
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": 17}, "sources": [{"id": "hall", "format": "mvf", "path": "hall"}], "mesh": {"heights": {"room": 4}}}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let floor = try GLBFile(Data(contentsOf: dir.appendingPathComponent("out/hall/floor_0/mesh.glb")))
        try floor.validate()
        let materials = (floor.json["materials"] as! [[String: Any]]).map { $0["name"] as! String }
        let prims = (floor.json["meshes"] as! [[String: Any]])[0]["primitives"] as! [[String: Any]]
        let rooms = try XCTUnwrap(prims.first { materials[$0["material"] as! Int] == "floor_rooms" })
        let xyz = floor.floats(accessor: (rooms["attributes"] as! [String: Int])["POSITION"]!)
        let heights = Set(stride(from: 1, to: xyz.count, by: 3).map { (xyz[$0] * 100).rounded() / 100 })
        XCTAssertTrue(heights.contains(4.5), "the bakery's MVF height is missing: \(heights.sorted())")
        XCTAssertEqual(heights.max(), 4.5)
        XCTAssertFalse(heights.contains(4), "the configured room height won over the bundle's")
    }

    func testFloorAndVenueMeshes() throws {
        let dir = try CLI.tempDir("mesh")
        defer { CLI.removeTree(dir) }
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": 17}, "sources": [{"id": "h", "format": "imdf", "path": "\#(CLI.fixture.path)"}], "mesh": {"floor_height": 5, "heights": {"room": 4}}}"#
            .write(to: config, atomically: true, encoding: .utf8)
        let r = try CLI.run(["build", "--config", config.path, "-q"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let out = dir.appendingPathComponent("out")
        let m = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
        let mesh = try XCTUnwrap(((m["venues"] as! [[String: Any]])[0])["mesh"] as? [String: Any])
        XCTAssertEqual(mesh["floor_height"] as? Double, 5)
        XCTAssertEqual((mesh["floors"] as? [String: String])?.keys.sorted(), ["floor_0", "floor_1", "floor_m1"])

        let venue = try GLBFile(Data(contentsOf: out.appendingPathComponent("h/venue.glb")))
        try venue.validate()
        let nodes = venue.json["nodes"] as! [[String: Any]]
        XCTAssertEqual(nodes.map { $0["name"] as? String }, ["floor_m1", "floor_0", "floor_1"])
        XCTAssertEqual((nodes[0]["translation"] as? [Double])?[1], -5)
        XCTAssertEqual((nodes[2]["translation"] as? [Double])?[1], 5)
        let origin = ((venue.json["extras"] as? [String: Any])?["origin"] as? [String: Double])
        XCTAssertNotNil(origin?["lon"]); XCTAssertNotNil(origin?["lat"])

        // The ground floor's slab: its top faces cover the level outlines' area, in true metres.
        let floor = try GLBFile(Data(contentsOf: out.appendingPathComponent("h/floor_0/mesh.glb")))
        try floor.validate()
        let materials = (floor.json["materials"] as! [[String: Any]]).map { $0["name"] as! String }
        let prims = ((floor.json["meshes"] as! [[String: Any]])[0]["primitives"] as! [[String: Any]])
        let slab = try XCTUnwrap(prims.first { materials[$0["material"] as! Int] == "floor_outlines" })
        let xyz = floor.floats(accessor: (slab["attributes"] as! [String: Int])["POSITION"]!)
        let ix = floor.indices(accessor: slab["indices"] as! Int)
        var area = 0.0
        for k in stride(from: 0, to: ix.count, by: 3) {
            let a = Int(ix[k]) * 3, b = Int(ix[k + 1]) * 3, c = Int(ix[k + 2]) * 3
            // Seen from above (+Y), x east and z south: the area in the x–z plane.
            area += abs(Double((xyz[b] - xyz[a]) * (xyz[c + 2] - xyz[a + 2]) - (xyz[b + 2] - xyz[a + 2]) * (xyz[c] - xyz[a]))) / 2
        }
        // Expected: the level outlines' area on the WGS84 ellipsoid, from the local radii of
        // curvature (meridian M, prime vertical N) at each ring's latitude.
        var reader = IMDFReader()
        let v = try reader.read(path: CLI.fixture.path)
        var expected = 0.0
        for level in v.levels where level.ordinal == 0 {
            for poly in level.geometry!.polygons {
                let ring = poly.exterior
                let lat0 = ring[0].lat * Double.pi / 180
                let a = 6_378_137.0, e2 = 6.694_379_990_14e-3
                let w = 1 - e2 * sin(lat0) * sin(lat0)
                let mRadius = a * (1 - e2) / pow(w, 1.5), nRadius = a / w.squareRoot()
                let pts = ring.map { (x: ($0.lon - ring[0].lon) * Double.pi / 180 * nRadius * cos(lat0), y: ($0.lat - ring[0].lat) * Double.pi / 180 * mRadius) }
                var s = 0.0
                for i in 0..<(pts.count - 1) { s += pts[i].x * pts[i + 1].y - pts[i + 1].x * pts[i].y }
                expected += abs(s) / 2
            }
        }
        XCTAssertEqual(area, expected, accuracy: expected * 1e-4)
        XCTAssertEqual(area, 4250, accuracy: 20)   // about 80 m × 40 m + 35 m × 30 m (scripts/make_sample.py)
        // Rooms are 4 m tall, as asked.
        let rooms = try XCTUnwrap(prims.first { materials[$0["material"] as! Int] == "floor_rooms" })
        let ys = stride(from: 1, to: floor.floats(accessor: (rooms["attributes"] as! [String: Int])["POSITION"]!).count, by: 3)
            .map { floor.floats(accessor: (rooms["attributes"] as! [String: Int])["POSITION"]!)[$0] }
        XCTAssertEqual(ys.max(), 4)

        // Same input, same bytes.
        let again = try CLI.run(["build", "--config", config.path, "-q", "--force", "--output", dir.appendingPathComponent("again").path])
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("h/venue.glb")), try Data(contentsOf: dir.appendingPathComponent("again/h/venue.glb")))
    }

    func testValidatorCatchesBrokenFiles() throws {
        XCTAssertThrowsError(try GLBFile(Data("not a glb at all....".utf8)))
        // A real file with its last index pointed past the vertices must fail validation.
        let dir = try CLI.tempDir("mesh-bad")
        defer { CLI.removeTree(dir) }
        let config = dir.appendingPathComponent("pipeline.json")
        try #"{"output": "out", "zoom": {"min": 17, "max": 17}, "sources": [{"id": "h", "format": "imdf", "path": "\#(CLI.fixture.path)"}], "mesh": true}"#
            .write(to: config, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["build", "--config", config.path, "-q"]).status, 0)
        var bytes = [UInt8](try Data(contentsOf: dir.appendingPathComponent("out/h/floor_0/mesh.glb")))
        let good = try GLBFile(Data(bytes))
        XCTAssertNoThrow(try good.validate())
        // The buffer ends with the last primitive's indices: make the last one huge.
        for k in 1...4 { bytes[bytes.count - k] = 0x7F }
        XCTAssertThrowsError(try GLBFile(Data(bytes)).validate()) { e in XCTAssertTrue("\(e)".contains("index out of range"), "\(e)") }
    }
}
