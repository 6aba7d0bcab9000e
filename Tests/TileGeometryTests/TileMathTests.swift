import TileGeometry
import VenueModel
import XCTest

/// Tile math against values computed independently (the OSM wiki formula
/// x = (lon+180)/360·2^z, y = (1 − asinh(tan φ)/π)/2·2^z) and Bing's documented quadkey example.
final class TileMathTests: XCTestCase {
    func testLonLatToTileAtZ17AndZ23() {
        let cases: [(LonLat, Int, Int, Int)] = [
            (LonLat(lon: 13.377704, lat: 52.516275), 17, 70406, 42987),
            (LonLat(lon: 13.377704, lat: 52.516275), 23, 4506027, 2751229),
            (LonLat(lon: -123.4303, lat: 48.6405), 17, 20596, 45211),
            (LonLat(lon: -123.4303, lat: 48.6405), 23, 1318169, 2893556),
            (LonLat(lon: 151.215256, lat: -33.856159), 17, 120591, 78649),
            (LonLat(lon: 151.215256, lat: -33.856159), 23, 7717874, 5033583),
            (LonLat(lon: -0.1276, lat: 51.5072), 23, 4191330, 2789433),
        ]
        for (p, z, x, y) in cases {
            XCTAssertEqual(TileID.containing(p, zoom: z), TileID(z: z, x: x, y: y), "\(p) at z\(z)")
        }
    }

    func testWorldCornersAndClamping() {
        XCTAssertEqual(TileID.containing(LonLat(lon: -180, lat: 85.06), zoom: 23), TileID(z: 23, x: 0, y: 0))
        XCTAssertEqual(TileID.containing(LonLat(lon: -180, lat: 85.0511), zoom: 23).y, 7)
        let n = 1 << 23
        XCTAssertEqual(TileID.containing(LonLat(lon: 179.9999999, lat: -85.06), zoom: 23), TileID(z: 23, x: n - 1, y: n - 1))
        // Latitudes beyond the Mercator limit clamp into the last row instead of overflowing.
        XCTAssertEqual(TileID.containing(LonLat(lon: 0, lat: -89.9), zoom: 30).y, (1 << 30) - 1)
    }

    func testTileBounds() {
        let o = 20_037_508.342789244
        let z0 = TileID(z: 0, x: 0, y: 0).bounds
        XCTAssertEqual(z0.minX, -o, accuracy: 1e-6); XCTAssertEqual(z0.maxX, o, accuracy: 1e-6)
        XCTAssertEqual(z0.minY, -o, accuracy: 1e-6); XCTAssertEqual(z0.maxY, o, accuracy: 1e-6)
        let nw = TileID(z: 1, x: 0, y: 0).bounds
        XCTAssertEqual(nw.minX, -o, accuracy: 1e-6); XCTAssertEqual(nw.maxX, 0, accuracy: 1e-6)
        XCTAssertEqual(nw.minY, 0, accuracy: 1e-6); XCTAssertEqual(nw.maxY, o, accuracy: 1e-6)
        // At z23 a tile is 2·π·R / 2^23 ≈ 4.777 m wide, and bounds stay exact far from the origin.
        let t = TileID(z: 23, x: 4506027, y: 2751229)
        XCTAssertEqual(t.bounds.maxX - t.bounds.minX, 4.777314267158508, accuracy: 1e-9)
        let corner = WebMercator.unproject(MercatorPoint(x: t.bounds.minX, y: t.bounds.maxY))
        // Inverse of the OSM formula at (4506027, 2751229), z23.
        XCTAssertEqual(corner.lon, 4506027.0 / 8388608.0 * 360 - 180, accuracy: 1e-10)
        XCTAssertEqual(corner.lat, atan(sinh(Double.pi * (1 - 2 * 2751229.0 / 8388608.0))) * 180 / Double.pi, accuracy: 1e-10)
    }

    func testProjectionRoundTrip() {
        for p in [LonLat(lon: 10.0015, lat: 53.5405), LonLat(lon: -123.43, lat: 48.64), LonLat(lon: 179.5, lat: -70)] {
            let back = WebMercator.unproject(WebMercator.project(p))
            XCTAssertEqual(back.lon, p.lon, accuracy: 1e-12)
            XCTAssertEqual(back.lat, p.lat, accuracy: 1e-12)
        }
    }

    func testQuadkeyAndTMS() {
        // Bing Maps Tile System documentation: tile (3, 5) at level 3 has quadkey "213".
        XCTAssertEqual(TileID(z: 3, x: 3, y: 5).quadkey, "213")
        XCTAssertEqual(TileID(z: 0, x: 0, y: 0).quadkey, "")
        XCTAssertEqual(TileID(z: 23, x: (1 << 23) - 1, y: 0).quadkey, String(repeating: "1", count: 23))
        XCTAssertEqual(TileID(z: 3, x: 3, y: 5).tmsY, 2)
        XCTAssertEqual(TileID(z: 23, x: 0, y: 0).tmsY, (1 << 23) - 1)
    }
}
