import CImageQuant
import Foundation

/// A libimagequant failure: the call that failed and the library's status.
public struct QuantizeError: Error, CustomStringConvertible, Equatable {
    public enum Code: Equatable, Sendable {
        /// The best palette missed the minimum quality (`Settings.minQuality`).
        case qualityTooLow
        case valueOutOfRange, outOfMemory, aborted, bitmapNotAvailable, bufferTooSmall, invalidPointer, unsupported
        case other(Int32)

        init(_ e: liq_error) {
            switch e {
            case LIQ_QUALITY_TOO_LOW: self = .qualityTooLow
            case LIQ_VALUE_OUT_OF_RANGE: self = .valueOutOfRange
            case LIQ_OUT_OF_MEMORY: self = .outOfMemory
            case LIQ_ABORTED: self = .aborted
            case LIQ_BITMAP_NOT_AVAILABLE: self = .bitmapNotAvailable
            case LIQ_BUFFER_TOO_SMALL: self = .bufferTooSmall
            case LIQ_INVALID_POINTER: self = .invalidPointer
            case LIQ_UNSUPPORTED: self = .unsupported
            default: self = .other(Int32(bitPattern: e.rawValue))
            }
        }
    }
    public let operation: String
    public let code: Code

    public var description: String { "libimagequant: \(operation) failed: \(code)" }
}

/// Reduces a straight-RGBA image to at most 256 colours with libimagequant.
///
/// One per worker thread (it owns libimagequant's settings object). The bytes
/// it gives depend only on the pixels and `Settings`: libimagequant 2.x runs
/// its k-means and remapping loops under OpenMP, summing per-thread float
/// accumulators whose split depends on the number of threads (so on the
/// machine's cores); `quantize` limits the calling thread to one OpenMP thread
/// first, which also keeps a build to `--jobs` busy cores.
public final class ImageQuantizer {
    public struct Settings: Hashable, Sendable {
        /// libimagequant's speed, 1 (slowest, best) … 10.
        public var speed: Int
        /// 0…100: below `minQuality` the image is not reduced (`qualityTooLow`);
        /// `maxQuality` lets it use fewer colours when they are enough.
        public var minQuality: Int
        public var maxQuality: Int
        /// Floyd–Steinberg dithering level, 0 (none) … 1.
        public var dithering: Float

        public init(speed: Int, minQuality: Int, maxQuality: Int, dithering: Float) {
            self.speed = speed; self.minQuality = minQuality; self.maxQuality = maxQuality; self.dithering = dithering
        }

        /// What the tiles use; chosen by measurement (bench/quantize.md).
        public static let tiles = Settings.tiles(quality: 100)

        /// The tiles' settings with `quality` as the maximum (pipeline.json
        /// `quality`): below 100 libimagequant stops adding colours once the
        /// image is that close, and palettes of ≤ 256 colours are reduced too.
        public static func tiles(quality: Int) -> Settings {
            Settings(speed: 4, minQuality: 0, maxQuality: quality, dithering: 0)
        }

        /// Whether an image that already has at most 256 colours is reduced as well.
        public var reducesPalettes: Bool { maxQuality < 100 }

        /// The settings and the library version, for tile input keys: either changes the bytes.
        public var keyDescription: String {
            "liq\(liq_version())-s\(speed)-q\(minQuality)-\(maxQuality)-d\(dithering)"
        }
    }

    public let settings: Settings
    private let attr: OpaquePointer

    public init(_ settings: Settings = .tiles) throws {
        guard let a = liq_attr_create() else { throw QuantizeError(operation: "create settings", code: .outOfMemory) }
        attr = a
        self.settings = settings
        try check("set speed \(settings.speed)", liq_set_speed(a, Int32(settings.speed)))
        try check("set quality \(settings.minQuality)…\(settings.maxQuality)",
                  liq_set_quality(a, Int32(settings.minQuality), Int32(settings.maxQuality)))
        try check("set 256 colours", liq_set_max_colors(a, 256))
        guard (0...1).contains(settings.dithering) else {
            throw QuantizeError(operation: "set dithering \(settings.dithering)", code: .valueOutOfRange)
        }
    }

    deinit { liq_attr_destroy(attr) }

    /// Reduces `width`×`height` straight RGBA pixels (4 bytes each, rows
    /// contiguous) to a palette of straight RGBA words (r in the high byte),
    /// writing one palette index per pixel into `indices`.
    public func quantize(rgba: UnsafePointer<UInt8>, width: Int, height: Int,
                         into indices: UnsafeMutablePointer<UInt8>) throws -> [UInt32] {
        OpenMP.singleThread()
        guard let img = liq_image_create_rgba(attr, rgba, Int32(width), Int32(height), 0) else {
            throw QuantizeError(operation: "read a \(width)×\(height) image", code: .invalidPointer)
        }
        let image = Owned(img, liq_image_destroy)
        var res: OpaquePointer?
        try check("quantize", liq_image_quantize(image.handle, attr, &res))
        guard let r = res else { throw QuantizeError(operation: "quantize", code: .invalidPointer) }
        let result = Owned(r, liq_result_destroy)
        try check("set dithering", liq_set_dithering_level(result.handle, settings.dithering))
        try check("remap", liq_write_remapped_image(result.handle, image.handle, indices, width * height))
        // The palette after remapping: remapping refines the colours.
        return try palette(result.handle)
    }

    /// Reduces an image's exact colours (straight RGBA words, `counts[i]`
    /// pixels of `colors[i]`) to a palette: libimagequant clusters the
    /// colours, weighted by the root of their counts, and each colour goes
    /// to its nearest palette entry.
    /// Returns the palette and, per input colour, its index in it. Costs
    /// nothing per pixel: the caller maps its index rows through `map`.
    public func reduce(colors: [UInt32], counts: [UInt32]) throws -> (palette: [UInt32], map: [UInt8]) {
        precondition(colors.count == counts.count && colors.count <= 256, "\(colors.count) colours, \(counts.count) counts")
        OpenMP.singleThread()
        guard let h = liq_histogram_create(attr) else { throw QuantizeError(operation: "create a histogram", code: .outOfMemory) }
        let histogram = Owned(h, liq_histogram_destroy)
        var entries = [liq_histogram_entry]()
        entries.reserveCapacity(colors.count)
        for (c, n) in zip(colors, counts) {
            let r = UInt8(c >> 24), g = UInt8((c >> 16) & 0xFF), b = UInt8((c >> 8) & 0xFF), a = UInt8(c & 0xFF)
            // Weighted by the square root of the count: a thin wall or outline, a few
            // hundred pixels beside fills of tens of thousands, still earns its own
            // entry. Weighted by the count, quality 90 merged such lines into the fill
            // (131 realistic tiles below SSIM 0.99; with the root none, bench/quantize.md).
            entries.append(liq_histogram_entry(color: liq_color(r: r, g: g, b: b, a: a), count: UInt32(Double(n).squareRoot().rounded(.up))))
        }
        try check("add \(colors.count) colours", liq_histogram_add_colors(histogram.handle, attr, entries, Int32(entries.count), 0))
        var res: OpaquePointer?
        try check("quantize \(colors.count) colours", liq_histogram_quantize(histogram.handle, attr, &res))
        guard let r = res else { throw QuantizeError(operation: "quantize", code: .invalidPointer) }
        let result = Owned(r, liq_result_destroy)
        let pal = try palette(result.handle)
        let map = colors.map { ImageQuantizer.nearest($0, in: pal) }
        return (pal, map)
    }

    /// The index of the entry of `palette` nearest to `c` (the first of equals):
    /// libimagequant's colour difference, the larger squared error of the two
    /// colours premultiplied and seen over black or over white, per channel.
    static func nearest(_ c: UInt32, in palette: [UInt32]) -> UInt8 {
        @inline(__always) func channels(_ w: UInt32) -> (Int, Int, Int, Int) {
            let a = Int(w & 0xFF)
            return (Int(w >> 24) * a, Int((w >> 16) & 0xFF) * a, Int((w >> 8) & 0xFF) * a, a * 255)
        }
        let (r, g, b, a) = channels(c)
        var best = 0, bestDistance = Int.max
        for (i, p) in palette.enumerated() {
            let (pr, pg, pb, pa) = channels(p)
            let alphas = pa - a
            @inline(__always) func channel(_ black: Int) -> Int { let white = black + alphas; return max(black * black, white * white) }
            let d = channel(r - pr) + channel(g - pg) + channel(b - pb)
            if d < bestDistance { bestDistance = d; best = i }
        }
        return UInt8(best)
    }

    private func palette(_ result: OpaquePointer) throws -> [UInt32] {
        guard let pal = liq_get_palette(result) else { throw QuantizeError(operation: "read the palette", code: .invalidPointer) }
        let count = Int(pal.pointee.count)
        return withUnsafeBytes(of: pal.pointee.entries) { raw in
            let c = raw.bindMemory(to: liq_color.self)
            return (0..<count).map { UInt32(c[$0].r) << 24 | UInt32(c[$0].g) << 16 | UInt32(c[$0].b) << 8 | UInt32(c[$0].a) }
        }
    }

    private func check(_ operation: String, _ e: liq_error) throws {
        guard e == LIQ_OK else { throw QuantizeError(operation: operation, code: QuantizeError.Code(e)) }
    }
}

/// A libimagequant object destroyed with its owner.
private final class Owned {
    let handle: OpaquePointer
    private let destroy: (OpaquePointer) -> Void
    init(_ handle: OpaquePointer, _ destroy: @escaping (OpaquePointer) -> Void) { self.handle = handle; self.destroy = destroy }
    deinit { destroy(handle) }
}

/// The OpenMP runtime libimagequant was built with, if any (Debian's links
/// libgomp). Found at run time: libgomp has no pkg-config file, and a
/// libimagequant built without OpenMP has no threads to limit.
enum OpenMP {
    private typealias SetThreads = @convention(c) (Int32) -> Void
    private typealias GetThreads = @convention(c) () -> Int32
    private static let set: SetThreads? = dlsym(nil, "omp_set_num_threads")
        .map { unsafeBitCast($0, to: SetThreads.self) }
    private static let get: GetThreads? = dlsym(nil, "omp_get_max_threads")
        .map { unsafeBitCast($0, to: GetThreads.self) }

    /// The calling thread's parallel regions get one thread (an OpenMP
    /// setting of the thread, not of the process).
    static func singleThread() { set?(1) }

    /// Threads the calling thread's next parallel region may use (1 without OpenMP).
    static func maxThreads() -> Int { get.map { Int($0()) } ?? 1 }
}
