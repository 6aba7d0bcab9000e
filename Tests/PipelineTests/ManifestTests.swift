import Foundation
import Pipeline
import XCTest

final class ManifestTests: XCTestCase {
    func testStreamingWriterRoundTrips() throws {
        let m = Manifest(
            generator: .init(name: "venuetiles", version: "9"),
            venues: [],
            tiles: [.init(path: "v/floor_0/png/17/1/2.png", sha256: Digest32(hex: String(repeating: "a", count: 64))!, bytes: 10, key: Digest16(hex: String(repeating: "1", count: 32))),
                    .init(path: "v/floor_m1/mvt/23/\"odd\\name\".pbf", sha256: Digest32(hex: String(repeating: "b", count: 64))!, bytes: 0, key: nil)],
            files: [.init(path: "v/floor_0/png/tilejson.json", sha256: Digest32(hex: String(repeating: "c", count: 64))!, bytes: 5)],
            blank_tiles: [.init(path: "v/floor_0/png/18/3/4.png", key: Digest16(hex: String(repeating: "2", count: 32))!)])
        var out = Data()
        try m.write { out.append($0) }
        XCTAssertEqual(try JSONDecoder().decode(Manifest.self, from: out), m)
        var again = Data()
        try m.write { again.append($0) }
        XCTAssertEqual(out, again)
        XCTAssertEqual(out.last, 0x0A)
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains(#""sha256":"\#(String(repeating: "a", count: 64))""#))
    }

    /// A carried pyramid's lines are copied from the last manifest's text in
    /// pieces, each handed to `written` once out: the bytes are those of
    /// formatting the lines again, whatever the piece size.
    func testCarriedLinesInPiecesGiveTheSameBytes() throws {
        let tiles = (0..<40).map { i in
            Manifest.TileEntry(path: "v/floor_0/mvt/20/\(i)/\(i * 7).pbf", sha256: Digest32(hex: String(repeating: "\(i % 10)", count: 64))!,
                               bytes: i * 13, key: Digest16(hex: String(repeating: "f", count: 32)))
        }
        let m = Manifest(generator: .init(name: "venuetiles", version: "9"), venues: [], tiles: tiles, files: [], blank_tiles: [])
        var plain = Data()
        let ranges = try m.write(workers: 2, segments: [.init(tiles: 0..<15, text: nil), .init(tiles: 15..<40, text: nil)]) { plain.append($0) }
        // The second segment's lines, as a later build finds them in this manifest.
        let carried = Array(plain[ranges[1]])
        for piece in [1, 7, 64, 1 << 20] {
            var out = Data(), pieces = [Range<Int>]()
            try carried.withUnsafeBytes { text in
                _ = try m.write(workers: 2, segments: [.init(tiles: 0..<15, text: nil), .init(tiles: 15..<40, text: text)],
                                written: { p in
                                    let start = p.baseAddress! - text.baseAddress!
                                    pieces.append(start..<(start + p.count))
                                }, pieceBytes: piece) { out.append($0) }
            }
            XCTAssertEqual(out, plain, "pieces of \(piece)")
            // Every byte of the carried text handed back once, in order.
            XCTAssertEqual(pieces.first?.lowerBound, 0)
            XCTAssertEqual(pieces.last?.upperBound, carried.count)
            XCTAssertTrue(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
            XCTAssertTrue(pieces.allSatisfy { $0.count <= piece })
        }
    }

    func testDigestsRoundTripThroughHex() {
        let bytes = (0..<32).map { UInt8($0 * 7 & 255) }
        let d = Digest32(bytes: bytes)
        XCTAssertEqual(d.hex, bytes.map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Digest32(hex: d.hex), d)
        XCTAssertNil(Digest32(hex: "xyz"))
        let k = Digest16(bytes: bytes)
        XCTAssertEqual(k.hex, bytes.prefix(16).map { String(format: "%02x", $0) }.joined())
        XCTAssertEqual(Digest16(hex: k.hex), k)
        // Both encode as plain hex strings in JSON.
        let json = try! JSONEncoder().encode([k])
        XCTAssertEqual(String(decoding: json, as: UTF8.self), "[\"\(k.hex)\"]")
        XCTAssertEqual(try! JSONDecoder().decode([Digest16].self, from: json), [k])
    }
}
