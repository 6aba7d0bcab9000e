import Foundation
import Rendering

// PNG encoding on real tiles: decodes every PNG under a built output folder
// (Cairo gives back the premultiplied pixels the renderer had) and times
// `PNGEncoder` on the distinct non-solid ones. Usage: png-encode-bench DIR [REPEATS]
let args = CommandLine.arguments
guard args.count >= 2 else {
    FileHandle.standardError.write("usage: png-encode-bench OUTPUT_DIR [REPEATS]\n".data(using: .utf8)!)
    exit(2)
}
let repeats = args.count > 2 ? Int(args[2]) ?? 5 : 5
var seen = Set<Data>()
var images = [[UInt32]]()
var size = 0
let walker = FileManager.default.enumerator(atPath: args[1])!
for case let rel as String in walker where rel.hasSuffix(".png") {
    let data = try Data(contentsOf: URL(fileURLWithPath: args[1] + "/" + rel))
    // Solid tiles are a few dozen bytes; they never reach the encoder twice.
    guard data.count > 120, seen.insert(data).inserted else { continue }
    let surface = try ImageSurface.decodePNG(data)
    size = surface.width
    let w = surface.width, rowWords = surface.stride / 4
    images.append(surface.withPixels { px in
        [UInt32](unsafeUninitializedCapacity: w * surface.height) { buf, n in
            for y in 0..<surface.height { (buf.baseAddress! + y * w).update(from: px.baseAddress! + y * rowWords, count: w) }
            n = w * surface.height
        }
    })
}
func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9 }
let encoder = PNGEncoder()
var times = [Double](), bytes = 0
for _ in 0..<repeats {
    let t0 = now()
    bytes = 0
    for image in images {
        bytes += image.withUnsafeBufferPointer { encoder.encode(pixels: $0, width: size, height: size, stride: size * 4).count }
    }
    times.append(now() - t0)
}
let median = times.sorted()[times.count / 2]
print(String(format: "%d distinct tiles of %d px: median %.3f s of %d (%.1f µs/tile), %.2f MB",
             images.count, size, median, repeats, median / Double(images.count) * 1e6, Double(bytes) / 1e6))
