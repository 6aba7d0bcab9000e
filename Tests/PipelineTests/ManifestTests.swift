import Foundation
import Pipeline
import XCTest

final class ManifestTests: XCTestCase {
    func testStreamingWriterRoundTrips() throws {
        let m = Manifest(
            generator: .init(name: "venuetiles", version: "9"),
            venues: [],
            tiles: [.init(path: "v/floor_0/png/17/1/2.png", sha256: String(repeating: "a", count: 64), bytes: 10, key: "k1"),
                    .init(path: "v/floor_b1/mvt/23/\"odd\\name\".pbf", sha256: String(repeating: "b", count: 64), bytes: 0, key: nil)],
            files: [.init(path: "v/floor_0/png/tilejson.json", sha256: String(repeating: "c", count: 64), bytes: 5)],
            blank_tiles: [.init(path: "v/floor_0/png/18/3/4.png", key: "k2")])
        var out = Data()
        try m.write { out.append($0) }
        XCTAssertEqual(try JSONDecoder().decode(Manifest.self, from: out), m)
        var again = Data()
        try m.write { again.append($0) }
        XCTAssertEqual(out, again)
        XCTAssertEqual(out.last, 0x0A)
    }
}
