import Foundation
import Styling
import XCTest
@testable import Clients

final class StyleTests: XCTestCase {
    static func venue(base: String? = nil, tilesets: [ClientVenue.Tileset]? = nil) -> ClientVenue {
        ClientVenue(id: "harbour", name: "Harbour <Arcade>", bounds: [-0.01, 51.0, 0.01, 51.01], center: [0, 51.005],
                    minZoom: 17, maxZoom: 23,
                    floors: [.init(id: "floor_m1", ordinal: -1, shortName: "B1", name: "Basement"),
                             .init(id: "floor_0", ordinal: 0, shortName: "G", name: "Ground"),
                             .init(id: "floor_1", ordinal: 1, shortName: "1", name: nil)],
                    tilesets: tilesets ?? [.init(format: .png, directory: "png", tileSize: 256),
                                           .init(format: .png, directory: "png@2x", tileSize: 512),
                                           .init(format: .mvt, directory: "mvt", tileSize: 512)],
                    baseURL: base, labelTexts: ["Lighthouse Optics"])
    }

    func vectorStyle(_ style: Style = .builtIn) throws -> [String: Any] {
        try XCTUnwrap(MapLibreStyle.vector(Self.venue(), style: style))
    }

    func testVectorStylePassesTheSchemaCheck() throws {
        let s = try vectorStyle()
        // Through JSON and back, as a client reads it.
        let parsed = try JSONSerialization.jsonObject(with: ClientJSON.encode(s)) as! [String: Any]
        let sprite = Set(Sprite.builtIn(pixelRatio: 1).images.keys)
        XCTAssertEqual(StyleSchema.problems(parsed, spriteNames: sprite, fontstacks: ["DejaVu Sans"]), [])
        XCTAssertEqual(parsed["glyphs"] as? String, "glyphs/{fontstack}/{range}.pbf")
        XCTAssertEqual(parsed["sprite"] as? String, "sprite")
        let src = (parsed["sources"] as? [String: [String: Any]])?["venue"]
        XCTAssertEqual(src?["tiles"] as? [String], ["all/mvt/{z}/{x}/{y}.pbf"])
    }

    /// Rooms are filled by the units' `fill_category` with the raster's
    /// `category-fill-colors`, one `match` branch per colour, `fill-color` for the rest.
    func testRoomFillMatchesTheRasterCategoryColours() throws {
        let layers = try JSONSerialization.jsonObject(with: ClientJSON.encode(try vectorStyle())) as! [String: Any]
        for (id, template) in [("floor_rooms", "floor_rooms_[FLOOR]"), ("floor_other_rooms", "floor_other_rooms_[FLOOR]")] {
            let raster = try XCTUnwrap(Style.builtIn.resolve(template))
            let layer = (layers["layers"] as! [[String: Any]]).first { $0["id"] as? String == id }
            let fill = try XCTUnwrap((layer?["paint"] as? [String: Any])?["fill-color"] as? [Any], id)
            XCTAssertEqual(fill[0] as? String, "match")
            XCTAssertEqual(fill[1] as? [String], ["get", "fill_category"])
            XCTAssertEqual(fill.count % 2, 1, "pairs of keys and colour, then the default")
            XCTAssertEqual(fill.last as? String, MapLibreStyle.css(try XCTUnwrap(raster.fillColor)))
            var colour = [String: String]()
            for i in stride(from: 2, to: fill.count - 1, by: 2) {
                let keys = try XCTUnwrap(fill[i] as? [String])
                for k in keys { XCTAssertNil(colour.updateValue(try XCTUnwrap(fill[i + 1] as? String), forKey: k), "\(id): \(k) twice") }
            }
            XCTAssertEqual(colour, raster.categoryFillColors.mapValues(MapLibreStyle.css), id)
            XCTAssertEqual(Set(colour.values).count, fill.count / 2 - 1, "\(id): one branch per colour")
        }
        XCTAssertNotEqual(Style.builtIn.resolve("floor_rooms_[FLOOR]")?.categoryFill("restaurant"),
                          Style.builtIn.resolve("floor_rooms_[FLOOR]")?.categoryFill("shopping"))
        // A layer without category fills keeps its plain colour.
        let walkways = (layers["layers"] as! [[String: Any]]).first { $0["id"] as? String == "floor_walkways" }
        XCTAssertEqual((walkways?["paint"] as? [String: Any])?["fill-color"] as? String, "#FFFFFF")
    }

    func testSchemaCheckCatchesMistakes() {
        let bad: [String: Any] = ["version": 8, "sources": ["v": ["type": "vector", "tiles": ["a"]]], "layers": [
            ["id": "a", "type": "fill", "source": "v", "paint": ["fill-colour": "#fff"]],
            ["id": "a", "type": "line", "source": "nope", "source-layer": "x"],
            ["id": "b", "type": "symbol", "source": "v", "source-layer": "x", "layout": ["text-font": ["Comic"]],
             "paint": ["text-color": "blue-ish"]],
            ["id": "c", "type": "fill", "source": "v", "source-layer": "x",
             "paint": ["fill-color": ["match", ["get", "fill_category"], ["shop"], "orange", "#fff"] as [Any]]],
        ]]
        let p = StyleSchema.problems(bad, spriteNames: [], fontstacks: ["DejaVu Sans"])
        XCTAssertTrue(p.contains("a: source-layer missing"), "\(p)")
        XCTAssertTrue(p.contains("a: paint fill-colour not a fill property"), "\(p)")
        XCTAssertTrue(p.contains("a: duplicate id"), "\(p)")
        XCTAssertTrue(p.contains("a: source missing"), "\(p)")
        XCTAssertTrue(p.contains("b: text-font Comic has no glyphs"), "\(p)")
        XCTAssertTrue(p.contains("b: text-color: not a colour: blue-ish"), "\(p)")
        XCTAssertTrue(p.contains("c: fill-color: match output not a colour: orange"), "\(p)")
    }

    func testLayersFollowTheSpecDrawingOrderAndPaint() throws {
        let layers = try vectorStyle()["layers"] as! [[String: Any]]
        let templates = layers.map { ($0["metadata"] as! [String: String])["venuetiles:layer-id"]! }
        let order = templates.map { LayerTable.drawIndex(of: $0) }
        XCTAssertEqual(order, order.sorted(), "layers out of the spec's drawing order: \(templates)")
        // Every layer id the default style draws has at least one MapLibre layer.
        for t in LayerTable.drawingOrder where t != "floor_selected_unit_[FLOOR]" && t != "floor_shadows_[FLOOR]" {
            guard let ls = Style.builtIn.resolve(t), ls.fillColor != nil || ls.lineColor != nil || ls.fontColor != nil || ls.iconName != nil else { continue }
            XCTAssertTrue(templates.contains(t), "no MapLibre layer for \(t)")
        }
        func layer(_ id: String) -> [String: Any]? { layers.first { $0["id"] as? String == id } }
        let rooms = try XCTUnwrap(layer("floor_rooms"))
        XCTAssertEqual(rooms["type"] as? String, "fill")
        XCTAssertEqual(rooms["source-layer"] as? String, "floor_rooms")
        XCTAssertEqual(((rooms["paint"] as? [String: Any])?["fill-color"] as? [Any])?.last as? String, "#F6EBDA")
        XCTAssertEqual((layer("floor_rooms-outline")?["paint"] as? [String: Any])?["line-color"] as? String, "#CDB089")
        XCTAssertEqual((layer("floor_non_public_units-pattern")?["paint"] as? [String: Any])?["fill-pattern"] as? String, "hatch-light")
        // Hidden and colourless in the default style: nothing to draw, no layer.
        XCTAssertNil(layer("venue"))
        let labels = try XCTUnwrap(layer("floor_labels"))
        let lay = labels["layout"] as! [String: Any], paint = labels["paint"] as! [String: Any]
        XCTAssertEqual(lay["text-font"] as? [String], ["DejaVu Sans"])
        XCTAssertEqual(lay["text-size"] as? Double, 12)
        XCTAssertEqual(lay["text-max-width"] as? Double, 8)        // 96 px at 12 px
        XCTAssertEqual(paint["text-color"] as? String, "#3B3A36")
        XCTAssertEqual(paint["text-halo-color"] as? String, "#FFFFFF")
        XCTAssertEqual(paint["text-halo-width"] as? Double, 1)
        XCTAssertEqual(layer("floor_icons")?["source-layer"] as? String, "floor_amenities")
        XCTAssertEqual(layer("floor_icons")?["minzoom"] as? Int, 18)   // raster z19 at 256 px
        // Doors: 0.4 m wide, at least 1 px; MapLibre z22 is raster z23 (1.87 cm/px): 21.43 px.
        let width = (layer("floor_openings-line")?["paint"] as? [String: Any])?["line-width"] as? [Any]
        XCTAssertEqual(width?.count, 3 + 2 * 25)
        XCTAssertEqual(width?[3 + 2 * 22 + 1] as? Double, 21.43)
        XCTAssertEqual(width?[3 + 2 * 17 + 1] as? Double, 1)
    }

    /// `floor_selected_unit_[FLOOR]`: a fill and outline over every unit layer,
    /// shown only where the feature state says `selected`.
    func testSelectedUnitLayersAreDrivenByFeatureState() throws {
        let s = try vectorStyle()
        XCTAssertEqual(StyleSchema.problems(s, spriteNames: Set(Sprite.builtIn(pixelRatio: 1).images.keys), fontstacks: ["DejaVu Sans"]), [])
        let layers = s["layers"] as! [[String: Any]]
        let selected = layers.filter { ($0["metadata"] as? [String: String])?["venuetiles:layer-id"] == "floor_selected_unit_[FLOOR]" }
        let units = LayerTable.unitTemplates.map(LayerTable.genericID)
        XCTAssertEqual(Set(selected.compactMap { $0["source-layer"] as? String }), Set(units))
        let rooms = try XCTUnwrap(selected.first { $0["id"] as? String == "floor_selected_unit-floor_rooms" })
        XCTAssertEqual(rooms["type"] as? String, "fill")
        let paint = rooms["paint"] as! [String: Any]
        XCTAssertEqual(paint["fill-color"] as? String, "#8DB8EA", "the style's entry")
        let opacity = try JSONSerialization.data(withJSONObject: paint["fill-opacity"]!)
        XCTAssertEqual(String(decoding: opacity, as: UTF8.self), #"["case",["boolean",["feature-state","selected"],false],1,0]"#)
        let outline = try XCTUnwrap(selected.first { $0["id"] as? String == "floor_selected_unit-floor_rooms-outline" })
        XCTAssertEqual((outline["paint"] as? [String: Any])?["line-color"] as? String, "#2F6FB5")
        XCTAssertNotNil((outline["paint"] as? [String: Any])?["line-opacity"])
        // Drawn above the units and amenities, below the labels (the spec's order 18).
        let ids = layers.map { $0["id"] as! String }
        XCTAssertLessThan(ids.firstIndex(of: "floor_amenities")!, ids.firstIndex(of: "floor_selected_unit-floor_rooms")!)
        XCTAssertLessThan(ids.firstIndex(of: "floor_selected_unit-floor_rooms")!, ids.firstIndex(of: "floor_labels")!)
        // Feature ids come from the tiles: no promoteId needed.
        XCTAssertNil((s["sources"] as? [String: [String: Any]])?["venue"]?["promoteId"])
        // A style whose entry is hidden or colourless: the layers say so, or are not there.
        let hidden = try Style.parse(Data(##"{"id": "u", "styles": [{"layer-id": "floor_selected_unit_[FLOOR]", "fill-color": "#FF0000", "hidden": true}]}"##.utf8), source: "u.json")
        let hl = try vectorStyle(hidden)["layers"] as! [[String: Any]]
        let red = hl.filter { ($0["id"] as? String)?.hasPrefix("floor_selected_unit-") == true }
        XCTAssertEqual(red.count, units.count)
        XCTAssertTrue(red.allSatisfy { ($0["layout"] as? [String: Any])?["visibility"] as? String == "none" })
        let none = try Style.parse(Data(##"{"id": "u", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#FF0000"}]}"##.utf8), source: "u.json")
        XCTAssertFalse((try vectorStyle(none)["layers"] as! [[String: Any]]).contains { ($0["id"] as? String)?.hasPrefix("floor_selected_unit") == true })
    }

    /// Building labels are the tiles' `building_labels` points.
    func testBuildingLabelsUseTheLabelPoints() throws {
        let layers = try vectorStyle()["layers"] as! [[String: Any]]
        let b = try XCTUnwrap(layers.first { $0["id"] as? String == "building_labels" })
        XCTAssertEqual(b["source-layer"] as? String, "building_labels")
        XCTAssertTrue("\(b["filter"]!)".contains("Point"))
    }

    /// A building floor's filter keeps to its building's features.
    func testABuildingFloorsFilter() throws {
        var v = Self.venue()
        v.floors = [.init(id: "floor_b2_0", ordinal: 0, shortName: "G", name: nil, building: .init(id: "building_2", sourceID: "b-2", name: "Pavilion"))]
        let layers = try XCTUnwrap(MapLibreStyle.vector(v, style: .builtIn))["layers"] as! [[String: Any]]
        let rooms = try XCTUnwrap(layers.first { $0["id"] as? String == "floor_rooms" })
        let data = try JSONSerialization.data(withJSONObject: (rooms["filter"] as! [Any])[2])
        XCTAssertEqual(String(decoding: data, as: UTF8.self),
                       #"["all",["in",";0;",["concat",";",["to-string",["get","level"]],";"]],["any",["!",["has","building_id"]],["==",["get","building_id"],"b-2"]]]"#)
    }

    func testFloorFilterIsOnTheTextLevel() throws {
        let layers = try vectorStyle()["layers"] as! [[String: Any]]
        let rooms = layers.first { $0["id"] as? String == "floor_rooms" }!
        let filter = rooms["filter"] as! [Any]
        // The default floor is the ground floor: level "0", also matched inside "-1;0;1".
        let level = "\(filter[2])"
        XCTAssertTrue(level.contains(";0;"), level)
        XCTAssertEqual(ClientVenue(id: "x", name: "x", bounds: [], center: [], minZoom: 0, maxZoom: 1,
                                   floors: [.init(id: "floor_m1", ordinal: -1, shortName: nil, name: nil),
                                            .init(id: "floor_2", ordinal: 2, shortName: nil, name: nil)],
                                   tilesets: [], baseURL: nil, labelTexts: []).defaultFloor?.id, "floor_2")
        XCTAssertEqual(ClientVenue(id: "x", name: "x", bounds: [], center: [], minZoom: 0, maxZoom: 1,
                                   floors: [.init(id: "floor_m2", ordinal: -2, shortName: nil, name: nil),
                                            .init(id: "floor_m1", ordinal: -1, shortName: nil, name: nil)],
                                   tilesets: [], baseURL: nil, labelTexts: []).defaultFloor?.id, "floor_m1")
    }

    func testRasterStylePerFloorAndAbsoluteURLsWithABaseURL() throws {
        let v = Self.venue(base: "https://tiles.example.com/v1/")
        let f = v.floors[1]
        let s = try XCTUnwrap(MapLibreStyle.raster(v, style: .builtIn, floor: f, from: f.id))
        XCTAssertEqual(StyleSchema.problems(s, spriteNames: [], fontstacks: []), [])
        let src = (s["sources"] as! [String: [String: Any]])["floor_0"]!
        XCTAssertEqual(src["tiles"] as? [String], ["https://tiles.example.com/v1/harbour/floor_0/png/{z}/{x}/{y}.png"])
        XCTAssertEqual(src["tileSize"] as? Int, 256)
        // Relative to the style file (in the floor's folder) without a base URL.
        let rel = try XCTUnwrap(MapLibreStyle.raster(Self.venue(), style: .builtIn, floor: f, from: f.id))
        XCTAssertEqual((rel["sources"] as! [String: [String: Any]])["floor_0"]!["tiles"] as? [String], ["png/{z}/{x}/{y}.png"])
        // No vector tileset: no vector style.
        XCTAssertNil(MapLibreStyle.vector(Self.venue(tilesets: [.init(format: .png, directory: "png", tileSize: 256)]), style: .builtIn))
    }

    func testWildcardAndExactEntriesOfAUserStyle() throws {
        let doc = ##"{"id": "u", "version": "1.1", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#11223344", "hidden": true},"## +
            ##" {"layer-id": "floor_labels_[FLOOR]", "font-name": "DejaVu Sans Bold", "font-size": 10}]}"##
        let style = try Style.parse(Data(doc.utf8), source: "user.json")
        let layers = try vectorStyle(style)["layers"] as! [[String: Any]]
        let rooms = layers.first { $0["id"] as? String == "floor_rooms" }!
        XCTAssertEqual((rooms["paint"] as? [String: Any])?["fill-color"] as? String, "rgba(17, 34, 51, 0.267)")
        XCTAssertEqual((rooms["layout"] as? [String: Any])?["visibility"] as? String, "none")
        XCTAssertEqual(MapLibreStyle.fontstacks(style), ["DejaVu Sans Bold"])
    }

    func testAFloorsOwnEntryWinsOverTheWildcardOnThatFloor() throws {
        let doc = ##"{"id": "u", "version": "1.1", "styles": [{"layer-id": "floor_rooms_[FLOOR]", "fill-color": "#FBE5C4"},"## +
            ##" {"layer-id": "floor_rooms_floor_m1", "fill-color": "#FF0000"}]}"##
        let style = try Style.parse(Data(doc.utf8), source: "user.json")
        let s = try vectorStyle(style)
        XCTAssertEqual(StyleSchema.problems(s, spriteNames: Set(Sprite.builtIn(pixelRatio: 1).images.keys), fontstacks: ["DejaVu Sans"]), [])
        let layers = s["layers"] as! [[String: Any]]
        let ids = layers.map { $0["id"] as! String }
        let generic = try XCTUnwrap(ids.firstIndex(of: "floor_rooms")), own = try XCTUnwrap(ids.firstIndex(of: "floor_rooms@floor_m1"))
        XCTAssertEqual(own, generic + 1, "the floor's own layer draws where the wildcard's does")
        XCTAssertEqual((layers[own]["paint"] as? [String: Any])?["fill-color"] as? String, "#FF0000")
        // The wildcard leaves floor_m1 (level -1) out; the floor's own layer shows only there.
        XCTAssertTrue("\(layers[generic]["filter"]!)".contains(";-1;"), "\(layers[generic]["filter"]!)")
        XCTAssertEqual((layers[generic]["filter"] as! [Any]).count, 4)
        XCTAssertEqual((layers[own]["filter"] as! [Any]).count, 4)
    }
}
