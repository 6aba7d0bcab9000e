import CXXHash
import Foundation
import Threads

/// PNG files already encoded in this build, by a 128-bit XXH3 hash of their
/// pixels.
///
/// Map tiles repeat far beyond solid colours: a straight wall crossing a tile
/// at the same offset, a corridor edge, a hatch pattern aligned to the pixel
/// grid. On the medium synthetic venue 73,288 PNG tiles have 23,935 distinct
/// contents. Building the palette and deflating are most of a tile's CPU time;
/// hashing its 256 KB of pixels first (about 8 µs a tile with the AVX-512 path,
/// 7 % of a png build's samples; it brings the tile into cache for the palette
/// scan) lets a repeated tile skip both, so each content is encoded once and
/// its bytes shared by every worker. The output does not depend on which worker
/// encoded a content first: compression is deterministic.
///
/// Bounded: only files up to `maxEntryBytes` are kept (repeats are simple
/// tiles), and nothing more is added past `budgetBytes`. A build empties it
/// after each venue (`removeAll`): tiles repeat within a venue, rarely across
/// venues in different places, and a cache kept for the whole build grew
/// with the number of venues up to its budget.
public final class EncodedImageCache: Sendable {
    public struct Key: Hashable, Sendable {
        let low: UInt64, high: UInt64
    }

    public let maxEntryBytes: Int
    public let budgetBytes: Int
    private struct State {
        var files: [Key: Data] = [:]
        var bytes = 0
        var hits = 0
    }
    private let state = Locked(State())

    public init(maxEntryBytes: Int = 16 << 10, budgetBytes: Int = 32 << 20) {
        self.maxEntryBytes = maxEntryBytes
        self.budgetBytes = budgetBytes
    }

    /// Hashes images row by row (a tile inside a metatile canvas is not
    /// contiguous). One per worker: it owns XXH3's streaming state.
    public final class ImageHasher {
        private let state: OpaquePointer

        public init() {
            guard let s = XXH3_createState() else { preconditionFailure("xxhash: out of memory") }
            state = s
        }

        deinit { XXH3_freeState(state) }

        /// libxxhash's dispatching entry point picks AVX2/AVX-512 at run time; the
        /// plain one is built for baseline x86-64 (SSE2) and took 2.5x as long
        /// (13 % of a png build's samples, against 7 %).
        @inline(__always)
        private static func update(_ state: OpaquePointer, _ bytes: UnsafeRawPointer, _ count: Int) {
            #if arch(x86_64)
            _ = XXH3_128bits_update_dispatch(state, bytes, count)
            #else
            _ = XXH3_128bits_update(state, bytes, count)
            #endif
        }

        /// The key of the `width`×`height` image whose first pixel is `pixels[0]`,
        /// rows `rowWords` apart. `encoding` tells apart files of the same
        /// pixels encoded another way (lossless or quantized) in one cache.
        public func key(_ pixels: UnsafeBufferPointer<UInt32>, width: Int, height: Int, rowWords: Int, encoding: UInt16 = 0) -> Key {
            precondition(pixels.count >= (height - 1) * rowWords + width, "image outside the buffer")
            // The size (and encoding) is the seed: equal words at another size are another image.
            XXH3_128bits_reset_withSeed(state, UInt64(width) << 32 | UInt64(encoding) << 16 | UInt64(height))
            let base = pixels.baseAddress!
            for y in 0..<height { ImageHasher.update(state, base + y * rowWords, width * 4) }
            let h = XXH3_128bits_digest(state)
            return Key(low: h.low64, high: h.high64)
        }
    }

    public func file(for key: Key) -> Data? {
        state.withLock { s in
            guard let d = s.files[key] else { return nil }
            s.hits += 1
            return d
        }
    }

    public func insert(_ file: Data, for key: Key) {
        guard file.count <= maxEntryBytes else { return }
        state.withLock { s in
            guard s.bytes + file.count <= budgetBytes, s.files[key] == nil else { return }
            s.files[key] = file
            s.bytes += file.count
        }
    }

    /// Forgets every file (the hit count stays) and frees their memory.
    public func removeAll() {
        state.withLock { s in
            s.files = [:]
            s.bytes = 0
        }
    }

    /// Encodings saved so far.
    public var hits: Int { state.withLock { $0.hits } }
}
