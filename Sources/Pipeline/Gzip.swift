import CZlib
import Foundation

public struct GzipError: Error, CustomStringConvertible {
    public var code: Int32
    public var description: String { "zlib: deflate failed with status \(code)" }
}

/// gzip (RFC 1952) through zlib. The header carries no name and mtime 0, so
/// the same bytes in give the same bytes out.
public enum Gzip {
    public static func compress(_ input: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        var s = z_stream()
        // windowBits 15 + 16 selects the gzip wrapper.
        var rc = deflateInit2_(&s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw GzipError(code: rc) }
        defer { deflateEnd(&s) }
        let bound = Int(deflateBound(&s, uLong(input.count))) + 32
        var out = [UInt8](repeating: 0, count: bound)
        var input = input
        rc = input.withUnsafeMutableBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                s.next_in = inBuf.baseAddress
                s.avail_in = uInt(inBuf.count)
                s.next_out = outBuf.baseAddress
                s.avail_out = uInt(outBuf.count)
                return deflate(&s, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw GzipError(code: rc) }
        out.removeSubrange(Int(s.total_out)...)
        return out
    }

    public static func isGzip(_ d: [UInt8]) -> Bool { d.count > 2 && d[0] == 0x1F && d[1] == 0x8B }
}
