import Foundation
import Pipeline
import Styling
import TestSupport
import XCTest

/// Issue 17 item 10: the vector tiles carry the `category-fill-colors` key the
/// raster fills each unit by (`fill_category`), from the unit's own category
/// or its occupant's, so the MapLibre style can fill rooms as the raster does.
/// The sample is built in-process and its tiles decoded.
final class VectorFillCategoryTests: XCTestCase {
    var work: URL!

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("fillcat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    /// Every feature of every tile under `folder`, with its layer name.
    func features(_ folder: URL) throws -> [(layer: String, feature: DecodedTile.Feature)] {
        let tiles = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pbf") }.sorted()
        XCTAssertFalse(tiles.isEmpty, "no tiles under \(folder.path)")
        return try tiles.flatMap { t in
            try DecodedTile(Array(Data(contentsOf: folder.appendingPathComponent(t)))).layers.flatMap { l in l.features.map { (l.name, $0) } }
        }
    }

    func testUnitsCarryTheCategoryTheRasterFillsThemBy() throws {
        let config = work.appendingPathComponent("pipeline.json")
        try Data(#"{"output": "out", "zoom": {"min": 18, "max": 18}, "sources": [{"id": "h", "format": "imdf", "path": "\#(GoldenTests.fixture.path)"}], "tilesets": [{"format": "mvt"}]}"#.utf8)
            .write(to: config)
        _ = try Builder(config: try PipelineConfig.load(path: config.path), options: BuildOptions(jobs: 2), log: { _ in }).run()
        let out = work.appendingPathComponent("out/h")
        let rooms = try XCTUnwrap(Style.builtIn.resolve("floor_rooms_[FLOOR]"))
        for (folder, suffix) in [("floor_0/mvt", "_floor_0"), ("all/mvt", "")] {
            let feats = try features(out.appendingPathComponent(folder))
            // Label points name the units (an occupant's name when the unit has none).
            var name = [String: String]()
            for (l, f) in feats where l == "floor_labels" + suffix { name[f.properties["id"]!] = f.properties["name"] }
            var fill = [String: String]()
            for (l, f) in feats where l == "floor_rooms" + suffix {
                let id = try XCTUnwrap(f.properties["id"]), n = name[id] ?? id
                if let c = f.properties["fill_category"] {
                    XCTAssertEqual(fill.updateValue(c, forKey: n) ?? c, c, "\(folder): \(n) has two fill categories")
                    XCTAssertNotNil(rooms.categoryFillColors[c], "\(folder): \(n): \(c) is not a key of the style's category-fill-colors")
                }
            }
            XCTAssertEqual(fill["Nordic Books"], "shopping", "\(folder): a room's occupant category")
            XCTAssertEqual(fill["Café Anker"], "restaurant", folder)
            XCTAssertEqual(fill["Harbour Pharmacy"], "healthcare", folder)
            XCTAssertEqual(fill["Food Court"], "foodservice", "\(folder): the unit's own category")
            XCTAssertNotEqual(rooms.categoryFillColors["shopping"], rooms.categoryFillColors["restaurant"], "food and shops have their own fills")
            // Layers whose style has no category fills carry none; label points carry none.
            for (l, f) in feats where !l.hasPrefix("floor_rooms") && !l.hasPrefix("floor_other_rooms") {
                XCTAssertNil(f.properties["fill_category"], "\(folder): \(l) \(f.properties["id"] ?? "")")
            }
            // TileJSON documents the field.
            let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent(folder + "/tilejson.json"))) as! [String: Any]
            let layer = (tj["vector_layers"] as? [[String: Any]])?.first { $0["id"] as? String == "floor_rooms" + suffix }
            XCTAssertEqual((layer?["fields"] as? [String: String])?["fill_category"], "String", folder)
        }
    }
}
