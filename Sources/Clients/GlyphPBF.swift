import Foundation

/// Writes MapLibre glyph range files: `glyphs { stacks { name, range, glyphs* } }`
/// (field numbers from mapbox/glyph-pbf-composite's `glyphs.proto`).
enum GlyphPBF {
    static func encode(fontstack: String, range: ClosedRange<UInt32>, glyphs: [SDFGlyph]) -> Data {
        var stack = ProtoBuffer()
        stack.string(1, fontstack)
        stack.string(2, "\(range.lowerBound)-\(range.upperBound)")
        for g in glyphs.sorted(by: { $0.id < $1.id }) {
            var m = ProtoBuffer()
            m.varint(1, UInt64(g.id))
            if !g.bitmap.isEmpty { m.bytes(2, g.bitmap) }
            m.varint(3, UInt64(g.width))
            m.varint(4, UInt64(g.height))
            m.sint(5, g.left)
            m.sint(6, g.top)
            m.varint(7, UInt64(max(0, g.advance)))
            stack.bytes(3, m.bytes)
        }
        var root = ProtoBuffer()
        root.bytes(1, stack.bytes)
        return Data(root.bytes)
    }
}

/// A minimal protocol buffer writer: varints, zig-zag sints, length-delimited fields.
struct ProtoBuffer {
    var bytes = [UInt8]()

    mutating func rawVarint(_ v: UInt64) {
        var v = v
        while v >= 0x80 { bytes.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        bytes.append(UInt8(v))
    }
    mutating func key(_ field: Int, _ wire: UInt64) { rawVarint(UInt64(field) << 3 | wire) }
    mutating func varint(_ field: Int, _ v: UInt64) { key(field, 0); rawVarint(v) }
    mutating func sint(_ field: Int, _ v: Int) { key(field, 0); rawVarint(UInt64(bitPattern: Int64((v << 1) ^ (v >> 63)))) }
    mutating func bytes(_ field: Int, _ b: [UInt8]) { key(field, 2); rawVarint(UInt64(b.count)); bytes += b }
    mutating func string(_ field: Int, _ s: String) { bytes(field, Array(s.utf8)) }
}
