import Drawing
import Rendering
import Styling
import TestSupport
import TileGeometry
import XCTest

/// Golden-pixel tests: draw known shapes, encode to PNG, decode the PNG and
/// compare pixels at known points, with a tolerance for antialiasing.
final class TileRendererTests: XCTestCase {
    let tile = TileID(z: 20, x: 553_419, y: 338_942)
    let room = Color(hex: "#FBE5C4")!
    let edge = Color(hex: "#D2AE7C")!

    /// Unpacks a premultiplied ARGB32 pixel into straight RGBA.
    func rgba(_ p: UInt32) -> (r: Int, g: Int, b: Int, a: Int) {
        let a = Int(p >> 24)
        guard a > 0 else { return (0, 0, 0, 0) }
        func un(_ c: UInt32) -> Int { Int((Double(c & 0xFF) * 255 / Double(a)).rounded()) }
        return (un(p >> 16), un(p >> 8), un(p), a)
    }

    func assertPixel(_ s: ImageSurface, _ x: Int, _ y: Int, _ c: Color?, tolerance: Int = 2, file: StaticString = #filePath, line: UInt = #line) {
        let p = rgba(s.pixel(x: x, y: y))
        guard let c else { return XCTAssertEqual(p.a, 0, "pixel (\(x), \(y)) should be transparent, is \(p)", file: file, line: line) }
        let close = abs(p.r - Int(c.r)) <= tolerance && abs(p.g - Int(c.g)) <= tolerance && abs(p.b - Int(c.b)) <= tolerance && abs(p.a - Int(c.a)) <= tolerance
        XCTAssertTrue(close, "pixel (\(x), \(y)) is \(p), expected \(c)", file: file, line: line)
    }

    /// A rectangle in tile pixel coordinates of `tile` (y down), as a Mercator ring.
    func ring(_ t: TileID, _ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) -> [MercatorPoint] {
        let b = t.bounds
        let k = (b.maxX - b.minX) / 256
        func m(_ x: Double, _ y: Double) -> MercatorPoint { MercatorPoint(x: b.minX + x * k, y: b.maxY - y * k) }
        return [m(x0, y0), m(x1, y0), m(x1, y1), m(x0, y1), m(x0, y0)]
    }

    func testRoomIsFilledOutsideIsTransparent() throws {
        let items = [DrawItem(geometry: .polygons([[ring(tile, 64, 64, 192, 192)]]), paint: Paint(fill: room, outline: edge))]
        let r = try TileRenderer(scale: 1)
        guard case .png(let data) = try r.render(tile: tile, items: items, indices: [0]) else { return XCTFail("tile came out blank") }
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let png = try ImageSurface.decodePNG(data)
        XCTAssertEqual(png.width, 256)
        assertPixel(png, 128, 128, room)        // interior
        assertPixel(png, 70, 100, room)
        assertPixel(png, 10, 10, nil)           // outside the venue
        assertPixel(png, 250, 128, nil)
        assertPixel(png, 64, 128, edge, tolerance: 40)  // on the outline (antialiased across two pixels)
    }

    func testHoleIsNotFilled() throws {
        let poly = [ring(tile, 0, 0, 256, 256), ring(tile, 100, 100, 156, 156)]
        let r = try TileRenderer(scale: 1)
        try r.draw(tile: tile, items: [DrawItem(geometry: .polygons([poly]), paint: Paint(fill: room))], indices: [0])
        assertPixel(r.pixels, 20, 20, room)
        assertPixel(r.pixels, 128, 128, nil)
    }

    func testRetinaTileIsTwiceAsLarge() throws {
        let r = try TileRenderer(scale: 2)
        guard case .png(let data) = try r.render(tile: tile, items: [DrawItem(geometry: .polygons([[ring(tile, 64, 64, 192, 192)]]), paint: Paint(fill: room))], indices: [0]) else {
            return XCTFail("blank")
        }
        let png = try ImageSurface.decodePNG(data)
        XCTAssertEqual(png.width, 512)
        assertPixel(png, 256, 256, room)
        assertPixel(png, 100, 100, nil)
        assertPixel(png, 140, 140, room)
    }

    /// A shape straddling the edge between two tiles is drawn on both sides with
    /// no gap: the last column of the left tile and the first of the right one.
    func testNoSeamAtTileEdges() throws {
        let right = TileID(z: tile.z, x: tile.x + 1, y: tile.y)
        let poly = [ring(tile, 200, 100, 312, 150)]
        let item = DrawItem(geometry: .polygons([poly]), paint: Paint(fill: room, outline: edge))
        let r = try TileRenderer(scale: 1)
        try r.draw(tile: tile, items: [item], indices: [0])
        assertPixel(r.pixels, 255, 125, room)
        try r.draw(tile: right, items: [item], indices: [0])
        assertPixel(r.pixels, 0, 125, room)
        assertPixel(r.pixels, 60, 125, nil)

        // A dot near the edge shows its other half in the neighbour.
        let b = tile.bounds
        let dot = DrawItem(geometry: .points([MercatorPoint(x: b.maxX - 0.5 * (b.maxX - b.minX) / 256, y: (b.minY + b.maxY) / 2)]),
                           paint: Paint(fill: Color(r: 0, g: 0, b: 255)))
        try r.draw(tile: right, items: [dot], indices: [0])
        XCTAssertGreaterThan(rgba(r.pixels.pixel(x: 1, y: 128)).a, 200)
    }

    func testLinesAndEmptyTiles() throws {
        let b = tile.bounds
        let line = DrawItem(geometry: .lines([[MercatorPoint(x: b.minX, y: (b.minY + b.maxY) / 2), MercatorPoint(x: b.maxX, y: (b.minY + b.maxY) / 2)]]),
                            paint: Paint(line: Color(r: 255, g: 0, b: 0)))
        let r = try TileRenderer(scale: 1)
        try r.draw(tile: tile, items: [line], indices: [0])
        assertPixel(r.pixels, 128, 128, Color(r: 255, g: 0, b: 0), tolerance: 5)
        assertPixel(r.pixels, 128, 100, nil)
        // A tile whose items all lie elsewhere is blank and is not encoded.
        let far = DrawItem(geometry: .polygons([[ring(tile, 1000, 1000, 1100, 1100)]]), paint: Paint(fill: room))
        XCTAssertEqual(try r.render(tile: tile, items: [far], indices: [0]), .transparent)
    }

    func testSameInputSameBytes() throws {
        let items = [DrawItem(geometry: .polygons([[ring(tile, 10, 20, 230, 190)]]), paint: Paint(fill: room, outline: edge))]
        let a = try TileRenderer(scale: 1).render(tile: tile, items: items, indices: [0])
        let b = try TileRenderer(scale: 1).render(tile: tile, items: items, indices: [0])
        XCTAssertEqual(a, b)
    }

    /// The 4×4 metatile around `tile`: its tiles (x, then y) and a point in block pixels (y down).
    func block() -> (span: Int, origin: TileID, frame: [TileID], point: (Double, Double) -> MercatorPoint) {
        let span = 4
        let origin = TileID(z: 20, x: tile.x / span * span, y: tile.y / span * span)
        let frame = (0..<span).flatMap { dx in (0..<span).map { dy in TileID(z: 20, x: origin.x + dx, y: origin.y + dy) } }
        let b = origin.bounds
        let k = (b.maxX - b.minX) / 256
        return (span, origin, frame, { x, y in MercatorPoint(x: b.minX + x * k, y: b.maxY - y * k) })
    }

    /// A metatile's tile comes out the same whichever of the block's tiles are
    /// rendered with it: slanted polygons and lines crossing every tile edge at
    /// odd angles. (Clipping to the rendered tiles instead of the frame fails
    /// this, even with a 16 px margin: Cairo's clip changes pixels far from it.)
    func testMetatileTilesDoNotDependOnTheSubsetRendered() throws {
        let (span, origin, frame, m) = block()
        var rng = SeededRandom(state: 20261122)
        var items = [DrawItem]()
        for i in 0..<40 {
            // Thin slanted quadrilaterals and lines across the block, in block pixels.
            let x0 = Double.random(in: -50...1074, using: &rng), y0 = Double.random(in: -50...1074, using: &rng)
            let x1 = Double.random(in: -50...1074, using: &rng), y1 = Double.random(in: -50...1074, using: &rng)
            if i % 2 == 0 {
                let w = Double.random(in: 3...40, using: &rng)
                items.append(DrawItem(geometry: .polygons([[[m(x0, y0), m(x1, y1), m(x1 + w, y1 + w / 3), m(x0 + w, y0 + w / 3), m(x0, y0)]]]),
                                      paint: Paint(fill: room, outline: edge)))
            } else {
                items.append(DrawItem(geometry: .lines([[m(x0, y0), m(x1, y1)]]), paint: Paint(line: edge)))
            }
        }
        let all = items.indices.map(Int32.init)
        let r = try TileRenderer(scale: 1)
        let whole = try r.render(metatile: origin, span: span, tiles: frame, frame: frame, items: items, itemsOfTile: frame.map { _ in all })
        for (k, t) in frame.enumerated() {
            let alone = try r.render(metatile: origin, span: span, tiles: [t], frame: frame, items: items, itemsOfTile: [all])
            XCTAssertEqual(alone[0], whole[k], "tile \(t) rendered alone in its block")
        }
    }

    /// Tiles with the same pixels share one encoding across renderers (the
    /// build's workers), and the shared cache changes no tile's bytes: a wall
    /// crossing a row of tiles at the same offset, plus one tile that differs.
    func testRepeatedTilesAreEncodedOnceAndKeepTheirBytes() throws {
        let (span, origin, frame, m) = block()
        // A horizontal band 100–140 px into every tile of the top row, and a
        // square in the block's last tile only.
        let band = [m(-10, 100), m(1034, 100), m(1034, 140), m(-10, 140), m(-10, 100)]
        let square = [m(800, 800), m(900, 800), m(900, 900), m(800, 900), m(800, 800)]
        let items = [DrawItem(geometry: .polygons([[band]]), paint: Paint(fill: room, outline: edge)),
                     DrawItem(geometry: .polygons([[square]]), paint: Paint(fill: edge))]
        let cache = EncodedImageCache()
        let shared = try [TileRenderer(scale: 1, encodings: cache), TileRenderer(scale: 1, encodings: cache)]
        let plain = try TileRenderer(scale: 1)
        let expected = try plain.render(metatile: origin, span: span, tiles: frame, frame: frame, items: items, itemsOfTile: frame.map { _ in [0, 1] })
        for (k, t) in frame.enumerated() {
            let got = try shared[k % 2].render(metatile: origin, span: span, tiles: [t], frame: frame, items: items, itemsOfTile: [[0, 1]])
            XCTAssertEqual(got[0], expected[k], "tile \(t) with the shared cache")
        }
        // Top row: 4 tiles, one content, encoded once; the others are solid or the square.
        XCTAssertEqual(cache.hits, span - 1)
    }

    func testImageKeysFollowThePixelsNotTheirPlace() {
        let hasher = EncodedImageCache.ImageHasher()
        // Two 4×4 images in an 8-word-wide buffer, side by side, equal; then one pixel changed.
        var px = [UInt32](repeating: 0xFF11_2233, count: 8 * 4)
        px.withUnsafeBufferPointer { p in
            let left = hasher.key(p, width: 4, height: 4, rowWords: 8)
            let right = hasher.key(UnsafeBufferPointer(rebasing: p[4...]), width: 4, height: 4, rowWords: 8)
            XCTAssertEqual(left, right)
            XCTAssertNotEqual(left, hasher.key(p, width: 2, height: 8, rowWords: 4), "same words, another size")
        }
        let before = px.withUnsafeBufferPointer { hasher.key($0, width: 4, height: 4, rowWords: 8) }
        px[8 * 3 + 3] = 0xFF11_2234
        let after = px.withUnsafeBufferPointer { hasher.key($0, width: 4, height: 4, rowWords: 8) }
        XCTAssertNotEqual(before, after)
    }
}
