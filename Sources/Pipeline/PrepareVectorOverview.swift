import Styling
import TileGeometry
import VectorTiles
import VenueModel

/// The properties of a vector feature (`id`, `category`, `fill_category`, `name`,
/// `name:<lang>`, `level`, `level_id`, `ordinal`, `building_id`, and MVF's
/// paint), the same for every pyramid.
struct VectorProperties {
    let language: String?
    /// The text `level` of indoor clients (OSM Simple Indoor Tagging): the
    /// ordinals of every floor a feature is on, joined by ";". An OSM feature
    /// tagged `level=0;1` arrives as one Feature per level with the same id.
    let levels: LevelText
    var levelOrdinal = [String: MVTValue]()
    var levelBuilding = [String: String]()

    init(_ v: PreparedVenue) {
        language = v.venue.language
        levels = LevelText(venue: v.venue, floors: v.primaryFloors.map(\.floor))
        for l in v.venue.levels {
            // A level between whole floors (OSM level=0.5) says so: a client filtering on ordinal == 0 must not show it.
            levelOrdinal[l.id] = l.fraction == 0 ? .int(Int64(l.ordinal))
                : .double(Floor(ordinal: l.ordinal, fraction: l.fraction, levels: []).position)
            levelBuilding[l.id] = l.buildingIDs.first
        }
    }

    /// `level`: the text `level` when it is not the feature's own (a building's floors).
    /// `fill`: the key of the style's `category-fill-colors` the raster filled the unit by (its own or its occupant's category).
    func make(_ f: Feature, name: LocalizedName, level: String? = nil, fill: String? = nil) -> [(key: String, value: MVTValue)] {
        var p: [(key: String, value: MVTValue)] = [("id", .string(f.id)), ("category", .string(f.category))]
        if let fill { p.append(("fill_category", .string(fill))) }
        let chosen = name.language(preferring: language)
        if let n = name.text(preferring: language) { p.append(("name", .string(n))) }
        for e in name.entries where e.language != chosen { p.append(("name:\(e.language)", .string(e.text))) }
        p.append(("level", .string(level ?? levels.text(for: f))))
        if let l = f.levelID {
            p.append(("level_id", .string(l)))
            if let o = levelOrdinal[l] { p.append(("ordinal", o)) }
        }
        if let b = f.buildingID ?? f.levelID.flatMap({ levelBuilding[$0] }) { p.append(("building_id", .string(b))) }
        // The venue's own paint (MVF styles), for clients that style by data.
        if let sp = f.sourcePaint {
            if let c = sp.color { p.append(("color", .string(c))) }
            if let o = sp.opacity { p.append(("opacity", .double(o))) }
            if let h = sp.height { p.append(("height", .double(h))) }
        }
        return p
    }
}

/// The venue-wide pyramid's share of the `outdoors` overview: what a client
/// shows when no floor of a building is active.
extension PrepareVector {
    /// Layer of the outdoor levels' outlines and features (the raster `outdoors`'s content besides venue and buildings).
    static let outdoorsLayer = LayerTable.outdoorsID
    /// Layer of the building name points (`building_labels_[BUILDING]` without its wildcard).
    static let buildingLabelsLayer = LayerTable.genericID("building_labels_[BUILDING]")

    /// Items (with their drawing order) only the venue-wide pyramid has:
    /// - `outdoors`: every outdoor level's outline and features, with a
    ///   `floor_layer` property naming the layer the feature has on its floor
    ///   (`floor_walkways`); also on the ordinal floors, as in the raster overview;
    /// - `building_labels`: one point per named footprint at its pole of
    ///   inaccessibility (where the raster overview puts the name), with
    ///   `building_id`, `building` (`building_1`) and as `level` the floors the
    ///   building has levels on;
    /// - `building_outlines`: for a building without a footprint, its levels'
    ///   outlines (as the `building_outlines_<building>` raster draws it).
    /// Ids are unique per layer (`UniqueIDs`), like every venue-wide layer's.
    static func overviewItems(_ v: PreparedVenue, props: VectorProperties, ids: inout UniqueIDs) -> [(order: Int, item: VectorItem)] {
        let venue = v.venue
        var out = [(order: Int, item: VectorItem)]()
        func add(_ f: Feature, layer: String, order: Int, properties: [(key: String, value: MVTValue)], geometry: ProjectedGeometry) {
            let placed = ids.place(f, layer: layer)
            guard placed.isNew else { return }
            out.append((order, VectorItem(floorLayer: layer, venueLayer: layer, id: placed.id, properties: properties, geometry: geometry)))
        }

        // Outdoors: drawn just above the venue, below the buildings (the spec's order 3).
        let outdoorOrder = LayerTable.drawIndex(of: "venue")
        var byLevel = [String: [Feature]]()
        for f in venue.features { if let l = f.levelID { byLevel[l, default: []].append(f) } }
        for level in venue.levels where level.outdoor {
            for f in (level.outlineFeature.map { [$0] } ?? []) + (byLevel[level.id] ?? []) {
                guard let template = LayerTable.template(for: f.featureClass), f.sourcePaint?.hidden != true else { continue }
                add(f, layer: outdoorsLayer, order: outdoorOrder,
                    properties: props.make(f, name: f.name) + [(key: "floor_layer", value: MVTValue.string(LayerTable.genericID(template)))],
                    geometry: ProjectedGeometry(f.geometry))
            }
        }

        // The floors each building has levels on, as `level` text.
        var places = [String: [Int]]()
        for l in venue.levels { for b in l.buildingIDs { places[b, default: []].append(l.ordinal * Floor.fractionScale + l.fraction) } }
        let specID = v.buildingSpecIDs
        func buildingProperties(_ b: String) -> [(key: String, value: MVTValue)] {
            guard let id = specID[b] else { return [] }
            return [(key: "building", value: MVTValue.string(id))]
        }

        var names = [String: LocalizedName]()
        for b in venue.buildings where !b.name.isEmpty { names[b.id] = b.name }
        let footprints = venue.features.filter { $0.featureClass == .building }
        let labelOrder = LayerTable.drawIndex(of: "building_labels_[BUILDING]")
        for f in footprints {
            let b = f.buildingID ?? f.id
            guard let name = f.name.isEmpty ? names[b] : f.name, !name.isEmpty,
                  case .polygons(let polys) = ProjectedGeometry(f.geometry), let anchor = pole(polys) else { continue }
            var labelled = f
            labelled.buildingID = b
            add(labelled, layer: buildingLabelsLayer, order: labelOrder,
                properties: props.make(labelled, name: name, level: LevelText.join(places[b] ?? [])) + buildingProperties(b),
                geometry: .points([anchor]))
        }

        // Buildings without a footprint: their levels' outlines stand for it.
        let withFootprint = Set(footprints.map { $0.buildingID ?? $0.id })
        let outlineOrder = LayerTable.drawIndex(of: "building_outlines_[BUILDING]")
        for (b, _) in venue.buildingIndex where !withFootprint.contains(b) {
            for level in venue.levels where level.buildingIDs.contains(b) {
                guard var f = level.outlineFeature else { continue }
                f.featureClass = .building; f.buildingID = b; f.levelID = nil
                add(f, layer: LayerTable.genericID("building_outlines_[BUILDING]"), order: outlineOrder,
                    properties: props.make(f, name: names[b] ?? f.name, level: LevelText.join(places[b] ?? [])) + buildingProperties(b),
                    geometry: ProjectedGeometry(f.geometry))
            }
        }
        return out
    }
}
