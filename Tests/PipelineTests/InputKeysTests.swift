import Foundation
@testable import Pipeline
import Rendering
import TileGeometry
import XCTest

/// The tile-key recipe: every tileset option is in the key or declared not to
/// decide its format's bytes, and key values do not change by accident.
final class InputKeysTests: XCTestCase {
    typealias Tileset = PipelineConfig.Tileset

    /// One change per tileset option. A new option makes the first test fail
    /// until it is added here and `InputKeys.header` says whether it counts.
    let variants: [String: (inout Tileset) -> Void] = [
        "format": { $0.format = $0.format == .png ? .mvt : .png },
        "scale": { $0.scale = 2 }, "extent": { $0.extent = 512 }, "buffer": { $0.buffer = 16 },
        "gzip": { $0.gzip.toggle() }, "simplify": { $0.simplify = 0.5 }, "metatile": { $0.metatile = 4 },
        "quantize": { $0.quantize.toggle() },
        // The quality counts only for quantized tiles (the config refuses it otherwise).
        "quality": { $0.quantize = true; $0.quality = 90 },
        "compression": { $0.compression = .small },
        // Where tiles go and what they are packed into do not change a tile's bytes.
        "pathTemplate": { $0.pathTemplate = "{venue}/{floor}/{z}/{x}/{y}.{ext}" }, "archive": { $0.archive = .pmtiles },
        // Which pyramids a tileset makes; each pyramid's own items and folder decide its keys.
        "layers": { $0.layers = [.floors, .outdoors, .floorShadows] },
    ]

    func header(_ ts: Tileset, zoom: Int = 20, venueWide: Bool = false) -> String {
        InputKeys.header(ts, zoom: zoom, maxZoom: 23, venueWide: venueWide, spriteDigest: "sprite")
    }

    func testEveryTilesetOptionIsInTheKeyOrDeclaredIrrelevant() {
        let labels = Set(Mirror(reflecting: Tileset(format: .png)).children.compactMap(\.label))
        XCTAssertEqual(labels, Set(variants.keys), "a tileset option was added or removed: say in InputKeys.header whether it decides the tiles' bytes, and list it here")
        for format in [Tileset.Format.png, .mvt] {
            let base = Tileset(format: format)
            for (label, change) in variants where label != "format" {
                var t = base
                change(&t)
                if InputKeys.optionsNotInKey[format]!.contains(label) {
                    XCTAssertEqual(header(t), header(base), "\(format) \(label) is declared not to count")
                } else {
                    XCTAssertNotEqual(header(t), header(base), "\(format) \(label) must change the key")
                }
            }
        }
        // What else decides bytes: the zoom (simplification stops at the max zoom, metatiles start at 19), the pyramid, the sprite.
        XCTAssertNotEqual(header(Tileset(format: .mvt), zoom: 22), header(Tileset(format: .mvt), zoom: 23))
        XCTAssertNotEqual(header(Tileset(format: .png), zoom: 18), header(Tileset(format: .png), zoom: 19))
        XCTAssertNotEqual(header(Tileset(format: .mvt), venueWide: true), header(Tileset(format: .mvt)))
        XCTAssertNotEqual(InputKeys.header(Tileset(format: .png), zoom: 20, maxZoom: 23, venueWide: false, spriteDigest: "a"),
                          InputKeys.header(Tileset(format: .png), zoom: 20, maxZoom: 23, venueWide: false, spriteDigest: "b"))
    }

    /// Each quality has its own key, beside the quantized tiles' key at 100;
    /// `small` names libdeflate's version and level.
    func testQualityAndCompressionInThePngKey() {
        var q90 = Tileset(format: .png), q100 = Tileset(format: .png)
        q90.quantize = true; q90.quality = 90; q100.quantize = true
        XCTAssertNotEqual(header(q90), header(q100))
        XCTAssertTrue(header(q90).contains("-q0-90-"), header(q90))
        var small = Tileset(format: .png)
        small.compression = .small
        XCTAssertTrue(header(small).hasSuffix(" compression=small-libdeflate\(LibdeflateCompressor.version)-\(PNGEncoder.smallLevel)"), header(small))
    }

    /// A changed key re-renders every tile of every user: it must be a
    /// deliberate change, made with `Generator.version` bumped.
    func testPinnedKeys() {
        XCTAssertEqual(header(Tileset(format: .png)), "venuetiles \(Generator.version) png scale=1 metatile=8 sprite=sprite")
        XCTAssertEqual(header(Tileset(format: .mvt)), "venuetiles \(Generator.version) mvt extent=4096 buffer=80 gzip=false simplify=1.0 pyramid=floor")
        let key = InputKeys.tile(header: InputKeys.headerBytes("venuetiles 0.3.0 png scale=1 metatile=8 sprite=sprite"),
                                 tile: TileID(z: 20, x: 1, y: 2), items: [Digest16(high: 1, low: 2), Digest16(high: 3, low: 4)], indices: [1, 0])
        XCTAssertEqual(key.hex, "6351a918ea03f878e266363a08bdc84f")
    }
}
