import CDeflate
import Foundation

/// Encodes Cairo ARGB32 (premultiplied, native-endian) pixels as PNG.
///
/// Replaces `cairo_surface_write_to_png`, which spends most of a tile's time in
/// libpng's default settings. Chosen by measurement on tiles of the synthetic
/// venues (see bench/results.md): an indexed image whenever the tile has at
/// most 256 colours (1, 2, 4 or 8 bits per pixel), RGB when it is opaque,
/// RGBA otherwise; no row filter for indexed images and the Up filter for
/// truecolour. The scanlines are compressed by `ScanlineDeflater`, which knows
/// where rows start. Alpha is un-premultiplied with rounding.
///
/// `Compression.small` trades encode CPU for bytes (pipeline.json
/// `"compression": "small"`): the scanlines go through libdeflate at level 9
/// instead of `ScanlineDeflater`, and an indexed image keeps only the palette
/// entries it uses, those with transparency first, so tRNS stops at the last
/// of them.
///
/// One encoder per worker thread: it owns its buffers.
public final class PNGEncoder {
    public enum Compression: String, Sendable, CaseIterable {
        /// `ScanlineDeflater`, palettes in order of first use.
        case fast
        /// libdeflate level 9, palettes trimmed and ordered for tRNS.
        case small
    }
    /// libdeflate's level for `.small`, by measurement on quantized realistic
    /// tiles (bench/quantize.md): 9 is 29 % below `ScanlineDeflater`; 12 saves
    /// 8 % more for 18 times the CPU, 6 is 17 % above 9 for a fifth of it.
    public static let smallLevel = 9

    public let compression: Compression
    private let deflater = ScanlineDeflater()
    private let libdeflate: LibdeflateCompressor?
    /// Scanlines ready for deflate: palette indices (a filter byte, then one
    /// byte per pixel) or, in `packed`, fewer bits per pixel or truecolour.
    private var indexRows = Buffer<UInt8>()
    private var packed = Buffer<UInt8>()
    private var line = Buffer<UInt32>()
    /// The palette lookup: open addressing over 1024 slots, key 0 = empty.
    private var slotKeys = Buffer<UInt64>()
    private var slotValues = Buffer<UInt8>()
    private var paletteBuffer = Buffer<UInt32>()
    /// Per row: whether its pixels equal the row above (found by the palette scan).
    private var sameAsAbove = Buffer<Bool>()
    /// Quantizing: the straight RGBA image and libimagequant's index rows (no filter bytes).
    private var straightPixels = Buffer<UInt8>()
    private var quantized = Buffer<UInt8>()

    public init(compression: Compression = .fast) {
        self.compression = compression
        libdeflate = compression == .small ? LibdeflateCompressor(level: PNGEncoder.smallLevel) : nil
    }

    deinit {
        indexRows.free(); packed.free(); line.free(); slotKeys.free(); slotValues.free(); paletteBuffer.free(); sameAsAbove.free()
        straightPixels.free(); quantized.free()
    }

    /// `pixels` holds `height` rows of `stride / 4` premultiplied ARGB words.
    /// Lossless: indexed when the image has at most 256 colours, else truecolour.
    public func encode(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, stride: Int) -> Data {
        let rowWords = checked(pixels, width: width, height: height, stride: stride)
        let ix = indexRows.reserve((width + 1) * height)
        let same = sameAsAbove.reserve(height)
        if let colors = scanPalette(pixels.baseAddress!, width: width, height: height, rowWords: rowWords, into: ix, same: same) {
            return indexedFile(colors, width: width, height: height)
        }
        return truecolourFile(pixels.baseAddress!, width: width, height: height, rowWords: rowWords)
    }

    /// Like `encode`, but an image of more than 256 colours is reduced to 256
    /// by `quantizer` and written indexed; one of at most 256 is written
    /// exactly as `encode` writes it, unless the quantizer's settings reduce
    /// palettes too (quality below 100) and it has more than two colours.
    /// When the quantizer cannot reach its minimum quality, the image is
    /// written losslessly; other libimagequant failures are thrown.
    public func encode(pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, stride: Int,
                       reducingWith quantizer: ImageQuantizer) throws -> Data {
        let rowWords = checked(pixels, width: width, height: height, stride: stride)
        let ix = indexRows.reserve((width + 1) * height)
        let same = sameAsAbove.reserve(height)
        let base = pixels.baseAddress!
        if let colors = scanPalette(base, width: width, height: height, rowWords: rowWords, into: ix, same: same) {
            guard quantizer.settings.reducesPalettes && colors.count > 2 else { return indexedFile(colors, width: width, height: height) }
            return indexedFile(try reducePalette(colors, width: width, height: height, quantizer: quantizer), width: width, height: height)
        }
        let rgba = straightPixels.reserve(width * height * 4)
        PNGEncoder.straightRGBA(base, width: width, height: height, rowWords: rowWords, into: rgba)
        do {
            return try encodeIndexed(rgba: rgba, width: width, height: height, quantizer: quantizer)
        } catch let e as QuantizeError where e.code == .qualityTooLow {
            return truecolourFile(base, width: width, height: height, rowWords: rowWords)
        }
    }

    /// Straight RGBA pixels (4 bytes each, rows contiguous, more than 256
    /// colours or not) reduced by `quantizer` and written indexed. The build
    /// reaches it through `encode(…reducingWith:)`; tools that start from
    /// decoded PNG files call it directly.
    public func encodeIndexed(rgba: UnsafePointer<UInt8>, width: Int, height: Int, quantizer: ImageQuantizer) throws -> Data {
        let stride = width + 1
        let ix = indexRows.reserve(stride * height)
        let same = sameAsAbove.reserve(height)
        let flat = quantized.reserve(width * height)
        let colors = try quantizer.quantize(rgba: rgba, width: width, height: height, into: flat)
        // Into rows with a filter byte (0, None), noting rows equal to the one above for the deflater.
        for y in 0..<height {
            let dst = ix + y * stride
            dst[0] = 0
            (dst + 1).update(from: flat + y * width, count: width)
            same[y] = y > 0 && memcmp(dst + 1, dst + 1 - stride, width) == 0
        }
        return indexedFile(colors, width: width, height: height)
    }

    /// The words per row, after checking that the image lies in the buffer.
    private func checked(_ pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, stride: Int) -> Int {
        let rowWords = stride / 4
        precondition(width >= 1 && height >= 1 && rowWords >= width && pixels.count >= (height - 1) * rowWords + width,
                     "PNG: \(width)×\(height) image, \(rowWords) words per row, in \(pixels.count) words")
        return rowWords
    }

    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// An indexed PNG of `colors` (straight RGBA) and the index rows in
    /// `indexRows` (filter byte, one index per pixel), with `sameAsAbove` set:
    /// 1, 2, 4 or 8 bits per pixel by the number of colours.
    private func indexedFile(_ exact: [UInt32], width: Int, height: Int) -> Data {
        let ix = indexRows.pointer!, same = sameAsAbove.pointer!
        let indexStride = width + 1
        let colors = compression == .small ? tidyPalette(exact, width: width, height: height) : exact
        var out = PNGEncoder.signature
        out.reserveCapacity(1024)
        let depth = colors.count <= 2 ? 1 : colors.count <= 4 ? 2 : colors.count <= 16 ? 4 : 8
        PNGEncoder.chunk(&out, "IHDR", PNGEncoder.header(width, height, depth: UInt8(depth), colorType: 3))
        var plte = [UInt8](), trns = [UInt8]()
        plte.reserveCapacity(colors.count * 3)
        for c in colors { plte += [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF)]; trns.append(UInt8(c & 0xFF)) }
        while trns.last == 0xFF { trns.removeLast() }
        PNGEncoder.chunk(&out, "PLTE", plte)
        if !trns.isEmpty { PNGEncoder.chunk(&out, "tRNS", trns) }
        let idat: [UInt8]
        if depth == 8 {
            idat = deflate(UnsafeBufferPointer(start: ix, count: indexStride * height), rows: height, stride: indexStride, same: same)
        } else {
            let rowBytes = (width * depth + 7) / 8
            let dst = packed.reserve((rowBytes + 1) * height)
            PNGEncoder.pack(ix, indexStride: indexStride, width: width, height: height, depth: depth, same: same, into: dst, rowBytes: rowBytes)
            idat = deflate(UnsafeBufferPointer(start: dst, count: (rowBytes + 1) * height), rows: height, stride: rowBytes + 1, same: same)
        }
        PNGEncoder.chunk(&out, "IDAT", idat)
        PNGEncoder.chunk(&out, "IEND", [])
        return Data(out)
    }

    /// `colors` (the index rows' exact palette) reduced by `quantizer`, the
    /// index rows mapped to the returned palette.
    private func reducePalette(_ colors: [UInt32], width: Int, height: Int, quantizer: ImageQuantizer) throws -> [UInt32] {
        let ix = indexRows.pointer!
        let counts = PNGEncoder.indexCounts(ix, stride: width + 1, width: width, height: height, colors: colors.count)
        let (palette, map) = try quantizer.reduce(colors: colors, counts: counts)
        PNGEncoder.remap(ix, stride: width + 1, width: width, height: height, through: map)
        return palette
    }

    /// `colors` without the entries no pixel uses, those with transparency
    /// first, the index rows mapped to it.
    private func tidyPalette(_ colors: [UInt32], width: Int, height: Int) -> [UInt32] {
        let ix = indexRows.pointer!
        let counts = PNGEncoder.indexCounts(ix, stride: width + 1, width: width, height: height, colors: colors.count)
        let (tidy, map) = PNGEncoder.tidy(colors, counts: counts)
        if tidy == colors { return colors }
        PNGEncoder.remap(ix, stride: width + 1, width: width, height: height, through: map)
        return tidy
    }

    /// The IDAT of filtered scanlines, by `compression`.
    private func deflate(_ data: UnsafeBufferPointer<UInt8>, rows: Int, stride: Int, same: UnsafePointer<Bool>?) -> [UInt8] {
        if let libdeflate { return libdeflate.compress(data) }
        return deflater.compress(data, rows: rows, stride: stride, sameAsAbove: same)
    }

    /// A truecolour PNG: RGB when every pixel is opaque, else RGBA.
    private func truecolourFile(_ base: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int) -> Data {
        // Opaque when every alpha byte is 0xFF: an AND over each row (a loop the compiler vectorizes).
        var opaque = true
        for y in 0..<height where opaque {
            let row = base + y * rowWords
            var all: UInt32 = 0xFFFF_FFFF
            for x in 0..<width { all &= row[x] }
            opaque = all >> 24 == 0xFF
        }
        let channels = opaque ? 3 : 4
        var out = PNGEncoder.signature
        out.reserveCapacity(1024)
        PNGEncoder.chunk(&out, "IHDR", PNGEncoder.header(width, height, depth: 8, colorType: opaque ? 2 : 6))
        let rowBytes = width * channels
        let dst = packed.reserve((rowBytes + 1) * height)
        truecolour(base, width: width, height: height, rowWords: rowWords, channels: channels, into: dst)
        let idat = deflate(UnsafeBufferPointer(start: dst, count: (rowBytes + 1) * height), rows: height, stride: rowBytes + 1, same: nil)
        PNGEncoder.chunk(&out, "IDAT", idat)
        PNGEncoder.chunk(&out, "IEND", [])
        return Data(out)
    }

    /// Premultiplied ARGB words → straight RGBA bytes, rows contiguous (as the
    /// lossless file stores them, so a quantizer sees the lossless tile's colours).
    static func straightRGBA(_ base: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int,
                             into out: UnsafeMutablePointer<UInt8>) {
        let table = UnsafePointer(Unpremultiply.shared.table)
        for y in 0..<height {
            let src = base + y * rowWords, dst = out + y * width * 4
            var last: UInt32 = 0, lastStraight: UInt32 = 0
            for x in 0..<width {
                let p = src[x]
                if x == 0 || p != last { last = p; lastStraight = straight(p, table) }
                dst[4 * x] = UInt8(lastStraight >> 24); dst[4 * x + 1] = UInt8((lastStraight >> 16) & 0xFF)
                dst[4 * x + 2] = UInt8((lastStraight >> 8) & 0xFF); dst[4 * x + 3] = UInt8(lastStraight & 0xFF)
            }
        }
    }

    /// The image's colours (straight RGBA, in raster order of first use), with
    /// `ix` filled with rows of a filter byte (0, None) and one palette index per
    /// pixel; nil when the image has more than 256 colours.
    ///
    /// Map tiles are mostly vertical structure: a row equal to the one above
    /// (inside a room) takes the indices above in one copy; in other rows most
    /// pixels still equal the pixel above (wall edges), so the row starts as a
    /// copy of the one above and eight pixels at a time are compared, looking up
    /// only those that differ. A pixel equal to its left neighbour takes its index.
    private func scanPalette(_ base: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int,
                             into ix: UnsafeMutablePointer<UInt8>, same: UnsafeMutablePointer<Bool>) -> [UInt32]? {
        let keys = slotKeys.reserve(1024), values = slotValues.reserve(1024)
        keys.update(repeating: 0, count: 1024)
        let palette = paletteBuffer.reserve(256)
        var count = 0
        let stride = width + 1
        for y in 0..<height {
            let src = base + y * rowWords
            let dst = ix + y * stride
            dst[0] = 0
            let row = dst + 1
            same[y] = false
            if y == 0 {
                for x in 0..<width {
                    if x > 0 && src[x] == src[x - 1] { row[x] = row[x - 1]; continue }
                    guard let i = PNGEncoder.lookup(src[x], keys, values, palette, &count) else { return nil }
                    row[x] = i
                }
                continue
            }
            let above = src - rowWords
            row.update(from: row - stride, count: width)
            if memcmp(src, above, width * 4) == 0 { same[y] = true; continue }
            var x = 0
            while x < width {
                if x + 8 <= width && PNGEncoder.equal8(src + x, above + x) { x += 8; continue }
                let end = min(x + 8, width)
                while x < end {
                    let p = src[x]
                    if p != above[x] {
                        if x > 0 && p == src[x - 1] {
                            row[x] = row[x - 1]
                        } else {
                            guard let i = PNGEncoder.lookup(p, keys, values, palette, &count) else { return nil }
                            row[x] = i
                        }
                    }
                    x += 1
                }
            }
        }
        return Array(UnsafeBufferPointer(start: palette, count: count))
    }

    /// The palette index of `p`, adding it (straight) to `palette` if new; nil past 256 colours.
    @inline(__always)
    static func lookup(_ p: UInt32, _ keys: UnsafeMutablePointer<UInt64>, _ values: UnsafeMutablePointer<UInt8>,
                       _ palette: UnsafeMutablePointer<UInt32>, _ count: inout Int) -> UInt8? {
        let key = UInt64(p) | 1 << 32
        var h = Int((p &* 0x9E37_79B1) >> 22)
        while true {
            let k = keys[h]
            if k == key { return values[h] }
            if k == 0 { break }
            h = (h + 1) & 1023
        }
        if count == 256 { return nil }
        let i = UInt8(count)
        keys[h] = key; values[h] = i
        palette[count] = straight(p)
        count += 1
        return i
    }

    /// Whether the eight pixels at `a` equal those at `b`.
    @inline(__always)
    static func equal8(_ a: UnsafePointer<UInt32>, _ b: UnsafePointer<UInt32>) -> Bool {
        let p = UnsafeRawPointer(a), q = UnsafeRawPointer(b)
        let d0 = p.loadUnaligned(as: UInt64.self) ^ q.loadUnaligned(as: UInt64.self)
        let d1 = p.loadUnaligned(fromByteOffset: 8, as: UInt64.self) ^ q.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
        let d2 = p.loadUnaligned(fromByteOffset: 16, as: UInt64.self) ^ q.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        let d3 = p.loadUnaligned(fromByteOffset: 24, as: UInt64.self) ^ q.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
        return (d0 | d1 | d2 | d3) == 0
    }

    /// Index rows (one byte per pixel) → `depth` bits per pixel, most
    /// significant first, filter byte 0.
    static func pack(_ ix: UnsafePointer<UInt8>, indexStride: Int, width: Int, height: Int, depth: Int,
                     same: UnsafePointer<Bool>, into out: UnsafeMutablePointer<UInt8>, rowBytes: Int) {
        let perByte = 8 / depth
        for y in 0..<height {
            let src = ix + y * indexStride + 1, dst = out + y * (rowBytes + 1)
            dst[0] = 0
            if same[y] {
                (dst + 1).update(from: dst + 1 - (rowBytes + 1), count: rowBytes)
                continue
            }
            var j = 0, x = 0
            while x + perByte <= width {
                var byte: UInt8 = 0
                for b in 0..<perByte { byte = byte << UInt8(depth) | src[x + b] }
                dst[1 + j] = byte; j += 1; x += perByte
            }
            if x < width {
                var byte: UInt8 = 0, n = 0
                while x < width { byte = byte << UInt8(depth) | src[x]; x += 1; n += 1 }
                dst[1 + j] = byte << UInt8(depth * (perByte - n))
            }
        }
    }

    /// Truecolour rows, Up filter: straight RGB(A), minus the row above.
    private func truecolour(_ base: UnsafePointer<UInt32>, width: Int, height: Int, rowWords: Int, channels: Int,
                            into out: UnsafeMutablePointer<UInt8>) {
        let rowBytes = width * channels
        // This row and the one above as straight pixels, one word each in PNG's byte order (R, G, B, A).
        let words = line.reserve(2 * width)
        let unpremultiplied = Unpremultiply.shared.table
        var cur = words, prev = words + width
        prev.update(repeating: 0, count: width)
        for y in 0..<height {
            let dst = out + y * (rowBytes + 1)
            dst[0] = 2   // filter: Up
            let src = base + y * rowWords
            // A row equal to the one above filters to zeros.
            if y > 0 && memcmp(src, src - rowWords, width * 4) == 0 {
                (dst + 1).update(repeating: 0, count: rowBytes)
                continue
            }
            let raw = UnsafeMutableRawPointer(dst + 1)
            var x0 = 0
            while x0 < width {
                let n = min(8, width - x0)
                // Eight pixels equal to those above (the inside of a room): their
                // straight colours are the row above's and their Up filter zeros.
                if y > 0 && n == 8 && PNGEncoder.equal8(src + x0, src + x0 - rowWords) {
                    (cur + x0).update(from: prev + x0, count: 8)
                    (raw + channels * x0).initializeMemory(as: UInt8.self, repeating: 0, count: 8 * channels)
                    x0 += 8
                    continue
                }
                for x in x0..<(x0 + n) {
                    let p = src[x]
                    let w: UInt32
                    // A pixel equal to the one above has its straight colour already;
                    // one equal to its left neighbour, the one just computed.
                    if y > 0 && p == src[x - rowWords] {
                        w = prev[x]
                    } else if x > 0 && p == src[x - 1] {
                        w = cur[x - 1]
                    } else {
                        w = PNGEncoder.straight(p, unpremultiplied).bigEndian
                    }
                    cur[x] = w
                    let d = PNGEncoder.byteDifference(w, prev[x])
                    if channels == 4 {
                        raw.storeBytes(of: d, toByteOffset: 4 * x, as: UInt32.self)
                    } else if x + 1 < width {
                        // Four bytes stored, three kept: the fourth is the next pixel's first, written next.
                        raw.storeBytes(of: d, toByteOffset: 3 * x, as: UInt32.self)
                    } else {
                        // The row's last pixel: no byte past the row (the image's last row ends the buffer).
                        raw.storeBytes(of: UInt8(truncatingIfNeeded: d), toByteOffset: 3 * x, as: UInt8.self)
                        raw.storeBytes(of: UInt8(truncatingIfNeeded: d >> 8), toByteOffset: 3 * x + 1, as: UInt8.self)
                        raw.storeBytes(of: UInt8(truncatingIfNeeded: d >> 16), toByteOffset: 3 * x + 2, as: UInt8.self)
                    }
                }
                x0 += n
            }
            swap(&prev, &cur)
        }
    }

    /// `a - b` in each of the four bytes on its own (mod 256, no borrow
    /// between bytes): PNG's Up filter for one pixel in one subtraction.
    @inline(__always)
    static func byteDifference(_ a: UInt32, _ b: UInt32) -> UInt32 {
        let high: UInt32 = 0x8080_8080
        return ((a | high) &- (b & ~high)) ^ ((a ^ ~b) & high)
    }

    /// Premultiplied ARGB → straight RGBA (r in the high byte), rounding to
    /// nearest, through `Unpremultiply`'s table (the hot loops pass the table in).
    @inline(__always)
    static func straight(_ p: UInt32, _ table: UnsafePointer<UInt8> = UnsafePointer(Unpremultiply.shared.table)) -> UInt32 {
        let a = p >> 24
        if a == 0 { return 0 }
        if a == 255 { return (p & 0x00FF_FFFF) << 8 | 0xFF }
        let row = table + Int(a) << 8
        return UInt32(row[Int((p >> 16) & 0xFF)]) << 24 | UInt32(row[Int((p >> 8) & 0xFF)]) << 16 | UInt32(row[Int(p & 0xFF)]) << 8 | a
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
}

/// Un-premultiplied channel values by alpha and premultiplied value, rounded
/// to nearest (c·255/a): 64 KiB made once, read through a pointer taken once
/// per image (a static array is checked at every access).
final class Unpremultiply: @unchecked Sendable {
    static let shared = Unpremultiply()
    let table: UnsafeMutablePointer<UInt8>

    private init() {
        table = .allocate(capacity: 256 * 256)
        for a in 0..<256 {
            for c in 0..<256 { table[a << 8 | c] = a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
        }
    }
}

/// A growable buffer owned by one encoder: reused across images without
/// copy-on-write or exclusivity checks in the pixel loops.
struct Buffer<Element> {
    private(set) var pointer: UnsafeMutablePointer<Element>?
    private(set) var capacity = 0

    /// At least `count` elements (contents unspecified).
    mutating func reserve(_ count: Int) -> UnsafeMutablePointer<Element> {
        if let p = pointer, capacity >= count { return p }
        pointer?.deallocate()
        let p = UnsafeMutablePointer<Element>.allocate(capacity: count)
        pointer = p; capacity = count
        return p
    }

    func free() { pointer?.deallocate() }
}
