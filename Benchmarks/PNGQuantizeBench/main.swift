import Foundation
import Rendering

// Quantized PNG tiles from a lossless build, without wiring a build: every PNG
// under IN is decoded (Cairo gives back the premultiplied pixels the renderer
// had; the tool checks that the lossless encoder gives the file's bytes again,
// so the pixels are the renderer's) and encoded again as the build would with
// `"quantize": true`, into the same path under OUT. Prints tiles, bytes before
// and after, and how many tiles were reduced.
//
//   png-quantize-bench IN OUT [--speed N] [--dither X] [--min-quality Q] [--quality Q] [--compression fast|small]
//   png-quantize-bench IN --encode lossless|quantized|none [--every N] [--quality Q] [--compression fast|small]
//
// `--quality` is pipeline.json's `quality` (libimagequant's maximum), and
// `--compression` its `compression`.
//
// `--encode` runs one encoder over the distinct tiles and writes nothing: run
// it under `perf stat -e instructions` and subtract the `none` run (decoding
// only) to get the instructions of encoding. `--every N` takes every Nth
// distinct tile (in path order), for instruction counts under callgrind where
// perf has no counters.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("png-quantize-bench: \(message)\n".utf8))
    exit(2)
}

var args = Array(CommandLine.arguments.dropFirst())
var settings = ImageQuantizer.Settings.tiles
var encodeOnly: String?
func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value") }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}
if let s = option("--speed") { guard let v = Int(s) else { fail("--speed \(s): expected 1…10") }; settings.speed = v }
if let d = option("--dither") { guard let v = Float(d) else { fail("--dither \(d): expected 0…1") }; settings.dithering = v }
if let q = option("--min-quality") { guard let v = Int(q) else { fail("--min-quality \(q): expected 0…100") }; settings.minQuality = v }
if let q = option("--quality") { guard let v = Int(q), (1...100).contains(v) else { fail("--quality \(q): expected 1…100") }; settings.maxQuality = v }
var compression = PNGEncoder.Compression.fast
if let c = option("--compression") { guard let v = PNGEncoder.Compression(rawValue: c) else { fail("--compression \(c): expected fast or small") }; compression = v }
encodeOnly = option("--encode")
var every = 1
if let e = option("--every") { guard let v = Int(e), v >= 1 else { fail("--every \(e): expected a whole number ≥ 1") }; every = v }
guard args.count == (encodeOnly == nil ? 2 : 1) else {
    fail("usage: png-quantize-bench IN OUT [--speed N] [--dither X] [--min-quality Q] [--quality Q] [--compression fast|small]"
         + " | IN --encode lossless|quantized|none [--every N] [--quality Q] [--compression fast|small]")
}
let input = args[0]

/// Every PNG under the folder, sorted (the same order every run).
let files = (FileManager.default.enumerator(atPath: input)?.compactMap { $0 as? String } ?? [])
    .filter { $0.hasSuffix(".png") }.sorted()
guard !files.isEmpty else { fail("no PNG files under \(input)") }

let quantizer = try ImageQuantizer(settings)
let encoder = PNGEncoder(compression: compression)
/// The build's lossless encoder, to check that a decoded tile gives its file back.
let checker = PNGEncoder()

/// Decodes a tile into tightly packed premultiplied words.
func pixels(_ data: Data) throws -> (words: [UInt32], size: Int) {
    let surface = try ImageSurface.decodePNG(data)
    let w = surface.width, h = surface.height, rowWords = surface.stride / 4
    guard w == h else { fail("a \(w)×\(h) tile: expected square tiles") }
    let words = surface.withPixels { px in
        [UInt32](unsafeUninitializedCapacity: w * h) { buf, n in
            for y in 0..<h { (buf.baseAddress! + y * w).update(from: px.baseAddress! + y * rowWords, count: w) }
            n = w * h
        }
    }
    return (words, w)
}

if let mode = encodeOnly {
    // Distinct tiles only: the build encodes each content once.
    var seen = Set<Data>(), images = [([UInt32], Int)]()
    for rel in files {
        let data = try Data(contentsOf: URL(fileURLWithPath: input + "/" + rel))
        if seen.insert(data).inserted, (seen.count - 1) % every == 0 { images.append(try pixels(data)) }
    }
    var bytes = 0
    for (words, size) in images {
        bytes += try words.withUnsafeBufferPointer { px in
            switch mode {
            case "lossless": return encoder.encode(pixels: px, width: size, height: size, stride: size * 4).count
            case "quantized": return try encoder.encode(pixels: px, width: size, height: size, stride: size * 4, reducingWith: quantizer).count
            case "none": return 0
            default: fail("--encode \(mode): expected lossless, quantized or none")
            }
        }
    }
    print("\(images.count) distinct tiles encoded (\(mode)): \(bytes) bytes")
    exit(0)
}

let output = args[1]
var before = 0, after = 0, reduced = 0, mismatched = 0
var done = [Data: Data]()
for rel in files {
    let data = try Data(contentsOf: URL(fileURLWithPath: input + "/" + rel))
    let out: Data
    if let d = done[data] {
        out = d
    } else {
        let (words, size) = try pixels(data)
        let (lossless, quantized) = try words.withUnsafeBufferPointer { px in
            (checker.encode(pixels: px, width: size, height: size, stride: size * 4),
             try encoder.encode(pixels: px, width: size, height: size, stride: size * 4, reducingWith: quantizer))
        }
        if lossless != data { mismatched += 1 }
        if quantized != lossless { reduced += 1 }
        out = quantized
        done[data] = out
    }
    before += data.count
    after += out.count
    let path = output + "/" + rel
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try out.write(to: URL(fileURLWithPath: path))
}
print("tiles \(files.count) distinct \(done.count) reduced \(reduced) lossless_bytes \(before) quantized_bytes \(after) " +
      "bytes_per_tile \(before / files.count) -> \(after / files.count) not_reencoded_equal \(mismatched) settings \(settings.keyDescription) \(compression)")
if mismatched > 0 {
    FileHandle.standardError.write(Data("png-quantize-bench: \(mismatched) tiles decoded to pixels the lossless encoder does not write back to the same bytes\n".utf8))
}
