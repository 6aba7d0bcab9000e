import Foundation
import Pipeline
import XCTest

final class ManifestTests: XCTestCase {
    func testStreamingWriterRoundTrips() throws {
        let m = Manifest(
            generator: .init(name: "venuetiles", version: "9"),
            venues: [],
            tiles: [.init(path: "v/floor_0/png/17/1/2.png", sha256: Digest32(hex: String(repeating: "a", count: 64))!, bytes: 10, key: Digest16(hex: String(repeating: "1", count: 32))),
                    .init(path: "v/floor_b1/mvt/23/\"odd\\name\".pbf", sha256: Digest32(hex: String(repeating: "b", count: 64))!, bytes: 0, key: nil)],
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
