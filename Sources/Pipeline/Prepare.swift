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
    public static func run(sourceID: String, venue: Venue, style: Style) -> PreparedVenue {
        let floors = Floor.group(venue.levels)
        // Venue-wide features (venue polygon, footprints) appear on every floor when the style draws them.
        let shared = venue.features.filter { $0.levelID == nil }
        var venueWide = shared
        if let g = venue.geometry {
            venueWide.insert(Feature(id: venue.id, featureClass: .venue, category: venue.category, levelID: nil, geometry: g), at: 0)
        }
        var byLevel = [String: [Feature]]()
        for f in venue.features { if let l = f.levelID { byLevel[l, default: []].append(f) } }

        let prepared = floors.map { floor -> PreparedFloor in
            var feats = venueWide
            for level in floor.levels {
                if let outline = level.outlineFeature { feats.append(outline) }
                feats.append(contentsOf: byLevel[level.id] ?? [])
            }
            var drawn = [(order: Int, seq: Int, item: DrawItem, id: String)]()
            for (seq, f) in feats.enumerated() {
                guard let template = LayerTable.template(for: f.featureClass),
                      let ls = style.resolve(template, floor: floor.id, building: f.buildingID), !ls.drawsNothing else { continue }
                let g = ProjectedGeometry(f.geometry)
                if f.sourcePaint?.hidden == true { continue }
                let paint = sourcePainted(Paint(fill: ls.fillColor, outline: ls.outlineColor, line: ls.lineColor), f.sourcePaint, g)
                guard draws(paint, g) else { continue }
                drawn.append((LayerTable.drawIndex(of: template), seq, DrawItem(geometry: g, paint: paint), f.id))
            }
            drawn.sort { ($0.order, $0.seq) < ($1.order, $1.seq) }
            return PreparedFloor(floor: floor, items: drawn.map(\.item), featureIDs: drawn.map(\.id))
        }
        return PreparedVenue(sourceID: sourceID, venue: venue, floors: prepared, bounds: venue.contentBounds)
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
