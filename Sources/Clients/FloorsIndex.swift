import Foundation
import Styling

/// `<venue>/floors.json`: the small index an app's floor switcher and legend
/// read instead of `manifest.json` (which lists every tile).
public enum FloorsIndex {
    public static let formatVersion = 1

    /// Display names of the style spec's layer ids (the spec names none).
    public static let displayNames: [String: String] = [
        "background": "Background", "venue": "Venue", "building_outlines_[BUILDING]": "Buildings",
        "floor_outlines_[FLOOR]": "Floor", "floor_elevators_[FLOOR]": "Elevators",
        "floor_stairwells_[FLOOR]": "Stairs and escalators", "floor_restrooms_[FLOOR]": "Restrooms",
        "floor_walkways_[FLOOR]": "Walkways", "floor_fixtures_[FLOOR]": "Fixtures",
        "floor_non_public_units_[FLOOR]": "Non-public areas", "floor_open_to_below_units_[FLOOR]": "Open to below",
        "floor_other_rooms_[FLOOR]": "Other rooms", "floor_rooms_[FLOOR]": "Rooms", "floor_water_[FLOOR]": "Water",
        "floor_walls_[FLOOR]": "Walls", "floor_openings_[FLOOR]": "Doors", "floor_amenities_[FLOOR]": "Amenities",
        "floor_selected_unit_[FLOOR]": "Selected unit", "floor_shadows_[FLOOR]": "Shadows",
        "floor_labels_[FLOOR]": "Labels", "floor_icons_[FLOOR]": "Icons", "building_labels_[BUILDING]": "Building labels",
    ]

    /// The description of a vector tile layer (`floor_rooms_floor_0`, `floor_rooms`,
    /// `building_outlines_<id>`) for TileJSON's `vector_layers`: its display
    /// name, and for the venue-wide layers how floors are told apart.
    public static func layerDescription(_ layer: String) -> String? {
        switch layer {
        case LayerTable.outdoorsID:
            return "Outdoors: the outdoor levels' outlines and features (floor_layer: their layer on a floor), for the overview shown when no floor is active"
        case "building_labels":
            return "Building labels: one point per named building footprint (name, building, building_id; level: the floors the building has)"
        default: break
        }
        // The longest matching prefix: `floor_rooms` must not take `floor_rooms_…` of another template.
        let candidates = LayerTable.drawingOrder.filter { t in
            let g = LayerTable.genericID(t)
            return layer == g || (g != t && layer.hasPrefix(g + "_"))
        }
        guard let t = candidates.max(by: { LayerTable.genericID($0).count < LayerTable.genericID($1).count }),
              let name = displayNames[t] else { return nil }
        if t == "floor_labels_[FLOOR]" { return "Labels: one point per named unit (name, name:<lang>)" }
        if layer == LayerTable.genericID(t), t.contains("[FLOOR]") { return "\(name), every floor: filter on level (\"0\", \"0;1\"), ordinal or level_id" }
        return name
    }

    /// One layer id of the style spec as a legend shows it.
    public struct LegendEntry: Encodable, Sendable, Equatable {
        public var layer_id: String
        public var source_layer: String
        public var name: String
        public var hidden: Bool
        /// Whether anything of this layer can be seen at all (a legend may leave the others out).
        public var draws: Bool
        public var fill_color: String?
        public var outline_color: String?
        public var line_color: String?
        public var font_color: String?
        public var icon: String?
        public var fill_pattern: String?
    }

    /// One entry per layer id of the spec, in drawing order: what a legend shows
    /// (in floors.json, and for TileJSON's `legend`).
    public static func legendEntries(_ style: Style) -> [LegendEntry] {
        LayerTable.drawingOrder.map { t in
            let ls = style.resolve(t) ?? LayerStyle()
            let draws = !ls.hidden && (ls.fillColor != nil || ls.outlineColor != nil || ls.lineColor != nil
                                       || ls.iconName != nil || (t.contains("labels") && ls.fontColor != nil))
            return LegendEntry(layer_id: t, source_layer: LayerTable.genericID(t), name: displayNames[t] ?? LayerTable.genericID(t),
                               hidden: ls.hidden, draws: draws, fill_color: ls.fillColor?.description,
                               outline_color: ls.outlineColor?.description, line_color: ls.lineColor?.description,
                               font_color: ls.fontColor?.description, icon: ls.iconName, fill_pattern: ls.fillPattern)
        }
    }

    static func legend(_ style: Style) throws -> Any {
        try JSONSerialization.jsonObject(with: JSONEncoder().encode(legendEntries(style)))
    }

    public static func make(_ v: ClientVenue, style: Style) throws -> Data {
        func tileset(_ ts: ClientVenue.Tileset, _ dir: String) -> [String: Any] {
            var e: [String: Any] = ["format": ts.format.rawValue, "tile_size": ts.tileSize, "directory": ts.folder(floor: dir),
                                    "tiles": v.url(ts.tileURL(floor: dir)), "tilejson": v.url(ts.folder(floor: dir) + "/tilejson.json")]
            if ts.scheme != "xyz" { e["scheme"] = ts.scheme }
            return e
        }
        let floors: [[String: Any]] = v.floorsInDisplayOrder.map { f in
            var e: [String: Any] = ["id": f.id, "ordinal": f.ordinal, "level": f.level,
                                    "short_name": f.shortName ?? f.level, "name": f.name ?? f.shortName ?? f.id,
                                    "tilesets": v.tilesets.map { tileset($0, f.id) }]
            if v.rasterTileset != nil { e["style"] = v.url("\(f.id)/style.json") }
            if let b = f.building {
                // An ordinal floor's filter is its `level` (as before); a building floor's keeps to its building.
                if v.vectorTileset != nil { e["filter"] = MapLibreStyle.floorFilter(f) }
                e["building"] = b.id
                e["building_id"] = b.sourceID
                if let n = b.name { e["building_name"] = n }
            }
            return e
        }
        // Building floors (`"floors": "building"`): a switcher picks a building, then one of its floors.
        let buildings: [[String: Any]] = v.buildings.map { b in
            var e: [String: Any] = ["id": b.id, "building_id": b.sourceID,
                                    "floors": v.floorsInDisplayOrder.filter { $0.building?.id == b.id }.map(\.id)]
            if let n = b.name { e["name"] = n }
            return e
        }
        var doc: [String: Any] = [
            "format_version": formatVersion,
            "venue": ["id": v.id, "name": v.name], "bounds": v.bounds, "center": v.center,
            "minzoom": v.minZoom, "maxzoom": v.maxZoom, "floors": floors, "legend": try legend(style),
            "level_property": "level",
        ]
        if let d = v.defaultFloor { doc["default_floor"] = d.id }
        if !buildings.isEmpty { doc["buildings"] = buildings }
        if let ts = v.vectorTileset {
            doc["all_floors"] = ["tilesets": [tileset(ts, "all")], "style": v.url("style.json")]
            doc["sprite"] = v.url("sprite")
            doc["glyphs"] = v.url("glyphs/{fontstack}/{range}.pbf")
        }
        return try ClientJSON.encode(doc)
    }
}
