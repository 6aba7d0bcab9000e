import Foundation
import XCTest
@testable import Clients

/// A glyph PBF read back with an independent protobuf reader.
struct DecodedGlyphs {
    struct Glyph { var id: UInt32; var bitmap: [UInt8]; var width: Int; var height: Int; var left: Int; var top: Int; var advance: Int }
    var name = "", range = ""
    var glyphs = [UInt32: Glyph]()

    init(_ bytes: [UInt8]) throws {
        var root = Reader(bytes: bytes[...])
        while let (field, value) = try root.next() {
            guard field == 1, case .bytes(let stack) = value else { continue }
            var s = Reader(bytes: stack)
            while let (f, v) = try s.next() {
                switch (f, v) {
                case (1, .bytes(let b)): name = String(decoding: b, as: UTF8.self)
                case (2, .bytes(let b)): range = String(decoding: b, as: UTF8.self)
                case (3, .bytes(let b)):
                    var g = Glyph(id: 0, bitmap: [], width: 0, height: 0, left: 0, top: 0, advance: 0)
                    var r = Reader(bytes: b)
                    while let (gf, gv) = try r.next() {
                        switch (gf, gv) {
                        case (1, .varint(let n)): g.id = UInt32(n)
                        case (2, .bytes(let bm)): g.bitmap = Array(bm)
                        case (3, .varint(let n)): g.width = Int(n)
                        case (4, .varint(let n)): g.height = Int(n)
                        case (5, .varint(let n)): g.left = Reader.zigzag(n)
                        case (6, .varint(let n)): g.top = Reader.zigzag(n)
                        case (7, .varint(let n)): g.advance = Int(n)
                        default: throw DecodeError.unexpected("glyph field \(gf)")
                        }
                    }
                    glyphs[g.id] = g
                default: throw DecodeError.unexpected("fontstack field \(f)")
                }
            }
        }
    }

    enum DecodeError: Error { case truncated, unexpected(String) }
    enum Value { case varint(UInt64), bytes(ArraySlice<UInt8>) }

    struct Reader {
        var bytes: ArraySlice<UInt8>
        static func zigzag(_ n: UInt64) -> Int { Int(Int64(bitPattern: n >> 1) ^ -Int64(bitPattern: n & 1)) }
        mutating func varint() throws -> UInt64 {
            var v: UInt64 = 0, shift: UInt64 = 0
            while true {
                guard let b = bytes.popFirst() else { throw DecodeError.truncated }
                v |= UInt64(b & 0x7F) << shift
                if b < 0x80 { return v }
                shift += 7
            }
        }
        mutating func next() throws -> (Int, Value)? {
            guard !bytes.isEmpty else { return nil }
            let key = try varint()
            switch key & 7 {
            case 0: return (Int(key >> 3), .varint(try varint()))
            case 2:
                let n = Int(try varint())
                guard bytes.count >= n else { throw DecodeError.truncated }
                let b = bytes.prefix(n); bytes = bytes.dropFirst(n)
                return (Int(key >> 3), .bytes(b))
            default: throw DecodeError.unexpected("wire type \(key & 7)")
            }
        }
    }
}

final class GlyphTests: XCTestCase {
    static let catalog = Result { try FontCatalog() }

    func catalog() throws -> FontCatalog {
        let c = try Self.catalog.get()
        XCTAssertNotNil(c["DejaVu Sans"], "fonts-dejavu-core is installed by scripts/setup")
        return c
    }

    func decode(_ r: GlyphFiles.Result) throws -> [String: DecodedGlyphs] {
        var out = [String: DecodedGlyphs]()
        for f in r.files { out[f.path] = try DecodedGlyphs(Array(f.data)) }
        return out
    }

    func testEveryLabelCharacterIsCoveredWithMapLibreMetrics() throws {
        let labels = ["Lighthouse Optics", "Café Ünïcödé — 12/3", "Київ Вокзал", "Ελληνικά"]
        let start = Date()
        let r = try GlyphFiles.make(fontstacks: ["DejaVu Sans"], texts: labels, catalog: catalog())
        print("GlyphTests: \(r.files.count) ranges in \(String(format: "%.2f", Date().timeIntervalSince(start))) s: "
              + r.files.map { "\($0.path.split(separator: "/").last!) \($0.data.count) B" }.joined(separator: ", "))
        XCTAssertEqual(r.missing, [:])
        let files = try decode(r)
        // Latin (0), Latin Extended/General Punctuation (32 = 8192..), Cyrillic (4), Greek (3).
        XCTAssertEqual(Set(files.keys), ["glyphs/DejaVu Sans/0-255.pbf", "glyphs/DejaVu Sans/768-1023.pbf",
                                         "glyphs/DejaVu Sans/1024-1279.pbf", "glyphs/DejaVu Sans/8192-8447.pbf"])
        for (path, g) in files {
            XCTAssertEqual(g.name, "DejaVu Sans")
            XCTAssertTrue(path.hasSuffix("/\(g.range).pbf"), path)
        }
        let all = files.values.reduce(into: [UInt32: DecodedGlyphs.Glyph]()) { $0.merge($1.glyphs) { a, _ in a } }
        for ch in labels.joined().unicodeScalars {
            XCTAssertNotNil(all[ch.value], "no glyph for \(ch) U+\(String(ch.value, radix: 16))")
        }
        for g in all.values where !g.bitmap.isEmpty {
            XCTAssertEqual(g.bitmap.count, (g.width + 6) * (g.height + 6), "U+\(String(g.id, radix: 16))")
            XCTAssertLessThanOrEqual(g.width, 48); XCTAssertLessThanOrEqual(g.height, 48)
        }
        // 24 px DejaVu Sans: 'H' is about 17.5 px tall, 'M' advances about 20.7 px, the space has no bitmap.
        let h = try XCTUnwrap(all[UInt32(("H" as Unicode.Scalar).value)])
        XCTAssertTrue((17...18).contains(h.height), "H height \(h.height)")
        XCTAssertTrue((1...3).contains(h.left), "H left \(h.left)")
        let ascender = 22   // DejaVu Sans: 0.928 em
        XCTAssertEqual(h.top, h.height - ascender, accuracy: 1)
        XCTAssertTrue((20...21).contains(all[77]!.advance), "M advance \(all[77]!.advance)")
        XCTAssertTrue(all[32]!.bitmap.isEmpty); XCTAssertTrue((7...8).contains(all[32]!.advance))
        // A descender reaches below the baseline: 'p' is taller than its part above it.
        let p = all[112]!
        XCTAssertGreaterThan(p.height + p.top, -ascender + 14)
    }

    func testDistanceFieldHasTheEdgeAt192() throws {
        let r = try GlyphFiles.make(fontstacks: ["DejaVu Sans"], texts: ["l"], catalog: catalog())
        let g = try XCTUnwrap(try decode(r)["glyphs/DejaVu Sans/0-255.pbf"]?.glyphs[108])
        let w = g.width + 6
        // Corners are in the buffer, far outside: small values. The middle of the stem is inside: above the edge.
        XCTAssertLessThan(g.bitmap[0], 100)
        XCTAssertLessThan(g.bitmap[g.bitmap.count - 1], 100)
        let mid = g.bitmap[(3 + g.height / 2) * w + w / 2]
        XCTAssertGreaterThan(mid, 192)
        // Across a row through the stem the values rise to the middle and fall: one crossing of 192 each way.
        let row = Array(g.bitmap[((3 + g.height / 2) * w)..<((4 + g.height / 2) * w)])
        let crossings = zip(row, row.dropFirst()).filter { ($0 < 192) != ($1 < 192) }.count
        XCTAssertEqual(crossings, 2, "\(row)")
    }

    func testSameBytesEveryTimeAndMissingCharactersReported() throws {
        let texts = ["Gate 12", "Salle \u{10FFFD}"]
        let a = try GlyphFiles.make(fontstacks: ["DejaVu Sans"], texts: texts, catalog: catalog())
        let b = try GlyphFiles.make(fontstacks: ["DejaVu Sans"], texts: texts, catalog: catalog())
        XCTAssertEqual(a.files.map(\.path), b.files.map(\.path))
        XCTAssertEqual(a.files.map(\.data), b.files.map(\.data))
        XCTAssertEqual(a.missing["DejaVu Sans"], ["\u{10FFFD}"])
    }

    func testUnknownFontIsAnErrorNamingIt() throws {
        XCTAssertThrowsError(try GlyphFiles.make(fontstacks: ["No Such Sans"], texts: ["a"], catalog: catalog())) { e in
            XCTAssertTrue("\(e)".contains("No Such Sans"), "\(e)")
        }
    }

    func testBoldFaceIsFoundByName() throws {
        let c = try catalog()
        XCTAssertNotNil(c["DejaVu Sans Bold"])
        XCTAssertNotEqual(c["DejaVu Sans Bold"], c["DejaVu Sans"])
    }
}
