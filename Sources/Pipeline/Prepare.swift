import Drawing
import Styling
import TileGeometry
import VenueModel

/// One floor made ready to draw: its features projected, styled and sorted
/// into the style spec's drawing order. Also the raster-only pyramids drawn
/// the same way (`kind`): the outdoors overview, a building's outlines, a
/// floor's shadows.
public struct PreparedFloor: Sendable {
    public enum Kind: Hashable, Sendable {
        /// An ordinal or building floor (`[FLOOR]`): raster and vector pyramids.
        case floor
        /// `outdoors`: venue, building outlines, outdoor levels, building labels.
        case outdoors
        /// `building_outlines_<building>`: the building's spec id.
        case buildingOutlines(building: String)
        /// `floor_shadows_<floor>`: the floor's id.
        case shadows(floor: String)
    }
    public var floor: Floor
    /// The folder and layer id: the floor's id, or `outdoors`, `building_outlines_building_1`, `floor_shadows_floor_0`.
    public var id: String
    public var kind: Kind = .floor
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
    /// Unit id → the `category-fill-colors` key its fill came from: the
    /// vector tiles carry it (`fill_category`) so a vector style fills rooms
    /// as the raster does, occupant categories included.
    public var fillCategories: [String: String] = [:]
    /// Footprints of the floor's fixtures, which a label reaching past its unit
    /// must not cover and a unit's label moves off where it can.
    public var obstacles: [Obstacle] = []

    public init(floor: Floor, items: [DrawItem], featureIDs: [String], labels: [LabelCandidate] = [],
                labelStyle: LabelStyle? = nil, icons: [IconCandidate] = [], id: String? = nil, kind: Kind = .floor) {
        self.floor = floor; self.items = items; self.featureIDs = featureIDs
        self.labels = labels; self.labelStyle = labelStyle; self.icons = icons
        self.id = id ?? floor.id; self.kind = kind
    }
}

public struct PreparedVenue: Sendable {
    public var sourceID: String
    public var venue: Venue
    /// Ordinal floors, lowest first, then building floors (building by building, lowest first).
    public var floors: [PreparedFloor]
    public var bounds: LonLatBounds
    /// Raster-only pyramids (outdoors, building outlines, floor shadows), when asked for.
    public var overlays: [PreparedFloor] = []
    /// Problems that did not stop preparing (a per-building build of a venue without buildings).
    public var warnings: [String] = []
    /// Held while its features and drawing are (see `LiveVenues`).
    var liveToken: LiveVenues.Token? = nil

    /// A floor (`index < floors.count`) or an overlay after them: the index of a raster pyramid's sheet.
    public func sheet(_ index: Int) -> PreparedFloor {
        index < floors.count ? floors[index] : overlays[index - floors.count]
    }

    /// The floors one stack is made of (the venue-wide vector pyramid, meshes,
    /// the text `level`): the ordinal floors when built, else the building floors.
    public var primaryFloors: [PreparedFloor] {
        floors.contains { $0.floor.building == nil } ? floors.filter { $0.floor.building == nil } : floors
    }

    /// Source building id → spec id (`building_1`).
    public var buildingSpecIDs: [String: String] {
        Dictionary(venue.buildingIndex.map { ($0.id, $0.specID) }, uniquingKeysWith: { a, _ in a })
    }
}

/// What Prepare makes besides the floors.
public struct PrepareOptions: Sendable {
    public var floorKinds: Set<PipelineConfig.FloorKind> = [.ordinal]
    public var outdoors = false
    public var buildingOutlines = false
    public var floorShadows = false
    public init() {}
}

/// Prepare stage: groups levels into floors, projects geometry once, resolves
/// the style of each feature and drops what the style does not draw.
public enum Prepare {
    /// `sprite`: the index that decides which amenities get icons and which
    /// fill patterns exist (the ratio-1 sheet; other ratios hold the same names).
    public static func run(sourceID: String, venue: Venue, style: Style, sprite: Sprite = .builtIn(pixelRatio: 1),
                           options: PrepareOptions = PrepareOptions()) -> PreparedVenue {
        var warnings = [String]()
        var floors = options.floorKinds.contains(.ordinal) ? Floor.group(venue.levels) : []
        if options.floorKinds.contains(.building) {
            let byBuilding = Floor.groupByBuilding(venue.levels, buildings: venue.buildingIndex.map(\.id))
            if byBuilding.isEmpty && !venue.levels.isEmpty {
                warnings.append("\(sourceID): \"floors\": \"building\": no indoor level names a building of the venue; "
                                + (floors.isEmpty ? "building ordinal floors instead" : "only ordinal floors are built"))
                if floors.isEmpty { floors = Floor.group(venue.levels) }
            }
            floors += byBuilding
            if !options.floorKinds.contains(.ordinal) && !byBuilding.isEmpty {
                warnings += levelsLeftOut(venue, byBuilding, outdoors: options.outdoors, sourceID: sourceID)
            }
        }
        let ctx = Context(venue: venue, style: style, sprite: sprite)
        let prepared = floors.map { floor -> PreparedFloor in
            var feats = ctx.venueWide
            for level in floor.levels {
                if let outline = level.outlineFeature { feats.append(outline) }
                feats.append(contentsOf: ctx.byLevel[level.id] ?? [])
            }
            var pf = ctx.drawn(feats, floor: floor, floorIDs: floor.styleIDs, unitLabels: true)
            // A building's name shows on the floors where it has levels (17.3);
            // the outdoors overview shows them all.
            let here = Set(floor.levels.flatMap(\.buildingIDs))
            ctx.addBuildingLabels(&pf) { here.contains($0) }
            return pf
        }
        var out = PreparedVenue(sourceID: sourceID, venue: venue, floors: prepared, bounds: venue.contentBounds)
        out.overlays = overlays(ctx, out, options)
        out.warnings = warnings
        return out
    }

    /// Levels a build of building floors alone does not draw: indoor levels of
    /// no known building, and outdoor levels when the overview is not built.
    static func levelsLeftOut(_ venue: Venue, _ byBuilding: [Floor], outdoors: Bool, sourceID: String) -> [String] {
        let drawn = Set(byBuilding.flatMap { $0.levels.map(\.id) })
        let left = venue.levels.filter { !drawn.contains($0.id) && !($0.outdoor && outdoors) }.map(\.id).sorted()
        guard !left.isEmpty else { return [] }
        return ["\(sourceID): \"floors\": \"building\": \(left.count) level(s) are on no building floor (\(left.prefix(5).joined(separator: ", "))\(left.count > 5 ? ", …" : "")): "
                + "no known building (or outdoor without the outdoors layer); add \"ordinal\" to \"floors\" to draw them"]
    }

    /// What every floor of a venue shares while preparing: the style, the
    /// features by level, occupant names, the text measurer.
    struct Context {
        var venue: Venue
        var style: Style
        var sprite: Sprite
        /// Venue-wide features (venue polygon, footprints): on every floor when the style draws them.
        var venueWide: [Feature]
        var byLevel: [String: [Feature]]
        var occupantName: [String: LocalizedName]
        /// An occupant's category, by the unit its anchor is in (the unit's fill when its own category says little).
        var occupantCategory: [String: String]
        var specID: [String: String]
        var measurer: (any TextMeasuring)?

        init(venue: Venue, style: Style, sprite: Sprite) {
            self.venue = venue; self.style = style; self.sprite = sprite
            var venueWide = venue.features.filter { $0.levelID == nil }
            if let g = venue.geometry {
                venueWide.insert(Feature(id: venue.id, featureClass: .venue, category: venue.category, levelID: nil, geometry: g), at: 0)
            }
            self.venueWide = venueWide
            var byLevel = [String: [Feature]]()
            for f in venue.features { if let l = f.levelID { byLevel[l, default: []].append(f) } }
            self.byLevel = byLevel
            // Occupant names reach units through anchors (as in the vector labels).
            var occupantName = [String: LocalizedName]()
            var occupantCategory = [String: String]()
            for a in venue.features where a.featureClass == .anchor {
                guard let u = a.unitID else { continue }
                if !a.name.isEmpty, occupantName[u] == nil { occupantName[u] = a.name }
                if a.category != "anchor", occupantCategory[u] == nil { occupantCategory[u] = a.category }
            }
            self.occupantName = occupantName
            self.occupantCategory = occupantCategory
            specID = Dictionary(venue.buildingIndex.map { ($0.id, $0.specID) }, uniquingKeysWith: { a, _ in a })
            measurer = Prepare.textMeasurer()
        }

        /// The ids a `[BUILDING]` entry may name for a source building: its spec id, then its source id.
        func buildingIDs(_ source: String?) -> [String] {
            guard let source else { return [] }
            return specID[source].map { [$0, source] } ?? [source]
        }

        /// The features styled, projected and sorted into drawing order, with
        /// icons and (when `unitLabels`) unit labels.
        func drawn(_ feats: [Feature], floor: Floor, floorIDs: [String], unitLabels: Bool,
                   id: String? = nil, kind: PreparedFloor.Kind = .floor, background: Bool = true) -> PreparedFloor {
            var drawn = [(order: Int, seq: Int, item: DrawItem, id: String)]()
            var icons = [IconCandidate]()
            var fillCategories = [String: String]()
            let area = FloorArea.rings(feats)
            let doorClip = area.rings.isEmpty ? nil : ClipArea(rings: area.rings)
            if let slab = FloorArea.slab(area, floor: floor, style: style) {
                drawn.append((LayerTable.drawIndex(of: "floor_outlines_[FLOOR]"), -1, slab, "floor-slab"))
            }
            let iconStyle = style.resolve("floor_icons_[FLOOR]", floors: floorIDs).flatMap { $0.hidden ? nil : $0.iconName }
            for (seq, f) in feats.enumerated() {
                guard let template = LayerTable.template(for: f.featureClass),
                      let ls = style.resolve(template, floors: floorIDs, buildings: buildingIDs(f.buildingID)), !ls.drawsNothing else { continue }
                let g = ProjectedGeometry(f.geometry)
                if f.sourcePaint?.hidden == true { continue }
                // Units by category (food, shops, services, ...) when the style says so; the venue's own colour wins.
                let fillKey = PrepareVector.isUnitClass(f.featureClass) ? ls.categoryFillKey(f.category, occupant: occupantCategory[f.id]) : nil
                let fill = fillKey.flatMap { ls.categoryFillColors[$0] }
                var paint = Prepare.sourcePainted(Paint(fill: fill ?? ls.fillColor, outline: ls.outlineColor, line: ls.lineColor), f.sourcePaint, g)
                if let p = ls.fillPattern, sprite.images[p] != nil { paint.pattern = p }
                guard Prepare.draws(paint, g) else { continue }
                if let fillKey, paint.fill == fill { fillCategories[f.id] = fillKey }
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
            if background, let bg = style.resolve("background", floors: floorIDs), !bg.hidden, let c = bg.fillColor {
                drawn.append((LayerTable.drawIndex(of: "background"), -1, DrawItem(geometry: .points([]), paint: Paint(fill: c), wholeTile: true), "background"))
            }
            drawn.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
            var pf = PreparedFloor(floor: floor, items: drawn.map(\.item), featureIDs: drawn.map(\.id), id: id, kind: kind)
            pf.icons = icons
            pf.fillCategories = fillCategories
            pf.area = area.rings
            pf.obstacles = feats.filter { ($0.featureClass == .fixture || $0.featureClass == .water) && $0.levelID != nil }
                .flatMap { f -> [Obstacle] in
                    let g = ProjectedGeometry(f.geometry)
                    if case .polygons(let polys) = g { return polys.map(Obstacle.init(rings:)) }
                    let b = g.bounds
                    return b.minX <= b.maxX ? [Obstacle(rings: LabelPlacement.ring(b))] : []
                }
            if unitLabels, let measurer, let ls = LabelStyle.resolve(style, floors: floorIDs) {
                pf.labelStyle = ls
                pf.labels = Prepare.labelCandidates(feats, floorIDs: floorIDs, context: self, labelStyle: ls, measurer: measurer)
            }
            return pf
        }

        /// Adds the labels of the buildings `shows` accepts (source ids).
        func addBuildingLabels(_ pf: inout PreparedFloor, _ shows: (String) -> Bool) {
            guard let measurer else { return }
            pf.labels += Prepare.buildingLabels(self, measurer: measurer, shows: shows)
            if pf.labelStyle == nil, !pf.labels.isEmpty { pf.labelStyle = pf.labels[0].style }
        }
    }

    /// Building names (`building_labels_[BUILDING]`) on their footprints, for
    /// the buildings `shows` accepts (source ids). They rank below unit labels:
    /// they show where units are too small for their own names.
    static func buildingLabels(_ ctx: Context, measurer: any TextMeasuring, shows: (String) -> Bool) -> [LabelCandidate] {
        let venue = ctx.venue
        var names = [String: LocalizedName]()
        for b in venue.buildings where !b.name.isEmpty { names[b.id] = b.name }
        var out = [LabelCandidate]()
        for f in venue.features where f.featureClass == .building {
            guard let id = f.buildingID ?? Optional(f.id), shows(id),
                  let ls = LabelStyle.resolve(ctx.style, template: "building_labels_[BUILDING]", floors: [], buildings: ctx.buildingIDs(id)),
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
    static func labelCandidates(_ feats: [Feature], floorIDs: [String], context ctx: Context, labelStyle: LabelStyle,
                                measurer: any TextMeasuring) -> [LabelCandidate] {
        var out = [LabelCandidate]()
        for f in feats where PrepareVector.isUnitClass(f.featureClass) && f.sourcePaint?.hidden != true {
            guard let template = LayerTable.template(for: f.featureClass),
                  let ls = ctx.style.resolve(template, floors: floorIDs, buildings: ctx.buildingIDs(f.buildingID)), !ls.drawsNothing else { continue }
            let name = f.name.isEmpty ? (ctx.occupantName[f.id] ?? f.name) : f.name
            guard let text = name.text(preferring: ctx.venue.language), !text.isEmpty,
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
