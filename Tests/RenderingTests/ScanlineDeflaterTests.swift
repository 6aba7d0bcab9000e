import CZlib
@testable import Rendering
import TestSupport
import XCTest

/// The scanline deflater against zlib's inflate (an independent decoder): every
/// stream is a valid zlib stream that gives back exactly its input.
final class ScanlineDeflaterTests: XCTestCase {
    /// Inflates with zlib; fails the test on any error.
    func inflate(_ stream: [UInt8], expected: Int, file: StaticString = #filePath, line: UInt = #line) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: expected + 16)
        var outLen = uLongf(out.count)
        let rc = uncompress(&out, &outLen, stream, uLong(stream.count))
        guard rc == Z_OK else { XCTFail("zlib uncompress: status \(rc)", file: file, line: line); return nil }
        return Array(out[0..<Int(outLen)])
    }

    func roundTrip(_ data: [UInt8], stride: Int, deflater: ScanlineDeflater = ScanlineDeflater(),
                   file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        let z = data.withUnsafeBufferPointer { deflater.compress($0, rows: data.count / stride, stride: stride) }
        XCTAssertEqual(inflate(z, expected: data.count, file: file, line: line), data, "stride \(stride)", file: file, line: line)
        return z
    }

    /// Rows built the way map tiles are: copies of the row above, rows that
    /// differ from it in a few places, runs, periodic patterns, noise.
    func structuredRows(rows: Int, stride: Int, rng: inout SeededRandom) -> [UInt8] {
        var d = [UInt8](repeating: 0, count: rows * stride)
        for y in 0..<rows {
            let row = y * stride
            switch rng.next() % 6 {
            case 0 where y > 0, 1 where y > 0:   // the row above
                for x in 0..<stride { d[row + x] = d[row - stride + x] }
            case 2 where y > 0:   // the row above with a few changes
                for x in 0..<stride { d[row + x] = d[row - stride + x] }
                for _ in 0..<(1 + rng.next() % 4) { d[row + Int(rng.next() % UInt64(stride))] = UInt8(rng.next() % 256) }
            case 3:   // runs
                var x = 0
                while x < stride {
                    let v = UInt8(rng.next() % 4), n = 1 + Int(rng.next() % 300)
                    for k in x..<min(stride, x + n) { d[row + k] = v }
                    x += n
                }
            case 4 where y >= 7:   // hatching: the row a few rows up, shifted
                let period = 2 + Int(rng.next() % 5)
                for x in 0..<stride { d[row + x] = d[row - period * stride + (x + 1) % stride] }
            default:   // noise from a small alphabet
                for x in 0..<stride { d[row + x] = UInt8(rng.next() % 9) }
            }
        }
        return d
    }

    func testStructuredImagesRoundTrip() {
        var rng = SeededRandom(state: 42)
        let deflater = ScanlineDeflater()   // reused: nothing may leak from one image to the next
        for _ in 0..<60 {
            let stride = [3, 4, 33, 65, 257, 259, 260, 769, 1025, 4097][Int(rng.next() % 10)]
            let rows = 1 + Int(rng.next() % 64)
            _ = roundTrip(structuredRows(rows: rows, stride: stride, rng: &rng), stride: stride, deflater: deflater)
        }
    }

    func testEdgeCases() {
        var rng = SeededRandom(state: 7)
        // Incompressible bytes: literals only, every byte value used.
        _ = roundTrip((0..<(256 * 257)).map { _ in UInt8(rng.next() % 256) }, stride: 257)
        // One byte value only.
        _ = roundTrip([UInt8](repeating: 0, count: 256 * 257), stride: 257)
        // Repeated-row runs whose length leaves 1 or 2 bytes past a multiple of 258.
        for stride in [259, 260, 517, 518] {
            var d = (0..<stride).map { UInt8($0 % 251) }
            for _ in 0..<5 { d += d[0..<stride] }
            _ = roundTrip(d, stride: stride)
        }
        // A single row, the smallest stride.
        _ = roundTrip([1, 2, 3], stride: 3)
        _ = roundTrip([5, 5, 5], stride: 3)
        // Rows wider than the 32 KiB window: the row above is out of reach.
        let wide = 40_000
        var d = (0..<wide).map { _ in UInt8(rng.next() % 3) }
        d += d
        _ = roundTrip(d, stride: wide)
    }

    func testDeterministicAndCompressesRepeatedRows() {
        var rng = SeededRandom(state: 3)
        let image = structuredRows(rows: 256, stride: 257, rng: &rng)
        let other = structuredRows(rows: 256, stride: 257, rng: &rng)
        let reused = ScanlineDeflater()
        let first = roundTrip(image, stride: 257, deflater: reused)
        _ = roundTrip(other, stride: 257, deflater: reused)
        XCTAssertEqual(roundTrip(image, stride: 257, deflater: reused), first)
        XCTAssertEqual(roundTrip(image, stride: 257), first)
        // 256 equal rows: a handful of matches, not one per byte.
        let flat = [UInt8](repeating: 0, count: 257) + (1..<256).flatMap { _ in (0..<257).map { UInt8($0 % 7) } }
        XCTAssertLessThan(roundTrip(flat, stride: 257).count, 400)
    }

    /// Skewed frequencies (Fibonacci) give an unlimited Huffman tree deeper
    /// than 15; the limited code must fit and stay complete (Kraft sum 1).
    func testCodeLengthsAreLimitedAndComplete() {
        var fib: [UInt32] = [1, 1]
        while fib.count < 30 { fib.append(fib[fib.count - 1] + fib[fib.count - 2]) }
        for maxBits in [7, 15] {
            let freq = Array(fib.prefix(maxBits == 7 ? 19 : 30))
            let lengths = Huffman.codeLengths(freq, maxBits: maxBits)
            XCTAssertLessThanOrEqual(Int(lengths.max()!), maxBits)
            XCTAssertTrue(lengths.allSatisfy { $0 > 0 })
            let kraft = lengths.reduce(0.0) { $0 + pow(2, -Double($1)) }
            XCTAssertEqual(kraft, 1, accuracy: 1e-12)
            // More frequent symbols never get longer codes.
            for i in 1..<freq.count where freq[i] > freq[i - 1] { XCTAssertLessThanOrEqual(lengths[i], lengths[i - 1]) }
        }
    }
}
