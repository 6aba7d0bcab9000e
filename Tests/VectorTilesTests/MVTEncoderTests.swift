import VectorTiles
import TestSupport
import TileGeometry
import XCTest

final class MVTEncoderTests: XCTestCase {
    func testRoundTripThroughIndependentDecoder() throws {
        let square = [TileCoord(x: 10, y: 10), TileCoord(x: 100, y: 10), TileCoord(x: 100, y: 100), TileCoord(x: 10, y: 100)]
        let hole = [TileCoord(x: 40, y: 40), TileCoord(x: 40, y: 60), TileCoord(x: 60, y: 60), TileCoord(x: 60, y: 40)]
        let layers = [
            MVTLayer(name: "floor_rooms_floor_0", extent: 4096, features: [
                MVTFeature(id: 7, properties: [("id", .string("a")), ("ordinal", .int(-1)), ("name", .string("Café"))],
                           geometry: .polygons([square, hole])),
                MVTFeature(id: 8, properties: [("id", .string("b")), ("ordinal", .int(-1))], geometry: .polygons([square])),
            ]),
            MVTLayer(name: "floor_openings_floor_0", extent: 4096, features: [
                MVTFeature(id: 9, properties: [("id", .string("door"))], geometry: .lines([[TileCoord(x: -5, y: 3), TileCoord(x: 4200, y: 3)], [TileCoord(x: 0, y: 0), TileCoord(x: 1, y: 1)]])),
            ]),
            MVTLayer(name: "empty", extent: 4096, features: []),
            MVTLayer(name: "floor_amenities_floor_0", extent: 4096, features: [
                MVTFeature(id: nil, properties: [], geometry: .points([TileCoord(x: 5, y: 6), TileCoord(x: 7, y: 8)])),
            ]),
        ]
        let t = try DecodedTile(MVTEncoder.encode(layers))
        XCTAssertEqual(t.layers.map(\.name), ["floor_rooms_floor_0", "floor_openings_floor_0", "floor_amenities_floor_0"])
        for l in t.layers { XCTAssertEqual(l.version, 2); XCTAssertEqual(l.extent, 4096) }
        let rooms = t.layers[0]
        // Keys and values are de-duplicated per layer.
        XCTAssertEqual(rooms.keys, ["id", "ordinal", "name"])
        XCTAssertEqual(rooms.values, ["a", "-1", "Café", "b"])
        XCTAssertEqual(rooms.features[0].id, 7)
        XCTAssertEqual(rooms.features[0].properties, ["id": "a", "ordinal": "-1", "name": "Café"])
        XCTAssertEqual(rooms.features[0].type, 3)
        XCTAssertEqual(rooms.features[0].parts.count, 2)
        XCTAssertEqual(rooms.features[0].parts[0].map { [$0.x, $0.y] }, square.map { [Int($0.x), Int($0.y)] })
        XCTAssertGreaterThan(DecodedTile.area(rooms.features[0].parts[0]), 0)
        XCTAssertLessThan(DecodedTile.area(rooms.features[0].parts[1]), 0)
        // The cursor carries across parts: the second line starts where it says.
        XCTAssertEqual(t.layers[1].features[0].parts[1].map { [$0.x, $0.y] }, [[0, 0], [1, 1]])
        XCTAssertEqual(t.layers[1].features[0].parts[0].map { [$0.x, $0.y] }, [[-5, 3], [4200, 3]])
        XCTAssertEqual(t.layers[2].features[0].type, 1)
        XCTAssertNil(t.layers[2].features[0].id)
        XCTAssertEqual(t.layers[2].features[0].parts.map { $0[0].x }, [5, 7])
    }

    func testZigzag() {
        XCTAssertEqual(ProtobufWriter.zigzag32(0), 0)
        XCTAssertEqual(ProtobufWriter.zigzag32(-1), 1)
        XCTAssertEqual(ProtobufWriter.zigzag32(1), 2)
        XCTAssertEqual(ProtobufWriter.zigzag32(-2), 3)
        XCTAssertEqual(ProtobufWriter.zigzag32(Int32.max), UInt32.max - 1)
        XCTAssertEqual(ProtobufWriter.zigzag(Int64.min), UInt64.max)
    }
}
