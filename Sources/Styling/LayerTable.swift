import VenueModel

/// The style spec's layer ids in drawing order (lowest first). `[FLOOR]` and
/// `[BUILDING]` are wildcards for a floor id or a building id.
///
/// This one table decides both which raster layer draws a feature and which
/// vector tile layer carries it.
public enum LayerTable {
    public static let drawingOrder: [String] = [
        "background", "venue", "building_outlines_[BUILDING]", "floor_outlines_[FLOOR]",
        "floor_elevators_[FLOOR]", "floor_stairwells_[FLOOR]", "floor_restrooms_[FLOOR]",
        "floor_walkways_[FLOOR]", "floor_fixtures_[FLOOR]", "floor_non_public_units_[FLOOR]",
        "floor_open_to_below_units_[FLOOR]", "floor_other_rooms_[FLOOR]", "floor_rooms_[FLOOR]",
        "floor_water_[FLOOR]", "floor_walls_[FLOOR]", "floor_openings_[FLOOR]", "floor_amenities_[FLOOR]",
        "floor_selected_unit_[FLOOR]", "floor_shadows_[FLOOR]", "floor_labels_[FLOOR]",
        "floor_icons_[FLOOR]", "building_labels_[BUILDING]",
    ]

    /// The layer template of a feature class; nil for classes no layer draws.
    ///
    /// | feature class | layer |
    /// |---|---|
    /// | venue | venue |
    /// | building (footprint) | building_outlines_[BUILDING] |
    /// | levelOutline | floor_outlines_[FLOOR] |
    /// | elevator | floor_elevators_[FLOOR] |
    /// | stairs (stairs, steps, escalator, ramp, moving walkway) | floor_stairwells_[FLOOR] |
    /// | restroom (restroom.*, shower, mothersroom) | floor_restrooms_[FLOOR] |
    /// | walkway (walkway, lobby, platform, footbridge, ...) | floor_walkways_[FLOOR] |
    /// | fixture (fixtures, kiosks) | floor_fixtures_[FLOOR] |
    /// | nonPublic (nonpublic, structure, storage, ...) | floor_non_public_units_[FLOOR] |
    /// | openToBelow | floor_open_to_below_units_[FLOOR] |
    /// | otherRoom (unspecified and unknown) | floor_other_rooms_[FLOOR] |
    /// | room (room, office, foodservice, ...) | floor_rooms_[FLOOR] |
    /// | water | floor_water_[FLOOR] |
    /// | wall (MVF walls, OSM wall lines) | floor_walls_[FLOOR] (our addition to the spec's list: MVF draws walls) |
    /// | opening | floor_openings_[FLOOR] |
    /// | amenity | floor_amenities_[FLOOR] |
    /// | section, anchor | none |
    public static func template(for c: FeatureClass) -> String? {
        switch c {
        case .venue: return "venue"
        case .building: return "building_outlines_[BUILDING]"
        case .levelOutline: return "floor_outlines_[FLOOR]"
        case .elevator: return "floor_elevators_[FLOOR]"
        case .stairs: return "floor_stairwells_[FLOOR]"
        case .restroom: return "floor_restrooms_[FLOOR]"
        case .walkway: return "floor_walkways_[FLOOR]"
        case .fixture: return "floor_fixtures_[FLOOR]"
        case .nonPublic: return "floor_non_public_units_[FLOOR]"
        case .openToBelow: return "floor_open_to_below_units_[FLOOR]"
        case .otherRoom: return "floor_other_rooms_[FLOOR]"
        case .room: return "floor_rooms_[FLOOR]"
        case .water: return "floor_water_[FLOOR]"
        case .wall: return "floor_walls_[FLOOR]"
        case .opening: return "floor_openings_[FLOOR]"
        case .amenity: return "floor_amenities_[FLOOR]"
        case .section, .anchor: return nil
        }
    }

    /// The layers of units (rooms, walkways, restrooms, …): what a person can
    /// select, and so what `floor_selected_unit_[FLOOR]` draws over.
    public static let unitTemplates: [String] = [
        "floor_elevators_[FLOOR]", "floor_stairwells_[FLOOR]", "floor_restrooms_[FLOOR]", "floor_walkways_[FLOOR]",
        "floor_non_public_units_[FLOOR]", "floor_open_to_below_units_[FLOOR]", "floor_other_rooms_[FLOOR]",
        "floor_rooms_[FLOOR]", "floor_water_[FLOOR]",
    ]

    /// Layer ids of the spec that name tiles rather than features: `outdoors`
    /// (the overview raster) and a bare floor id (`[FLOOR]`, a floor's raster tiles).
    public static let outdoorsID = "outdoors"

    /// An exact id split into its template and the floor or building it names:
    /// `floor_rooms_floor_b1_2` → (`floor_rooms_[FLOOR]`, `floor_b1_2`); a bare
    /// `floor_…` id is the `[FLOOR]` raster layer. nil for templates and other ids.
    public static func exactID(_ id: String) -> (template: String, value: String)? {
        guard !id.contains("[") else { return nil }
        for t in drawingOrder {
            guard let r = t.range(of: "[FLOOR]") ?? t.range(of: "[BUILDING]") else { continue }
            let prefix = String(t[..<r.lowerBound])
            if id.hasPrefix(prefix) && id.count > prefix.count { return (t, String(id.dropFirst(prefix.count))) }
        }
        if id.hasPrefix("floor_") && id.count > "floor_".count { return ("[FLOOR]", id) }
        return nil
    }

    /// Position of a template in the drawing order.
    public static func drawIndex(of template: String) -> Int {
        drawingOrder.firstIndex(of: template) ?? drawingOrder.count
    }

    /// The layer id of the venue-wide vector pyramid: the template without its
    /// wildcard (`floor_rooms_[FLOOR]` → `floor_rooms`); features there carry
    /// `level_id` and `ordinal` for clients to filter floors.
    public static func genericID(_ template: String) -> String {
        var s = template
        for w in ["_[FLOOR]", "_[BUILDING]"] { s = s.replacingFirst(w, with: "") }
        return s
    }

    /// The concrete layer id for a floor or building: `floor_rooms_[FLOOR]` → `floor_rooms_floor_0`.
    public static func layerID(_ template: String, floor: String? = nil, building: String? = nil) -> String {
        var s = template
        if let floor { s = s.replacingFirst("[FLOOR]", with: floor) }
        if let building { s = s.replacingFirst("[BUILDING]", with: building) }
        return s
    }
}

private extension String {
    /// The first `a` replaced by `b`, on UTF-8 bytes: this runs for every
    /// feature and layer while preparing, where Foundation's `range(of:)`
    /// bridged each string (6 % of a one-unit edit's CPU).
    func replacingFirst(_ a: String, with b: String) -> String {
        let s = Array(utf8), p = Array(a.utf8)
        guard !p.isEmpty, s.count >= p.count, s.contains(p[0]) else { return self }
        for i in 0...(s.count - p.count) where s[i] == p[0] && s[i..<(i + p.count)].elementsEqual(p) {
            return String(decoding: s[..<i] + Array(b.utf8) + s[(i + p.count)...], as: UTF8.self)
        }
        return self
    }
}
