import Drawing
import Foundation
@testable import Pipeline
import Rendering
import Styling
import TestSupport
import TileGeometry
import VenueFormats
import VenueModel
import XCTest

/// The style spec's tile set on a two-building venue: per-building floors
/// (`floor_b<building>_<floor>`), the `outdoors` overview, building outline and
/// shadow rasters, exact-id style entries, and their incremental keys.
///
/// The fixture (harbour-arcade): North Hall (`building_1`, levels −1, 0, 1)
/// and East Pavilion (`building_2`, level 0 only).
final class BuildingFloorsTests: XCTestCase {
    var work: URL!
    let northHall = "54a556b0-1113-5f45-b149-d5696a3f6ce0", eastPavilion = "95c5902b-ed2d-5822-9db5-352a74da484e"
    let pavilionGround = "f01195b6"

    override func setUpWithError() throws {
        work = FileManager.default.temporaryDirectory.appendingPathComponent("bfloors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: PlanTests.fixture), to: work.appendingPathComponent("venue"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    func venue() throws -> Venue {
        var r = IMDFReader()
        return try r.read(path: work.appendingPathComponent("venue").path)
    }

    func prepare(_ style: Style = .builtIn, kinds: Set<PipelineConfig.FloorKind> = [.ordinal, .building],
                 outdoors: Bool = false, outlines: Bool = false, shadows: Bool = false) throws -> PreparedVenue {
        var o = PrepareOptions()
        o.floorKinds = kinds; o.outdoors = outdoors; o.buildingOutlines = outlines; o.floorShadows = shadows
        return Prepare.run(sourceID: "h", venue: try venue(), style: style, options: o)
    }

    @discardableResult
    func build(floors: String = #"["ordinal", "building"]"#, layers: String = #"["floors", "outdoors", "building_outlines", "floor_shadows"]"#,
               zoom: (Int, Int) = (18, 19), style: String? = nil, dryRun: Bool = false, mvt: Bool = true,
               log: ((String) -> Void)? = nil) throws -> BuildSummary {
        let file = work.appendingPathComponent("pipeline.json")
        let s = style.map { #", "style": "\#($0)""# } ?? ""
        try Data(#"{"output": "out", "floors": \#(floors), "zoom": {"min": \#(zoom.0), "max": \#(zoom.1)}, "sources": [{"id": "h", "format": "imdf", "path": "venue"}], "tilesets": [{"format": "png", "layers": \#(layers)}\#(mvt ? #", {"format": "mvt"}"# : "")]\#(s)}"#.utf8).write(to: file)
        let c = try PipelineConfig.load(path: file.path)
        return try Builder(config: c, options: BuildOptions(jobs: 2, dryRun: dryRun), log: log ?? { _ in }).run()
    }

    var out: URL { work.appendingPathComponent("out") }

    func manifest() throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as! [String: Any]
    }

    // MARK: - ids

    func testFloorIDsOfBothKindsAndBuildingIDs() throws {
        XCTAssertEqual(Floor.id(forOrdinal: -1), "floor_m1")
        XCTAssertEqual(Floor.id(forOrdinal: -1, fraction: 500_000), "floor_m0_5")
        let v = try venue()
        XCTAssertEqual(v.buildingIndex.map(\.specID), ["building_1", "building_2"])
        XCTAssertEqual(v.buildingIndex.map(\.id), [northHall, eastPavilion], "numbered in the order of source ids")
        let p = try prepare()
        XCTAssertEqual(p.floors.map(\.id), ["floor_m1", "floor_0", "floor_1", "floor_b1_m1", "floor_b1_0", "floor_b1_1", "floor_b2_0"])
        XCTAssertEqual(p.floors.map { $0.floor.ordinal }, [-1, 0, 1, -1, 0, 1, 0])
        let b20 = try XCTUnwrap(p.floors.last)
        XCTAssertEqual(b20.floor.levels.map(\.id).map { String($0.prefix(8)) }, [pavilionGround])
        XCTAssertEqual(b20.floor.styleIDs, ["floor_b2_0", "floor_0"])
        XCTAssertEqual(try prepare(kinds: [.building]).floors.map(\.id), ["floor_b1_m1", "floor_b1_0", "floor_b1_1", "floor_b2_0"])
        XCTAssertEqual(try prepare(kinds: [.ordinal]).floors.map(\.id), ["floor_m1", "floor_0", "floor_1"])
    }

    func testBuildWritesEveryPyramidWithManifestAndTileJSON() throws {
        try build()
        let m = try manifest()
        let v = try XCTUnwrap((m["venues"] as? [[String: Any]])?.first)
        let floors = try XCTUnwrap(v["floors"] as? [[String: Any]])
        XCTAssertEqual(floors.map { $0["id"] as! String }, ["floor_m1", "floor_0", "floor_1", "floor_b1_m1", "floor_b1_0", "floor_b1_1", "floor_b2_0"])
        let b20 = try XCTUnwrap(floors.first { $0["id"] as? String == "floor_b2_0" })
        XCTAssertEqual(b20["building"] as? String, "building_2")
        XCTAssertEqual(b20["building_id"] as? String, eastPavilion)
        XCTAssertEqual(b20["ordinal"] as? Int, 0)
        XCTAssertEqual((b20["levels"] as? [[String: Any]])?.count, 1)
        XCTAssertNil(floors[0]["building"], "ordinal floors name no building")
        let layers = try XCTUnwrap(v["layers"] as? [[String: Any]])
        let layerIDs = layers.map { $0["id"] as! String }
        XCTAssertEqual(layerIDs.first, "outdoors")
        XCTAssertTrue(layerIDs.contains("building_outlines_building_1") && layerIDs.contains("building_outlines_building_2"), "\(layerIDs)")
        XCTAssertTrue(layerIDs.contains("floor_shadows_floor_0") && layerIDs.contains("floor_shadows_floor_b2_0"), "\(layerIDs)")
        let fm = FileManager.default
        for floor in floors.map({ $0["id"] as! String }) {
            XCTAssertTrue(fm.fileExists(atPath: out.appendingPathComponent("h/\(floor)/png/tilejson.json").path), floor)
            XCTAssertTrue(fm.fileExists(atPath: out.appendingPathComponent("h/\(floor)/mvt/tilejson.json").path), floor)
        }
        for id in layerIDs {
            XCTAssertTrue(fm.fileExists(atPath: out.appendingPathComponent("h/\(id)/png/tilejson.json").path), id)
            XCTAssertFalse(fm.fileExists(atPath: out.appendingPathComponent("h/\(id)/mvt").path), "\(id) is raster only")
        }
        let tiles = try XCTUnwrap(m["tiles"] as? [[String: Any]]).map { $0["path"] as! String }
        XCTAssertTrue(tiles.contains { $0.hasPrefix("h/outdoors/png/19/") })
        XCTAssertTrue(tiles.contains { $0.hasPrefix("h/floor_b2_0/mvt/19/") })
        // Vector layers of a building floor carry its own id.
        let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/floor_b2_0/mvt/tilejson.json"))) as! [String: Any]
        let vl = (tj["vector_layers"] as? [[String: Any]] ?? []).map { $0["id"] as! String }
        XCTAssertTrue(vl.contains("floor_rooms_floor_b2_0"), "\(vl)")
        XCTAssertTrue(vl.contains("building_outlines_building_2"), "\(vl)")
        // The venue-wide pyramid holds one stack: each feature once.
        let all = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/all/mvt/tilejson.json"))) as! [String: Any]
        XCTAssertFalse((all["vector_layers"] as? [[String: Any]] ?? []).isEmpty)
        // floors.json: the building floors after the ordinal ones, with their buildings; a raster style each.
        let index = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/floors.json"))) as! [String: Any]
        let listed = try XCTUnwrap(index["floors"] as? [[String: Any]])
        XCTAssertEqual(listed.map { $0["id"] as! String }, ["floor_1", "floor_0", "floor_m1", "floor_b1_1", "floor_b1_0", "floor_b1_m1", "floor_b2_0"])
        XCTAssertEqual(index["default_floor"] as? String, "floor_0")
        let pavilion = try XCTUnwrap(listed.last)
        XCTAssertEqual(pavilion["building"] as? String, "building_2")
        XCTAssertEqual(pavilion["building_id"] as? String, eastPavilion)
        XCTAssertEqual(pavilion["building_name"] as? String, "East Pavilion")
        XCTAssertEqual(pavilion["ordinal"] as? Int, 0)
        XCTAssertTrue("\(pavilion["filter"] ?? "")".contains(eastPavilion))
        XCTAssertEqual((index["buildings"] as? [[String: Any]])?.map { $0["floors"] as! [String] },
                       [["floor_b1_1", "floor_b1_0", "floor_b1_m1"], ["floor_b2_0"]])
        XCTAssertTrue(fm.fileExists(atPath: out.appendingPathComponent("h/floor_b2_0/style.json").path))
        // Archives take every pyramid, the new ones included.
        let written = try ArchiveExport.run(output: out.path, request: .init(format: .pmtiles, destination: work.appendingPathComponent("arch").path))
        let archived = Set(written.map(\.path))
        for id in layerIDs + ["floor_b2_0", "floor_m1"] { XCTAssertTrue(archived.contains("h/\(id)/png.pmtiles"), "\(id): \(archived.sorted())") }
        XCTAssertTrue(archived.contains("h/floor_b1_0/mvt.pmtiles"))
        // 1 and N workers: the same files.
        let first = try manifest()["tiles"] as! [[String: Any]]
        try FileManager.default.removeItem(at: out)
        let file = work.appendingPathComponent("pipeline.json")
        _ = try Builder(config: try PipelineConfig.load(path: file.path), options: BuildOptions(jobs: 1), log: { _ in }).run()
        XCTAssertEqual((try manifest()["tiles"] as! [[String: Any]]).map { $0["sha256"] as! String }, first.map { $0["sha256"] as! String })
    }

    // MARK: - outdoors and building labels

    func testOutdoorsHasBuildingLabelsAndNoUnitLabels() throws {
        let p = try prepare(outdoors: true)
        let o = try XCTUnwrap(p.overlays.first { $0.kind == .outdoors })
        XCTAssertEqual(o.id, "outdoors")
        XCTAssertEqual(Set(o.labels.map(\.featureID)).count, 2, "both buildings' labels")
        XCTAssertTrue(o.labels.allSatisfy { $0.rank == 1 }, "building labels only, no unit labels")
        XCTAssertTrue(o.icons.isEmpty)
        // Placed and drawn: the labels reach the tiles.
        let placed = (17...23).flatMap { LabelPlacement.place(o.labels, style: o.labelStyle, zoom: $0) }.compactMap(\.label)
        XCTAssertFalse(placed.isEmpty)
    }

    /// An outdoor level (a plaza in no building) is on its ordinal floor and
    /// the overview, on no building floor.
    func testOutdoorLevelsAreOnOutdoorsAndNotOnBuildingFloors() throws {
        var v = try venue()
        let (x, y, d) = (10.0013, 53.5402, 0.0002)
        let ring = [LonLat(lon: x, lat: y), LonLat(lon: x + d, lat: y), LonLat(lon: x + d, lat: y + d), LonLat(lon: x, lat: y + d), LonLat(lon: x, lat: y)]
        v.levels.append(Level(id: "plaza", ordinal: 0, name: LocalizedName(), shortName: LocalizedName(), outdoor: true, buildingIDs: [],
                              category: "unspecified", geometry: .polygon(Polygon(rings: [ring]))))
        v.features.append(Feature(id: "kiosk", featureClass: .room, category: "room", levelID: "plaza", name: LocalizedName(["en": "Plaza Kiosk"]),
                                  geometry: .polygon(Polygon(rings: [ring]))))
        var o = PrepareOptions()
        o.floorKinds = [.ordinal, .building]; o.outdoors = true
        let p = Prepare.run(sourceID: "h", venue: v, style: .builtIn, options: o)
        let outdoors = try XCTUnwrap(p.overlays.first { $0.kind == .outdoors })
        XCTAssertTrue(outdoors.featureIDs.contains("plaza") && outdoors.featureIDs.contains("kiosk"), "\(outdoors.featureIDs)")
        XCTAssertEqual(outdoors.floor.levels.map(\.id), ["plaza"])
        XCTAssertTrue(p.floors.first { $0.id == "floor_0" }!.featureIDs.contains("kiosk"))
        for f in p.floors where f.floor.building != nil { XCTAssertFalse(f.featureIDs.contains("kiosk"), f.id) }
        XCTAssertFalse(outdoors.labels.contains { $0.featureID == "kiosk" }, "no unit labels on the overview")
        XCTAssertEqual(p.warnings, [])
        // Building floors alone, no overview: the plaza is drawn nowhere, which is said.
        o.floorKinds = [.building]; o.outdoors = false
        let alone = Prepare.run(sourceID: "h", venue: v, style: .builtIn, options: o)
        XCTAssertEqual(alone.warnings.count, 1)
        XCTAssertTrue(alone.warnings[0].contains("plaza") && alone.warnings[0].contains("\"ordinal\""), alone.warnings[0])
        o.outdoors = true
        XCTAssertEqual(Prepare.run(sourceID: "h", venue: v, style: .builtIn, options: o).warnings, [])
    }

    /// Adds an outdoor level (a plaza in no building, ordinal 0) with a named kiosk to the fixture on disk.
    func addOutdoorPlaza() throws {
        let (x, y, d) = (10.0013, 53.5402, 0.0002)
        let ring: [[Double]] = [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]
        let kioskRing: [[Double]] = [[x + d / 4, y + d / 4], [x + d * 3 / 4, y + d / 4], [x + d * 3 / 4, y + d * 3 / 4], [x + d / 4, y + d * 3 / 4], [x + d / 4, y + d / 4]]
        try editFeatures("level.geojson") { features in
            features.append(["id": self.plaza, "type": "Feature", "feature_type": "level",
                             "geometry": ["type": "Polygon", "coordinates": [ring]],
                             "properties": ["category": "unspecified", "outdoor": true, "ordinal": 0, "name": ["en": "Plaza"],
                                            "short_name": ["en": "P"], "building_ids": NSNull()]])
        }
        try editFeatures("unit.geojson") { features in
            features.append(["id": self.kiosk, "type": "Feature", "feature_type": "unit",
                             "geometry": ["type": "Polygon", "coordinates": [kioskRing]],
                             "properties": ["category": "room", "name": ["en": "Plaza Kiosk"], "level_id": self.plaza]])
        }
    }
    let plaza = "7e0c3a52-9d1b-4c55-8f0e-3f2d6b1a0001", kiosk = "7e0c3a52-9d1b-4c55-8f0e-3f2d6b1a0002"

    /// The venue-wide vector pyramid's share of the overview: the outdoor
    /// level and its kiosk in `outdoors`, one named point per building in
    /// `building_labels`; ids unique per layer; described in the TileJSON;
    /// the independent MVT checker passes.
    func testVenueWideVectorTilesHaveTheOutdoorsLayers() throws {
        try addOutdoorPlaza()
        try build(floors: #""building""#, layers: #"["floors", "outdoors"]"#, zoom: (17, 19))
        let z17 = out.appendingPathComponent("h/all/mvt/17")
        var byLayer = [String: [DecodedTile.Feature]]()
        let files = FileManager.default.enumerator(at: z17, includingPropertiesForKeys: nil)!.compactMap { $0 as? URL }.filter { $0.pathExtension == "pbf" }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            let tile = try DecodedTile(Array(Data(contentsOf: file)))
            for layer in tile.layers {
                let ids = layer.features.compactMap(\.id)
                XCTAssertEqual(Set(ids).count, layer.features.count, "\(file.lastPathComponent) \(layer.name): every feature has an id, unique in its layer")
                byLayer[layer.name, default: []] += layer.features
            }
        }
        let labels = try XCTUnwrap(byLayer["building_labels"], "\(byLayer.keys.sorted())")
        XCTAssertTrue(labels.allSatisfy { $0.type == 1 }, "points")
        var byName = [String: DecodedTile.Feature]()
        for f in labels { byName[f.properties["name"] ?? ""] = f }
        XCTAssertEqual(Set(byName.keys), ["North Hall", "East Pavilion"])
        XCTAssertEqual(byName["North Hall"]?.properties["building"], "building_1")
        XCTAssertEqual(byName["North Hall"]?.properties["building_id"], northHall)
        XCTAssertEqual(byName["North Hall"]?.properties["level"], "-1;0;1", "the floors the building has")
        XCTAssertEqual(byName["East Pavilion"]?.properties["level"], "0")
        XCTAssertEqual(byName["East Pavilion"]?.properties["name:de"], "Ostpavillon")
        let outdoors = try XCTUnwrap(byLayer["outdoors"], "\(byLayer.keys.sorted())")
        let kinds = Dictionary(outdoors.map { ($0.properties["id"] ?? "", $0.properties["floor_layer"] ?? "") }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(kinds[plaza], "floor_outlines")
        XCTAssertEqual(kinds[kiosk], "floor_rooms")
        XCTAssertEqual(outdoors.first { $0.properties["id"] == kiosk }?.properties["level"], "0")
        XCTAssertEqual(outdoors.first { $0.properties["id"] == kiosk }?.properties["level_id"], plaza)
        XCTAssertFalse(byLayer["floor_rooms"]?.contains { $0.properties["id"] == kiosk } ?? false,
                       "building floors alone: the outdoor level is on no floor of the stack")
        // TileJSON names and describes the new layers.
        let tj = try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("h/all/mvt/tilejson.json"))) as! [String: Any]
        let vl = try XCTUnwrap(tj["vector_layers"] as? [[String: Any]])
        for id in ["outdoors", "building_labels"] {
            let l = try XCTUnwrap(vl.first { $0["id"] as? String == id }, id)
            XCTAssertNotNil(l["description"] as? String, id)
        }
        XCTAssertEqual((vl.first { $0["id"] as? String == "outdoors" }?["fields"] as? [String: String])?["floor_layer"], "String")
        // The independent checker.
        let check = try ExternalTools.checkMVT(out.appendingPathComponent("h/all/mvt"))
        XCTAssertEqual(check.status, 0, String(check.text.suffix(2000)))
        XCTAssertTrue(check.text.contains(" 0 failed"), String(check.text.suffix(500)))
    }

    /// The overview items are the venue-wide pyramid's own: keyed once, in
    /// drawing order, sources past the floors.
    func testOverviewVectorItemsAreTheVenueWidePyramidsOwn() throws {
        let p = try prepare(kinds: [.ordinal])
        let v = PrepareVector.run(p)
        XCTAssertEqual(v.overview.map(\.venueLayer), ["building_labels", "building_labels"], "no outdoor level, every building has a footprint")
        let own = v.allSource.enumerated().filter { $0.element.floor == v.floors.count }
        XCTAssertEqual(own.count, v.overview.count)
        for (i, s) in own { XCTAssertEqual(v.all[i].id, v.overview[s.index].id) }
        XCTAssertEqual(v.all.suffix(2).map(\.venueLayer), ["building_labels", "building_labels"], "drawn last, as the spec's order 24")
        // A building without a footprint: its levels' outlines stand for it.
        var venue = try venue()
        venue.features.removeAll { $0.featureClass == .building && $0.buildingID == eastPavilion }
        let bare = PrepareVector.run(Prepare.run(sourceID: "h", venue: venue, style: .builtIn))
        let outlines = bare.overview.filter { $0.venueLayer == "building_outlines" }
        XCTAssertEqual(outlines.count, 1)
        XCTAssertTrue(outlines[0].properties.contains { $0.key == "building" && $0.value == .string("building_2") })
        XCTAssertEqual(bare.overview.filter { $0.venueLayer == "building_labels" }.count, 1, "no footprint, no label (as the raster)")
    }

    /// 17.3: a building's label only on floors where the building has levels.
    func testBuildingLabelsOnlyOnFloorsOfTheirBuilding() throws {
        let p = try prepare()
        func buildingLabels(_ id: String) -> Set<String> {
            Set(p.floors.first { $0.id == id }!.labels.filter { $0.rank == 1 }.map(\.featureID))
        }
        let fp = try venue().features.filter { $0.featureClass == .building }
        let hallFootprints = Set(fp.filter { $0.buildingID == northHall }.map(\.id))
        let pavilionFootprints = Set(fp.filter { $0.buildingID == eastPavilion }.map(\.id))
        XCTAssertEqual(buildingLabels("floor_1"), hallFootprints, "the pavilion has no upper level")
        XCTAssertEqual(buildingLabels("floor_m1"), hallFootprints)
        XCTAssertEqual(buildingLabels("floor_0"), hallFootprints.union(pavilionFootprints))
        XCTAssertEqual(buildingLabels("floor_b2_0"), pavilionFootprints)
        XCTAssertEqual(buildingLabels("floor_b1_0"), hallFootprints)
    }

    // MARK: - style ids

    func style(_ entries: String) throws -> Style {
        try Style.parse(Data(##"{"id": "s", "version": "1.1", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#EEEEEE"}, \##(entries)]}"##.utf8), source: "s.json")
    }

    func testExactIDsResolvePerBuildingFloorAndOrdinalFloor() throws {
        let s = try style(##"{"layer-id": "floor_rooms_floor_b2_0", "fill-color": "#FF0000"}, {"layer-id": "floor_rooms_floor_1", "fill-color": "#00FF00"}, {"layer-id": "building_outlines_building_2", "fill-color": "#0000FF"}"##)
        XCTAssertEqual(s.warnings, [], "exact ids of both kinds, building ids: all known")
        let p = try prepare(s, outlines: true)
        func fills(_ id: String) -> Set<Color> {
            let f = p.floors.first { $0.id == id } ?? p.overlays.first { $0.id == id }!
            return Set(f.items.compactMap(\.paint.fill))
        }
        let red = Color(hex: "#FF0000")!, green = Color(hex: "#00FF00")!, grey = Color(hex: "#EEEEEE")!, blue = Color(hex: "#0000FF")!
        XCTAssertTrue(fills("floor_b2_0").contains(red))
        XCTAssertFalse(fills("floor_b1_0").contains(red), "only building 2's floor 0")
        XCTAssertFalse(fills("floor_0").contains(red), "the ordinal floor is another floor")
        XCTAssertTrue(fills("floor_0").contains(grey))
        XCTAssertTrue(fills("floor_1").contains(green))
        XCTAssertTrue(fills("floor_b1_1").contains(green), "a building floor falls back to its ordinal floor's entry")
        XCTAssertFalse(fills("floor_b1_1").contains(grey))
        XCTAssertTrue(fills("building_outlines_building_2").contains(blue))
        XCTAssertFalse(fills("building_outlines_building_1").contains(blue))
        XCTAssertTrue(fills("floor_b2_0").contains(blue), "the footprint on the floors too")
    }

    func testExactIDNamingNoFloorIsAWarningAndOutdoorsIsKnown() throws {
        let s = try style(##"{"layer-id": "floor_rooms_floor_b9_0", "fill-color": "#FF0000"}, {"layer-id": "floor_labels_floor_7", "font-size": 14}, {"layer-id": "outdoors", "hidden": false}, {"layer-id": "building_labels_building_3", "font-size": 14}"##)
        XCTAssertEqual(s.warnings, [], "outdoors and exact ids are spec ids")
        let p = try prepare(s)
        let w = StyleIDCheck.unmatched(s, floors: Set(p.floors.flatMap(\.floor.styleIDs)),
                                       buildings: Set(p.venue.buildingIndex.flatMap { [$0.id, $0.specID] }))
        XCTAssertEqual(w.count, 3, "\(w)")
        XCTAssertTrue(w.contains { $0.contains("\"floor_rooms_floor_b9_0\"") && $0.contains("floor \"floor_b9_0\"") }, "\(w)")
        XCTAssertTrue(w.contains { $0.contains("\"floor_labels_floor_7\"") }, "\(w)")
        XCTAssertTrue(w.contains { $0.contains("building \"building_3\"") }, "\(w)")
        // Through a build: counted warnings naming the id.
        let file = work.appendingPathComponent("s.json")
        try Data(##"{"id": "s", "styles": [{"layer-id": "floor_rooms_floor_b9_0", "fill-color": "#FF0000"}]}"##.utf8).write(to: file)
        var lines = [String]()
        let summary = try build(layers: #"["floors"]"#, zoom: (18, 18), style: file.path, log: { lines.append($0) })
        let warnings = lines.filter { $0.hasPrefix("warning:") }
        XCTAssertEqual(summary.warnings, warnings.count, "counted")
        XCTAssertEqual(warnings.filter { $0.contains("\"floor_rooms_floor_b9_0\"") }.count, 1, "\(lines)")
    }

    /// `validate` warns as the build does; a font-name that is not installed is named.
    func testValidateWarnsOnExactIDsAndUninstalledFonts() throws {
        let file = work.appendingPathComponent("v.json")
        try Data(##"{"id": "v", "version": "1.1", "styles": [{"layer-id": "floor_rooms_floor_b9_0", "fill-color": "#FF0000"}, {"layer-id": "floor_rooms_floor_b2_0", "fill-color": "#FF0000"}, {"layer-id": "building_labels_[BUILDING]", "font-name": "No Such Font Sans"}]}"##.utf8).write(to: file)
        let config = work.appendingPathComponent("validate.json")
        try Data(#"{"output": "out", "floors": ["ordinal", "building"], "style": "v.json", "sources": [{"id": "h", "format": "imdf", "path": "venue"}]}"#.utf8).write(to: config)
        let reports = Validation.run(config: try PipelineConfig.load(path: config.path))
        let messages = reports.flatMap(\.diagnostics).filter { $0.kind == .warning }.map(\.message)
        XCTAssertEqual(messages.filter { $0.contains("floor_b9_0") }.count, 1, "\(messages)")
        XCTAssertFalse(messages.contains { $0.contains("\"floor_rooms_floor_b2_0\"") }, "building 2's floor 0 exists")
        // Raster labels would fall back to another font: a warning names it. (MapLibre glyphs cannot: with mvt it is an error.)
        var lines = [String]()
        try build(layers: #"["floors"]"#, zoom: (18, 18), style: file.path, mvt: false, log: { lines.append($0) })
        XCTAssertEqual(lines.filter { $0.contains("\"No Such Font Sans\"") && $0.contains("not an installed font") }.count, 1, "\(lines)")
        XCTAssertFalse(lines.contains { $0.contains("DejaVu Sans\"") && $0.contains("not an installed") })
        XCTAssertThrowsError(try build(layers: #"["floors"]"#, zoom: (18, 18), style: file.path)) { XCTAssertTrue("\($0)".contains("No Such Font Sans"), "\($0)") }
    }

    // MARK: - shadows

    func testShadowsOnlyNearWallsAndStyleable() throws {
        let s = try style(##"{"layer-id": "floor_shadows_[FLOOR]", "fill-color": "#FF000080"}"##)
        let p = try prepare(s, kinds: [.ordinal], shadows: true)
        let sh = try XCTUnwrap(p.overlays.first { $0.id == "floor_shadows_floor_0" })
        XCTAssertEqual(sh.kind, .shadows(floor: "floor_0"))
        // Every edge that casts a shadow: the rings of the floor's units and fixtures.
        let floor0 = p.floors.first { $0.id == "floor_0" }!
        let levelIDs = Set(floor0.floor.levels.map(\.id))
        var segments = [(MercatorPoint, MercatorPoint)]()
        for f in p.venue.features where f.levelID.map(levelIDs.contains) == true && Prepare.castsShadow(f.featureClass) {
            if case .polygons(let polys) = ProjectedGeometry(f.geometry) {
                for ring in polys.flatMap({ $0 }) { for i in ring.indices { segments.append((ring[i], ring[(i + 1) % ring.count])) } }
            }
        }
        XCTAssertFalse(segments.isEmpty)
        func distance(_ p: MercatorPoint) -> Double {
            segments.map { a, b in
                let dx = b.x - a.x, dy = b.y - a.y, l = dx * dx + dy * dy
                let t = l == 0 ? 0 : max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / l))
                return hypot(p.x - a.x - t * dx, p.y - a.y - t * dy)
            }.min()!
        }
        let z = 21
        let plan = Plan.run(floor: sh, zoom: z)
        XCTAssertFalse(plan.tiles.isEmpty)
        let renderer = try TileRenderer(scale: 1)
        let mpp = DrawMetrics.metresPerPixel(zoom: z)
        let reach = Prepare.shadowReachMetres / cos(WebMercator.unproject(segments[0].0).lat * .pi / 180)
        var shaded = 0, far = 0
        for (t, idx) in zip(plan.tiles, plan.items).prefix(6) {
            try renderer.draw(tile: t, items: sh.items, indices: idx)
            let origin = t.bounds
            for y in stride(from: 0, to: 256, by: 3) {
                for x in stride(from: 0, to: 256, by: 3) {
                    let px = renderer.pixels.pixel(x: x, y: y)
                    let m = MercatorPoint(x: origin.minX + (Double(x) + 0.5) * mpp, y: origin.maxY - (Double(y) + 0.5) * mpp)
                    let a = px >> 24
                    if a > 0 {
                        shaded += 1
                        XCTAssertLessThanOrEqual(distance(m), reach + 3 * mpp + 0.3, "shadow at tile \(t) pixel \(x),\(y) far from any wall")
                        XCTAssertGreaterThan((px >> 16) & 0xFF, px & 0xFF, "the style's red")
                        XCTAssertLessThanOrEqual(a, 0x80 + 2, "at most the entry's alpha")
                    } else if distance(m) > reach + 3 * mpp + 0.3 {
                        far += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(shaded, 0)
        XCTAssertGreaterThan(far, 0, "the tiles are transparent away from walls")
        // Deterministic, and hidden means no pyramid.
        let again = try prepare(s, kinds: [.ordinal], shadows: true).overlays.first { $0.id == "floor_shadows_floor_0" }!
        XCTAssertEqual(again.items.map(InputKeys.raster), sh.items.map(InputKeys.raster))
        let hidden = try style(#"{"layer-id": "floor_shadows_floor_0", "hidden": true}"#)
        let ids = try prepare(hidden, kinds: [.ordinal], shadows: true).overlays.map(\.id)
        XCTAssertEqual(ids, ["floor_shadows_floor_m1", "floor_shadows_floor_1"])
    }

    // MARK: - incremental keys

    /// What a dry run would render, per pyramid folder.
    func toRender() throws -> [String: Int] {
        var out = [String: Int]()
        for line in try build(dryRun: true).report {
            // "h/floor_0/png z18: render 3, reuse 4, delete 0"
            let parts = line.split(separator: " ")
            guard parts.count >= 4, let n = Int(parts[3].dropLast()) else { continue }
            out[String(parts[0]), default: 0] += n
        }
        return out
    }

    func testAChangeToOneBuildingFloorReRendersOnlyItsTiles() throws {
        try build()
        XCTAssertTrue(try toRender().values.allSatisfy { $0 == 0 }, "a rebuild of the same inputs renders nothing")
        // A unit of East Pavilion's ground level is renamed.
        try editFeatures("unit.geojson") { features in
            let i = features.firstIndex { (($0["properties"] as? [String: Any])?["level_id"] as? String)?.hasPrefix(self.pavilionGround) == true
                && (($0["properties"] as? [String: Any])?["name"] as? [String: Any]) != nil }!
            var p = features[i]["properties"] as! [String: Any]
            p["name"] = ["en": "A Renamed Shop With A Long Name"]
            features[i]["properties"] = p
        }
        var r = try toRender()
        XCTAssertGreaterThan(r["h/floor_b2_0/png"] ?? 0, 0)
        XCTAssertGreaterThan(r["h/floor_b2_0/mvt"] ?? 0, 0)
        XCTAssertGreaterThan(r["h/floor_0/png"] ?? 0, 0, "the ordinal floor holds the pavilion's level too")
        for quiet in ["h/floor_b1_m1/png", "h/floor_b1_0/png", "h/floor_b1_1/png", "h/floor_b1_0/mvt", "h/floor_1/png", "h/floor_m1/png",
                      "h/outdoors/png", "h/building_outlines_building_1/png", "h/building_outlines_building_2/png",
                      "h/floor_shadows_floor_b1_0/png", "h/floor_shadows_floor_b2_0/png"] {
            XCTAssertEqual(r[quiet], 0, "\(quiet) does not show the renamed unit")
        }
        try build()
        // East Pavilion is renamed: its label is on the outdoors overview and its own floors only.
        try editFeatures("building.geojson") { features in
            let i = features.firstIndex { $0["id"] as? String == self.eastPavilion }!
            var p = features[i]["properties"] as! [String: Any]
            p["name"] = ["en": "West Pavilion"]
            features[i]["properties"] = p
        }
        r = try toRender()
        XCTAssertGreaterThan(r["h/outdoors/png"] ?? 0, 0)
        XCTAssertGreaterThan(r["h/all/mvt"] ?? 0, 0, "the building label point")
        XCTAssertGreaterThan(r["h/floor_b2_0/png"] ?? 0, 0)
        XCTAssertGreaterThan(r["h/floor_0/png"] ?? 0, 0)
        for quiet in ["h/floor_b1_0/png", "h/floor_b1_1/png", "h/floor_1/png", "h/floor_m1/png", "h/building_outlines_building_1/png"] {
            XCTAssertEqual(r[quiet], 0, "\(quiet) does not show the pavilion's label")
        }
    }

    func editFeatures(_ file: String, _ body: (inout [[String: Any]]) -> Void) throws {
        let url = work.appendingPathComponent("venue/\(file)")
        var doc = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        var features = doc["features"] as! [[String: Any]]
        body(&features)
        doc["features"] = features
        try JSONSerialization.data(withJSONObject: doc).write(to: url)
    }

    // MARK: - config

    func testConfigFloorsAndLayers() throws {
        func parse(_ extra: String, tileset: String = "") throws -> PipelineConfig {
            try PipelineConfig.parse(Data(#"{"sources": [{"id": "h", "format": "imdf", "path": "v"}], "tilesets": [{"format": "png"\#(tileset)}]\#(extra)}"#.utf8), file: "p.json")
        }
        XCTAssertEqual(try parse("").floorKinds, [.ordinal])
        XCTAssertEqual(try parse(#", "floors": "building""#).floorKinds, [.building])
        XCTAssertEqual(try parse(#", "floors": ["ordinal", "building"]"#).floorKinds, [.ordinal, .building])
        XCTAssertThrowsError(try parse(#", "floors": "storey""#)) { XCTAssertTrue("\($0)".contains("\"floors\""), "\($0)") }
        XCTAssertEqual(try parse("").tilesets[0].layers, [.floors])
        XCTAssertEqual(try parse("", tileset: #", "layers": ["outdoors", "floor_shadows"]"#).tilesets[0].layers, [.outdoors, .floorShadows])
        XCTAssertThrowsError(try parse("", tileset: #", "layers": ["roofs"]"#)) { XCTAssertTrue("\($0)".contains("tilesets[0].layers"), "\($0)") }
    }
}
