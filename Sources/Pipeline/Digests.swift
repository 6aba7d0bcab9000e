import Crypto
import Foundation

/// Fixed-size digests kept inline (no heap string per tile): a large venue has
/// millions of tiles, each with a content hash and an input key. In JSON they
/// are lower-case hex strings.
public struct Digest32: Hashable, Sendable, BitwiseCopyable, HexDigest {
    public var words: (UInt64, UInt64, UInt64, UInt64)

    public init<S: Sequence>(bytes: S) where S.Element == UInt8 {
        var w = [UInt64](repeating: 0, count: 4)
        for (i, b) in bytes.prefix(32).enumerated() { w[i / 8] |= UInt64(b) << UInt64(56 - 8 * (i % 8)) }
        words = (w[0], w[1], w[2], w[3])
    }

    public init?(hex: String) {
        guard let b = HexCoding.bytes(hex), b.count == 32 else { return nil }
        self.init(bytes: b)
    }

    /// From its four big-endian words (the binary build index stores them so).
    init(words w: (UInt64, UInt64, UInt64, UInt64)) { words = w }

    /// The SHA-256 of `data`, its 32 bytes loaded as words: the generic
    /// `init(bytes:)` walks a `SHA256Digest` as a sequence, about 2,000
    /// instructions per tile.
    static func sha256<D: DataProtocol>(_ data: D) -> Digest32 {
        SHA256.hash(data: data).withUnsafeBytes { b in
            precondition(b.count == 32)
            func word(_ k: Int) -> UInt64 { UInt64(bigEndian: b.loadUnaligned(fromByteOffset: 8 * k, as: UInt64.self)) }
            return Digest32(words: (word(0), word(1), word(2), word(3)))
        }
    }

    public var hex: String { HexCoding.hex([words.0, words.1, words.2, words.3]) }

    public static func == (a: Digest32, b: Digest32) -> Bool { a.words == b.words }
    public func hash(into h: inout Hasher) { h.combine(words.0); h.combine(words.1); h.combine(words.2); h.combine(words.3) }
}

/// A 128-bit input key (the first half of a SHA-256).
public struct Digest16: Hashable, Sendable, BitwiseCopyable, HexDigest {
    public var high: UInt64
    public var low: UInt64

    /// The digests of `data`, stored as their in-memory bytes by this process
    /// (a `FileSpill` of a build's keys; not a file format).
    static func list(_ data: Data) -> [Digest16] {
        data.withUnsafeBytes { b in
            (0..<(b.count / MemoryLayout<Digest16>.stride)).map { b.loadUnaligned(fromByteOffset: $0 * MemoryLayout<Digest16>.stride, as: Digest16.self) }
        }
    }

    public init<S: Sequence>(bytes: S) where S.Element == UInt8 {
        var w: (UInt64, UInt64) = (0, 0)
        for (i, b) in bytes.prefix(16).enumerated() {
            if i < 8 { w.0 |= UInt64(b) << UInt64(56 - 8 * i) } else { w.1 |= UInt64(b) << UInt64(56 - 8 * (i - 8)) }
        }
        high = w.0; low = w.1
    }

    public init?(hex: String) {
        guard let b = HexCoding.bytes(hex), b.count == 16 else { return nil }
        self.init(bytes: b)
    }

    init(high: UInt64, low: UInt64) { self.high = high; self.low = low }

    public var hex: String { HexCoding.hex([high, low]) }
}

/// A digest written in JSON as a lower-case hex string.
public protocol HexDigest: Codable, CustomStringConvertible {
    init?(hex: String)
    var hex: String { get }
}

extension HexDigest {
    public var description: String { hex }

    public init(from decoder: Decoder) throws {
        let s = try decoder.singleValueContainer().decode(String.self)
        guard let d = Self(hex: s) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a hex digest of \(Self.self): \(s)"))
        }
        self = d
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}

enum HexCoding {
    static let digits = Array("0123456789abcdef".utf8)

    /// Appends the lower-case hex of `w` (16 digits) to a byte buffer: the manifest
    /// writer's path, with no String per digest.
    @inline(__always)
    static func appendHex(_ w: UInt64, to out: inout [UInt8]) {
        for k in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((w >> UInt64(k)) & 15)]) }
    }

    static func hex(_ words: [UInt64]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(words.count * 16)
        for w in words { for k in stride(from: 60, through: 0, by: -4) { out.append(digits[Int((w >> UInt64(k)) & 15)]) } }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let a = v(u[i]), let b = v(u[i + 1]) else { return nil }
            out.append(a << 4 | b)
            i += 2
        }
        return out
    }
}
