import CZlib
import Foundation

/// A real PNG (8-bit RGBA, one colour), for readers such as GDAL that decode a tile.
enum PNGFixture {
    static func solid(size: Int, rgba: [UInt8]) -> Data {
        var raw = [UInt8]()
        for _ in 0..<size { raw.append(0); for _ in 0..<size { raw += rgba } }
        var zlen = compressBound(uLong(raw.count))
        var z = [UInt8](repeating: 0, count: Int(zlen))
        precondition(compress(&z, &zlen, raw, uLong(raw.count)) == Z_OK)
        z.removeSubrange(Int(zlen)...)
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let tb = Array(type.utf8) + body
            return be(UInt32(body.count)) + tb + be(UInt32(crc32(0, tb, uInt(tb.count))))
        }
        let ihdr = be(UInt32(size)) + be(UInt32(size)) + [8, 6, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", []))
    }
}
