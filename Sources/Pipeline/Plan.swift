import Rendering
import TileGeometry

/// The tiles of one floor at one zoom, each with the items that touch it.
public struct FloorZoomPlan: Sendable {
    public var zoom: Int
    /// Sorted by tile id.
    public var tiles: [TileID]
    /// Item indices per tile, in drawing order; parallel to `tiles`.
    public var items: [[Int32]]
}

/// Plan stage: which tiles exist. A tile exists when at least one drawn
/// feature of the floor touches it (with the feature's drawn width as pad,
/// see `TileCoverage`): no blank rectangles of tiles around a venue.
public enum Plan {
    public static func run(floor: PreparedFloor, zoom: Int) -> FloorZoomPlan {
        var map = [TileID: [Int32]]()
        for (i, item) in floor.items.enumerated() {
            let idx = Int32(i)
            let pad = DrawMetrics.pad(for: item.geometry, zoom: zoom)
            TileCoverage.tiles(of: item.geometry, zoom: zoom, pad: pad) { t in
                // A MultiPolygon may report a tile once per part.
                if map[t]?.last != idx { map[t, default: []].append(idx) }
            }
        }
        let tiles = map.keys.sorted()
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: tiles.map { map[$0]! })
    }
}
