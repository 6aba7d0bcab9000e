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
