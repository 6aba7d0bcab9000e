import Rendering
import TileGeometry
import VenueModel

/// A named unit that may carry a label.
public struct LabelCandidate: Sendable {
    public var featureID: String
    public var layout: TextLayout
    /// Display point (when inside the unit) or pole of inaccessibility.
    public var anchor: MercatorPoint
    /// The rings of the unit's polygon that holds the anchor (exterior first).
    public var rings: [[MercatorPoint]]
    public var area: Double
}

/// Where labels go, decided once per floor and zoom for the whole floor.
///
/// Because placement never looks at tile boundaries, a label that crosses a
/// tile edge is drawn whole, at the same pixels, in every tile it touches —
/// the seam-free result metatiles aim for, with no metatile edges left to cut
/// labels at. Rules, in this order:
/// 1. larger units first (then by feature id), so the same input always gives
///    the same labels;
/// 2. a label is placed only when its box (text + halo + 2 px) lies inside its
///    unit at that zoom;
/// 3. a label never overlaps an already placed one.
public enum LabelPlacement {
    /// Clearance around the text, in pixels, beyond the halo.
    public static let marginPx = 2.0

    /// The labels placed at `zoom`, as draw items whose geometry is the label's box.
    public static func place(_ candidates: [LabelCandidate], style: LabelStyle, zoom: Int) -> [DrawItem] {
        let mpp = DrawMetrics.metresPerPixel(zoom: zoom)
        let pad = style.haloWidth + marginPx
        let order = candidates.indices.sorted {
            let a = candidates[$0], b = candidates[$1]
            return a.area != b.area ? a.area > b.area : a.featureID < b.featureID
        }
        // Placed boxes in a grid of 256 px cells.
        let cell = 256 * mpp
        var grid = [Int64: [MercatorRect]]()
        func key(_ cx: Int64, _ cy: Int64) -> Int64 { cx &* 73_856_093 ^ cy &* 19_349_663 }
        var out = [DrawItem]()
        for i in order {
            let c = candidates[i]
            let hw = (c.layout.width / 2 + pad) * mpp, hh = (c.layout.height / 2 + pad) * mpp
            let box = MercatorRect(minX: c.anchor.x - hw, minY: c.anchor.y - hh, maxX: c.anchor.x + hw, maxY: c.anchor.y + hh)
            guard !c.layout.lines.isEmpty, fits(box, in: c.rings) else { continue }
            let x0 = Int64((box.minX / cell).rounded(.down)), x1 = Int64((box.maxX / cell).rounded(.down))
            let y0 = Int64((box.minY / cell).rounded(.down)), y1 = Int64((box.maxY / cell).rounded(.down))
            var collides = false
            outer: for cx in x0...x1 {
                for cy in y0...y1 {
                    for b in grid[key(cx, cy)] ?? [] where b.intersects(box) { collides = true; break outer }
                }
            }
            if collides { continue }
            for cx in x0...x1 { for cy in y0...y1 { grid[key(cx, cy), default: []].append(box) } }
            let ring = [MercatorPoint(x: box.minX, y: box.minY), MercatorPoint(x: box.maxX, y: box.minY),
                        MercatorPoint(x: box.maxX, y: box.maxY), MercatorPoint(x: box.minX, y: box.maxY)]
            out.append(DrawItem(geometry: .polygons([[ring]]), paint: Paint(),
                                label: LabelDraw(anchor: c.anchor, layout: c.layout, style: style)))
        }
        return out
    }

    /// True when the box lies inside the polygon: its corners are inside (even-odd
    /// over all rings, so holes count) and no ring edge meets the box.
    static func fits(_ b: MercatorRect, in rings: [[MercatorPoint]]) -> Bool {
        guard let ext = rings.first, !ext.isEmpty else { return false }
        var e = MercatorRect.empty
        ext.forEach { e.extend($0) }
        guard b.minX >= e.minX, b.maxX <= e.maxX, b.minY >= e.minY, b.maxY <= e.maxY else { return false }
        for corner in [MercatorPoint(x: b.minX, y: b.minY), MercatorPoint(x: b.maxX, y: b.minY),
                       MercatorPoint(x: b.maxX, y: b.maxY), MercatorPoint(x: b.minX, y: b.maxY)] {
            if !Planar.contains(rings: rings, corner) { return false }
        }
        for r in rings {
            for i in 0..<(r.count - 1) where Planar.segment(r[i], r[i + 1], intersects: b) { return false }
        }
        return true
    }
}
