import Dispatch
import Drawing
import Foundation
import Pipeline
import Rendering
import Styling
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// Quantized PNG tiles (`"quantize": true`) on the sample venue's real tiles:
/// quality against the lossless tile, and the same bytes on any number of threads.
final class QuantizeTests: XCTestCase {
    struct Job { let tile: TileID; let items: [DrawItem]; let indices: [Int32] }

    /// Every tile of every floor of the sample at `zoom`, with its items.
    func sampleTiles(zoom: Int) throws -> [Job] {
        var r = IMDFReader()
        let v = Prepare.run(sourceID: "h", venue: try r.read(path: PlanTests.fixture), style: Style.builtIn)
        var jobs = [Job]()
        for floor in v.floors {
            let (items, plans) = Plan.raster(floor: floor, zooms: [zoom])
            for (i, t) in plans[0].tiles.enumerated() { jobs.append(Job(tile: t, items: items, indices: Array(plans[0].items[i]))) }
        }
        return jobs
    }

    func words(_ png: Data) throws -> [UInt32] {
        let s = try ImageSurface.decodePNG(png)
        let w = s.width, h = s.height, rowWords = s.stride / 4
        return s.withPixels { px in
            [UInt32](unsafeUninitializedCapacity: w * h) { buf, n in
                for y in 0..<h { (buf.baseAddress! + y * w).update(from: px.baseAddress! + y * rowWords, count: w) }
                n = w * h
            }
        }
    }

    /// Every tile at z20, 1x and @2x, labels and icons included: a tile of at
    /// most 256 colours keeps its lossless bytes, every other one becomes an
    /// indexed PNG with SSIM ≥ 0.99 against the lossless tile.
    func testSampleTilesAtOneZoomKeepSSIMAbove099() throws {
        let jobs = try sampleTiles(zoom: 20)
        XCTAssertGreaterThan(jobs.count, 10)
        var reduced = 0, kept = 0, scores = [(Double, String)]()
        for scale in [1, 2] {
            let sprite = Sprite.builtIn(pixelRatio: scale)
            let lossless = try TileRenderer(scale: scale, sprite: sprite)
            let quantized = try TileRenderer(scale: scale, sprite: sprite, quantize: .tiles)
            for j in jobs {
                let a = try lossless.render(tile: j.tile, items: j.items, indices: j.indices)
                let b = try quantized.render(tile: j.tile, items: j.items, indices: j.indices)
                guard case .png(let la) = a, case .png(let qb) = b else { XCTAssertEqual(a, b, "\(j.tile)"); continue }
                if la[25] == 3 { XCTAssertEqual(la, qb, "\(j.tile)@\(scale)x: an indexed tile is written as it was"); kept += 1; continue }
                reduced += 1
                XCTAssertEqual(qb[25], 3, "\(j.tile)@\(scale)x: colour type \(qb[25]), expected indexed (3)")
                XCTAssertLessThan(qb.count, la.count, "\(j.tile)@\(scale)x: quantized file larger than lossless")
                let size = 256 * scale
                let score = SSIM.tile(try words(la), try words(qb), width: size, height: size)
                scores.append((score, "\(j.tile)@\(scale)x"))
                XCTAssertGreaterThanOrEqual(score, 0.99, "\(j.tile)@\(scale)x")
            }
        }
        // The sample's labels and antialiased edges pass 256 colours in many tiles: the test reaches the quantizer.
        XCTAssertGreaterThan(reduced, 10)
        let worst = scores.sorted { $0.0 < $1.0 }.prefix(3).map { String(format: "%@ %.4f", $0.1, $0.0) }
        print("quantize z20: \(reduced) tiles reduced, \(kept) kept indexed; worst SSIM \(worst.joined(separator: ", "))")
    }

    /// `"quality": 90, "compression": "small"` (bench/quantize.md's smallest
    /// mode) on every tile at z20, 1x and @2x: each file is indexed, at least
    /// as small as the quality-100 quantized one less a few bytes of libdeflate's
    /// choice, SSIM ≥ 0.99 against the lossless tile, and the whole zoom in
    /// fewer bytes than the quantized files of before.
    func testSmallQuality90TilesKeepSSIMAbove099() throws {
        let jobs = try sampleTiles(zoom: 20)
        var before = 0, after = 0, reducedPalettes = 0, scores = [(Double, String)]()
        for scale in [1, 2] {
            let sprite = Sprite.builtIn(pixelRatio: scale)
            let lossless = try TileRenderer(scale: scale, sprite: sprite)
            let quantized = try TileRenderer(scale: scale, sprite: sprite, quantize: .tiles)
            let small = try TileRenderer(scale: scale, sprite: sprite, quantize: .tiles(quality: 90), compression: .small)
            for j in jobs {
                let a = try lossless.render(tile: j.tile, items: j.items, indices: j.indices)
                let q = try quantized.render(tile: j.tile, items: j.items, indices: j.indices)
                let b = try small.render(tile: j.tile, items: j.items, indices: j.indices)
                guard case .png(let la) = a, case .png(let qa) = q, case .png(let sb) = b else { XCTAssertEqual(a, b, "\(j.tile)"); continue }
                XCTAssertEqual(sb[25], 3, "\(j.tile)@\(scale)x: colour type \(sb[25]), expected indexed (3)")
                before += qa.count; after += sb.count
                if la[25] == 3 && la != sb { reducedPalettes += 1 }
                let size = 256 * scale
                let score = sb == la ? 1 : SSIM.tile(try words(la), try words(sb), width: size, height: size)
                scores.append((score, "\(j.tile)@\(scale)x"))
                XCTAssertGreaterThanOrEqual(score, 0.99, "\(j.tile)@\(scale)x")
            }
        }
        XCTAssertGreaterThan(reducedPalettes, 10, "tiles of at most 256 colours are reduced too")
        XCTAssertLessThan(Double(after), Double(before) * 0.8, "quality 90 and small: \(after) bytes against \(before) quantized at 100")
        let worst = scores.sorted { $0.0 < $1.0 }.prefix(3).map { String(format: "%@ %.4f", $0.1, $0.0) }
        print("small q90 z20: \(before) → \(after) bytes; worst SSIM \(worst.joined(separator: ", "))")
    }

    /// The same bytes whether one thread renders every tile or four threads
    /// share them (each with its own renderer, in an interleaved order), with
    /// libimagequant's OpenMP left at its default for the process.
    func testQuantizedTilesAreTheSameOnAnyNumberOfThreads() throws {
        try assertSameOnAnyNumberOfThreads(quantize: .tiles, compression: .fast)
    }

    func testSmallQuality90TilesAreTheSameOnAnyNumberOfThreads() throws {
        try assertSameOnAnyNumberOfThreads(quantize: .tiles(quality: 90), compression: .small)
    }

    func assertSameOnAnyNumberOfThreads(quantize: ImageQuantizer.Settings, compression: PNGEncoder.Compression) throws {
        let jobs = try sampleTiles(zoom: 20)
        let sprite = Sprite.builtIn(pixelRatio: 1)
        let one = try TileRenderer(scale: 1, sprite: sprite, quantize: quantize, compression: compression)
        let serial = try jobs.map { try one.render(tile: $0.tile, items: $0.items, indices: $0.indices) }
        XCTAssertGreaterThan(serial.filter { if case .png(let d) = $0 { return d[25] == 3 } else { return false } }.count, 10)
        let threads = 4
        let renderers = try (0..<threads).map { _ in try TileRenderer(scale: 1, sprite: sprite, quantize: quantize, compression: compression) }
        let results = Results(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: threads) { w in
            // Thread w takes tiles w, w + 4, … from the end: a different order from the serial run.
            for i in stride(from: jobs.count - 1 - w, through: 0, by: -threads) {
                let j = jobs[i]
                results.set(i, Result { try renderers[w].render(tile: j.tile, items: j.items, indices: j.indices) })
            }
        }
        for (i, r) in results.all.enumerated() { XCTAssertEqual(try r?.get(), serial[i], "tile \(jobs[i].tile)") }
    }

    /// Results filled by several threads.
    final class Results: @unchecked Sendable {
        private var items: [Result<RenderedTile, Error>?]
        private let lock = NSLock()
        init(count: Int) { items = Array(repeating: nil, count: count) }
        func set(_ i: Int, _ r: Result<RenderedTile, Error>) { lock.lock(); items[i] = r; lock.unlock() }
        var all: [Result<RenderedTile, Error>?] { lock.lock(); defer { lock.unlock() }; return items }
    }

    func testSSIMOfKnownImages() {
        // Equal images: 1. Two flat images: only the luminance term is left,
        // (2·μx·μy + C1) / (μx² + μy² + C1) in every window.
        let w = 16, flatA = [UInt32](repeating: 0xFF64_6464, count: w * w), flatB = [UInt32](repeating: 0xFF78_7878, count: w * w)
        XCTAssertEqual(SSIM.tile(flatA, flatA, width: w, height: w), 1, accuracy: 1e-12)
        let c1 = (0.01 * 255) * (0.01 * 255)
        XCTAssertEqual(SSIM.tile(flatA, flatB, width: w, height: w), (2 * 100 * 120 + c1) / (100 * 100 + 120 * 120 + c1), accuracy: 1e-9)
        // Coverage counts: a transparent tile against an opaque black one is far apart over white.
        let clear = [UInt32](repeating: 0, count: w * w), black = [UInt32](repeating: 0xFF00_0000, count: w * w)
        XCTAssertLessThan(SSIM.tile(clear, black, width: w, height: w), 0.01)
    }
}
