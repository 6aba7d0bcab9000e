/// The few protobuf wire-format primitives an MVT needs, written into a byte
/// buffer. Spec words: varint, zigzag, length-delimited, packed.
public struct ProtobufWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public enum WireType: UInt64 { case varint = 0, lengthDelimited = 2 }

    public mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func key(_ field: UInt64, _ type: WireType) {
        varint(field << 3 | type.rawValue)
    }

    public mutating func uint(_ field: UInt64, _ v: UInt64) {
        key(field, .varint); varint(v)
    }

    public mutating func sint(_ field: UInt64, _ v: Int64) {
        key(field, .varint); varint(ProtobufWriter.zigzag(v))
    }

    public mutating func bytes(_ field: UInt64, _ b: [UInt8]) {
        key(field, .lengthDelimited); varint(UInt64(b.count)); bytes.append(contentsOf: b)
    }

    public mutating func bytes(_ field: UInt64, _ b: UnsafeBufferPointer<UInt8>) {
        key(field, .lengthDelimited); varint(UInt64(b.count)); bytes.append(contentsOf: b)
    }

    public mutating func string(_ field: UInt64, _ s: String) {
        // A native string's UTF-8 in place: no array per layer name per tile.
        if s.utf8.withContiguousStorageIfAvailable({ bytes(field, $0) }) == nil { bytes(field, Array(s.utf8)) }
    }

    public mutating func double(_ field: UInt64, _ d: Double) {
        varint(field << 3 | 1)
        var bits = d.bitPattern.littleEndian
        withUnsafeBytes(of: &bits) { bytes.append(contentsOf: $0) }
    }

    /// A packed repeated uint32 field, its length counted first so that no
    /// inner buffer is needed.
    public mutating func packed(_ field: UInt64, _ values: [UInt32]) {
        key(field, .lengthDelimited)
        var n = 0
        for v in values { n += ProtobufWriter.varintSize(UInt64(v)) }
        varint(UInt64(n))
        // Grown once and filled in place: appending byte by byte checked the
        // buffer's uniqueness and capacity for every byte of every geometry.
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: n))
        bytes.withUnsafeMutableBufferPointer { b in
            var k = start
            for v in values {
                var v = v
                while v >= 0x80 {
                    b[k] = UInt8(truncatingIfNeeded: v) | 0x80
                    v >>= 7
                    k += 1
                }
                b[k] = UInt8(v)
                k += 1
            }
        }
    }

    public mutating func message(_ field: UInt64, _ m: ProtobufWriter) { bytes(field, m.bytes) }

    /// Empties the buffer and keeps its storage, for writers reused across tiles.
    public mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

    @inline(__always)
    public static func varintSize(_ v: UInt64) -> Int {
        var v = v, n = 1
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }

    @inline(__always)
    public static func zigzag(_ n: Int64) -> UInt64 { UInt64(bitPattern: (n << 1) ^ (n >> 63)) }

    @inline(__always)
    public static func zigzag32(_ n: Int32) -> UInt32 { UInt32(bitPattern: (n << 1) ^ (n >> 31)) }
}
