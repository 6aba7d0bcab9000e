import Dispatch
@testable import Rendering
import TestSupport
import XCTest

/// libimagequant behind `ImageQuantizer`, and the encoder's quantized path,
/// read back with Cairo's PNG reader (libpng).
final class ImageQuantizerTests: XCTestCase {
    let size = 64

    /// Premultiplied ARGB words of `size`×`size`: a smooth two-axis gradient
    /// (4,096 colours) with an alpha ramp in its lower half.
    func gradient() -> [UInt32] {
        (0..<size * size).map { i in
            let x = UInt32(i % size), y = UInt32(i / size)
            let a: UInt32 = y < 32 ? 255 : 255 - (y - 32) * 8
            let r = x * 4, g = y * 4, b = (x + y) * 2
            return a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | (b * a / 255)
        }
    }

    func encode(_ px: [UInt32], _ q: ImageQuantizer) throws -> Data {
        try px.withUnsafeBufferPointer { try PNGEncoder().encode(pixels: $0, width: size, height: size, stride: size * 4, reducingWith: q) }
    }

    func lossless(_ px: [UInt32]) -> Data {
        px.withUnsafeBufferPointer { PNGEncoder().encode(pixels: $0, width: size, height: size, stride: size * 4) }
    }

    /// Straight RGBA of a premultiplied word.
    func straight(_ p: UInt32) -> [Double] {
        let a = Double(p >> 24)
        guard a > 0 else { return [0, 0, 0, 0] }
        return [16, 8, 0].map { Double((p >> UInt32($0)) & 0xFF) * 255 / a } + [a]
    }

    func testManyColoursBecomeAnIndexedImageCloseToTheOriginal() throws {
        let px = gradient()
        let data = try encode(px, try ImageQuantizer())
        XCTAssertEqual(data[25], 3, "colour type: indexed")
        XCTAssertEqual(data[24], 8, "bit depth")
        XCTAssertLessThan(data.count, lossless(px).count)
        let back = try ImageSurface.decodePNG(data)
        var total = 0.0, worst = 0.0
        for y in 0..<size {
            for x in 0..<size {
                let a = straight(px[y * size + x]), b = straight(back.pixel(x: x, y: y))
                // Colour error weighted by coverage: what shows over a background.
                let e = zip(a, b).enumerated().map { $0.offset == 3 ? abs($0.element.0 - $0.element.1) : abs($0.element.0 - $0.element.1) * a[3] / 255 }.max()!
                total += e; worst = max(worst, e)
            }
        }
        // A smooth two-axis ramp is a palette's worst case: 256 colours give it
        // about 16 steps per axis, so errors of half a step (8) on average.
        XCTAssertLessThan(total / Double(size * size), 8, "mean error per pixel")
        XCTAssertLessThan(worst, 32, "worst channel error")
    }

    func testImagesOfAtMost256ColoursKeepTheirLosslessBytes() throws {
        let q = try ImageQuantizer()
        var rng = SeededRandom(state: 7)
        let palette = (0..<200).map { _ in 0xFF00_0000 | UInt32(rng.next() & 0xFF_FFFF) }
        let px = (0..<size * size).map { _ in palette[Int(rng.next() % 200)] }
        XCTAssertEqual(try encode(px, q), lossless(px))
    }

    func testAMissedMinimumQualityWritesTheImageLosslessly() throws {
        var rng = SeededRandom(state: 3)
        // Noise of thousands of colours cannot be 256 colours at quality 100.
        let px = (0..<size * size).map { _ in 0xFF00_0000 | UInt32(rng.next() & 0xFF_FFFF) }
        let strict = try ImageQuantizer(.init(speed: 4, minQuality: 100, maxQuality: 100, dithering: 0))
        var rgba = [UInt8](), ix = [UInt8](repeating: 0, count: size * size)
        for p in px { rgba += [UInt8((p >> 16) & 0xFF), UInt8((p >> 8) & 0xFF), UInt8(p & 0xFF), 255] }
        XCTAssertThrowsError(try strict.quantize(rgba: rgba, width: size, height: size, into: &ix)) {
            XCTAssertEqual(($0 as? QuantizeError)?.code, .qualityTooLow)
        }
        XCTAssertEqual(try encode(px, strict), lossless(px))
    }

    func testBadSettingsAreTypedErrorsNamingTheSetting() {
        XCTAssertThrowsError(try ImageQuantizer(.init(speed: 0, minQuality: 0, maxQuality: 100, dithering: 0))) { e in
            XCTAssertEqual((e as? QuantizeError)?.code, .valueOutOfRange)
            XCTAssertTrue("\(e)".contains("speed 0"), "\(e)")
        }
        XCTAssertThrowsError(try ImageQuantizer(.init(speed: 4, minQuality: 90, maxQuality: 50, dithering: 0))) { e in
            XCTAssertEqual((e as? QuantizeError)?.code, .valueOutOfRange)
            XCTAssertTrue("\(e)".contains("quality 90…50"), "\(e)")
        }
        XCTAssertThrowsError(try ImageQuantizer(.init(speed: 4, minQuality: 0, maxQuality: 100, dithering: 2))) { e in
            XCTAssertTrue("\(e)".contains("dithering 2"), "\(e)")
        }
    }

    func testTransparentPixelsStayTransparent() throws {
        var px = gradient()
        for i in 0..<size { px[i] = 0 }   // the first row: nothing drawn
        let back = try ImageSurface.decodePNG(try encode(px, try ImageQuantizer()))
        for x in 0..<size { XCTAssertEqual(back.pixel(x: x, y: 0) >> 24, 0) }
        XCTAssertEqual(back.pixel(x: 5, y: 5) >> 24, 255)
    }

    /// Dithered and not: both deterministic, and the same bytes on several
    /// threads at once as on one (OpenMP limited per calling thread).
    func testSameBytesOnEveryThread() throws {
        var images = [[UInt32]]()
        var rng = SeededRandom(state: 11)
        for _ in 0..<6 {
            let shift = UInt32(rng.next() % 64)
            images.append(gradient().map { p in p >> 24 == 255 ? (p &+ shift << 8) | 0xFF00_0000 : p })
        }
        for dithering: Float in [0, 1] {
            let s = ImageQuantizer.Settings(speed: 4, minQuality: 0, maxQuality: 100, dithering: dithering)
            let q = try ImageQuantizer(s)
            let serial = try images.map { try encode($0, q) }
            XCTAssertEqual(OpenMP.maxThreads(), 1, "the calling thread's OpenMP threads after quantizing")
            let out = UnsafeMutableBufferPointer<Data>.allocate(capacity: images.count * 3)
            out.initialize(repeating: Data())
            defer { out.deallocate() }
            let quantizers = try (0..<3).map { _ in try ImageQuantizer(s) }
            DispatchQueue.concurrentPerform(iterations: 3) { w in
                for (i, img) in images.enumerated() { out[w * images.count + i] = (try? encode(img, quantizers[w])) ?? Data() }
            }
            for w in 0..<3 { for i in images.indices { XCTAssertEqual(out[w * images.count + i], serial[i], "thread \(w), image \(i), dithering \(dithering)") } }
        }
    }

    /// A map-like image of at most 256 colours: four fills and the blends of
    /// antialiased edges between them (premultiplied, some translucent).
    func mapLike() -> [UInt32] {
        let fills: [(r: UInt32, g: UInt32, b: UInt32)] = [(240, 238, 230), (200, 220, 240), (250, 230, 200), (90, 90, 100)]
        return (0..<size * size).map { i in
            let x = i % size, y = i / size
            let room = (x < 40 ? 0 : 1) + (y < 24 ? 0 : 2)
            // Coverage of the next room rises over the last few pixels before each wall.
            let t = UInt32(max(0, min(255, (x % 40 - 36) * 64)))
            let a = fills[room], b = fills[(room + 1) % 4]
            let alpha: UInt32 = y >= 60 ? 128 + UInt32(x) : 255
            func mix(_ p: UInt32, _ q: UInt32) -> UInt32 { (p * (255 - t) + q * t) / 255 * alpha / 255 }
            return alpha << 24 | mix(a.r, b.r) << 16 | mix(a.g, b.g) << 8 | mix(a.b, b.b)
        }
    }

    func paletteSize(_ d: Data) -> Int {
        // PLTE follows IHDR (33 bytes from the start) in our files.
        XCTAssertEqual(String(decoding: d[37..<41], as: UTF8.self), "PLTE")
        return (Int(d[35]) << 8 | Int(d[36])) / 3
    }

    /// Below quality 100 a tile that already has at most 256 colours is
    /// reduced too: fewer palette entries, each pixel its colour's nearest.
    func testQualityBelow100ReducesPalettesOfAtMost256Colours() throws {
        let px = mapLike()
        let exact = lossless(px)
        XCTAssertEqual(exact[25], 3, "the image has at most 256 colours")
        let reduced = try encode(px, try ImageQuantizer(.tiles(quality: 80)))
        XCTAssertEqual(reduced[25], 3)
        XCTAssertLessThan(paletteSize(reduced), paletteSize(exact))
        XCTAssertLessThan(reduced.count, exact.count)
        let back = try ImageSurface.decodePNG(reduced)
        var total = 0.0, worst = 0.0
        for y in 0..<size {
            for x in 0..<size {
                let a = straight(px[y * size + x]), b = straight(back.pixel(x: x, y: y))
                // Colour error weighted by coverage: what shows over a background.
                let e = (0..<4).map { abs(a[$0] - b[$0]) * ($0 == 3 ? 1 : a[3] / 255) }.max()!
                total += e; worst = max(worst, e)
            }
        }
        // 74 colours become fewer: the ramps' middle blends go to their neighbours.
        XCTAssertLessThan(total / Double(size * size), 1, "mean error per pixel")
        XCTAssertLessThan(worst, 64, "worst channel error")
        // The fills, most of the pixels, stay within a level or two of their colour.
        for (x, y) in [(5, 5), (50, 30), (20, 40)] {
            let a = straight(px[y * size + x]), b = straight(back.pixel(x: x, y: y))
            XCTAssertLessThanOrEqual(zip(a, b).map { abs($0 - $1) }.max()!, 2, "fill at (\(x), \(y))")
        }
    }

    func testNearestUsesTheColourDifferenceOverBlackAndWhite() {
        let palette: [UInt32] = [0xFFFF_FFFF, 0x0000_00FF, 0x0000_0000, 0xFF00_0080]
        XCTAssertEqual(ImageQuantizer.nearest(0xFFFF_FFFF, in: palette), 0)
        XCTAssertEqual(ImageQuantizer.nearest(0x1010_10FF, in: palette), 1)
        XCTAssertEqual(ImageQuantizer.nearest(0x0000_0000, in: palette), 2, "transparent stays transparent")
        XCTAssertEqual(ImageQuantizer.nearest(0xFF00_0070, in: palette), 3, "translucent red: its alpha is close to the translucent entry's")
        XCTAssertEqual(ImageQuantizer.nearest(0x1234_5600, in: palette), 2, "a colour of alpha 0 is transparent")
    }

    /// The reduced and `.small` files: deterministic and the same on several threads at once.
    func testReducedSmallFilesAreTheSameOnEveryThread() throws {
        let images = [mapLike(), gradient(), mapLike().map { $0 >> 24 == 255 ? $0 ^ 0x0003_0000 : $0 }]
        let s = ImageQuantizer.Settings.tiles(quality: 90)
        func small(_ px: [UInt32], _ q: ImageQuantizer, _ e: PNGEncoder) throws -> Data {
            try px.withUnsafeBufferPointer { try e.encode(pixels: $0, width: size, height: size, stride: size * 4, reducingWith: q) }
        }
        let serial = try images.map { try small($0, try ImageQuantizer(s), PNGEncoder(compression: .small)) }
        let out = UnsafeMutableBufferPointer<Data>.allocate(capacity: images.count * 3)
        out.initialize(repeating: Data())
        defer { out.deallocate() }
        let quantizers = try (0..<3).map { _ in try ImageQuantizer(s) }
        let encoders = (0..<3).map { _ in PNGEncoder(compression: .small) }
        DispatchQueue.concurrentPerform(iterations: 3) { w in
            for (i, img) in images.enumerated().reversed() { out[w * images.count + i] = (try? small(img, quantizers[w], encoders[w])) ?? Data() }
        }
        for w in 0..<3 { for i in images.indices { XCTAssertEqual(out[w * images.count + i], serial[i], "thread \(w), image \(i)") } }
        for d in serial { XCTAssertNoThrow(try ImageSurface.decodePNG(d)) }
    }
}
