import Styling
import VenueModel

extension PipelineConfig.Tileset {
    /// Whether this tileset makes a pyramid of this kind (`layers`; vector tilesets: floors only).
    func draws(_ kind: PreparedFloor.Kind) -> Bool {
        switch kind {
        case .floor: return layers.contains(.floors)
        case .outdoors: return format == .png && layers.contains(.outdoors)
        case .buildingOutlines: return format == .png && layers.contains(.buildingOutlines)
        case .shadows: return format == .png && layers.contains(.floorShadows)
        }
    }
}

extension Builder {
    /// Prepare: every venue's floors (and the raster pyramids asked for besides
    /// them), then the style's exact ids checked against what the build has.
    func prepare(_ inputs: BuildInputs, _ run: inout BuildRun) -> [PreparedVenue] {
        var options = PrepareOptions()
        options.floorKinds = config.floorKinds
        let layers = config.tilesets.filter { $0.format == .png }.reduce(into: Set<PipelineConfig.Tileset.Layer>()) { $0.formUnion($1.layers) }
        options.outdoors = layers.contains(.outdoors)
        options.buildingOutlines = layers.contains(.buildingOutlines)
        options.floorShadows = layers.contains(.floorShadows)
        let venues = inputs.loaded.map {
            Prepare.run(sourceID: $0.sourceID, venue: $0.venue, style: inputs.style, sprite: inputs.sprites.one, options: options)
        }
        var warnings = venues.flatMap(\.warnings)
        warnings += StyleIDCheck.unmatched(inputs.style, floors: Set(venues.flatMap { $0.floors.flatMap(\.floor.styleIDs) }),
                                           buildings: Set(venues.flatMap { v in v.venue.buildingIndex.flatMap { [$0.id, $0.specID] } }))
        warnings.forEach { log("warning: \($0)") }
        run.summary.warnings += warnings.count
        return venues
    }
}

/// Exact style ids that name a floor or building this build does not have:
/// the entry would silently style nothing (a typo, or a floor id of another
/// floor scheme: `floor_b1` is building 1's prefix, not a basement).
enum StyleIDCheck {
    static func unmatched(_ style: Style, floors: Set<String>, buildings: Set<String>) -> [String] {
        var out = [String]()
        for id in style.layers.keys.sorted() {
            guard let (template, value) = LayerTable.exactID(id) else { continue }
            let known = template.contains("[FLOOR]") ? floors.contains(value) : buildings.contains(value)
            if !known {
                let kind = template.contains("[FLOOR]") ? "floor" : "building"
                let have = (kind == "floor" ? floors : buildings).sorted().prefix(12).joined(separator: ", ")
                out.append("\(style.id): layer id \"\(id)\" names \(kind) \"\(value)\", which this build does not have (it has: \(have)); the entry styles nothing")
            }
        }
        return out
    }
}
