import Rendering
import Styling
import TileGeometry
import VenueModel

/// One floor made ready to draw: its features projected, styled and sorted
/// into the style spec's drawing order.
public struct PreparedFloor: Sendable {
    public var floor: Floor
    public var id: String { floor.id }
    /// Drawn features in drawing order.
    public var items: [DrawItem]
    /// The source feature id of each item (for messages and the manifest).
    public var featureIDs: [String]
    /// Named units that may carry a raster label, and how labels look (nil: no labels).
    public var labels: [LabelCandidate] = []
    public var labelStyle: LabelStyle?
    /// Point amenities, drawn as icons or dots as placement decides per zoom (with the labels).
    public var icons: [IconCandidate] = []
    /// The floor's outline (level polygons, else units), exterior rings of one
    /// orientation: where a large unit's label may reach past its unit.
    public var area: [[MercatorPoint]] = []
    /// Boxes of the floor's fixtures, which a label reaching past its unit must not cover.
    public var obstacles: [MercatorRect] = []

    public init(floor: Floor, items: [DrawItem], featureIDs: [String], labels: [LabelCandidate] = [],
                labelStyle: LabelStyle? = nil, icons: [IconCandidate] = []) {
        self.floor = floor; self.items = items; self.featureIDs = featureIDs
        self.labels = labels; self.labelStyle = labelStyle; self.icons = icons
    }
}

public struct PreparedVenue: Sendable {
    public var sourceID: String
    public var venue: Venue
    public var floors: [PreparedFloor]
    public var bounds: LonLatBounds
}

/// Prepare stage: groups levels into floors, projects geometry once, resolves
/// the style of each feature and drops what the style does not draw.
public enum Prepare {
    /// `sprite`: the index that decides which amenities get icons and which
    /// fill patterns exist (the ratio-1 sheet; other ratios hold the same names).
    public static func run(sourceID: String, venue: Venue, style: Style, sprite: Sprite = .builtIn(pixelRatio: 1)) -> PreparedVenue {
        let floors = Floor.group(venue.levels)
        // Venue-wide features (venue polygon, footprints) appear on every floor when the style draws them.
        let shared = venue.features.filter { $0.levelID == nil }
        var venueWide = shared
        if let g = venue.geometry {
            venueWide.insert(Feature(id: venue.id, featureClass: .venue, category: venue.category, levelID: nil, geometry: g), at: 0)
        }
        var byLevel = [String: [Feature]]()
        for f in venue.features { if let l = f.levelID { byLevel[l, default: []].append(f) } }

        // Occupant names reach units through anchors (as in the vector labels).
        var occupantName = [String: LocalizedName]()
        var occupantCategory = [String: String]()
        for a in venue.features where a.featureClass == .anchor {
            guard let u = a.unitID else { continue }
            if !a.name.isEmpty, occupantName[u] == nil { occupantName[u] = a.name }
            if a.category != "anchor", occupantCategory[u] == nil { occupantCategory[u] = a.category }
        }
        let measurer = try? TextMeasurer()

        let prepared = floors.map { floor -> PreparedFloor in
            var feats = venueWide
            for level in floor.levels {
                if let outline = level.outlineFeature { feats.append(outline) }
                feats.append(contentsOf: byLevel[level.id] ?? [])
            }
            var drawn = [(order: Int, seq: Int, item: DrawItem, id: String)]()
            var icons = [IconCandidate]()
            let area = FloorArea.rings(feats)
            let doorClip = area.rings.isEmpty ? nil : ClipArea(rings: area.rings)
            if let slab = FloorArea.slab(area, floor: floor, style: style) {
                drawn.append((LayerTable.drawIndex(of: "floor_outlines_[FLOOR]"), -1, slab, "floor-slab"))
            }
            let iconStyle = style.resolve("floor_icons_[FLOOR]", floor: floor.id).flatMap { $0.hidden ? nil : $0.iconName }
            for (seq, f) in feats.enumerated() {
                guard let template = LayerTable.template(for: f.featureClass),
                      let ls = style.resolve(template, floor: floor.id, building: f.buildingID), !ls.drawsNothing else { continue }
                let g = ProjectedGeometry(f.geometry)
                if f.sourcePaint?.hidden == true { continue }
                // Units by category (food, shops, services, ...) when the style says so; the venue's own colour wins.
                let fill = PrepareVector.isUnitClass(f.featureClass) ? ls.categoryFill(f.category, occupant: occupantCategory[f.id]) : nil
                var paint = sourcePainted(Paint(fill: fill ?? ls.fillColor, outline: ls.outlineColor, line: ls.lineColor), f.sourcePaint, g)
                if let p = ls.fillPattern, sprite.images[p] != nil { paint.pattern = p }
                guard draws(paint, g) else { continue }
                // Point amenities are placed per zoom with the labels (icon, dot, or
                // nothing where more important ones crowd them out).
                if f.featureClass == .amenity, case .points(let pts) = g, pts.count == 1 {
                    let image = iconStyle.flatMap { sprite.iconName($0, category: f.category) }
                    icons.append(IconCandidate(featureID: f.id, anchor: pts[0], name: image?.name, width: image?.image.logicalWidth ?? 0,
                                               height: image?.image.logicalHeight ?? 0, fallback: DrawItem(geometry: g, paint: paint),
                                               tier: Cartography.amenityTier(f.category)))
                    continue
                }
                var item = DrawItem(geometry: g, paint: paint)
                if f.featureClass == .opening, case .lines = g { item.clip = doorClip }
                drawn.append((LayerTable.drawIndex(of: template), seq, item, f.id))
            }
            if let bg = style.resolve("background", floor: floor.id), !bg.hidden, let c = bg.fillColor {
                drawn.append((LayerTable.drawIndex(of: "background"), -1, DrawItem(geometry: .points([]), paint: Paint(fill: c), wholeTile: true), "background"))
            }
            drawn.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
            var pf = PreparedFloor(floor: floor, items: drawn.map(\.item), featureIDs: drawn.map(\.id))
            pf.icons = icons
            pf.area = area.rings
            pf.obstacles = feats.filter { ($0.featureClass == .fixture || $0.featureClass == .water) && $0.levelID != nil }
                .map { ProjectedGeometry($0.geometry).bounds }.filter { $0.minX <= $0.maxX }
            if let measurer, let ls = LabelStyle.resolve(style, floor: floor.id) {
                pf.labelStyle = ls
                pf.labels = labelCandidates(feats, floor: floor, style: style, labelStyle: ls, language: venue.language,
                                            occupantName: occupantName, measurer: measurer)
            }
            if let measurer {
                pf.labels += buildingLabels(venue, style: style, measurer: measurer)
                if pf.labelStyle == nil, !pf.labels.isEmpty { pf.labelStyle = pf.labels[0].style }
            }
            return pf
        }
        return PreparedVenue(sourceID: sourceID, venue: venue, floors: prepared, bounds: venue.contentBounds)
    }

    /// Building names (`building_labels_[BUILDING]`) on their footprints, on every floor.
    /// They rank below unit labels: they show where units are too small for their own names.
    static func buildingLabels(_ venue: Venue, style: Style, measurer: TextMeasurer) -> [LabelCandidate] {
        var names = [String: LocalizedName]()
        for b in venue.buildings where !b.name.isEmpty { names[b.id] = b.name }
        var out = [LabelCandidate]()
        for f in venue.features where f.featureClass == .building {
            guard let id = f.buildingID ?? Optional(f.id),
                  let ls = LabelStyle.resolve(style, template: "building_labels_[BUILDING]", building: id),
                  let text = (f.name.isEmpty ? names[id] : f.name)?.text(preferring: venue.language), !text.isEmpty,
                  case .polygons(let polys) = ProjectedGeometry(f.geometry),
                  let a = PrepareVector.pole(polys),
                  let rings = polys.first(where: { Planar.contains(rings: $0, a) }) else { continue }
            out.append(LabelCandidate(featureID: f.id, layout: measurer.layout(text, style: ls), anchor: a, rings: rings,
                                      area: polys.reduce(0) { $0 + abs(Planar.signedArea($1[0])) }, style: ls, rank: 1))
        }
        return out
    }

    /// Named units of a floor whose own layer is drawn, with their text laid out.
    static func labelCandidates(_ feats: [Feature], floor: Floor, style: Style, labelStyle: LabelStyle, language: String?,
                                occupantName: [String: LocalizedName], measurer: TextMeasurer) -> [LabelCandidate] {
        var out = [LabelCandidate]()
        for f in feats where PrepareVector.isUnitClass(f.featureClass) && f.sourcePaint?.hidden != true {
            guard let template = LayerTable.template(for: f.featureClass),
                  let ls = style.resolve(template, floor: floor.id, building: f.buildingID), !ls.drawsNothing else { continue }
            let name = f.name.isEmpty ? (occupantName[f.id] ?? f.name) : f.name
            guard let text = name.text(preferring: language), !text.isEmpty,
                  case .polygons(let polys) = ProjectedGeometry(f.geometry) else { continue }
            // The display point when it lies in the unit, else the pole of inaccessibility.
            var anchor = f.displayPoint.map(WebMercator.project)
            if let a = anchor, !polys.contains(where: { Planar.contains(rings: $0, a) }) { anchor = nil }
            guard let a = anchor ?? PrepareVector.pole(polys),
                  let rings = polys.first(where: { Planar.contains(rings: $0, a) }) else { continue }
            out.append(LabelCandidate(featureID: f.id, layout: measurer.layout(text, style: labelStyle), anchor: a, rings: rings,
                                      area: polys.reduce(0) { $0 + abs(Planar.signedArea($1[0])) },
                                      weight: Cartography.labelWeight(f.featureClass, category: f.category),
                                      spills: f.featureClass == .walkway))
        }
        return out
    }

    /// The venue data's own colour (MVF styles) over the style document's: it
    /// replaces the fill of polygons and the line colour of lines, with its opacity.
    static func sourcePainted(_ p: Paint, _ sp: SourcePaint?, _ g: ProjectedGeometry) -> Paint {
        guard let sp, let hex = sp.color, var c = Color(hex: hex) else { return p }
        if let o = sp.opacity { c.a = UInt8((max(0, min(1, o)) * Double(c.a)).rounded()) }
        var out = p
        switch g {
        case .polygons, .points: out.fill = c
        case .lines: out.line = c
        }
        return out
    }

    /// Whether a paint draws anything for this kind of geometry (mirrors TileRenderer).
    static func draws(_ p: Paint, _ g: ProjectedGeometry) -> Bool {
        switch g {
        case .polygons, .points: return p.fill != nil || p.outline != nil
        case .lines: return p.line != nil || p.outline != nil
        }
    }
}
