import Foundation
import Styling

/// MapLibre style documents (style spec v8) made from the same Vector Map Tile
/// Style Spec document the raster tiles are drawn with, so the vector map
/// looks like the raster tiles.
///
/// Every style-spec layer id becomes one or more MapLibre layers named after
/// the venue-wide tile layer (`floor_rooms`, `floor_rooms-outline`, ...), in
/// the spec's drawing order; each carries `metadata["venuetiles:layer-id"]`
/// (the spec's template) so a client can show or hide a legend entry at once.
/// Floors are chosen with `MapLibreStyle.levelFilter`.
public enum MapLibreStyle {
    public static let sourceName = "venue"
    public static let defaultFont = "DejaVu Sans"
    /// MapLibre's zoom z shows 512 px tiles of z, which is zoom z + 1 of the
    /// 256 px raster tiles: style zooms are the raster's minus one.
    static let rasterZoomOffset = 1
    /// Below this zoom amenities are dots, as in the raster tiles (`LabelPlacement.iconMinZoom`, 19).
    public static let iconMinZoom = 19 - rasterZoomOffset

    /// Matches features whose `level` lists `level` (`"0"` matches `"0"` and `"-1;0"`).
    public static func levelFilter(_ level: String) -> [Any] {
        ["in", ";\(level);", ["concat", ";", ["to-string", ["get", "level"]], ";"]]
    }

    /// The features of one floor: its `level`, and for a building floor only
    /// that building's features (and those of no building). A client changing
    /// floors sets this as the third part of every layer's filter (floors.json
    /// gives it per floor as `filter`).
    public static func floorFilter(_ f: ClientVenue.Floor) -> [Any] {
        guard let b = f.building else { return levelFilter(f.level) }
        return ["all", levelFilter(f.level), ["any", ["!", ["has", "building_id"]], ["==", ["get", "building_id"], b.sourceID]]]
    }

    /// The font stacks the labels of `style` name (one font each).
    public static func fontstacks(_ style: Style) -> [String] {
        var out = Set<String>()
        for t in ["floor_labels_[FLOOR]", "building_labels_[BUILDING]"] {
            if let ls = style.resolve(t), !ls.hidden { out.insert(ls.fontName ?? defaultFont) }
        }
        return out.sorted()
    }

    /// The vector style of a venue over its venue-wide pyramid (`all/<mvt>`),
    /// showing `floor` (default: the venue's default floor).
    public static func vector(_ v: ClientVenue, style: Style, floor: ClientVenue.Floor? = nil, from: String = "") -> [String: Any]? {
        guard let ts = v.vectorTileset, let shown = floor ?? v.defaultFloor else { return nil }
        var layers = [[String: Any]]()
        for template in LayerTable.drawingOrder {
            // A style entry for one floor (`floor_rooms_floor_1`) wins over the wildcard
            // there: that floor gets its own layers and the wildcard's leave it out.
            let overridden = template.contains("[FLOOR]")
                ? v.floors.filter { style.layers[LayerTable.layerID(template, floor: $0.id)] != nil } : []
            let filter = floorFilter(shown)
            layers += self.layers(template, style.resolve(template), floor: filter, except: overridden.map(floorFilter))
            for f in overridden {
                layers += self.layers(template, style.resolve(template, floor: f.id), floor: filter, only: (f.id, floorFilter(f)))
            }
        }
        var source: [String: Any] = ts.source(v, floor: "all", from: from).merging([
            "type": "vector", "minzoom": v.minZoom, "maxzoom": v.maxZoom, "bounds": v.bounds,
        ]) { a, _ in a }
        if let a = v.attribution { source["attribution"] = a }
        return [
            "version": 8, "name": v.name,
            "metadata": ["venuetiles:venue": v.id, "venuetiles:floor": shown.id, "venuetiles:style": style.id],
            "center": v.center, "zoom": Double(max(v.minZoom, 18)),
            "sprite": v.url("sprite", from: from),
            "glyphs": v.url("glyphs/{fontstack}/{range}.pbf", from: from),
            "sources": [sourceName: source], "layers": layers,
        ]
    }

    /// The raster style of one floor (its PNG pyramid over the style's background).
    public static func raster(_ v: ClientVenue, style: Style, floor: ClientVenue.Floor, from: String) -> [String: Any]? {
        guard let ts = v.rasterTileset else { return nil }
        var layers = [[String: Any]]()
        if let bg = style.resolve("background"), let c = bg.fillColor {
            layers.append(["id": "background", "type": "background", "paint": ["background-color": css(c)],
                           "layout": ["visibility": bg.hidden ? "none" : "visible"]])
        }
        layers.append(["id": "\(floor.id)-\(ts.directory)", "type": "raster", "source": floor.id])
        var source: [String: Any] = ts.source(v, floor: floor.id, from: from).merging([
            "type": "raster", "tileSize": 256, "minzoom": v.minZoom, "maxzoom": v.maxZoom, "bounds": v.bounds,
        ]) { a, _ in a }
        if let a = v.attribution { source["attribution"] = a }
        return ["version": 8, "name": "\(v.name) — \(floor.shortName ?? floor.id)",
                "metadata": ["venuetiles:venue": v.id, "venuetiles:floor": floor.id],
                "center": v.center, "zoom": Double(max(v.minZoom, 18)),
                "sources": [floor.id: source], "layers": layers]
    }

    /// CSS colour MapLibre parses: `#RRGGBB`, or `rgba()` when not opaque.
    static func css(_ c: Color) -> String {
        if c.a == 255 { return c.description }
        let a = (Double(c.a) / 255 * 1000).rounded() / 1000
        return "rgba(\(c.r), \(c.g), \(c.b), \(a))"
    }

    /// Door and wall line width: 0.4 map metres, at least 1 px (`DrawMetrics`), per zoom stop.
    static func lineWidth() -> [Any] {
        var e: [Any] = ["interpolate", ["exponential", 2], ["zoom"]]
        for z in stride(from: 0, through: 24, by: 1) {
            // Metres per CSS pixel at MapLibre zoom z (512 px tiles).
            let mpp = 40_075_016.685_578_5 / (512 * pow(2, Double(z)))
            e += [z, (max(1, 0.4 / mpp) * 100).rounded() / 100]
        }
        return e
    }

    static let polygonFilter: [Any] = ["match", ["geometry-type"], ["Polygon", "MultiPolygon"], true, false]
    static let lineFilter: [Any] = ["match", ["geometry-type"], ["LineString", "MultiLineString"], true, false]
    static let pointFilter: [Any] = ["match", ["geometry-type"], ["Point", "MultiPoint"], true, false]

    /// The MapLibre layers of one style-spec layer id.
    /// `only`: the layers of one floor's own style entry (ids `<layer>@<floor id>`);
    /// `except`: the filters of floors that have their own entry. Filters are
    /// `["all", geometry, shown floor, only/except…]`: a client changing floors replaces the third.
    static func layers(_ template: String, _ ls: LayerStyle?, floor: [Any],
                       only: (floor: String, filter: [Any])? = nil, except: [[Any]] = []) -> [[String: Any]] {
        let ls = ls ?? LayerStyle()
        let g = LayerTable.genericID(template)
        let visibility = ls.hidden ? "none" : "visible"
        let restrict: [Any] = (only.map { [$0.filter] } ?? []) + except.map { ["!", $0] }
        let suffix = only.map { "@\($0.floor)" } ?? ""
        func layer(_ id: String, _ type: String, sourceLayer: String = g, geometry: [Any], layout: [String: Any] = [:],
                   paint: [String: Any], minzoom: Int? = nil) -> [String: Any] {
            var l: [String: Any] = ["id": id + suffix, "type": type, "source": sourceName, "source-layer": sourceLayer,
                                    "filter": ["all", geometry, floor] + restrict,
                                    "layout": layout.merging(["visibility": visibility]) { a, _ in a },
                                    "paint": paint, "metadata": ["venuetiles:layer-id": template]]
            if let minzoom { l["minzoom"] = minzoom }
            return l
        }
        switch template {
        case "background":
            guard let c = ls.fillColor else { return [] }
            return [["id": "background", "type": "background", "layout": ["visibility": visibility],
                     "paint": ["background-color": css(c)], "metadata": ["venuetiles:layer-id": template]]]
        case "floor_amenities_[FLOOR]":
            var paint: [String: Any] = ["circle-radius": 3]
            if let c = ls.fillColor { paint["circle-color"] = css(c) }
            if let c = ls.outlineColor { paint["circle-stroke-color"] = css(c); paint["circle-stroke-width"] = 1 }
            return ls.fillColor == nil && ls.outlineColor == nil ? [] : [layer(g, "circle", geometry: pointFilter, paint: paint)]
        case "floor_labels_[FLOOR]", "building_labels_[BUILDING]":
            return [label(ls, id: g, sourceLayer: g, geometry: pointFilter, layer: layer)]
        case "floor_selected_unit_[FLOOR]":
            return selectedUnit(ls, g: g, layer: layer)
        case "floor_icons_[FLOOR]":
            guard let name = ls.iconName else { return [] }
            return [layer(g, "symbol", sourceLayer: "floor_amenities", geometry: pointFilter,
                          layout: ["icon-image": iconImage(name), "icon-allow-overlap": false], paint: [:], minzoom: iconMinZoom)]
        default:
            return shapes(ls, g: g, layer: layer)
        }
    }

    /// Fill, fill pattern, outline and line layers of a polygon or line layer id.
    static func shapes(_ ls: LayerStyle, g: String,
                       layer: (String, String, String, [Any], [String: Any], [String: Any], Int?) -> [String: Any]) -> [[String: Any]] {
        var out = [[String: Any]]()
        if let fill = fillColor(ls) {
            out.append(layer(g, "fill", g, polygonFilter, [:], ["fill-color": fill], nil))
        }
        if let p = ls.fillPattern {
            out.append(layer("\(g)-pattern", "fill", g, polygonFilter, [:], ["fill-pattern": p], nil))
        }
        if let c = ls.outlineColor {
            out.append(layer("\(g)-outline", "line", g, polygonFilter, [:], ["line-color": css(c), "line-width": 1], nil))
        }
        if let c = ls.lineColor {
            out.append(layer("\(g)-line", "line", g, lineFilter, ["line-cap": "butt"], ["line-color": css(c), "line-width": lineWidth()], nil))
        }
        return out
    }

    /// The feature state the preview page (and any client) sets on the clicked unit.
    public static let selectedState = "selected"
    static let isSelected: [Any] = ["boolean", ["feature-state", selectedState], false]

    /// `floor_selected_unit_[FLOOR]`: over each unit layer, a fill (and fill
    /// pattern, outline) in the entry's paint that shows only on the feature
    /// whose state is `selected` (`map.setFeatureState({source: "venue",
    /// sourceLayer, id}, {selected: true})`); the tiles' feature ids are the
    /// state's ids, unique per layer. Ids `floor_selected_unit-<unit layer>`.
    static func selectedUnit(_ ls: LayerStyle, g: String,
                             layer: (String, String, String, [Any], [String: Any], [String: Any], Int?) -> [String: Any]) -> [[String: Any]] {
        let shown: [Any] = ["case", isSelected, 1, 0]
        var out = [[String: Any]]()
        for unit in LayerTable.unitTemplates.map(LayerTable.genericID) {
            if let c = ls.fillColor {
                out.append(layer("\(g)-\(unit)", "fill", unit, polygonFilter, [:], ["fill-color": css(c), "fill-opacity": shown], nil))
            }
            if let p = ls.fillPattern {
                out.append(layer("\(g)-\(unit)-pattern", "fill", unit, polygonFilter, [:], ["fill-pattern": p, "fill-opacity": shown], nil))
            }
            if let c = ls.outlineColor {
                out.append(layer("\(g)-\(unit)-outline", "line", unit, polygonFilter, [:], ["line-color": css(c), "line-width": 2, "line-opacity": shown], nil))
            }
        }
        return out
    }

    /// `fill-color`, or with `category-fill-colors` a `match` on the units'
    /// `fill_category` (the key the raster filled the unit by), one branch per
    /// colour, `fill-color` (else transparent) for the rest; nil: no fill.
    static func fillColor(_ ls: LayerStyle) -> Any? {
        guard !ls.categoryFillColors.isEmpty else { return ls.fillColor.map(css) }
        var keys = [String: [String]]()
        for (k, c) in ls.categoryFillColors { keys[css(c), default: []].append(k) }
        var e: [Any] = ["match", ["get", "fill_category"]]
        for (c, ks) in keys.map({ ($0.key, $0.value.sorted()) }).sorted(by: { $0.1[0] < $1.1[0] }) { e += [ks, c] }
        return e + [ls.fillColor.map(css) ?? "rgba(0, 0, 0, 0)"]
    }

    static func label(_ ls: LayerStyle, id: String, sourceLayer: String, geometry: [Any],
                      layer: (String, String, String, [Any], [String: Any], [String: Any], Int?) -> [String: Any]) -> [String: Any] {
        let size = ls.fontSize ?? 12
        var layout: [String: Any] = ["text-field": ["get", "name"], "text-font": [ls.fontName ?? defaultFont], "text-size": size]
        // max-text-width is in pixels; MapLibre wraps in ems of the text size.
        if let w = ls.maxTextWidth, size > 0 { layout["text-max-width"] = (w / size * 100).rounded() / 100 }
        var paint: [String: Any] = [:]
        if let c = ls.fontColor { paint["text-color"] = css(c) }
        if let c = ls.fontStrokeColor { paint["text-halo-color"] = css(c) }
        // The raster stroke is centred on the glyph outline; a halo grows outward only.
        if let w = ls.fontStrokeWidth { paint["text-halo-width"] = w / 2 }
        return layer(id, "symbol", sourceLayer, geometry, layout, paint, nil)
    }

    /// `icon-name` as an image expression: `{category}` becomes the feature's
    /// category, falling back to its first part (`restroom.female` → `restroom`), like the raster.
    static func iconImage(_ template: String) -> Any {
        guard template.contains("{category}") else { return template }
        let parts = template.components(separatedBy: "{category}")
        func name(_ category: [Any]) -> [Any] { ["image", ["concat", parts[0], category, parts.count > 1 ? parts[1] : ""]] }
        let cat: [Any] = ["get", "category"]
        let head: [Any] = ["slice", cat, 0, ["max", 0, ["index-of", ".", cat]]]
        return ["coalesce", name(cat), name(head)]
    }
}
