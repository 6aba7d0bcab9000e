import Drawing
import Foundation
import Styling
import TileGeometry
import VenueModel

/// The style spec's raster pyramids besides the floors: `outdoors`,
/// `building_outlines_[BUILDING]` and `floor_shadows_[FLOOR]`. Each is a
/// `PreparedFloor` of its own kind, so it is planned, keyed, rendered and
/// listed like a floor.
extension Prepare {
    static func overlays(_ ctx: Context, _ v: PreparedVenue, _ options: PrepareOptions) -> [PreparedFloor] {
        var out = [PreparedFloor]()
        let overview = overviewContext(ctx)
        if options.outdoors, ctx.style.layers["outdoors"]?.hidden != true, let o = outdoors(overview) { out.append(o) }
        if options.buildingOutlines { out += buildingOutlines(overview) }
        if options.floorShadows { out += v.floors.compactMap { shadows(ctx, $0) } }
        return out
    }

    /// Paint of the venue and building outlines in the overview pyramids when
    /// the style's wildcard entry draws nothing there (the built-in style hides
    /// both on floor tiles, which a client lays over the overview).
    static let overviewVenue = LayerStyle.paint(fill: Color(r: 0xED, g: 0xEB, b: 0xE6), outline: Color(r: 0xC9, g: 0xC4, b: 0xB8))
    static let overviewBuilding = LayerStyle.paint(fill: Color(r: 0xE2, g: 0xDF, b: 0xD8), outline: Color(r: 0x9C, g: 0x95, b: 0x87))

    /// The context of the overview pyramids: `venue` and `building_outlines_[BUILDING]`
    /// entries that draw nothing (hidden, or no colour) get the overview's paint.
    /// An exact entry (`building_outlines_building_2`) is the style's word: hidden stays hidden.
    static func overviewContext(_ ctx: Context) -> Context {
        var c = ctx
        for (id, paint) in [("venue", overviewVenue), ("building_outlines_[BUILDING]", overviewBuilding)] {
            if c.style.layers[id]?.drawsNothing ?? true { c.style.layers[id] = paint }
        }
        return c
    }

    /// `outdoors`: what a client shows when no floor is active — the venue, every
    /// building's outline, the outdoor levels with their features, and the
    /// building labels; no unit labels.
    static func outdoors(_ ctx: Context) -> PreparedFloor? {
        let levels = ctx.venue.levels.filter(\.outdoor)
        var feats = ctx.venueWide
        for level in levels {
            if let outline = level.outlineFeature { feats.append(outline) }
            feats += ctx.byLevel[level.id] ?? []
        }
        var pf = ctx.drawn(feats, floor: Floor(ordinal: 0, levels: levels), floorIDs: ["outdoors"], unitLabels: false,
                           id: "outdoors", kind: .outdoors)
        ctx.addBuildingLabels(&pf) { _ in true }
        return pf.items.contains(where: { !$0.wholeTile }) ? pf : nil
    }

    /// `building_outlines_<building>`: the building's footprints, or where it
    /// has none, the outlines of its levels, in the building's
    /// `building_outlines_[BUILDING]` style; transparent elsewhere.
    static func buildingOutlines(_ ctx: Context) -> [PreparedFloor] {
        ctx.venue.buildingIndex.compactMap { b -> PreparedFloor? in
            let levels = ctx.venue.levels.filter { $0.buildingIDs.contains(b.id) }
            var feats = ctx.venue.features.filter { $0.featureClass == .building && ($0.buildingID ?? $0.id) == b.id }
            if feats.isEmpty {
                feats = levels.compactMap(\.outlineFeature).map {
                    var f = $0
                    f.featureClass = .building; f.buildingID = b.id; f.levelID = nil
                    return f
                }
            }
            let pf = ctx.drawn(feats, floor: Floor(ordinal: 0, levels: levels), floorIDs: [], unitLabels: false,
                               id: "building_outlines_\(b.specID)", kind: .buildingOutlines(building: b.specID), background: false)
            return pf.items.isEmpty ? nil : pf
        }
    }

    /// The colour of shadows when the style's `floor_shadows_[FLOOR]` entry gives none.
    static let defaultShadow = Color(r: 0, g: 0, b: 0, a: 0x4D)
    /// How far a shadow reaches from the edge that casts it, in metres on the ground.
    static let shadowReachMetres = 0.8
    /// Strokes per shadow: each one step further from the edge and fainter.
    static let shadowSteps = 4
    /// Side of the cells shadow edges are grouped in, in Mercator metres.
    static let shadowCellMetres = 16.0
    struct Cell: Hashable { var x: Int; var y: Int }

    /// `floor_shadows_<floor>`: a soft shadow cast south-east by the floor's
    /// walls, fixtures and unit outlines, to lay over a client's own vector
    /// rendering; transparent elsewhere. Drawn as `shadowSteps` strokes of the
    /// edges, each moved further and fainter, so the shadow fades with distance
    /// (the same items every build: deterministic). Its colour and alpha are the
    /// `fill-color` of the floor's `floor_shadows_[FLOOR]` entry; hidden: none.
    static func shadows(_ ctx: Context, _ f: PreparedFloor) -> PreparedFloor? {
        let entry = ctx.style.resolve("floor_shadows_[FLOOR]", floors: f.floor.styleIDs)
        if entry?.hidden == true { return nil }
        let color = entry?.fillColor ?? defaultShadow
        guard color.a > 0 else { return nil }
        // Nearer strokes darker; together they add up to about the entry's alpha at the edge.
        let steps = (1...shadowSteps).map { step -> (offset: Double, color: Color) in
            var c = color
            c.a = UInt8((Double(color.a) * 2 * Double(shadowSteps + 1 - step) / Double(shadowSteps * (shadowSteps + 1))).rounded())
            return (Double(step) / Double(shadowSteps), c)
        }.filter { $0.color.a > 0 }
        // The casting edges as segments, grouped into square cells by their
        // middle: a tile draws only the cells that reach it, and a wall that two
        // units share (the same segment twice) is in one stroke, so its shadow
        // is not darkened twice.
        var cells = [Cell: [[MercatorPoint]]]()
        var cellIDs = [Cell: String]()
        var anchor: MercatorPoint?
        for level in f.floor.levels {
            for feat in ctx.byLevel[level.id] ?? [] where castsShadow(feat.featureClass) && feat.sourcePaint?.hidden != true {
                var lines = [[MercatorPoint]]()
                switch ProjectedGeometry(feat.geometry) {
                case .polygons(let polys): for rings in polys { lines += rings.map { $0 + [$0[0]] } }
                case .lines(let ls): lines += ls
                case .points: break
                }
                for l in lines where l.count >= 2 {
                    if anchor == nil { anchor = l[0] }
                    for i in 1..<l.count where l[i - 1] != l[i] {
                        let c = Cell(x: Int(((l[i - 1].x + l[i].x) / 2 / shadowCellMetres).rounded(.down)),
                                     y: Int(((l[i - 1].y + l[i].y) / 2 / shadowCellMetres).rounded(.down)))
                        cells[c, default: []].append([l[i - 1], l[i]])
                        if cellIDs[c] == nil { cellIDs[c] = feat.id }
                    }
                }
            }
        }
        guard let any = anchor else { return nil }
        // Mercator metres per ground metre at the floor's latitude (taken once: a floor is small).
        let reach = shadowReachMetres / max(0.01, cos(WebMercator.unproject(any).lat * .pi / 180))
        var items = [DrawItem](), ids = [String]()
        for c in cells.keys.sorted(by: { ($0.y, $0.x) < ($1.y, $1.x) }) {
            for (offset, color) in steps {
                let d = reach * offset / 2.squareRoot()
                items.append(DrawItem(geometry: .lines(cells[c]!.map { $0.map { MercatorPoint(x: $0.x + d, y: $0.y - d) } }), paint: Paint(line: color)))
                ids.append(cellIDs[c]!)
            }
        }
        guard !items.isEmpty else { return nil }
        return PreparedFloor(floor: f.floor, items: items, featureIDs: ids,
                             id: "floor_shadows_\(f.id)", kind: .shadows(floor: f.id))
    }

    /// Walls and what stands up from the floor (units and fixtures) cast shadows;
    /// open areas, openings and points do not.
    static func castsShadow(_ c: FeatureClass) -> Bool {
        switch c {
        case .wall, .fixture, .elevator, .stairs, .restroom, .nonPublic, .otherRoom, .room, .water: return true
        default: return false
        }
    }
}
