import Foundation
import Threads

/// Installed fonts by the names a style uses: "DejaVu Sans" (the regular
/// face of a family) and "DejaVu Sans Bold" (family + style).
public struct FontCatalog: Sendable {
    public struct Entry: Sendable, Equatable { public var path: String; public var faceIndex: Int }
    public private(set) var fonts = [String: Entry]()

    public static let defaultDirectories = ["/usr/share/fonts", "/usr/local/share/fonts"]

    /// Every TrueType / OpenType file under `directories`, in path order (the
    /// first file naming a font wins, so the result does not depend on the
    /// order the file system lists them in).
    public init(directories: [String] = FontCatalog.defaultDirectories) throws {
        let lib = try FreeTypeLibrary()
        var paths = [String]()
        for dir in directories {
            guard let e = FileManager.default.enumerator(atPath: dir) else { continue }
            for case let rel as String in e where [".ttf", ".otf", ".ttc"].contains(where: { rel.lowercased().hasSuffix($0) }) {
                paths.append(dir + "/" + rel)
            }
        }
        for path in paths.sorted() {
            // A damaged font file is skipped: it cannot serve any name.
            guard let first = try? FontFace(path: path, library: lib) else { continue }
            let count = max(1, Int(first.handle.pointee.num_faces))
            for i in 0..<count {
                let opened: FontFace? = i == 0 ? first : try? FontFace(path: path, index: i, library: lib)
                guard let face = opened, face.isScalable else { continue }
                let family = face.familyName, style = face.styleName
                if fonts["\(family) \(style)"] == nil { fonts["\(family) \(style)"] = Entry(path: path, faceIndex: i) }
                if ["Regular", "Book", "Normal", "Roman"].contains(style), fonts[family] == nil {
                    fonts[family] = Entry(path: path, faceIndex: i)
                }
            }
        }
    }

    public subscript(name: String) -> Entry? { fonts[name] }
}

/// MapLibre glyph files (`glyphs/{fontstack}/{start}-{end}.pbf`) for the
/// fonts a style names and the characters its labels use.
public enum GlyphFiles {
    public struct Result: Sendable {
        public var files: [(path: String, data: Data)]
        /// Characters of the labels no installed font has, per fontstack.
        public var missing: [String: [Character]]
    }

    /// The 256-code-point blocks a text set needs; block 0 (Basic Latin,
    /// digits, Latin-1) always, since MapLibre asks for it for any label.
    public static func ranges(for texts: [String]) -> [ClosedRange<UInt32>] {
        var blocks: Set<UInt32> = [0]
        for t in texts { for s in t.unicodeScalars { blocks.insert(s.value / 256) } }
        return blocks.sorted().map { $0 * 256...$0 * 256 + 255 }
    }

    /// Each range holds every code point of it that the named font has, and
    /// the label characters it lacks taken from the first other installed
    /// font (by name) that has them. Ranges are made in parallel, each with
    /// its own FreeType library; the bytes do not depend on the thread count.
    public static func make(fontstacks: [String], texts: [String], catalog: FontCatalog) throws -> Result {
        let wanted = Set(texts.flatMap { $0.unicodeScalars.map(\.value) })
        let ranges = ranges(for: texts)
        var files = [(path: String, data: Data)]()
        var missing = [String: [Character]]()
        for stack in fontstacks.sorted() {
            guard let primary = catalog[stack] else {
                throw FontError(file: stack, operation: "find an installed font named \"\(stack)\" for the MapLibre glyphs", code: 0)
            }
            let fallbacks = catalog.fonts.keys.sorted().filter { $0 != stack }.compactMap { catalog[$0] }
            // The first error by range, not by time: the same one whatever the scheduling.
            let made = Workers.map(ranges.count, workers: ProcessInfo.processInfo.activeProcessorCount, placeholder: Swift.Result<Result, Error>?.none) { _, i in
                Swift.Result { try makeRange(ranges[i], stack: stack, primary: primary, fallbacks: fallbacks, wanted: wanted) }
            }
            for m in made {
                let r = try m!.get()
                files += r.files; missing[stack, default: []] += r.missing[stack] ?? []
            }
        }
        return Result(files: files, missing: missing.filter { !$0.value.isEmpty })
    }

    static func makeRange(_ range: ClosedRange<UInt32>, stack: String, primary: FontCatalog.Entry,
                          fallbacks: [FontCatalog.Entry], wanted: Set<UInt32>) throws -> Result {
        let lib = try FreeTypeLibrary()
        let face = try FontFace(path: primary.path, index: primary.faceIndex, library: lib)
        try face.setPixelSize(SDFParameters.fontSize)
        var glyphs = [SDFGlyph]()
        var lacking = [UInt32]()
        for cp in range {
            if let o = try face.outline(cp) {
                glyphs.append(SDFRenderer.render(o, codePoint: cp, ascender: face.ascender))
            } else if wanted.contains(cp) { lacking.append(cp) }
        }
        var missing = [Character]()
        var opened = [String: FontFace]()
        for cp in lacking {
            var found = false
            for fb in fallbacks {
                let key = "\(fb.path)#\(fb.faceIndex)"
                let f: FontFace
                if let o = opened[key] { f = o } else {
                    f = try FontFace(path: fb.path, index: fb.faceIndex, library: lib)
                    try f.setPixelSize(SDFParameters.fontSize)
                    opened[key] = f
                }
                if let o = try f.outline(cp) {
                    glyphs.append(SDFRenderer.render(o, codePoint: cp, ascender: face.ascender)); found = true; break
                }
            }
            if !found, let s = Unicode.Scalar(cp), !s.properties.isWhitespace, s.properties.generalCategory != .control {
                missing.append(Character(s))
            }
        }
        let path = "glyphs/\(stack)/\(range.lowerBound)-\(range.upperBound).pbf"
        return Result(files: [(path, GlyphPBF.encode(fontstack: stack, range: range, glyphs: glyphs))], missing: [stack: missing])
    }
}
