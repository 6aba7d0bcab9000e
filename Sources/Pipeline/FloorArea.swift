import Drawing
import Styling
import TileGeometry
import VenueModel

/// The area a floor covers, for the raster drawing: door lines are clipped to
/// it (an exterior door is drawn inside the wall, not half outside it), and a
/// floor with no level polygon (OSM data often has none) gets a slab drawn
/// from its units, so rooms do not float on nothing.
enum FloorArea {
    /// How far the slab reaches past the units: it closes wall gaps between
    /// rooms up to twice this wide and draws the outer wall as the slab's outline.
    static let slabGrowMetres = 0.5

    /// The exterior rings of the floor's level polygons, else of its units,
    /// each counter-clockwise (one orientation, so non-zero winding fills
    /// their union); and whether they came from level polygons.
    static func rings(_ feats: [Feature]) -> (rings: [[MercatorPoint]], fromLevels: Bool) {
        func exteriors(_ fs: [Feature]) -> [[MercatorPoint]] {
            var out = [[MercatorPoint]]()
            for f in fs {
                guard case .polygons(let polys) = ProjectedGeometry(f.geometry) else { continue }
                for p in polys {
                    guard let ext = p.first, ext.count >= 4 else { continue }
                    out.append(Planar.signedArea(ext) < 0 ? ext.reversed() : ext)
                }
            }
            return out
        }
        let levels = exteriors(feats.filter { $0.featureClass == .levelOutline })
        if !levels.isEmpty { return (levels, true) }
        return (exteriors(feats.filter { $0.levelID != nil && PrepareVector.isUnitClass($0.featureClass) }), false)
    }

    /// The slab of a floor without level polygons: its units' union, grown,
    /// in the style's `floor_outlines_[FLOOR]` paint; nil when the floor has
    /// level polygons, no units, or the style does not draw floor outlines.
    static func slab(_ area: (rings: [[MercatorPoint]], fromLevels: Bool), floor: Floor, style: Style) -> DrawItem? {
        guard !area.fromLevels, !area.rings.isEmpty,
              let ls = style.resolve("floor_outlines_[FLOOR]", floor: floor.id), !ls.drawsNothing,
              ls.fillColor != nil || ls.outlineColor != nil else { return nil }
        var item = DrawItem(geometry: .polygons(area.rings.map { [$0] }), paint: Paint(fill: ls.fillColor, outline: ls.outlineColor))
        item.grow = slabGrowMetres
        return item
    }
}
