import Rendering
import TestSupport
import XCTest

/// The PNG encoder against Cairo's own PNG reader (libpng): every pixel of
/// every kind of image comes back as Cairo holds it.
final class PNGEncoderTests: XCTestCase {
    struct Mismatch: Error {}

    func roundTrip(colors: Int, opaque: Bool, size: Int = 64, seed: UInt64, rectangles: Bool = false,
                   compression: PNGEncoder.Compression = .fast, file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        var rng = SeededRandom(state: seed)
        // Premultiplied ARGB values, as Cairo stores them.
        let palette: [UInt32] = (0..<colors).map { _ in
            let a: UInt32 = opaque ? 255 : UInt32(rng.next() % 256)
            func c() -> UInt32 { UInt32(rng.next() % 256) * a / 255 }
            return a << 24 | c() << 16 | c() << 8 | c()
        }
        let stride = size * 4 + 16   // rows padded, as Cairo may pad them
        var pixels = [UInt32](repeating: 0xDEAD_BEEF, count: stride / 4 * size)
        if rectangles {
            // Map-like: a background, rooms (rows equal to the row above, vertical
            // edges), then a few single pixels; every palette colour used.
            for y in 0..<size { for x in 0..<size { pixels[y * stride / 4 + x] = palette[0] } }
            for c in palette.dropFirst() {
                let x0 = Int(rng.next() % UInt64(size)), y0 = Int(rng.next() % UInt64(size))
                let w = 1 + Int(rng.next() % UInt64(size / 2)), h = 1 + Int(rng.next() % UInt64(size / 2))
                for y in y0..<min(size, y0 + h) { for x in x0..<min(size, x0 + w) { pixels[y * stride / 4 + x] = c } }
                pixels[Int(rng.next() % UInt64(size)) * stride / 4 + Int(rng.next() % UInt64(size))] = c
            }
        } else {
            for y in 0..<size { for x in 0..<size { pixels[y * stride / 4 + x] = palette[Int(rng.next() % UInt64(colors))] } }
        }
        let data = pixels.withUnsafeBufferPointer { PNGEncoder(compression: compression).encode(pixels: $0, width: size, height: size, stride: stride) }
        let back = try ImageSurface.decodePNG(data)
        XCTAssertEqual(back.width, size, file: file, line: line)
        for y in 0..<size {
            for x in 0..<size {
                let want = pixels[y * stride / 4 + x], got = back.pixel(x: x, y: y)
                // Zero alpha carries no colour; otherwise un- and re-premultiplying is exact.
                if want >> 24 == 0 { XCTAssertEqual(got >> 24, 0, file: file, line: line) }
                else if got != want {
                    XCTFail("(\(x), \(y)): \(String(want, radix: 16)) came back as \(String(got, radix: 16))", file: file, line: line)
                    throw Mismatch()
                }
            }
        }
        return data
    }

    func colorType(_ d: Data) -> (depth: UInt8, type: UInt8) { (d[24], d[25]) }

    func testIndexedDepthsAndTruecolour() throws {
        XCTAssertEqual(colorType(try roundTrip(colors: 1, opaque: true, seed: 1)).depth, 1)
        XCTAssertEqual(colorType(try roundTrip(colors: 2, opaque: false, seed: 2)).depth, 1)
        XCTAssertEqual(colorType(try roundTrip(colors: 4, opaque: false, seed: 3)).depth, 2)
        XCTAssertEqual(colorType(try roundTrip(colors: 13, opaque: true, seed: 4)).depth, 4)
        let indexed = colorType(try roundTrip(colors: 256, opaque: false, seed: 5))
        XCTAssertEqual(indexed.type, 3); XCTAssertEqual(indexed.depth, 8)
        XCTAssertEqual(colorType(try roundTrip(colors: 300, opaque: true, seed: 6)).type, 2)    // RGB
        XCTAssertEqual(colorType(try roundTrip(colors: 2000, opaque: false, seed: 7)).type, 6)  // RGBA
        // Odd widths pack the last byte of each row.
        _ = try roundTrip(colors: 3, opaque: false, size: 37, seed: 8)
    }

    /// Images with the structure of map tiles take the scan's shortcuts (a row
    /// equal to the one above, pixels equal to the one above or to the left).
    func testMapLikeImages() throws {
        for (k, colors) in [1, 2, 3, 5, 16, 17, 200, 256, 257, 600].enumerated() {
            for size in [64, 256, 37] {
                let d = try roundTrip(colors: colors, opaque: k % 2 == 0, size: size, seed: UInt64(100 + k), rectangles: true)
                if colors <= 256 { XCTAssertEqual(colorType(d).type, 3, "\(colors) colours") }
            }
        }
    }

    func testDeterministic() throws {
        XCTAssertEqual(try roundTrip(colors: 40, opaque: false, seed: 9), try roundTrip(colors: 40, opaque: false, seed: 9))
    }

    /// `.small` is lossless too: every kind of image comes back exactly, in
    /// the same colour type and depth as `.fast`, and the map-like ones in
    /// fewer bytes altogether.
    func testSmallCompressionIsLosslessAndSmaller() throws {
        var fast = 0, small = 0
        for (k, colors) in [1, 2, 3, 5, 16, 17, 200, 256, 257, 600, 2000].enumerated() {
            for size in [64, 256, 37] {
                let f = try roundTrip(colors: colors, opaque: k % 2 == 0, size: size, seed: UInt64(100 + k), rectangles: true)
                let s = try roundTrip(colors: colors, opaque: k % 2 == 0, size: size, seed: UInt64(100 + k), rectangles: true, compression: .small)
                XCTAssertEqual(colorType(s).type, colorType(f).type, "\(colors) colours, \(size) px")
                XCTAssertLessThanOrEqual(colorType(s).depth, colorType(f).depth, "\(colors) colours, \(size) px")
                fast += f.count; small += s.count
            }
        }
        XCTAssertLessThan(small, fast)
        XCTAssertEqual(try roundTrip(colors: 40, opaque: false, seed: 9, compression: .small),
                       try roundTrip(colors: 40, opaque: false, seed: 9, compression: .small))
    }

    /// The chunks of a PNG file by type (each type's last).
    func chunks(_ d: Data) -> [String: Data] {
        var out = [String: Data](), i = 8
        let b = [UInt8](d)
        while i + 8 <= b.count {
            let n = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            out[String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)] = Data(b[(i + 8)..<(i + 8 + n)])
            i += 12 + n
        }
        return out
    }

    /// `.small` palettes: translucent entries first, so tRNS holds only
    /// them; `.fast` keeps the order of first use (an opaque background
    /// first makes tRNS list it and every entry up to the last translucent one).
    func testSmallPalettesPutTranslucentEntriesFirst() throws {
        let size = 32
        // Opaque background, opaque rooms, then one translucent colour drawn last.
        var px = [UInt32](repeating: 0xFFEE_EEEE, count: size * size)
        for y in 4..<12 { for x in 4..<28 { px[y * size + x] = 0xFF33_6699 } }
        for y in 14..<20 { for x in 0..<size { px[y * size + x] = 0xFF99_3366 } }
        for x in 0..<size { px[30 * size + x] = 0x8040_2010 }
        let fast = px.withUnsafeBufferPointer { PNGEncoder().encode(pixels: $0, width: size, height: size, stride: size * 4) }
        let small = px.withUnsafeBufferPointer { PNGEncoder(compression: .small).encode(pixels: $0, width: size, height: size, stride: size * 4) }
        XCTAssertEqual(chunks(fast)["tRNS"]?.count, 4)
        XCTAssertEqual(chunks(small)["tRNS"].map([UInt8].init), [0x80])
        XCTAssertEqual(chunks(small)["PLTE"]?.count, 12)
        for d in [fast, small] {
            let back = try ImageSurface.decodePNG(d)
            for (i, want) in px.enumerated() { XCTAssertEqual(back.pixel(x: i % size, y: i / size), want, "pixel \(i)") }
        }
    }
}
