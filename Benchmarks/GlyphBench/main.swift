import Clients
import Foundation

// SDF glyph generation as a build does it: the label texts of a built venue
// (the `name`s in its floors' labels are not kept in the output, so the texts
// are read from a file, one label a line) or the printable Latin-1 set, for a
// font name. Usage: glyph-bench [--font NAME] [LABELS.txt] [REPEATS]
var args = Array(CommandLine.arguments.dropFirst())
var font = "DejaVu Sans"
if let i = args.firstIndex(of: "--font"), i + 1 < args.count { font = args[i + 1]; args.removeSubrange(i...(i + 1)) }
let texts: [String]
if let path = args.first, let text = try? String(contentsOfFile: path, encoding: .utf8) {
    texts = text.split(separator: "\n").map(String.init)
} else {
    texts = [String(String.UnicodeScalarView((0x20...0x7E).compactMap(Unicode.Scalar.init)))]
}
let repeats = args.count > 1 ? Int(args[1]) ?? 3 : 3
let catalogStart = Date()
let catalog = try FontCatalog()
print(String(format: "font catalog: %d names in %.3f s", catalog.fonts.count, Date().timeIntervalSince(catalogStart)))
var best = Double.infinity
var result: GlyphFiles.Result?
for _ in 0..<repeats {
    let start = Date()
    result = try GlyphFiles.make(fontstacks: [font], texts: texts, catalog: catalog)
    best = min(best, Date().timeIntervalSince(start))
}
let files = result!.files
print(String(format: "%@: %d ranges, %d bytes, best of %d: %.3f s (%.1f ms per range)", font, files.count,
             files.reduce(0) { $0 + $1.data.count }, repeats, best, best * 1000 / Double(files.count)))
for f in files { print("  \(f.path) \(f.data.count) B") }
