import CDeflate
import Foundation

/// libdeflate's zlib compressor at one level, for `PNGEncoder.Compression.small`.
///
/// Why beside `ScanlineDeflater`: that parser is greedy and fast; libdeflate's
/// matcher searches longer hash chains and, at level 9, parses lazily with
/// more lookahead: on quantized realistic tiles its IDAT is 29 % smaller
/// (bench/quantize.md), for more CPU.
/// Deterministic: libdeflate's output depends only on the input and the level.
///
/// One per worker thread: it owns the compressor and its output buffer.
public final class LibdeflateCompressor {
    /// The library's version, for tile input keys: another version may write other bytes.
    public static let version: String = LIBDEFLATE_VERSION_STRING
    public let level: Int
    private let handle: OpaquePointer
    private var output = Buffer<UInt8>()

    /// `level`: 1…12.
    public init(level: Int) {
        precondition((1...12).contains(level), "libdeflate level \(level) not in 1…12")
        guard let h = libdeflate_alloc_compressor(Int32(level)) else { preconditionFailure("libdeflate: out of memory") }
        handle = h
        self.level = level
    }

    deinit {
        libdeflate_free_compressor(handle)
        output.free()
    }

    /// The zlib stream (RFC 1950) of `data`.
    public func compress(_ data: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let bound = libdeflate_zlib_compress_bound(handle, data.count)
        let out = output.reserve(bound)
        let n = libdeflate_zlib_compress(handle, data.baseAddress, data.count, out, bound)
        precondition(n > 0, "libdeflate: \(data.count) bytes did not fit their bound of \(bound)")
        return Array(UnsafeBufferPointer(start: out, count: n))
    }
}
