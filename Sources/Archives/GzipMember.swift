import CZlib
import Foundation

/// gzip (RFC 1952) with a fixed header: no name, mtime 0, no extra flags and
/// OS 255 ("unknown"), so the bytes depend only on the input and zlib's
/// deflate, never on the clock or the machine. zlib's own gzip wrapper writes
/// the OS it was built for; the header is written here instead, around raw deflate.
enum GzipMember {
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]

    static func compress(_ input: [UInt8], file: String, level: Int32 = 9) throws -> [UInt8] {
        let stream = try RawDeflate(level: level, file: file)
        var out = header
        out += try stream.deflateAll(input)
        var crc = crc32(0, nil, 0)
        input.withUnsafeBufferPointer { crc = crc32(crc, $0.baseAddress, uInt($0.count)) }
        for v in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: input.count)] {
            for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(k)))) }
        }
        return out
    }

    /// Inflates a gzip member (tests and checks read back what was written).
    static func decompress(_ input: [UInt8], file: String) throws -> [UInt8] {
        var s = z_stream()
        var rc = inflateInit2_(&s, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw ArchiveError(file: file, format: "gzip", problem: "inflateInit2 failed with status \(rc)") }
        defer { inflateEnd(&s) }
        var out = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = input
        try input.withUnsafeMutableBufferPointer { inBuf in
            s.next_in = inBuf.baseAddress
            s.avail_in = uInt(inBuf.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { c in
                    s.next_out = c.baseAddress
                    s.avail_out = uInt(c.count)
                    rc = inflate(&s, Z_NO_FLUSH)
                    return c.count - Int(s.avail_out)
                }
                guard rc == Z_OK || rc == Z_STREAM_END else {
                    throw ArchiveError(file: file, format: "gzip", problem: "corrupt data (inflate status \(rc))")
                }
                out += chunk[0..<produced]
                if rc == Z_OK && s.avail_in == 0 && produced == 0 {
                    throw ArchiveError(file: file, format: "gzip", problem: "truncated data")
                }
            } while rc != Z_STREAM_END
        }
        return out
    }
}

/// One zlib deflate stream without a wrapper; ended in deinit.
final class RawDeflate {
    private var stream = z_stream()
    private let file: String

    init(level: Int32, file: String) throws {
        self.file = file
        // windowBits -15: raw deflate, the gzip framing is GzipMember's.
        let rc = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw ArchiveError(file: file, format: "gzip", problem: "deflateInit2 failed with status \(rc)") }
    }

    deinit { deflateEnd(&stream) }

    func deflateAll(_ input: [UInt8]) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        var input = input
        let rc: Int32 = input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = inBuf.baseAddress
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw ArchiveError(file: file, format: "gzip", problem: "deflate failed with status \(rc)") }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }
}
