import Foundation
import Pipeline
import XCTest

/// TileJSON `tiles` URLs follow the tileset's path template (issue 18).
final class TileJSONURLTests: XCTestCase {
    func testRelativeToTheDocumentWithoutABaseURL() throws {
        XCTAssertEqual(TileJSON.tileURL(base: nil, tileJSONPath: "v/floor_0/png/tilejson.json", urlTemplate: "v/floor_0/png/{z}/{x}/{y}.png"),
                       "{z}/{x}/{y}.png")
        XCTAssertEqual(TileJSON.tileURL(base: nil, tileJSONPath: "v/floor_0/png/tilejson.json", urlTemplate: "v/0/png/{z}/{x}_{y}.png"),
                       "../../0/png/{z}/{x}_{y}.png")
        XCTAssertEqual(TileJSON.tileURL(base: nil, tileJSONPath: "tilejson.json", urlTemplate: "v/all/mvt/{quadkey}.pbf"), "v/all/mvt/{quadkey}.pbf")
        // Resolved against the document's own URL, the relative URL names the tile's path.
        let doc = URL(string: "https://cdn.example.com/tiles/v/floor_0/png/tilejson.json")!
        XCTAssertEqual(URL(string: "../../0/png/17/1_2.png", relativeTo: doc)!.absoluteString, "https://cdn.example.com/tiles/v/0/png/17/1_2.png")
    }

    func testAbsoluteFromTheBaseURLAndTMSScheme() throws {
        let c = try PipelineConfig.parse(Data(#"{"sources": [{"id": "v", "format": "imdf", "path": "p"}], "tilesets": [{"format": "png", "scale": 2, "layout": "tms"}, {"format": "mvt", "layout": "quadkey"}]}"#.utf8),
                                         file: "/x/pipeline.json")
        let png = TileJSON.tileURL(base: "https://tiles.example.com/", tileJSONPath: "v/floor_m1/png@2x/tilejson.json", tileset: c.tilesets[0],
                                   venue: "v", floor: "floor_m1", ordinal: -1)
        XCTAssertEqual(png.url, "https://tiles.example.com/v/floor_m1/png@2x/{z}/{x}/{y}.png")
        XCTAssertEqual(png.scheme, "tms")
        let mvt = TileJSON.tileURL(base: nil, tileJSONPath: "v/all/mvt/tilejson.json", tileset: c.tilesets[1], venue: "v", floor: "all", ordinal: nil)
        XCTAssertEqual(mvt.url, "{quadkey}.pbf")
        XCTAssertEqual(mvt.scheme, "xyz")
    }
}
