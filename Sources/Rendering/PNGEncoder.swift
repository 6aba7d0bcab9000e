import CDeflate
import Foundation

public struct PNGEncodeError: Error, CustomStringConvertible {
    public var description: String { "PNG encoding: libdeflate could not compress the image data" }
}

/// Encodes Cairo ARGB32 (premultiplied, native-endian) pixels as PNG.
///
/// Replaces `cairo_surface_write_to_png`, which spends most of a tile's time in
/// libpng's default settings. Chosen by measurement on tiles of the synthetic
/// venues (see bench/results.md): an indexed image whenever the tile has at
/// most 256 colours (1, 2, 4 or 8 bits per pixel), RGB when it is opaque,
/// RGBA otherwise; no row filter for indexed images and the Up filter for
/// truecolour; deflate level 6 through libdeflate (a third of zlib's CPU time
/// for the same level, measured on the medium synthetic venue). Alpha is
/// un-premultiplied with rounding.
///
/// One encoder per worker thread: it owns its compressor and buffers.
public final class PNGEncoder {
    public let level: Int32
    private let compressor: OpaquePointer
    private var raw = [UInt8]()        // filtered scanlines
    private var deflated = [UInt8]()
    private var palette = [UInt32: UInt8]()
    private var colors = [UInt32]()    // straight RGBA, in order of first use
    private var indices = [UInt8]()

    public init(level: Int32 = 6) {
        precondition((1...12).contains(level), "libdeflate level \(level) out of range 1...12")
        self.level = level
        guard let c = libdeflate_alloc_compressor(level) else { preconditionFailure("libdeflate: out of memory") }
        compressor = c
    }

    deinit { libdeflate_free_compressor(compressor) }

    /// `pixels` holds `height` rows of `stride / 4` premultiplied ARGB words.
    public func encode(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, stride: Int) throws -> Data {
        let rowWords = stride / 4
        // The hot loops work on locals: touching the instance's arrays per pixel
        // costs a dynamic exclusivity check each time. Buffers go back for reuse.
        var palette = self.palette, colors = self.colors, indices = self.indices, raw = self.raw
        self.palette = [:]; self.colors = []; self.indices = []; self.raw = []
        defer { self.palette = palette; self.colors = colors; self.indices = indices; self.raw = raw }
        // Collect the palette; give up on it past 256 colours. An open-addressing
        // table (1024 slots, key 0 = empty) instead of a Dictionary: this loop
        // runs once per pixel.
        palette.removeAll(keepingCapacity: true)
        colors.removeAll(keepingCapacity: true)
        let n = width * height
        if indices.count < n { indices = [UInt8](repeating: 0, count: n) }
        var opaque = true
        var indexed = true
        var slotKeys = [UInt64](repeating: 0, count: 1024)
        var slotValues = [UInt8](repeating: 0, count: 1024)
        indices.withUnsafeMutableBufferPointer { idx in
            slotKeys.withUnsafeMutableBufferPointer { keys in
                slotValues.withUnsafeMutableBufferPointer { values in
                    var last: UInt32 = 0, lastIndex: UInt8 = 0, haveLast = false
                    var k = 0
                    let base = pixels.baseAddress!
                    scan: for y in 0..<height {
                        let row = y * rowWords
                        // Map tiles repeat rows (a wall, a room, the empty margin): a row equal
                        // to the one above takes its indices in one copy.
                        if y > 0 && memcmp(base + row, base + row - rowWords, width * 4) == 0 {
                            (idx.baseAddress! + k).update(from: idx.baseAddress! + k - width, count: width)
                            k += width
                            continue
                        }
                        for x in 0..<width {
                            let p = pixels[row + x]
                            if haveLast && p == last { idx[k] = lastIndex; k += 1; continue }
                            // The pixel above has already been looked up: map tiles are
                            // mostly vertical runs (walls, room edges) where the left
                            // neighbour differs but the one above does not.
                            if y > 0 && p == pixels[row - rowWords + x] {
                                let i = idx[k - width]
                                idx[k] = i; k += 1
                                last = p; lastIndex = i
                                continue
                            }
                            if p >> 24 != 0xFF { opaque = false }
                            let key = UInt64(p) | 1 << 32
                            var h = Int((p &* 0x9E37_79B1) >> 22)
                            while keys[h] != 0 && keys[h] != key { h = (h + 1) & 1023 }
                            let i: UInt8
                            if keys[h] == key {
                                i = values[h]
                            } else {
                                if colors.count == 256 { indexed = false; break scan }
                                i = UInt8(colors.count)
                                keys[h] = key; values[h] = i
                                colors.append(PNGEncoder.straight(p))
                            }
                            idx[k] = i; k += 1
                            last = p; lastIndex = i; haveLast = true
                        }
                    }
                }
            }
        }
        if !indexed {
            opaque = true
            for y in 0..<height where opaque {
                let row = y * rowWords
                for x in 0..<width where pixels[row + x] >> 24 != 0xFF { opaque = false; break }
            }
        }

        var out = [UInt8]()
        out.reserveCapacity(1024)
        out += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        raw.removeAll(keepingCapacity: true)
        if indexed {
            let depth: UInt8 = colors.count <= 2 ? 1 : colors.count <= 4 ? 2 : colors.count <= 16 ? 4 : 8
            PNGEncoder.chunk(&out, "IHDR", PNGEncoder.header(width, height, depth: depth, colorType: 3))
            var plte = [UInt8](), trns = [UInt8]()
            plte.reserveCapacity(colors.count * 3)
            for c in colors { plte += [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF)]; trns.append(UInt8(c & 0xFF)) }
            while trns.last == 0xFF { trns.removeLast() }
            PNGEncoder.chunk(&out, "PLTE", plte)
            if !trns.isEmpty { PNGEncoder.chunk(&out, "tRNS", trns) }
            let perByte = 8 / Int(depth)
            let rowBytes = (width + perByte - 1) / perByte
            let stride = rowBytes + 1
            raw = [UInt8](repeating: 0, count: stride * height)   // filter bytes: 0 (None)
            raw.withUnsafeMutableBufferPointer { out in
                indices.withUnsafeBufferPointer { idx in
                    let o = out.baseAddress!, ix = idx.baseAddress!
                    for y in 0..<height {
                        let src = ix + y * width, dst = o + y * stride + 1
                        if y > 0 && memcmp(src, src - width, width) == 0 {
                            dst.update(from: dst - stride, count: rowBytes)
                            continue
                        }
                        if depth == 8 { dst.update(from: src, count: width); continue }
                        var byte: UInt8 = 0, n = 0, j = 0
                        for x in 0..<width {
                            byte = byte << depth | src[x]
                            n += 1
                            if n == perByte { dst[j] = byte; j += 1; byte = 0; n = 0 }
                        }
                        if n > 0 { dst[j] = byte << (depth * UInt8(perByte - n)) }
                    }
                }
            }
        } else {
            let channels = opaque ? 3 : 4
            PNGEncoder.chunk(&out, "IHDR", PNGEncoder.header(width, height, depth: 8, colorType: opaque ? 2 : 6))
            let rowBytes = width * channels
            raw.reserveCapacity((rowBytes + 1) * height)
            var prev = [UInt8](repeating: 0, count: rowBytes)
            var cur = [UInt8](repeating: 0, count: rowBytes)
            for y in 0..<height {
                let row = y * rowWords
                var k = 0
                for x in 0..<width {
                    let c = PNGEncoder.straight(pixels[row + x])
                    cur[k] = UInt8(c >> 24); cur[k + 1] = UInt8((c >> 16) & 0xFF); cur[k + 2] = UInt8((c >> 8) & 0xFF)
                    if channels == 4 { cur[k + 3] = UInt8(c & 0xFF) }
                    k += channels
                }
                raw.append(2)   // filter: Up
                for i in 0..<rowBytes { raw.append(cur[i] &- prev[i]) }
                swap(&prev, &cur)
            }
        }
        PNGEncoder.chunk(&out, "IDAT", try deflate(raw))
        PNGEncoder.chunk(&out, "IEND", [])
        return Data(out)
    }

    /// Premultiplied ARGB → straight RGBA (r in the high byte), rounding to nearest.
    @inline(__always)
    static func straight(_ p: UInt32) -> UInt32 {
        let a = p >> 24
        if a == 0 { return 0 }
        if a == 255 { return (p & 0x00FF_FFFF) << 8 | 0xFF }
        func un(_ c: UInt32) -> UInt32 { min(255, (c * 255 + a / 2) / a) }
        return un((p >> 16) & 0xFF) << 24 | un((p >> 8) & 0xFF) << 16 | un(p & 0xFF) << 8 | a
    }

    static func header(_ w: Int, _ h: Int, depth: UInt8, colorType: UInt8) -> [UInt8] {
        be32(UInt32(w)) + be32(UInt32(h)) + [depth, colorType, 0, 0, 0]
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        out += be32(UInt32(data.count))
        let t = Array(type.utf8)
        out += t
        out += data
        var crc = libdeflate_crc32(0, t, 4)
        crc = data.withUnsafeBufferPointer { libdeflate_crc32(crc, $0.baseAddress, $0.count) }
        out += be32(crc)
    }

    /// The zlib stream of the IDAT chunk (libdeflate compresses in one call).
    private func deflate(_ input: [UInt8]) throws -> [UInt8] {
        let bound = libdeflate_zlib_compress_bound(compressor, input.count)
        if deflated.count < bound { deflated = [UInt8](repeating: 0, count: bound) }
        let produced = input.withUnsafeBufferPointer { inBuf in
            deflated.withUnsafeMutableBufferPointer { outBuf in
                libdeflate_zlib_compress(compressor, inBuf.baseAddress, inBuf.count, outBuf.baseAddress, outBuf.count)
            }
        }
        guard produced > 0 else { throw PNGEncodeError() }
        return Array(deflated[0..<produced])
    }
}
