import Rendering
import TileGeometry

/// The tiles of one pyramid at one zoom, each with the items that touch it.
public struct FloorZoomPlan: Sendable {
    public var zoom: Int
    /// Sorted by tile id.
    public var tiles: [TileID]
    /// Item indices per tile, in drawing order; parallel to `tiles`.
    public var items: [[Int32]]
}

/// Plan stage: which tiles exist and what each one draws.
///
/// A tile exists when at least one item touches it, so there are no blank
/// rectangles of tiles around a venue. Raster items touch a tile when they
/// meet it grown by their drawn half-width (`DrawMetrics`); vector items are
/// listed for every tile whose buffer they reach, but only tiles they
/// actually meet exist.
public enum Plan {
    public static func run(floor: PreparedFloor, zoom: Int) -> FloorZoomPlan {
        var plan = run(floor.items.map { $0.wholeTile ? .points([]) : $0.geometry }, zoom: zoom,
                       listPad: { DrawMetrics.pad(for: $0, zoom: zoom) })
        // The background makes no tile exist, but fills every tile that does.
        let wholeTile = floor.items.indices.filter { floor.items[$0].wholeTile }.map(Int32.init)
        if !wholeTile.isEmpty { plan.items = plan.items.map { wholeTile + $0 } }
        return plan
    }

    /// The raster plans of a floor at every zoom, with its labels: the items are
    /// the floor's drawn items followed by the labels placed at each zoom (drawn
    /// last, over everything), and each tile lists the labels that touch it.
    public static func raster(floor: PreparedFloor, zooms: [Int]) -> (items: [DrawItem], plans: [FloorZoomPlan]) {
        var items = floor.items
        var plans = [FloorZoomPlan]()
        for z in zooms {
            var plan = run(floor: floor, zoom: z)
            guard (floor.labelStyle != nil && !floor.labels.isEmpty) || !floor.icons.isEmpty else { plans.append(plan); continue }
            let labels = LabelPlacement.place(floor.labels, icons: floor.icons, style: floor.labelStyle, zoom: z)
            let base = Int32(items.count)
            items += labels
            let lp = run(labels.map(\.geometry), zoom: z, listPad: { DrawMetrics.pad(for: $0, zoom: z) })
            var position = [TileID: Int]()
            for (i, t) in plan.tiles.enumerated() { position[t] = i }
            // A label lies inside its unit, so its tiles already exist.
            for (t, idx) in zip(lp.tiles, lp.items) {
                if let i = position[t] { plan.items[i] += idx.map { $0 + base } }
            }
            plans.append(plan)
        }
        return (items, plans)
    }

    public static func run(vector items: [VectorItem], zoom: Int, extent: Int, buffer: Int) -> FloorZoomPlan {
        let pad = Double(buffer) / Double(extent) * WebMercator.tileSpan(zoom: zoom)
        return run(items.map(\.geometry), zoom: zoom, listPad: { _ in pad }, existencePad: { _ in 0 })
    }

    public static func run(_ geometries: [ProjectedGeometry], zoom: Int, listPad: (ProjectedGeometry) -> Double,
                           existencePad: ((ProjectedGeometry) -> Double)? = nil) -> FloorZoomPlan {
        var map = [TileID: [Int32]]()
        for (i, g) in geometries.enumerated() {
            let idx = Int32(i)
            TileCoverage.tiles(of: g, zoom: zoom, pad: listPad(g)) { t in
                // A MultiPolygon may report a tile once per part.
                if map[t]?.last != idx { map[t, default: []].append(idx) }
            }
        }
        var keep: Set<TileID>? = nil
        if let existencePad {
            var s = Set<TileID>()
            for g in geometries { TileCoverage.tiles(of: g, zoom: zoom, pad: existencePad(g)) { s.insert($0) } }
            keep = s
        }
        let tiles = map.keys.filter { keep?.contains($0) ?? true }.sorted()
        return FloorZoomPlan(zoom: zoom, tiles: tiles, items: tiles.map { map[$0]! })
    }
}
